#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/Package.swift: libFuzzer + AddressSanitizer, release
# -Osize) in var/fuzz/build, then runs each for FUZZ_SECONDS seconds on a working copy of its
# seeds and regressions in var/fuzz/corpus/<target>/ (the repository is never written).
# Any crash, leak, timeout or out-of-memory fails the run, and its reproducer is printed.
#
#     FUZZ_SECONDS=60 fuzz/run.sh               # every target (make fuzz; make fuzz-ci uses 20)
#     FUZZ_SECONDS=600 fuzz/run.sh jws-verify   # some targets
#
# FUZZ_TIMEOUT (default 10) is the seconds one input may take before it counts as a hang.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
ALL_TARGETS=(jws-verify front-doors cgi verify-signed-data receipt-reader identity-token ocsp-response catalog)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi
for target in "${TARGETS[@]}"; do
    [ -d "fuzz/corpus/$target" ] || { echo "fuzz: no target $target (targets: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

WORK=var/fuzz
mkdir -p "$WORK/logs"

# `--sanitize fuzzer` makes SwiftPM build executables without a Swift main (libFuzzer brings
# its own); the -Xswiftc flag comes after SwiftPM's own -sanitize flag and so is the one that
# counts: swiftc keeps only the last -sanitize= it is given.
BUILD=("$SWIFT" build --package-path fuzz --scratch-path "$WORK/build" -c release
       --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -Osize)
echo "fuzz: building the targets in $WORK/build"
started=$SECONDS
if ! "${BUILD[@]}" >"$WORK/logs/build.log" 2>&1; then
    # gold's warnings about ASan's local symbols are noise; show the rest.
    grep -v "Cannot export local symbol" "$WORK/logs/build.log" | tail -60
    echo "fuzz: build failed (whole log: $WORK/logs/build.log)" >&2
    exit 1
fi
echo "fuzz: built in $((SECONDS - started)) s"
BIN=$("${BUILD[@]}" --show-bin-path)

# A Swift trap goes to libFuzzer's handler (which writes the reproducer and an ASan-symbolized
# stack), not to the Swift runtime's backtracer, whose memory reads ASan misreports.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
# LeakSanitizer: suppress only the Swift runtime's own one-time allocations (see the file).
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }
coverage() { { grep -oE 'cov: [0-9]+' "$1" || true; } | tail -1 | cut -d' ' -f2; }

failed=()
for target in "${TARGETS[@]}"; do
    corpus="$WORK/corpus/$target"
    artifacts="$WORK/artifacts/$target"
    log="$WORK/logs/$target.log"
    mkdir -p "$corpus" "$artifacts"
    # The working corpus keeps what earlier runs found; seeds and regressions are added anew.
    cp fuzz/corpus/"$target"/* "$corpus"/
    if compgen -G "fuzz/regressions/$target/*" >/dev/null; then cp fuzz/regressions/"$target"/* "$corpus"/; fi
    dict=()
    if [ -f "fuzz/dictionaries/$target.dict" ]; then dict=(-dict="fuzz/dictionaries/$target.dict"); fi

    echo "fuzz: $target for $FUZZ_SECONDS s (log: $log)"
    status=0
    "$BIN/fuzz-$target" "$corpus" "${dict[@]}" \
        -max_total_time="$FUZZ_SECONDS" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?

    runs=$(stat number_of_executed_units "$log")
    speed=$(stat average_exec_per_sec "$log")
    rss=$(stat peak_rss_mb "$log")
    coverage=$(coverage "$log")
    summary="${runs:-?} runs, ${speed:-?} exec/s, coverage ${coverage:-?}, peak RSS ${rss:-?} MB"
    if [ "$status" -eq 0 ]; then
        echo "fuzz: $target ok: $summary"
        continue
    fi
    failed+=("$target")
    echo "fuzz: $target FAILED (exit $status): $summary"
    grep -E "ERROR:|^SUMMARY|Fatal error|Direct leak|Indirect leak" "$log" | head -8 | sed 's/^/    /' || true
    # The first frames of the first report, Swift names demangled, sanitizer and libFuzzer frames left out.
    sed -n '/ERROR:/,$p' "$log" | grep -E '^ +#[0-9]+ ' | grep -v -E 'compiler-rt|libc\.so|csu/' | head -8 \
        | "$SWIFT" demangle --simplified | sed 's/^ */      /' || true
    reproducers=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")
    if [ -n "$reproducers" ]; then
        for file in $reproducers; do
            echo "    reproducer: $file"
            echo "    replay:     $BIN/fuzz-$target $file"
        done
        echo "    keep it:    mkdir -p fuzz/regressions/$target && cp <reproducer> fuzz/regressions/$target/  (swift test replays it)"
    else
        echo "    no reproducer written; see $log"
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: all ${#TARGETS[@]} targets ran $FUZZ_SECONDS s each without a crash, leak or hang"
