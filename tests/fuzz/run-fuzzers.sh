#!/bin/sh
# Runs every libFuzzer target of a fuzz build (see CMakeLists.txt here) for DURATION seconds, JOBS at a time,
# each on its own corpus seeded from tests/fixtures and tests/fuzz/seeds. Crashes, leaks, timeouts and
# out-of-memory inputs land in BUILD/artifacts/; the exit status is non-zero when any target found one.
#   tests/fuzz/run-fuzzers.sh BUILD [DURATION=60] [JOBS=2] [TARGET...]
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [DURATION_SECONDS] [JOBS] [TARGET...]" >&2
    exit 64
fi
build=$(cd "$1" && pwd)
duration=${2:-60}
jobs=${3:-2}
[ $# -ge 3 ] && shift 3 || shift $#
here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../fixtures"
seeds="$here/seeds"
targets="$*"
[ -n "$targets" ] || targets="sseparser eventstreamdecoder openaichatdecoder responsesdecoder anthropicdecoder
geminidecoder bedrockdecoder transcript markdownexport settings toolarguments chatchunkscanner"

# The seed files of one target, one per line.
seed_files() {
    case "$1" in
    sseparser) ls "$fixtures"/*/*.sse ;;
    eventstreamdecoder) ls "$fixtures"/bedrock/*.bin "$fixtures"/aws/eventstream/encoded/*/* ;;
    openaichatdecoder) ls "$fixtures"/openai-chat/*.sse ;;
    responsesdecoder) ls "$fixtures"/openai-responses/*.sse ;;
    anthropicdecoder) ls "$fixtures"/anthropic/*.sse ;;
    geminidecoder) ls "$fixtures"/gemini/*.sse ;;
    bedrockdecoder) ls "$fixtures"/bedrock/*.bin ;;
    transcript | markdownexport) ls "$seeds"/transcript/* ;;
    settings) ls "$seeds"/settings/* ;;
    toolarguments) ls "$seeds"/toolarguments/* "$fixtures"/*/*.request.json ;;
    chatchunkscanner) ls "$build"/chunk-seeds/* ;;
    esac
}

# One event's JSON per seed for the chunk scanner: every data line of the Chat Completions fixtures.
mkdir -p "$build/chunk-seeds"
n=0
for stream in "$fixtures"/openai-chat/*.sse; do
    grep '^data: {' "$stream" | while IFS= read -r line; do
        n=$((n + 1))
        printf '%s' "${line#data: }" >"$build/chunk-seeds/$(basename "$stream")-$n"
    done
done

# Stream targets read their first byte as the piece size: each seed goes in whole (0) and in 7-byte pieces.
pieced() {
    case "$1" in
    sseparser | eventstreamdecoder | *decoder) return 0 ;;
    *) return 1 ;;
    esac
}

mkdir -p "$build/corpus" "$build/artifacts" "$build/logs"
rm -f "$build"/logs/*.status
queue=""
for target in $targets; do
    binary="$build/fuzz_$target"
    [ -x "$binary" ] || { echo "missing $binary" >&2; exit 1; }
    corpus="$build/corpus/$target"
    mkdir -p "$corpus"
    n=0
    for seed in $(seed_files "$target"); do
        n=$((n + 1))
        if pieced "$target"; then
            { printf '\000'; cat "$seed"; } >"$corpus/seed-$n-whole"
            { printf '\007'; cat "$seed"; } >"$corpus/seed-$n-pieces"
        else
            cp "$seed" "$corpus/seed-$n"
        fi
    done
    # Never more than JOBS at once: wait for the oldest first.
    set -- $queue
    if [ $# -ge "$jobs" ]; then
        wait "$1" || true
        shift
        queue="$*"
    fi
    # -max_len: small inputs run fast (longer seeds are cut); -rss_limit_mb: a memory bound per process; -timeout: a hang.
    (
        status=0
        dictionary=""
        [ -f "$here/$target.dict" ] && dictionary="-dict=$here/$target.dict"
        nice "$binary" -max_total_time="$duration" -rss_limit_mb=2048 -timeout=10 -max_len=32768 \
            $dictionary -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "$corpus" \
            >"$build/logs/$target.log" 2>&1 || status=$?
        echo "$status" >"$build/logs/$target.status"
    ) &
    queue="$queue $!"
done
wait

failed=0
for target in $targets; do
    log="$build/logs/$target.log"
    status=$(cat "$build/logs/$target.status" 2>/dev/null || echo missing)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    if [ "$status" != 0 ]; then
        failed=1
        echo "FAIL $target (exit $status): see $log"
        grep -E 'ERROR: |SUMMARY: |runtime error|Test unit written' "$log" | head -n 12
    else
        echo "ok   $target: ${runs:-?} runs in ${duration} s, ${cov:-cov: ?}, peak ${peak:-?} MB"
    fi
done
exit $failed
