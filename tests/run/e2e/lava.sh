#!/usr/bin/env bash
# The lava bench against a real LAVA instance on 127.0.0.1, started here from
# Debian's packages (lava-server, lava-dispatcher): PostgreSQL, lava-server
# under gunicorn, the scheduler, one worker with two qemu devices. The
# emulated matrix, configs/qemu.yaml with short series (every kernel whose
# source the RTOSBENCH_KERNEL_* variables name, `eval "$(rtosbench kernels env)"`;
# the others are SOURCE_MISSING both ways), runs locally and through LAVA:
# the same exit code, statuses and verify outcomes, LAVA's job on record,
# the same protocol lines and medians (QEMU -icount runs are identical).
# With MODE `minimal` (the sanitizer build: the same host code, less time)
# only its bare and freertos jobs run. Then
# LAVA's failures: an image the worker cannot fetch (FLASH_ERROR with LAVA's
# comment), a monitor timeout (TIMEOUT), an interrupted run (its LAVA job
# cancelled) and a killed run resumed (its LAVA job followed, not submitted
# again). Every daemon it started is stopped, the database cluster too when
# it was down before; the device dictionaries it wrote are removed.
# Skips (77) when lava-server is not installed or this is not root.
#
#   lava.sh RTOSBENCH_BIN TEST_DATA [emulated|minimal]
mode=${3:-emulated}
[[ $mode == emulated || $mode == minimal ]] || { echo "lava.sh: MODE is emulated or minimal, not '$mode'" >&2; exit 1; }
source "$(dirname "$0")/lib.sh" "$1" "$2"
SRC=$(cd "$(dirname "$0")/../../.." && pwd)

if ! dpkg-query -W -f='${Status}' lava-server 2>/dev/null | grep -q "install ok installed" ||
  ! dpkg-query -W -f='${Status}' lava-dispatcher 2>/dev/null | grep -q "install ok installed"; then
  echo "skip: lava-server and lava-dispatcher are not installed (scripts/setup-deps.sh installs them)"
  exit 77
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "skip: starting lava-server, its database and a worker needs root"
  exit 77
fi
# Debian's Python tools only import Debian's modules with Debian's python3.
LPATH=/usr/sbin:/usr/bin:/sbin:/bin
lrun() { PATH=$LPATH "$@"; }
manage() { PATH=$LPATH lava-server manage "$@"; }

