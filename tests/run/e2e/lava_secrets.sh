#!/usr/bin/env bash
# A LAVA URL's credentials (http://alice:SECRET@host/) and the REST token
# never reach a file of the run directory, stdout or stderr: one LAVA job
# against a fake server on this machine (fake_lava.py: submitted, Finished
# Incomplete at once), then every file of the run is searched. The token
# goes to the server it is bound to, and nowhere else.
source "$(dirname "$0")/lib.sh" "$@"

/usr/bin/python3 "$(dirname "$0")/fake_lava.py" "$WORK/port" "$WORK/auth.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do [[ -s $WORK/port ]] && break; sleep 0.1; done
PORT=$(<"$WORK/port")

cp -r "$DATA/run/testfw" "$WORK/testfw"
sed -e 's|^bench: .*|bench: lava.yaml|' "$DATA/run/normal.yaml" >"$WORK/matrix.yaml"
mkdir -p "$WORK/img"
cat >"$WORK/lava.yaml" <<YAML
bench: lava-secrets
lava:
  url: http://alice:SECRET-PW@127.0.0.1:$PORT/
  token_env: RTOSBENCH_LAVA_E2E_SECRETS
  publish: {dir: $WORK/img, url: "file://$WORK/img"}
  poll: 0.2
boards:
  - id: farm-qemu
    board: qemu-netduinoplus2
    flasher: qemu
    lava: {device_type: qemu}
YAML
export RTOSBENCH_LAVA_E2E_SECRETS="127.0.0.1:$PORT SECRET-TOKEN"

rb_run --matrix "$WORK/matrix.yaml" --out "$WORK/runs" --no-history
d=$(run_dir "$WORK/runs")
a=$d/jobs/bare-O2-tick1000-fpu0/attempt-1
for f in "$a/lava.json" "$a/attempt.json" "$d/jobs/bare-O2-tick1000-fpu0/result.json" \
  "$d/jobs/bare-O2-tick1000-fpu0/job.log" "$d/run.json" "$d/bench.yaml"; do
  expect_file "$f"
done
expect_contains "bench.yaml keeps the URL, its password masked" "http://alice:***@127.0.0.1:$PORT/" "$(cat "$d/bench.yaml")"
expect_contains "the job's page, its password masked" "alice:***@127.0.0.1:$PORT/scheduler/job/7" \
  "$(jq -r .url "$a/lava.json")"
expect_contains "the job was followed to its end" "Incomplete" "$(cat "$d/jobs/bare-O2-tick1000-fpu0/result.json")"
for secret in SECRET-PW SECRET-TOKEN; do
  leaks=$(grep -rl -- "$secret" "$d" "$WORK/out.txt" "$WORK/err.txt" || true)
  expect_eq "files holding $secret" "" "$leaks"
done
expect_contains "the token went to its server" "Token SECRET-TOKEN" "$(cat "$WORK/auth.log")"

# The token is bound to its host: the same bench pointed at another port of
# this machine (the fake server's, as localhost:PORT) gets no token.
sed -i "s|127.0.0.1:$PORT|localhost:$PORT|" "$WORK/lava.yaml"
: >"$WORK/auth.log"
rb_run --matrix "$WORK/matrix.yaml" --out "$WORK/runs2" --no-history
expect_contains "no token for another host" "no LAVA token for localhost:$PORT" "$OUT$ERR$(cat "$(run_dir "$WORK/runs2")"/jobs/*/result.json)"
expect_eq "nothing sent to it" 0 "$(grep -c Token "$WORK/auth.log" || true)"

# Resuming from the run's bench.yaml (its password masked) asks for the bench.
rb_run --resume "$d"
expect_eq "resume from the masked bench.yaml: exit code" 64 "$RC"
expect_contains "resume says what to pass" "pass --bench" "$ERR"
finish
