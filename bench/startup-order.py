#!/usr/bin/env python3
"""Makes bench/startup.order, the order in which the release link lays out functions.

usage: startup-order.py relink NAME OUT      an unstripped copy of a release function binary,
                                             linked from the same objects (.build/release.yaml)
       startup-order.py symbols BINARY CALLGRIND...  the binary's functions that ran under
                                             callgrind, one linker symbol a line, on stdout

Why: a fresh process touches under 1 MB of the 13 MB of code in a function binary, scattered
over all of it, and the kernel maps each touched page with its neighbours (fault-around), so
nearly all the code became resident: 8.6 of verify-signed-data's 15 MiB. lld's
--symbol-ordering-file puts the functions that run first side by side. bench/make-order.sh
runs this over the bench's requests; a name the code no longer has is skipped by the linker.
"""
import json
import os
import re
import subprocess
import sys


def relink(name, out):
    """The release link command of `name`, without `-s`, writing `out`."""
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
    subprocess.run(kept, check=True)


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


def symbols(binary, callgrind_files):
    ran = set()
    for path in callgrind_files:
        ran |= executed_functions(path)
    raw = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    demangled = subprocess.run(["nm", "-C", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    for line, readable in zip(raw.splitlines(), demangled.splitlines()):
        parts, shown = line.split(None, 2), readable.split(None, 2)
        if len(parts) == 3 and parts[1] in "tTwW" and (parts[2] in ran or shown[2] in ran):
            print(parts[2])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "relink":
        relink(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "symbols":
        symbols(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