PG_VERSION=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)
pids=()
started_pg=0
dicts=()
# A process that has not exited (a zombie has: gunicorn's daemonized master
# may wait for a parent that does not reap it).
alive() {
  local s
  s=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $s != Z* ]]
}
cleanup() {
  local rc=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 100); do alive "$p" || break; sleep 0.1; done
    alive "$p" && kill -9 "$p" 2>/dev/null || true
  done
  sleep 0.5
  for p in "${pids[@]}"; do
    if alive "$p"; then
      echo "FAIL: daemon $p still running after cleanup" >&2
      rc=1
    fi
  done
  for f in "${dicts[@]}"; do rm -f "$f"; done
  if ((started_pg)); then lrun pg_ctlcluster "$PG_VERSION" main stop || true; fi
  if ((rc != 0)) && [[ -d $WORK/lava ]]; then
    echo "--- LAVA logs (tails):" >&2
    tail -n 20 "$WORK"/lava/*.log >&2 || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
mkdir -p "$WORK/lava" "$WORK/img"
# The scheduler and gunicorn drop to the lavaserver user: their logs must stay writable.
chmod 755 "$WORK"
chown lavaserver:lavaserver "$WORK/lava"
t_setup=$SECONDS

if ! lrun pg_ctlcluster "$PG_VERSION" main status >/dev/null 2>&1; then
  lrun pg_ctlcluster "$PG_VERSION" main start
  started_pg=1
fi
# The package's postinst skips the database when PostgreSQL was not running.
if [[ ! -s /etc/lava-server/settings.d/00-database.yaml ]] ||
  ! manage check --database default >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive lrun dpkg-reconfigure -f noninteractive lava-server \
    >"$WORK/lava/reconfigure.log" 2>&1
fi
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
URL=http://127.0.0.1:$PORT/
# LAVA's event stream, as a farm runs it: the server's processes push each
# job's and device's change to lava-publisher, and the scheduler, subscribed
# to it, schedules a submitted job at once instead of at its next 20 s pass.
# Here on sockets of this test's own (Django settings from the environment,
# LAVA_SETTINGS_* and LAVA_YAML_SETTINGS_*, read by every LAVA process below).
EVENT_PORT=$(free_port)
export LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
export LAVA_SETTINGS_INTERNAL_EVENT_SOCKET=ipc://$WORK/lava/events.ipc
export LAVA_SETTINGS_EVENT_SOCKET=tcp://127.0.0.1:$EVENT_PORT
PATH=$LPATH lava-server manage lava-publisher --host 127.0.0.1 --port "$(free_port)" --level DEBUG \
  --log-file "$WORK/lava/publisher.log" >"$WORK/lava/publisher.out" 2>&1 &
pids+=($!)
lrun gunicorn3 lava_server.wsgi --bind "127.0.0.1:$PORT" --workers 2 -u lavaserver -g lavaserver \
  --log-file "$WORK/lava/gunicorn.log" --pid "$WORK/gunicorn.pid" --daemon
for _ in $(seq 100); do [[ -s $WORK/gunicorn.pid ]] && break; sleep 0.1; done
pids+=("$(cat "$WORK/gunicorn.pid")")

# Objects in LAVA's database (a user, the qemu device type, a worker, two
# devices) are made once and reused by later runs; one Django start for all.
WORKER=rtosbench-e2e
setup_py='
from django.contrib.auth.models import User
from lava_scheduler_app.models import Device, DeviceType, Worker
from linaro_django_xmlrpc.models import AuthToken
u, _ = User.objects.get_or_create(username="rtosbench-e2e")
u.is_superuser = True
u.is_staff = True
u.save()
token = AuthToken.objects.create(user=u, description="rtosbench e2e")
dt, _ = DeviceType.objects.get_or_create(name="qemu")
w, _ = Worker.objects.get_or_create(hostname="rtosbench-e2e")
w.health = Worker.HEALTH_ACTIVE
w.save()
for n in (1, 2):
    d, _ = Device.objects.get_or_create(hostname="rtosbench-e2e-qemu%d" % n,
                                        defaults={"device_type": dt, "worker_host": w})
    d.worker_host = w
    d.device_type = dt
    d.health = Device.HEALTH_GOOD
    d.save()
print("TOKENS", token.secret, w.token)
'
read -r _ TOKEN WORKER_TOKEN < <(manage shell -c "$setup_py" | grep '^TOKENS ')
for n in 1 2; do
  dict=/etc/lava-server/dispatcher-config/devices/rtosbench-e2e-qemu$n.jinja2
  printf "{%% extends 'qemu.jinja2' %%}\n{%% set mac_addr = '52:54:00:12:34:5%s' %%}\n{%% set memory = 256 %%}\n" "$n" >"$dict"
  dicts+=("$dict")
done
# The scheduler after the device dictionaries: a device it sees without one
# turns Bad ("Invalid device configuration") and takes no job.
# Started as simple commands (not through a function): $! is the daemon itself.
PATH=$LPATH lava-server manage lava-scheduler --level DEBUG --log-file "$WORK/lava/scheduler.log" \
  --event-url "tcp://127.0.0.1:$EVENT_PORT" \
  >"$WORK/lava/scheduler.out" 2>&1 &
sched=$!
pids+=($sched)
# The worker asks the server for its jobs every second (a farm's default: 20 s).
PATH=$LPATH lava-worker --level DEBUG --url "$URL" --token "$WORKER_TOKEN" --name "$WORKER" --ping-interval 1 \
  --log-file "$WORK/lava/worker.log" --worker-dir "$WORK/lava/worker" >/dev/null 2>&1 &
pids+=($!)
api() { curl -sf -H "Authorization: Token $TOKEN" "$URL$1"; }
for _ in $(seq 120); do
  api api/v0.2/workers/$WORKER/ 2>/dev/null | jq -e '.state == "Online"' >/dev/null && break
  sleep 0.5
done
expect_eq "worker online" Online "$(api api/v0.2/workers/$WORKER/ | jq -r .state)"
if ! kill -0 "$sched" 2>/dev/null; then
  fail "lava-scheduler exited: $(tail -5 "$WORK/lava/scheduler.out" "$WORK/lava/scheduler.log")"
  finish
fi
echo "LAVA up in $((SECONDS - t_setup)) s on $URL"

# The matrix: configs/qemu.yaml, short series, the test's timeouts.
only=(bare-O2-tick1000-fpu0)
# (a capture of 180 s, no retries: a failure shows as it is).
sed -e 's/^samples: .*/samples: 300/' -e 's/^warmup: .*/warmup: 50/' \
  -e "s|^firmware: .*|firmware: $SRC/firmware|" -e '/^bench: /d' \
  -e '/^timeouts:/,/^[^ ]/s/^  capture: .*/  capture: 180/' -e '/^retries:/,/^[^ ]/s/^  \([a-z]*\): .*/  \1: 0/' \
  "$SRC/configs/qemu.yaml" >"$WORK/matrix.yaml"
