#!/usr/bin/env python3
"""Makes bench/startup.order, the order in which the release link lays out functions.

usage: startup-order.py relink NAME OUT      an unstripped copy of a release function binary,
                                             linked from the same objects (.build/release.yaml)
       startup-order.py examples WORK        every function's golden examples once under
                                             callgrind, on unstripped copies in WORK
       startup-order.py order WORK GROUP...  the order: one linker symbol a line, on stdout.
                                             A GROUP is a function (its runs are
                                             WORK/NAME.*.callgrind) or LABEL=NAME (runs
                                             WORK/LABEL.*.callgrind of that function's binary)

Why: a fresh process touches under 1 MB of the 13 MB of code in a function binary, scattered
over all of it, and the kernel maps each touched page with its neighbours (fault-around), so
nearly all the code became resident: 8.6 of verify-signed-data's 15 MiB. lld's
--symbol-ordering-file puts the functions that run first side by side. bench/make-order.sh
runs this over the bench's requests and every function's examples; a name the code no longer
has is skipped by the linker. Every function binary holds every function's code, so the order
is shared: code that more functions ran comes first (start-up, settings, the store, logging),
then each function's own code side by side, so each process touches few pages of either.
"""
import glob
import json
import os
import re
import subprocess
import sys

import examples


def relink(name, out):
    """The release link command of `name`, without `-s`, writing `out` and its link map
    `out`.map."""
    yaml = open(".build/release.yaml").read()
    match = re.search(r'description: "Linking \./\.build/[^"]*/release/' + re.escape(name) + r'"\n    args: (\[.*\])', yaml)
    if not match:
        sys.exit(f"no release link command for {name}: run make release first")
    arguments, kept, index = json.loads(match.group(1)), [], 0
    while index < len(arguments):
        if arguments[index] == "-Xlinker" and index + 1 < len(arguments) and arguments[index + 1] == "-s":
            index += 2
            continue
        kept.append(arguments[index])
        index += 1
    kept[kept.index("-o") + 1] = out
    subprocess.run(kept + ["-Xlinker", f"-Map={out}.map"], check=True)


def unmovable_symbols(link_map):
    """Symbols whose code sits in a large input section (64 KiB or more) of .text: the
    prebuilt Swift runtime, Foundation and OpenSSL objects not compiled one section per
    function. The linker moves such a section whole, so listing it early would put up to
    1.6 MB between the functions that do move; they are listed last instead."""
    entry = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+( +)(.*)$")
    output, large, found = None, False, set()
    for line in open(link_map, errors="replace"):
        match = entry.match(line.rstrip("\n"))
        if not match:
            continue
        indent, text = len(match.group(2)), match.group(3)
        if indent == 1:
            output = text
        elif output == ".text" and indent == 9:
            large = int(match.group(1), 16) >= 64 * 1024
        elif output == ".text" and large:
            found.add(text.strip())
    return found


def executed_functions(callgrind_file):
    """Every function name callgrind recorded (as it prints them: C++ demangled, Swift not)."""
    names = {}
    for line in open(callgrind_file, errors="replace"):
        for key in ("fn=", "cfn="):
            if line.startswith(key):
                match = re.match(r"\((\d+)\)(?: (.*))?", line[len(key):].rstrip("\n"))
                if match and match.group(2):
                    names[match.group(1)] = match.group(2)
    return set(names.values())


def ran_symbols(binary, callgrind_files):
    """The binary's linker symbols of the functions that ran, in address order."""
    ran = set()
    for path in callgrind_files:
        ran |= executed_functions(path)
    listing = ["nm", "-n", "--defined-only", binary]
    raw = subprocess.run(listing, capture_output=True, text=True, check=True).stdout
    demangled = subprocess.run(listing[:1] + ["-C"] + listing[1:], capture_output=True, text=True, check=True).stdout
    found = []
    for line, readable in zip(raw.splitlines(), demangled.splitlines()):
        parts, shown = line.split(None, 2), readable.split(None, 2)
        if len(parts) == 3 and parts[1] in "tTwW" and (parts[2] in ran or shown[2] in ran):
            found.append(parts[2])
    return found


def run_examples(work):
    """Each example once under callgrind: WORK/NAME.example-EXAMPLE.callgrind."""
    for function, path in examples.examples():
        binary = os.path.join(work, function)
        if not os.path.exists(binary):
            relink(function, binary)
        _, environment, request = examples.prepare(path, work)
        out = os.path.join(work, f"{function}.example-{os.path.basename(path)[:-5]}.callgrind")
        with open(request) as stdin:
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary],
                           stdin=stdin, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def order(work, groups):
    """Symbols by how many groups ran them (most first), then by the first group that ran
    them (in the order given), then by address; those the linker cannot move alone last."""
    first = groups[0].partition("=")[2] or groups[0].partition("=")[0]
    unmovable = unmovable_symbols(os.path.join(work, first + ".map"))
    rank = {}
    for index, group in enumerate(groups):
        label, _, name = group.partition("=")
        files = sorted(glob.glob(os.path.join(work, f"{label}.*.callgrind")))
        for position, symbol in enumerate(ran_symbols(os.path.join(work, name or label), files)):
            count, first, at = rank.get(symbol, (0, index, position))
            rank[symbol] = (count + 1, first, at)
    for symbol in sorted(rank, key=lambda s: (s in unmovable, -rank[s][0], rank[s][1], rank[s][2])):
        print(symbol)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "relink":
        relink(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "examples":
        run_examples(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "order":
        order(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
