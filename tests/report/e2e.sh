#!/usr/bin/env bash
# End-to-end tests of diff, regress, history and report on real emulated runs
# (the real firmware's bare port under QEMU, through `rtosbench run`).
#   e2e.sh STEP RTOSBENCH TEST_DATA WORK CMAKE
# STEP `runs` makes the runs the other steps read (a CTest fixture): run A
# and run B of tests/data/report/e2e/matrix.yaml and run M of mixed.yaml.
# Each step prints one line per check and stops at the first failure.
set -euo pipefail
step=$1 bin=$2 data=$3/report/e2e work=$4 cmake=$5
# Runs made here must never land in the user's own history database.
export RTOSBENCH_HISTORY="$work/history.sqlite"

source "$(dirname "$0")/../lib/expect.sh"

case $step in
runs)
  rm -rf "$work"
  mkdir -p "$work"
  for r in a:matrix b:matrix m:mixed; do
    name=${r%%:*} matrix=${r#*:}
    expect_status 0 "$bin" run --matrix "$data/$matrix.yaml" --out "$work/$name" --build-cache "$work/build-cache"
    [[ $(ls "$work/$name" | wc -l) == 1 ]] || fail "run $name made more than one run directory"
  done
  ;;
diff_identical)
  A=$(run_dir a) B=$(run_dir b)
  expect_status 0 "$bin" diff "$A" "$B"
  contains "$out" "2 job(s) compared: 2 identical"
  contains "$out" "result: identical (exit 0)"
  expect_status 0 "$bin" diff "$A" "$B" --json "$work/diff.json"
  grep -q '"exit_code": 0' "$work/diff.json" || fail "diff.json lacks exit_code 0"
  ok "diff.json written"
  ;;
perturbed)
  A=$(run_dir a) B=$(run_dir b)
  P=$work/perturbed
  rm -rf "$P"
  cp -r "$B" "$P"
  "$cmake" -DFILE="$P/jobs/bare-O2-tick1000-fpu0/result.json" -DSERIES=wake_latency -DDELTA=40 \
    -P "$(dirname "$0")/perturb.cmake"
  expect_status 2 "$bin" diff "$A" "$P"
  contains "$out" "wake_latency  median"
  contains "$out" "BEYOND"
  contains "$out" "result: beyond tolerance (exit 2)"
  expect_status 1 "$bin" regress --baseline "$A" "$P" --junit "$work/perturbed.junit.xml" --md "$work/perturbed.md"
  contains "$out" "REGRESSION  bare-O2-tick1000-fpu0: wake_latency median"
  junit=$(cat "$work/perturbed.junit.xml")
  contains "$junit" '<testcase classname="rtosbench.bare-O2-tick1000-fpu0" name="wake_latency.median" time="0">'
  contains "$junit" '<failure type="regression"'
  # perturb.cmake moves the whole series: its 7 statistics with a tolerance
  # (min, median, avg, p90, p99, p999, max) fail, nothing else.
  contains "$junit" 'failures="7"'
  base=$(grep -A3 'name="wake_latency.median"' "$work/perturbed.junit.xml" | grep -m1 -o 'baseline=[0-9]*' | cut -d= -f2)
  cur=$(grep -A3 'name="wake_latency.median"' "$work/perturbed.junit.xml" | grep -m1 -o 'current=[0-9]*' | cut -d= -f2)
  [[ -n $base && -n $cur && $((cur - base)) == 40 ]] || fail "JUnit failure does not carry both values ($base, $cur)"
  ok "JUnit failure carries baseline=$base current=$cur"
  contains "$(cat "$work/perturbed.md")" "# rtosbench regress: FAIL"
  # A small change is within the default tolerance, not within a strict one.
  S=$work/slight
  rm -rf "$S"
  cp -r "$B" "$S"
  "$cmake" -DFILE="$S/jobs/bare-Os-tick1000-fpu0/result.json" -DSERIES=wake_latency -DDELTA=1 \
    -P "$(dirname "$0")/perturb.cmake"
  expect_status 1 "$bin" diff "$A" "$S"
  contains "$out" "within (abs 2, 2%)"
  expect_status 0 "$bin" regress --baseline "$A" "$S"
  expect_status 1 "$bin" regress --baseline "$A" "$S" --tolerances "$data/strict.yaml"
  contains "$out" "beyond tolerance (abs 0, 0%)"
  ;;