grep -q '^  capture: 180$' "$WORK/matrix.yaml" || fail "configs/qemu.yaml: no timeouts.capture to set"
mapfile -t ksrc < <("$RB" kernels args)
select=()
[[ $mode == minimal ]] && select=(--only 'bare-*' --only 'freertos-*')
cp "$DATA/run/benches/qemu1.yaml" "$WORK/local.yaml"
# lava_bench FILE PUBLISH_URL: the shipped example, configs/benches/lava.yaml
# (two jobs in flight), on this instance: its server, token variable,
# publishing, poll and queue timeout (a device that never comes fails the
# test, not ctest's timeout) replaced.
lava_bench() {
  sed -e "s|^  url: .*|  url: $URL|" -e 's|^  token_env: .*|  token_env: RTOSBENCH_LAVA_E2E_TOKEN|' \
    -e "s|^  publish: .*|  publish: {dir: $WORK/img, url: $2}|" -e 's|^  poll: .*|  poll: 0.5|' \
    -e 's|^  queue_timeout: .*|  queue_timeout: 240|' "$SRC/configs/benches/lava.yaml" >"$1"
  local k
  for k in "url: $URL" "token_env: RTOSBENCH_LAVA_E2E_TOKEN" "publish: {dir: $WORK/img" "poll: 0.5" "queue_timeout: 240"; do
    grep -qF "  $k" "$1" || fail "configs/benches/lava.yaml: no lava.${k%%:*} to replace"
  done
}
lava_bench "$WORK/lava.yaml" "file://$WORK/img"
# The token bound to the server it is for (docs/lava.md): `HOST[:PORT] TOKEN`.
export RTOSBENCH_LAVA_E2E_TOKEN="127.0.0.1:$PORT $TOKEN"

