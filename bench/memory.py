#!/usr/bin/env python3
"""Peak memory of every function for one request, for `make bench`.

usage: memory.py BIN SPAWN_TIMER OUT_DIR [EXTRA_JSON_LINES]

Each function's golden examples (functions/<name>/examples/*.json: environment, request or
stdin, exit code) are its requests; each runs once as its own process, through spawn-timer,
whose ru_maxrss comes from wait4 (spawn-timer is a small C parent: a child forked from this
Python process would report Python's own pages as its peak). A function's figure is the
largest over its requests. EXTRA_JSON_LINES names a file of spawn-timer lines the bench
measured already ({"program": ..., "max_rss_kib": ...}), the heavier success paths
(verify-signed-data on a notification, get-entitlements for a user, ...), folded in too.
Prints one line per function with the 10 MiB target; exit status 0 either way (figures).
"""
import json
import os
import subprocess
import sys

import examples

TARGET_KIB = 10 * 1024


def run_example(bin_dir, timer, out_dir, function, path):
    spec, environment, request = examples.prepare(path, out_dir)
    command = [timer, "-n", "1", "-w", "0", "-i", request, "-x", str(spec.get("exitCode", 0)),
               "--", os.path.join(bin_dir, function)]
    answer = subprocess.run(command, env=environment, capture_output=True, text=True, cwd=os.getcwd())
    line = json.loads(answer.stdout) if answer.stdout.strip() else {}
    return line.get("max_rss_kib") if line.get("failures") == 0 else None


def main():
    bin_dir, timer, out_dir = sys.argv[1:4]
    extra = sys.argv[4] if len(sys.argv) > 4 else None
    peaks = {}
    for function, path in examples.examples():
        kib = run_example(bin_dir, timer, out_dir, function, path)
        if kib is not None and kib > peaks.get(function, (0, ""))[0]:
            peaks[function] = (kib, os.path.basename(path))
    if extra and os.path.exists(extra):
        for text in open(extra):
            line = json.loads(text)
            function = os.path.basename(line.get("program", ""))
            kib = line.get("max_rss_kib") or 0
            if function in peaks or os.path.isdir(os.path.join("functions", function)):
                if kib > peaks.get(function, (0, ""))[0]:
                    peaks[function] = (kib, line.get("label", "bench request"))
    missed = 0
    for function in sorted(os.listdir("functions")):
        kib, source = peaks.get(function, (None, "no request ran"))
        if kib is None:
            print(f"  {function:<24} {'-':>8}          ({source})   MISSED")
            missed += 1
            continue
        met = kib <= TARGET_KIB
        missed += 0 if met else 1
        print(f"  {function:<24} {kib / 1024:6.1f} MiB  (target <= 10)  {'met' if met else 'MISSED'}   largest: {source}")
    print(f"  every function's peak memory <= 10 MiB: {'met' if missed == 0 else f'MISSED by {missed}'}")


if __name__ == "__main__":
    main()
