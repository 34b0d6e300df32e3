#!/usr/bin/env bash
# e2e.sh RTOSBENCH CASE RAW OUT: one synthetic capture (make_capture.py) through
# sigrok-cli and `rtosbench edges`, its exit code and edges.json checked.
set -euo pipefail
rb=$1 case=$2 raw=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v sigrok-cli >/dev/null; then
  echo "SKIP: sigrok-cli is not installed (Debian: sigrok-cli; scripts/setup-deps.sh)"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
# Series in log order: 0 wake_latency, 1 irq_entry@idle, 2 @busy, 3 @critical, 4 tick_period.
case $case in
  agree) gen=() want=0 ;;
  clock) gen=(--clock 1.1) want=1 ;;
  missing) gen=(--drop-ev 0:100) want=2 ;;
  extra) gen=(--extra-ev 1:42) want=2 ;;
  overflow) gen=(--truncate) want=3 ;;
  *) echo "no case $case" >&2; exit 2 ;;
esac
/usr/bin/python3 "$here/make_capture.py" "$raw" "$out/job" "${gen[@]}"
set +e
"$rb" edges "$out/job/capture.vcd" --job "$out/job" --input-format vcd:downsample=40 >"$out/stdout" 2>&1
rc=$?
set -e
cat "$out/stdout"
if [[ $rc != "$want" ]]; then
  echo "FAIL: exit $rc, want $want"
  exit 1
fi
j=$out/job/edges.json
/usr/bin/python3 - "$j" "$case" <<'PY'
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
need(len(s) == 5, f"series {list(s)}")
if case == "agree":
    for x in s.values():
        need(x["status"] == "agree" and x["paired"] == x["n"], f"{x['name']} {x['status']}")
        need(not x["missing"] and not x["extra"], f"{x['name']} sequence")
    w = s[("wake_latency", "")]
    # the generator's offset is 30 ns: the median difference shows it
    need(10 <= w["diff_ns"]["median"] <= 50, f"offset {w['diff_ns']['median']}")
if case == "clock":
    t = s[("tick_period", "")]
    need(t["status"] == "disagree" and t["beyond_tolerance"] == t["n"], "tick_period flagged")
    need(abs(t["edge_ns"]["median"] / t["dwt_ns"]["median"] - 1.1) < 0.001, "both figures kept")
    i = s[("irq_entry", "idle")]
    need(i["status"] == "disagree" and i["period_disagrees"], "irq period flagged")
if case == "missing":
    w = s[("wake_latency", "")]
    need(w["status"] == "sequence" and w["missing"] == [100] and not w["extra"], f"missing {w['missing']}")
    need(w["paired"] == w["n"] - 1, "the other samples stay paired")
    need(all(x["status"] == "agree" for k, x in s.items() if k[0] != "wake_latency"), "others agree")
if case == "extra":
    i = s[("irq_entry", "idle")]
    need(i["status"] == "sequence" and not i["missing"] and len(i["extra"]) == 1, f"extra {i['extra']}")
    need(i["extra"][0]["seq"] in (42, 43), f"extra at {i['extra'][0]}")
    need(i["paired"] == i["n"], "every sample paired")
print("OK", case)
PY