t_run=$SECONDS
rb_run --matrix "$WORK/matrix.yaml" --bench "$WORK/local.yaml" --out "$WORK/local" "${ksrc[@]}" "${select[@]}" --no-history
local_rc=$RC
echo "local run (exit $RC) took $((SECONDS - t_run)) s"
# 0: every job OK; 1: a job not OK (TencentOS' known mutex_pi defect is
# INVALID); 2: a kernel without source (PX5's is never here).
[[ $RC -le 2 ]] || fail "local run: exit code $RC"
t_run=$SECONDS
rb_run --matrix "$WORK/matrix.yaml" --bench "$WORK/lava.yaml" --out "$WORK/farm" "${ksrc[@]}" "${select[@]}" --no-history
expect_eq "LAVA run exit code (the local run's)" "$local_rc" "$RC"
echo "LAVA run took $((SECONDS - t_run)) s"
L=$(run_dir "$WORK/local")
F=$(run_dir "$WORK/farm")
jobs=$(jq -r '.jobs[].id' "$L/run.json")
expect_eq "same jobs" "$jobs" "$(jq -r '.jobs[].id' "$F/run.json")"
# Two runs of one image under QEMU -icount are identical, but for the series
# the board declares the emulator can move (QEMU's warp in WFI): those are
# measured both ways, not compared.
unstable=$("$SRC/tests/board-unstable.sh" "$SRC" qemu-netduinoplus2 | paste -sd'|')
moving="^(RAW|RESULT),(${unstable:-\$^}),"
stats() { # RESULT.JSON: each series' counts, or only the unstable ones' (with 'moving')
  jq -c --arg re "^(${unstable:-\$^})\$" --arg m "${2:-}" \
    '[.series[] | select((.name | test($re)) == ($m == "moving")) |
      if $m == "moving" then [.phase, .name, .n] else [.phase, .name, .n, .median_ticks, .min_ticks, .max_ticks] end]' "$1"
}
ids=()
n_lava=0
for j in $jobs; do
  l=$L/jobs/$j/result.json
  r=$F/jobs/$j/result.json
  st=$(jq -r .status "$l")
  expect_eq "$j status on LAVA (the local run's)" "$st" "$(jq -r .status "$r")"
  case $st in
    SOURCE_MISSING | BUILD_ERROR)
      # Never built: no LAVA job was submitted.
      expect_eq "$j: no LAVA job" null "$(jq -c '.attempts[-1].lava // null' "$r")"
      continue
      ;;
    OK) expect_eq "$j verified" valid "$(jq -r '.attempts[-1].verify.outcome' "$r")" ;;
  esac
  n_lava=$((n_lava + 1))
  expect_eq "$j verify outcome (the local run's)" "$(jq -r '.attempts[-1].verify.outcome' "$l")" \
    "$(jq -r '.attempts[-1].verify.outcome' "$r")"
  # (Their line numbers aside: LAVA's capture starts at its own boot line.)
  expect_eq "$j verify's verdicts (the local run's)" "$(jq -c '[.attempts[-1].verify.verdicts[] | del(.line)]' "$l")" \
    "$(jq -c '[.attempts[-1].verify.verdicts[] | del(.line)]' "$r")"
  expect_eq "$j medians equal the local run's" "$(stats "$l")" "$(stats "$r")"
  expect_eq "$j series the bench moves measured both ways" "$(stats "$l" moving)" "$(stats "$r" moving)"
  id=$(jq -r '.attempts[-1].lava.job_id' "$r")
  ids+=("$id")
  expect_eq "$j LAVA job URL" "${URL}scheduler/job/$id" "$(jq -r '.attempts[-1].lava.url' "$r")"
  expect_eq "$j LAVA health" Complete "$(jq -r '.attempts[-1].lava.health' "$r")"
  a=$F/jobs/$j/attempt-1
  expect_eq "$j LAVA id on disk" "$id" "$(jq -r .job_id "$a/lava.json")"
  expect_file "$a/lava-log.yaml"
  expect_file "$a/lava-job.yaml"
  expect_contains "$j capture.raw from the log" "BEGIN,RTOS_BENCH_V" "$(head -c 100000 "$a/capture.raw")"
  expect_eq "$j capture.raw ends with END" END "$(tail -1 "$a/capture.raw" | cut -d, -f1)"
  # The protocol lines are the local capture's, line for line (the unstable
  # series' RAW and RESULT lines aside).
  expect_eq "$j protocol lines identical to the local capture" \
    "$(sed -n '/^BEGIN,/,/^END,/p' "$L/jobs/$j/attempt-1/capture.raw" | grep -vE "$moving" | sha256sum)" \
    "$(sed -n '/^BEGIN,/,/^END,/p' "$a/capture.raw" | grep -vE "$moving" | sha256sum)"
