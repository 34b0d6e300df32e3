#!/usr/bin/env bash
# e2e.sh RTOSBENCH CASE RAW OUT: one synthetic capture (make_capture.py, from
# RAW, a real edges=on capture of the emulated bench) through sigrok-cli and
# `rtosbench edges`, its exit code and edges.json checked.
set -euo pipefail
rb=$1 case=$2 raw=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v sigrok-cli >/dev/null; then
  echo "SKIP: sigrok-cli is not installed (Debian: sigrok-cli; scripts/setup-deps.sh)"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
# Series in capture order (EDGE PROTOCOL v1): 0 wake_latency, 1 event_to_task@idle,
# 2 @busy, 3 @critical, 4 tick_period.
job=$out/job
extra_args=()
case $case in
  agree) gen=() want=0 ;;
  clock) gen=(--clock 1.1) want=1 ;;
  missing-ordered) gen=(--drop-ev 0:30) want=2 ;;
  extra-ordered) gen=(--extra-ev 0:20) want=2 ;;
  missing-grid) gen=(--drop-ev 2:30) want=2 ;;
  extra-grid) gen=(--extra-ev 1:20) want=2 ;;
  missing-tick) gen=(--drop-ev 4:30) want=2 ;;
  overflow) gen=(--truncate) want=3 ;;
  # The run's matrix.yaml sets a tolerance of 1 ns: every series disagrees...
  matrix-tolerance) gen=() want=1 job=$out/run/jobs/j/attempt-1 ;;
  # ... and --tolerance-ns overrides it.
  cli-tolerance) gen=() want=0 job=$out/run/jobs/j/attempt-1 extra_args=(--tolerance-ns 200) ;;
  *) echo "no case $case" >&2; exit 2 ;;
esac
/usr/bin/python3 "$here/make_capture.py" "$raw" "$job" "${gen[@]}"
if [[ $case == *-tolerance ]]; then
  printf 'matrix: m\nkernels: all\nedges: {tolerance_ns: 1}\n' >"$out/run/matrix.yaml"
  echo '{}' >"$out/run/run.json"
fi
set +e
"$rb" edges "$job/capture.vcd" --job "$job" --input-format vcd:downsample=40 "${extra_args[@]}" \
  >"$out/stdout" 2>&1
rc=$?
set -e
cat "$out/stdout"
if [[ $rc != "$want" ]]; then
  echo "FAIL: exit $rc, want $want"
  exit 1
fi
/usr/bin/python3 - "$job/edges.json" "$case" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); case = sys.argv[2]
s = {(x["name"], x["phase"]): x for x in j["series"]}
def need(c, m):
    if not c:
        print("FAIL:", m); sys.exit(1)
need(j["samplerate"] == 25000000, f"samplerate {j['samplerate']}")
if case == "overflow":
    need(j["status"] == "overflow" and not j["series"] and "MK still high" in j["refusal"], "overflow refused")
    sys.exit(0)
keys = [("wake_latency", ""), ("event_to_task", "idle"), ("event_to_task", "busy"),
        ("event_to_task", "critical"), ("tick_period", "")]
need([(x["name"], x["phase"]) for x in j["series"]] == keys, f"series {list(s)}")
need([x["kind"] for x in j["series"]] == ["ordered", "grid", "grid", "grid", "periodic"], "kinds")
others = lambda k: all(x["status"] == "agree" for kk, x in s.items() if kk != k)
if case in ("agree", "cli-tolerance"):
    for x in s.values():
        need(x["status"] == "agree" and x["paired"] == x["n"] and x["n"] > 0, f"{x['name']} {x['status']}")
        need(not x["missing"] and not x["extra"], f"{x['name']} sequence")
        need(len(x["pairs"]["dwt_ns"]) == x["n"], "pairs kept")
    for k in keys[:4]:
        # the generator's offset is 30 ns: the median difference shows it
        m = s[k]["diff_ns"]["median"]
        need(0 <= m <= 70, f"{k} offset {m}")
    need(j["tolerance_ns"] == (200 if case == "cli-tolerance" else 2 * 40 + 50), f"tolerance {j['tolerance_ns']}")
if case == "matrix-tolerance":
    need(j["tolerance_ns"] == 1, f"tolerance {j['tolerance_ns']}")
    need(all(x["status"] == "disagree" for x in s.values()), "1 ns: every series disagrees")
if case == "clock":
    t = s[("tick_period", "")]
    need(t["status"] == "disagree" and t["beyond_tolerance"] == t["n"], "tick_period flagged")
    need(abs(t["edge_ns"]["median"] / t["dwt_ns"]["median"] - 1.1) < 0.001, "both figures kept")
    for p in ("idle", "busy", "critical"):
        i = s[("event_to_task", p)]
        need(i["status"] == "disagree" and i["period_disagrees"], f"event_to_task@{p} period flagged")
def one(k, missing, extra):
    x = s[k]
    need(x["status"] == "sequence", f"{k} {x['status']}")
    need(x["missing"] == missing, f"{k} missing {x['missing']}, want {missing}")
    need(len(x["extra"]) == len(extra) and all(e["seq"] in w for e, w in zip(x["extra"], extra)),
         f"{k} extra {x['extra']}")
    need(x["paired"] == x["n"] - len(missing), "the other samples stay paired")
    need(x["beyond_tolerance"] == 0, "nothing shifted")
    need(others(k), "the other series agree")
if case == "missing-ordered": one(("wake_latency", ""), [30], [])
if case == "extra-ordered": one(("wake_latency", ""), [], [(21,)])
if case == "missing-grid": one(("event_to_task", "busy"), [30], [])
if case == "extra-grid": one(("event_to_task", "idle"), [], [(20, 21)])
if case == "missing-tick": one(("tick_period", ""), [29, 30], [])
print("OK", case)
PY
# verify's JSON of the job's capture carries the edges figures beside the DWT series.
if [[ $case == clock ]]; then
  "$rb" verify "$job/capture.raw" --json "$out/verify.json" >/dev/null
  /usr/bin/python3 - "$out/verify.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = {(x["name"], x["phase"]): x for x in j["series"]}
t = s[("tick_period", "")]["edges"]
ok = t["status"] == "disagree" and t["edge_ns"]["median"] > t["dwt_ns"]["median"] * 1.09
ok = ok and "tick_period" in j["edges"]["disagree"] and "edges" not in s[("ruler_loop", "")]
print("OK verify" if ok else f"FAIL: verify's edges {j.get('edges')}")
sys.exit(0 if ok else 1)
PY
fi
