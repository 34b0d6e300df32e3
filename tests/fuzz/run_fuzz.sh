#!/bin/sh
# Runs the fuzz target for a bounded time on a seed corpus made from the
# verify test logs and the single RAW lines in tests/fuzz/seeds (an input
# with no line end is also checked as one line). New inputs go to a scratch
# corpus in the build tree; crash reproducers are written to ARTIFACTS.
#   run_fuzz.sh FUZZER SEEDS_DIR WORK_DIR SECONDS DICT
fuzzer=$1 seeds=$2 work=$3 seconds=$4 dict=$5
rm -rf "$work/corpus" && mkdir -p "$work/corpus" "$work/artifacts" || exit 1
n=0
for f in $(find "$seeds" -type f -name '*.log'); do
  cp "$f" "$work/corpus/" && n=$((n + 1))
done
for f in "$(dirname "$0")"/seeds/*.line; do
  [ -f "$f" ] && cp "$f" "$work/corpus/" && n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
  echo "run_fuzz: no seed logs under $seeds" >&2
  exit 1
fi
echo "run_fuzz: $n seeds, ${seconds}s"
exec "$fuzzer" "$work/corpus" -dict="$dict" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/"