done
# Every job whose kernel source is here ran on the farm.
expect_eq "jobs run through LAVA" "$(jq '[.jobs[] | select(.status != "SOURCE_MISSING")] | length' "$L/run.json")" "$n_lava"
echo "$mode matrix: $n_lava of $(wc -w <<<"$jobs") jobs through LAVA: $(jq -r '[.jobs[] | "\(.id)=\(.status)"] | join(" ")' "$F/run.json")"
expect_contains "progress names LAVA's states" "LAVA job" "$ERR"
if ((${#ids[@]} > 1)); then
  # Two devices, two lanes: the jobs ran on both devices, and (when the local
  # builds kept up with the farm) at once. Which jobs overlap depends on how
  # long each build took on this machine, so every pair is looked at, not the
  # first two.
  spans=() devices=()
  for id in "${ids[@]}"; do
    job=$(api "api/v0.2/jobs/$id/")
    spans+=("$(jq -r '"\(.start_time) \(.end_time)"' <<<"$job")")
    devices+=("$(jq -r '.actual_device' <<<"$job")")
  done
  expect_eq "LAVA used both devices" 2 "$(printf '%s\n' "${devices[@]}" | sort -u | grep -c .)"
  overlap=""
  for ((a = 0; a < ${#spans[@]}; a++)); do
    for ((b = a + 1; b < ${#spans[@]}; b++)); do
      read -r s1 e1 <<<"${spans[a]}"
      read -r s2 e2 <<<"${spans[b]}"
      if [[ $s1 < $e2 && $s2 < $e1 ]]; then overlap="${ids[a]} and ${ids[b]}"; fi
    done
  done
  if [[ -n $overlap ]]; then
    echo "ok: LAVA jobs $overlap ran at once"
  elif ((${#ids[@]} > 2)); then
    fail "no two of ${#ids[@]} LAVA jobs overlapped: ${spans[*]}"
  else
    echo "note: the two LAVA jobs did not overlap (the second build finished after the first job)"
  fi
fi

# An image the worker cannot fetch: FLASH_ERROR with LAVA's comment.
lava_bench "$WORK/lava-bad.yaml" "file://$WORK/nowhere"
rb_run --matrix "$WORK/matrix.yaml" --bench "$WORK/lava-bad.yaml" --out "$WORK/bad" --only "${only[0]}" --no-history
expect_eq "unfetchable image: exit code" 2 "$RC"
d=$(run_dir "$WORK/bad")
expect_eq "unfetchable image: status" FLASH_ERROR "$(job_status "$d" "${only[0]}")"
expect_contains "unfetchable image: LAVA's comment" "does not exist" "$(job_reason "$d" "${only[0]}")"

# The monitor's timeout (the matrix's capture timeout) is a TIMEOUT: 2 s for
# a capture of ten times the samples, which runs far longer than that (at 300
# samples the run once ended inside the 2 s and the job was OK).
sed -e 's/^  capture: 180$/  capture: 2/' -e 's/^samples: 300$/samples: 3000/' "$WORK/matrix.yaml" >"$WORK/short.yaml"
grep -q '^samples: 3000$' "$WORK/short.yaml" || fail "matrix.yaml: no samples: 300 to raise"
rb_run --matrix "$WORK/short.yaml" --bench "$WORK/lava.yaml" --out "$WORK/short" --only "${only[0]}" --no-history
expect_eq "LAVA timeout: exit code" 1 "$RC"
d=$(run_dir "$WORK/short")
expect_eq "LAVA timeout: status" TIMEOUT "$(job_status "$d" "${only[0]}")"
# LAVA names the monitor action that ran out (lava-test-monitor, or its
# -retry wrapper) and says "timed out".
expect_contains "LAVA timeout: LAVA's reason" "lava-test-monitor" "$(job_reason "$d" "${only[0]}")"
expect_contains "LAVA timeout: LAVA's reason says so" "timed out" "$(job_reason "$d" "${only[0]}")"

# SIGINT while the LAVA job runs: the run stops (130) and cancels it.
wait_for_lava_id() { # RUNS_DIR: prints the LAVA id once lava.json is written
  for _ in $(seq 300); do
    f=$(ls "$1"/*/jobs/"${only[0]}"/attempt-*/lava.json 2>/dev/null | tail -1 || true)
    [[ -n $f ]] && jq -r .job_id "$f" && return 0
    sleep 0.2
  done
  return 1
}
set +e
"$RB" run --build-cache "$CACHE" --kernel-cache "$KCACHE" --matrix "$WORK/matrix.yaml" \
  --bench "$WORK/lava.yaml" --out "$WORK/int" --only "${only[0]}" --no-history >"$WORK/out.txt" 2>"$WORK/err.txt" &
rbpid=$!
id=$(wait_for_lava_id "$WORK/int")
kill -INT $rbpid
wait $rbpid
RC=$?
set -e
expect_eq "interrupted run: exit code" 130 "$RC"
# The worker stops a running job at its next contact with the server.
for _ in $(seq 120); do
  [[ $(api "api/v0.2/jobs/$id/" | jq -r .health) == Canceled ]] && break
  sleep 0.5
done
expect_eq "interrupted run: its LAVA job" Canceled "$(api "api/v0.2/jobs/$id/" | jq -r .health)"

# A run killed while LAVA holds its job: --resume follows that job.
set +e
"$RB" run --build-cache "$CACHE" --kernel-cache "$KCACHE" --matrix "$WORK/matrix.yaml" \
  --bench "$WORK/lava.yaml" --out "$WORK/kill" --only "${only[0]}" --no-history >"$WORK/out.txt" 2>"$WORK/err.txt" &
rbpid=$!
id=$(wait_for_lava_id "$WORK/kill")
kill -9 $rbpid
wait $rbpid 2>/dev/null
set -e
d=$(run_dir "$WORK/kill")
rb_run --resume "$d" --no-history
expect_eq "resumed run: exit code" 0 "$RC"
expect_eq "resumed run: status" OK "$(job_status "$d" "${only[0]}")"
expect_eq "resumed run: the same LAVA job" "$id" \
  "$(jq -r '.attempts[-1].lava.job_id' "$d/jobs/${only[0]}/result.json")"
expect_eq "resumed run: one attempt" 1 "$(jq '.attempts | length' "$d/jobs/${only[0]}/result.json")"
expect_eq "resumed run: medians equal the local run's" \
  "$(stats "$L/jobs/${only[0]}/result.json")" "$(stats "$d/jobs/${only[0]}/result.json")"
finish
