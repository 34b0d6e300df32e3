#!/bin/sh
# Runs the matrix/bench loader fuzz target for a bounded time on the seeds in
# SEEDS_DIR (the shipped configurations, first byte 0: matrix, 1: bench). New
# inputs go to a scratch corpus; crash reproducers are written to ARTIFACTS.
#   run_fuzz_loader.sh FUZZER SEEDS_DIR WORK_DIR SECONDS DICT
fuzzer=$1 seeds=$2 work=$3 seconds=$4 dict=$5
rm -rf "$work/corpus" && mkdir -p "$work/corpus" "$work/artifacts" || exit 1
cp "$seeds"/* "$work/corpus/" || exit 1
echo "run_fuzz_loader: $(ls "$work/corpus" | wc -l) seeds, ${seconds}s"
exec "$fuzzer" "$work/corpus" -dict="$dict" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/"
