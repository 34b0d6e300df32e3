#!/usr/bin/env bash
# End to end: the REAL cyclictest of Debian's rt-tests runs on this machine
# twice for a few seconds, its histogram text and JSON are imported, the
# imports are reported (Markdown and HTML with the log-scale histogram),
# diffed, recorded in a history, and a truncated copy is refused with its
# line and exit code 3. Skips (77) only when cyclictest cannot run at all.
#   e2e.sh RTOSBENCH WORK
set -u
bin=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v cyclictest >/dev/null || { echo "SKIP: cyclictest not installed (apt-get install rt-tests)"; exit 77; }

# One measurement: SCHED_FIFO priority 95 when the system grants it, else
# the default policy (said so in the log; the figures are then not real-time).
measure() {
  local name=$1
  if cyclictest -p 95 -D 2 -i 1000 -m --histogram=100 -q --json="$work/$name.json" \
       >"$work/$name.txt" 2>"$work/$name.err"; then
    echo "$name: cyclictest -p 95 (SCHED_FIFO)"
  elif cyclictest -D 2 -i 1000 -m --histogram=100 -q --json="$work/$name.json" \
       >"$work/$name.txt" 2>"$work/$name.err"; then
    echo "$name: cyclictest without -p (SCHED_FIFO refused: $(head -c 200 "$work/$name.err"))"
  else
    echo "SKIP: cyclictest cannot run here: $(head -c 300 "$work/$name.err")"
    exit 77
  fi
}
measure a
measure b

"$bin" import cyclictest "$work/a.txt" --out "$work/run-a" --phase idle || fail "import a.txt: $?"
"$bin" import cyclictest "$work/a.json" --out "$work/run-aj" --phase idle || fail "import a.json: $?"
"$bin" import cyclictest "$work/b.txt" --out "$work/run-b" --phase idle || fail "import b.txt: $?"
for r in run-a run-aj run-b; do
  test -f "$work/$r/run.json" || fail "$r has no run.json"
  grep -q '"source": "histogram"' "$work/$r/jobs/cyclictest/result.json" || fail "$r: no histogram series"
done

# The text and the JSON of one cyclictest run are the same measurement.
"$bin" diff "$work/run-a" "$work/run-aj" --json "$work/diff-same.json" >"$work/diff-same.txt"
rc=$?
[ $rc -eq 0 ] || { cat "$work/diff-same.txt"; fail "diff of a.txt and a.json: exit $rc, want 0 (identical)"; }
grep -q 'cyclictest_t0' "$work/diff-same.json" || fail "diff compared no cyclictest series"

# Two runs: compared series by series (within or beyond tolerance, never refused).
"$bin" diff "$work/run-a" "$work/run-b" --all >"$work/diff-ab.txt"
rc=$?
[ $rc -le 2 ] || { cat "$work/diff-ab.txt"; fail "diff a b: exit $rc"; }
grep -q 'idle/cyclictest_t0' "$work/diff-ab.txt" || fail "diff a b shows no idle/cyclictest_t0"

"$bin" report "$work/run-a" "$work/run-b" --md "$work/report.md" --html "$work/report.html" \
  || fail "report: $?"
grep -q '## Latency histograms' "$work/report.md" || fail "report.md has no Latency histograms"
grep -q 'idle/cyclictest_t0: latency histogram' "$work/report.html" || fail "report.html has no histogram plot"
grep -q 'samples (log scale)' "$work/report.html" || fail "the histogram's counts are not on a log scale"
grep -q 'µs' "$work/report.md" || fail "report.md never names the unit µs"
grep -q 'imported from cyclictest' "$work/report.md" || fail "report.md does not say where the µs come from"
grep -q '| histogram |' "$work/report.md" || fail "Every series does not name the source histogram"

db="$work/history.sqlite"
"$bin" history --db "$db" import "$work/run-a" "$work/run-b" || fail "history import: $?"
"$bin" history --db "$db" trend --test cyclictest --metric p99 >"$work/trend.txt" || fail "history trend: $?"
grep -q 'cyclictest_t0' "$work/trend.txt" || { cat "$work/trend.txt"; fail "trend lacks cyclictest_t0"; }

# A file cut short is refused with its line and exit code 3, nothing written.
head -n 20 "$work/a.txt" >"$work/cut.txt"
"$bin" import cyclictest "$work/cut.txt" --out "$work/run-cut" >"$work/cut.out"
rc=$?
[ $rc -eq 3 ] || fail "truncated import: exit $rc, want 3"
grep -q "REFUSED $work/cut.txt:20 \[truncated\]" "$work/cut.out" || { cat "$work/cut.out"; fail "no REFUSED line naming line 20"; }
[ ! -e "$work/run-cut" ] || fail "a refused import wrote $work/run-cut"
echo "import e2e: ok"
