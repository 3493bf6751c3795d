#!/bin/sh
# Kills `keen-desktop run` with SIGKILL at random moments of a turn that streams, runs a tool, compacts
# automatically and writes the checkpoint batch, then checks that every transcript loads and the session
# resumes (issue 14). ctest runs 6 trials of the same test; this runs as many as asked (default 200).
#   tests/headless/run-crash-trials.sh [BUILD_DIR] [TRIALS] [SEED]
set -eu
build=${1:-build}
trials=${2:-200}
seed=${3:-$(date +%s)}
echo "keen_tst_runcrash: $trials trials, seed $seed"
KEEN_CRASH_TRIALS=$trials KEEN_CRASH_SEED=$seed exec "$build/tests/keen_tst_runcrash"