regress_baseline)
  A=$(run_dir a) B=$(run_dir b)
  expect_status 0 "$bin" regress --baseline "$A" "$B" --junit "$work/pass.junit.xml" --md "$work/pass.md"
  contains "$(cat "$work/pass.junit.xml")" 'failures="0"'
  contains "$(cat "$work/pass.md")" "# rtosbench regress: PASS"
  expect_status 0 "$bin" regress --export-baseline "$work/baseline.json" "$A"
  expect_status 0 "$bin" regress --baseline "$work/baseline.json" "$B"
  expect_status 64 "$bin" regress "$B"
  expect_status 66 "$bin" regress --baseline "$work/no-such-baseline.json" "$B"
  ;;
mixed)
  A=$(run_dir a) M=$(run_dir m)
  expect_status 3 "$bin" diff "$A" "$M"
  contains "$out" "bare-O2-tick1000-fpu0: REFUSED"
  contains "$out" "kernel_version: A 'n/a' vs B 'mix'"
  contains "$out" "jobs only in A: bare-Os-tick1000-fpu0"
  expect_status 1 "$bin" diff --allow-mixed "$A" "$M"
  contains "$out" "mixed (allowed): kernel_version"
  expect_status 3 "$bin" regress --baseline "$A" "$M" --junit "$work/mixed.junit.xml"
  contains "$(cat "$work/mixed.junit.xml")" '<failure type="mixed"'
  expect_status 66 "$bin" diff "$A" "$work/no-such-run"
  expect_status 64 "$bin" diff "$A"
  ;;
history)
  A=$(run_dir a) B=$(run_dir b) M=$(run_dir m)
  db=$work/history.sqlite
  rm -f "$db"
  expect_status 0 "$bin" history --db "$db" import "$A" "$B"
  contains "$out" "recorded $(basename "$A") (2 jobs"
  expect_status 0 "$bin" history import "$A" --db "$db"
  contains "$out" "re-recorded (unchanged) $(basename "$A")"
  expect_status 0 "$bin" history --db "$db" runs
  [[ $(grep -c -- "-report-e2e" <<<"$out") == 2 ]] || { echo "$out"; fail "re-import duplicated a run"; }
  ok "re-import is idempotent"
  # The environment variable names the default database.
  expect_status 0 env RTOSBENCH_HISTORY="$db" "$bin" history import "$M"
  expect_status 0 "$bin" history --db "$db" trend --kernel bare --test wake_latency
  contains "$out" "bare-O2-tick1000-fpu0 wake_latency (median_ticks in instructions)"
  contains "$out" "$(basename "$A")"
  contains "$out" "$(basename "$B")"
  contains "$out" "$(basename "$M")"
  grep -F "$(basename "$M")" <<<"$out" | grep -q "kernel_version" || { echo "$out"; fail "the trend does not flag the changed kernel_version"; }
  ok "the trend flags the run whose pinned kernel_version changed"
  expect_status 0 "$bin" history --db "$db" trend --job bare-Os-tick1000-fpu0 --test irq_latency --metric p99 --json
  contains "$out" '"metric": "p99_ticks"'
  contains "$out" '"phase": "critical"'
  expect_status 66 "$bin" history --db "$work/none.sqlite" trend
  expect_status 64 "$bin" history --db "$db"
  ;;
