#!/usr/bin/env bash
# The cold demo's time by phase, from one run on this machine: a fresh clone
# of this repository (HEAD, into a temporary directory) goes through the
# phases of scripts/demo.sh, each timed:
#
#   install      scripts/setup-deps.sh demo (about 0 when the packages are
#                present, which the table says)
#   tool build   scripts/demo.sh's build of the host tool, ccache off
#                (CCACHE_DISABLE=1): a cold build, as on a fresh machine
#   run          rtosbench run --matrix configs/qemu.yaml --fetch-kernels,
#                split from its own progress lines (time-stamped here) and
#                result files into kernel fetch, firmware builds, runs
#
# and prints a table, the time of the first OK job after the clone and the
# whole matrix. It is a benchmark, not a test: it prints figures, never fails
# on one (a shared machine inflates them: say so when quoting them).
#
#   bench/cold-demo.sh [--fresh-kernels] [--tool BIN] [rtosbench run options, e.g. --only 'bare-*']
#
# --fresh-kernels fetches every kernel into an empty kernel cache (network);
# without it the user's cache (~/.cache/rtosbench/kernels) is used and the
# fetch is only what it lacks. --tool BIN skips the tool build and runs BIN
# (the table says the build was not measured). The build cache is always a fresh one, so every
# image is built. Keeps its directory when RTOSBENCH_BENCH_KEEP=1.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
fresh_kernels=0
tool=""
while (($#)); do
  case $1 in
    --fresh-kernels) fresh_kernels=1 ;;
    --tool)
      tool=$(realpath "$2")
      shift
      ;;
    *) break ;;
  esac
  shift
done
work=$(mktemp -d /tmp/rtosbench-cold-demo.XXXXXX)
if [[ ${RTOSBENCH_BENCH_KEEP:-0} != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi
now() { echo "$EPOCHREALTIME"; }
span() { /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$@"; }

t_clone=$(now)
git clone -q "$here" "$work/repo"
cd "$work/repo"

t=$(now)
if scripts/setup-deps.sh demo >"$work/install.log" 2>&1; then :; else
  echo "cold-demo: scripts/setup-deps.sh demo failed:" >&2
  cat "$work/install.log" >&2
  exit 1
fi
install_s=$(span "$t" "$(now)")
install_note=$(tail -1 "$work/install.log")

# The build scripts/demo.sh makes (its phase 2), ccache off.
demo_build_args=$(sed -n 's|^"\$root/scripts/build.sh" \(.*\)$|\1|p' scripts/demo.sh)
if [[ -z $demo_build_args ]]; then
  echo "cold-demo: no \"\$root/scripts/build.sh\" line in scripts/demo.sh to copy" >&2
  exit 1
fi
build_note="wall, scripts/build.sh $demo_build_args"
if [[ -n $tool ]]; then
  build_s=0
  build_note="not measured: --tool $tool"
else
  t=$(now)
  # shellcheck disable=SC2086  # the arguments as demo.sh gives them
  CCACHE_DISABLE=1 RTOSBENCH_BUILD_DIR="$work/build" scripts/build.sh $demo_build_args \
    >"$work/build.log" 2>&1
  build_s=$(span "$t" "$(now)")
  tool=$work/build/src/rtosbench
fi

kcache=$HOME/.cache/rtosbench/kernels
if ((fresh_kernels)); then kcache=$work/kernels; fi
t_run=$(now)
# Plain progress lines (not a terminal), each stamped with its time.
"$tool" run --matrix configs/qemu.yaml --out "$work/runs" --fetch-kernels \
  --kernel-cache "$kcache" --build-cache "$work/build-cache" --no-history "$@" 2>&1 |
  while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done \
    >"$work/run.log" || true
run_s=$(span "$t_run" "$(now)")
clone_to_run_s=$(span "$t_clone" "$t_run")

/usr/bin/python3 - "$work/run.log" "$(ls -d "$work"/runs/*/ | head -1)" "$install_s" "$install_note" \
  "$build_s" "$build_note" "$run_s" "$clone_to_run_s" "$(nproc)" "$t_clone" <<'EOF'
import json, pathlib, re, sys
log, run_dir, install_s, install_note, build_s, build_note, run_s, clone_to_run, cores, t0 = sys.argv[1:]
stage = re.compile(r"^(\S+) \[\d+/\d+\] (\S+): (.+) \((\S+)\)$")
done = re.compile(r"^(\S+) \[\d+/\d+\] ([A-Z_]+) (\S+) \(([\d.]+) s\)")
fetch = 0.0
open_source = {}  # slot -> (build id, t) of a "source" stage
first_ok, last_done, statuses = None, None, {}
for line in open(log, encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if m := stage.match(line):
        t, job, what, slot = float(m[1]) - float(t0), m[2], m[3], m[4]
        if slot in open_source:
            fetch += t - open_source.pop(slot)[1]
        if what == "source":
            open_source[slot] = (job, t)
    elif m := done.match(line):
        t, status, job = float(m[1]) - float(t0), m[2], m[3]
        statuses[status] = statuses.get(status, 0) + 1
        if status == "OK" and first_ok is None:
            first_ok = (t, job)
        last_done = t
builds, runs = 0.0, 0.0
for r in pathlib.Path(run_dir, "jobs").glob("*/result.json"):
    j = json.loads(r.read_text())
    builds += sum(a.get("seconds", 0) for a in j.get("build_attempts", []))
    runs += sum(a.get("seconds", 0) for a in j.get("attempts", []))
rows = [
    ("install (setup-deps.sh demo)", f"{float(install_s):.1f}", install_note),
    ("tool build (ccache off)", f"{float(build_s):.1f}", build_note),
    ("kernel fetch", f"{fetch:.1f}", "sum over the build workers of their source stages"),
    ("firmware builds", f"{builds:.1f}", "sum of the images' build attempts (2 build workers)"),
    ("runs (flash, capture, verify)", f"{runs:.1f}", "sum of the jobs' attempts (2 QEMU boards)"),
    ("rtosbench run, wall", f"{float(run_s):.1f}", "fetch, builds and runs overlap"),
]
print(f"cold demo on {cores} cores, seconds (one run; a shared machine inflates them)")
w = max(len(r[0]) for r in rows)
for name, s, note in rows:
    print(f"  {name:<{w}}  {s:>8}  {note}")
if first_ok:
    print(f"  first OK job: {first_ok[1]} at {first_ok[0]:.1f} s after the clone "
          f"(the run started at {float(clone_to_run):.1f} s)")
else:
    print("  first OK job: none")
if last_done is not None:
    print(f"  whole matrix: {last_done:.1f} s after the clone; statuses: "
          + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
EOF