history_hostile)
  # Partial and tampered copies of a recorded run, and a damaged database.
  A=$(run_dir a)
  db=$work/hostile.sqlite
  rm -f "$db"
  expect_status 0 "$bin" history --db "$db" import "$A"
  job=bare-O2-tick1000-fpu0
  median() { sqlite3 "$db" "select value from series_metrics where job_id='$job' and series='wake_latency' and metric='median_ticks' and load=0"; }
  before=$(median)
  [[ -n $before ]] || fail "no recorded median"
  T=$work/hostile && rm -rf "$T" && mkdir -p "$T"
  # A partial copy: one job's result is missing.
  cp -r "$A" "$T/partial"
  rm "$T/partial/jobs/$job/result.json"
  expect_status 66 "$bin" history --db "$db" import "$T/partial"
  contains "$out" "not recorded"
  # A tampered copy: n = -5.
  cp -r "$A" "$T/negative"
  sed -i '0,/"n": [0-9]*/s//"n": -5/' "$T/negative/jobs/$job/result.json"
  expect_status 65 "$bin" history --db "$db" import "$T/negative"
  contains "$out" "series[0].n: must be an integer in [0, -], got -5"
  # A tampered copy: a median of 1e30.
  cp -r "$A" "$T/huge"
  sed -i '0,/"median_ticks": [0-9]*/s//"median_ticks": 1e30/' "$T/huge/jobs/$job/result.json"
  expect_status 65 "$bin" history --db "$db" import "$T/huge"
  contains "$out" "median_ticks: must be an integer, got 1e+30"
  # A consistent-looking but different copy of the recorded run: refused
  # without --replace, the recorded figures kept.
  cp -r "$A" "$T/other"
  sed -i 's/"finished_at": "\([^"]*\)"/"finished_at": "\1 (copy)"/' "$T/other/jobs/$job/result.json"
  expect_status 3 "$bin" history --db "$db" import "$T/other"
  contains "$out" "with other content"
  [[ $(median) == "$before" ]] || fail "a refused import changed the recorded figures"
  ok "the recorded figures stay after a refused import"
  expect_status 0 "$bin" history --db "$db" import --replace "$T/other"
  contains "$out" "replaced"
  expect_status 0 "$bin" history --db "$db" superseded --json
  contains "$out" "\"run_id\": \"$(basename "$A")\""
  contains "$out" '"metrics"'
  expect_status 0 "$bin" history --db "$db" runs
  [[ $(grep -c -- "-report-e2e" <<<"$out") == 1 ]] || { echo "$out"; fail "--replace duplicated the run"; }
  # A damaged database is named as such, not as an empty history.
  cp "$db" "$T/damaged.sqlite"
  # Pages 2 and 3 (the roots of the first tables) overwritten with 0xff.
  head -c 8192 /dev/zero | tr '\0' '\377' | dd of="$T/damaged.sqlite" bs=4096 seek=1 conv=notrunc status=none
  expect_status 65 "$bin" history --db "$T/damaged.sqlite" trend
  contains "$out" "corrupted"
  head -c 4096 /dev/urandom >"$T/garbage.sqlite"
  expect_status 65 "$bin" history --db "$T/garbage.sqlite" runs
  contains "$out" "corrupted"
  ;;
empty)
  # Comparisons that compare nothing are never a pass.
  A=$(run_dir a) M=$(run_dir m)
  E=$work/empty && rm -rf "$E" && mkdir -p "$E"
  cp -r "$A" "$E/nojobs"
  rm -rf "$E/nojobs/jobs"/*
  expect_status 65 "$bin" regress --export-baseline "$E/baseline.json" "$E/nojobs"
  contains "$out" "no job ended OK with figures"
  [[ ! -e $E/baseline.json ]] || fail "an empty baseline was written"
  ok "no empty baseline written"
  printf '{"schema": "rtosbench.baseline", "schema_version": 1, "source_run": "x", "jobs": []}\n' >"$E/empty.json"
  expect_status 4 "$bin" regress --baseline "$E/empty.json" "$A"
  contains "$out" "the baseline has no job with figures"
  cp -r "$A" "$E/renamed"
  for d in "$E/renamed/jobs"/*; do mv "$d" "${d}-x"; done
  # A result that is not the job of its directory is refused.
  expect_status 65 "$bin" diff "$A" "$E/renamed"
  contains "$out" "is job bare-O2-tick1000-fpu0"
  # The same jobs under other ids: nothing in common.
  find "$E/renamed" -name '*.json' -exec sed -i 's/tick1000-fpu0/tick1000-fpu0-x/g' {} +
  expect_status 4 "$bin" diff "$A" "$E/renamed"
  contains "$out" "nothing compared, no job is in both runs (exit 4)"
  ;;
tampered)
  # Records from elsewhere are checked on read, in diff, regress and report
  # as in `history import`: a capture that is not the one the run hashed,
  # figures that do not hang together, a capture path that leaves the run.
  A=$(run_dir a) B=$(run_dir b)
  T=$work/tampered && rm -rf "$T" && mkdir -p "$T"
  job=bare-O2-tick1000-fpu0
  raw_rel=$(jq -r '.attempts[-1].capture.raw_file' "$B/jobs/$job/result.json")
  [[ -n $raw_rel && $raw_rel != null ]] || fail "no capture named in $job's result"
  # refused NAME NEEDLE: every reader refuses the copy $T/NAME (exit 65), naming why.
  refused() {
    local copy=$T/$1
    expect_status 65 timeout 60 "$bin" diff "$A" "$copy"
    contains "$out" "$2"
    expect_status 65 timeout 60 "$bin" regress --baseline "$A" "$copy"
    contains "$out" "$2"
    expect_status 65 timeout 60 "$bin" report "$copy" --md "$T/$1.md"
    contains "$out" "$2"
    [[ ! -e $T/$1.md ]] || fail "a report of the refused copy $1 was written"
    expect_status 65 timeout 60 "$bin" history --db "$T/$1.sqlite" import "$copy"
    contains "$out" "$2"
  }
  # capture.raw changed after the run: its SHA-256 is no longer raw_sha256.
  cp -r "$B" "$T/raw"
  printf 'RAW,wake_latency,0,1\n' >>"$T/raw/jobs/$job/$raw_rel"
  refused raw "not its raw_sha256"
  # A median below the minimum.
  cp -r "$B" "$T/order"
  jq '(.series[] | select(.name == "wake_latency" and (.phase // "") == "") | .median_ticks) |= 1' \
    "$B/jobs/$job/result.json" >"$T/order/jobs/$job/result.json"
  refused order "median_ticks 1 < min_ticks"
  # The capture path leads to a device, out of the run, through a link.
  cp -r "$B" "$T/dev"
  jq '.attempts[-1].capture.raw_file = "/dev/zero"' "$B/jobs/$job/result.json" >"$T/dev/jobs/$job/result.json"
  refused dev "is an absolute path"
  cp -r "$B" "$T/up"
  jq '.attempts[-1].capture.raw_file = "../../../../../../../../etc/passwd"' "$B/jobs/$job/result.json" \
    >"$T/up/jobs/$job/result.json"
  refused up "has a '..' part"
  cp -r "$B" "$T/link"
  ln -sf /etc/passwd "$T/link/jobs/$job/$raw_rel"
  refused link "leads through a symbolic link"
  # The untouched copy still reads.
  expect_status 0 "$bin" diff "$A" "$B"
  ;;
report)
  A=$(run_dir a) B=$(run_dir b)
  rm -rf "$work/report" && mkdir -p "$work/report"
  expect_status 0 "$bin" report "$B" "$A" --md "$work/report/report.md" --html "$work/report/report.html" --csv "$work/report/csv"
  md=$(cat "$work/report/report.md")
  contains "$md" "# rtosbench report: $(basename "$B")"
  contains "$md" "### Median [instructions]"
  contains "$md" "| bare | bare-O2-tick1000-fpu0 |"
  contains "$md" "| bare | bare-Os-tick1000-fpu0 |"
  contains "$md" "## Footprint"
  contains "$md" "## Across runs"
  if grep -qi "cycle" <<<"$md"; then fail "an emulated report speaks of cycles"; fi
  ok "emulated figures are never called cycles"
  rows=$(($(wc -l <"$work/report/csv/samples.csv") - 1))
  [[ $rows -gt 1000 ]] || fail "samples.csv has only $rows samples"
  ok "samples.csv: $rows samples"
  html=$work/report/report.html
  if grep -Eq ' (src|href)=|url\(|@import' "$html"; then fail "the HTML report refers to something outside itself"; fi
  ok "the HTML report refers to nothing outside itself"
  # A note with HTML in it is printed inert in both formats.
  H=$work/report/hostile
  rm -rf "$H" && cp -r "$B" "$H"
  sed -i 's|"kernel_note": "[^"]*"|"kernel_note": "<script>alert(1)</script>"|' "$H"/jobs/*/result.json
  grep -q '<script>alert' "$H"/jobs/*/result.json || fail "the note was not planted"
  expect_status 0 "$bin" report "$H" --md "$work/report/hostile.md" --html "$work/report/hostile.html"
  if grep -q '<script>alert' "$work/report/hostile.md" "$work/report/hostile.html"; then fail "a planted <script> is live in the report"; fi
  contains "$(cat "$work/report/hostile.md")" '&lt;script&gt;alert(1)&lt;/script&gt;'
  ok "a planted <script> is printed inert"
  ;;
browser)
  A=$(run_dir a) B=$(run_dir b)
  rm -rf "$work/browser" && mkdir -p "$work/browser"
  html=$work/browser/report.html
  expect_status 0 "$bin" report "$A" "$B" --html "$html"
  chromium=$(command -v chromium || true)
  [[ -n $chromium ]] || fail "chromium is not installed: install the Debian package chromium (RTOSBENCH_WITH_BROWSER=1 scripts/setup-deps.sh)"
  load() {  # load FILE OUT: the DOM after scripts ran in OUT.dom, the browser's log in OUT.log
    local profile
    profile=$(mktemp -d)
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
      --enable-logging=stderr --v=0 --dump-dom "file://$1" >"$2.dom" 2>"$2.log" || true
    rm -rf "$profile"
  }
  problems() { grep -E 'CONSOLE\(|Uncaught|net::ERR|Failed to load' "$1.log" || true; }
  # The detector must see a broken page, or a clean result means nothing.
  sed 's|<script>|<script>throw new Error("planted by the test");|' "$html" >"$work/browser/broken.html"
  load "$work/browser/broken.html" "$work/browser/broken"
  [[ -n $(problems "$work/browser/broken") ]] || fail "a planted script error went unnoticed by the console check"
  if grep -q 'data-report-ready="1"' "$work/browser/broken.dom"; then fail "the ready marker survives a script error"; fi
  ok "a planted script error is caught"
  load "$html" "$work/browser/page"
  p=$(problems "$work/browser/page")
  [[ -z $p ]] || { echo "$p" >&2; fail "the browser reported errors loading the report"; }
  grep -q 'data-report-ready="1"' "$work/browser/page.dom" || fail "the report's script did not run to its end"
  grep -q '<svg' "$work/browser/page.dom" || fail "no plot in the rendered page"
  ok "the report loads without console errors and its script ran"
  profile=$(mktemp -d)
  rm -f "$work/browser/report.png"
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --screenshot="$work/browser/report.png" --window-size=1280,2000 "file://$html" >/dev/null 2>&1 || true
  rm -rf "$profile"
  [[ -s $work/browser/report.png ]] || fail "no screenshot"
  [[ $(head -c 8 "$work/browser/report.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "the screenshot is not a PNG"
  ok "screenshot: $work/browser/report.png ($(stat -c %s "$work/browser/report.png") bytes)"
  ;;
*)
  fail "unknown step $step"
  ;;
esac
