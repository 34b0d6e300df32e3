#!/usr/bin/env bash
# The kernel-alone footprint (build.footprint_kernel) with no kernel source:
# the test firmware's stand-in kernel port (ports/minikernel: an rb_kernel
# object library and port glue) compared with the bare image of the same
# options. Next to a bare job the reference is that job's image (a build
# cache hit); without one it is built; when it cannot be built the job stays
# OK and the figure holds the error. `rtosbench footprint` on the two build
# directories prints the same figures and refuses builds that differ.
source "$(dirname "$0")/lib.sh" "$@"
cp -r "$DATA/run/testfw" "$WORK/testfw"
cp -r "$DATA/run/benches" "$WORK/benches"
bare=bare-O2-tick1000-fpu0
mk=minikernel-O2-tick1000-fpu0

# 1. Bare job and kernel job; one build at a time, the bare image first.
rb_run --matrix "$DATA/run/footprint.yaml" --out "$WORK/runs" --build-jobs 1
expect_eq "exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
rb=$d/jobs/$bare/result.json
rk=$d/jobs/$mk/result.json
expect_eq "bare status" OK "$(jq -r .status "$rb")"
expect_eq "kernel status" OK "$(jq -r .status "$rk")"
expect_eq "no kernel-alone figure for the bare job" false "$(jq '.build | has("footprint_kernel")' "$rb")"
fk=$(jq -c .build.footprint_kernel "$rk")
expect_eq "no error" null "$(jq -r .error <<<"$fk")"
expect_eq "image = the job's own footprint" "$(jq .build.footprint.flash "$rk")" "$(jq .image.flash <<<"$fk")"
expect_eq "bare = the bare job's footprint" "$(jq .build.footprint.flash "$rb")" "$(jq .bare.flash <<<"$fk")"
expect_eq "delta.flash = image - bare" "$(jq '.image.flash - .bare.flash' <<<"$fk")" "$(jq .delta.flash <<<"$fk")"
expect_eq "delta.ram = image - bare" "$(jq '.image.ram - .bare.ram' <<<"$fk")" "$(jq .delta.ram <<<"$fk")"
expect_eq "delta.flash > 0" true "$(jq '.delta.flash > 0' <<<"$fk")"
expect_eq "kernel text > 0" true "$(jq '.kernel.text > 0' <<<"$fk")"
expect_eq "kernel data > 0" true "$(jq '.kernel.data > 0' <<<"$fk")"
expect_eq "port glue bss (the idle stack)" 128 "$(jq .port_glue.bss <<<"$fk")"
expect_eq "reference is the bare job's image" "$(jq -r .build.key "$rb")" "$(jq -r .bare_key <<<"$fk")"
expect_eq "reference from the build cache" true "$(jq .bare_cached <<<"$fk")"
expect_eq "reference log" "builds/$mk/bare-reference/build.log" "$(jq -r .bare_log <<<"$fk")"
for f in build.log size.json rtosbench-fw.map; do expect_file "$d/builds/$mk/bare-reference/$f"; done
expect_contains "reference log says cache hit" "build cache hit: $(jq -r .bare_key <<<"$fk")" \
  "$(cat "$d/builds/$mk/bare-reference/build.log")"
expect_contains "job.log" "kernel alone: flash $(jq .delta.flash <<<"$fk") B" "$(cat "$d/jobs/$mk/job.log")"

# The same figures from the CLI, on the two build directories in the cache.
kdir=$CACHE/$(jq -r .build.key "$rk")/build
bdir=$CACHE/$(jq -r .build.key "$rb")/build
set +e
cli=$("$RB" footprint "$kdir" "$bdir" --json)
rc=$?
set -e
expect_eq "footprint --json exit code" 0 "$rc"
expect_eq "CLI figures = stored figures" "$(jq -S -c 'del(.bare_key, .bare_cached, .bare_log)' <<<"$fk")" \
  "$(jq -S -c . <<<"$cli")"
expect_contains "footprint text" "kernel alone" "$("$RB" footprint "$kdir" "$bdir")"
# Refusals: another RB_OPT, a reference that is not bare, an image without kernel.
cmake -S "$WORK/testfw" -B "$WORK/bare-os" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$WORK/testfw/cmake/arm-none-eabi.cmake" \
  -DRB_PORT=bare -DRB_OPT="-Os -g0" -DRB_SAMPLES=64 -DRB_WARMUP=10 >/dev/null
cmake --build "$WORK/bare-os" >/dev/null
refused() { # EXPECTED_RC NEEDLE ARGS...
  local want=$1 needle=$2
  shift 2
  set +e
  "$RB" footprint "$@" >"$WORK/fp.out" 2>"$WORK/fp.err"
  local got=$?
  set -e
  expect_eq "footprint $* exit code" "$want" "$got"
  expect_contains "footprint $* says why" "$needle" "$(cat "$WORK/fp.err")"
}
refused 3 "the builds differ in RB_OPT ('-O2 -g0' in $kdir, '-Os -g0' in $WORK/bare-os)" "$kdir" "$WORK/bare-os"
refused 3 "$kdir is not a bare-port build (RB_PORT=minikernel)" "$kdir" "$kdir"
refused 3 "no kernel object (rb_kernel)" "$bdir" "$bdir"
refused 66 "$WORK/nowhere/size.json not found" "$kdir" "$WORK/nowhere"
refused 64 "BARE_BUILD_DIR is required" "$kdir"

# The report shows the stored figure.
"$RB" report "$d" --md "$WORK/report.md" 2>/dev/null
expect_contains "report footprint row" \
  "| $(jq .build.footprint.ram "$rk") | $(jq .delta.flash <<<"$fk") | $(jq .delta.ram <<<"$fk") |" \
  "$(grep "| $mk |" "$WORK/report.md" | grep -v instructions)"

# 2. No bare job in the matrix (other samples: not in the cache): the reference is built.
sed -e '/- name: bare/d' -e 's/^samples: 64/samples: 48/' -e "s|^firmware: testfw|firmware: $WORK/testfw|" \
  -e "s|^bench: benches|bench: $WORK/benches|" "$DATA/run/footprint.yaml" >"$WORK/alone.yaml"
rb_run --matrix "$WORK/alone.yaml" --out "$WORK/runs"
expect_eq "alone: exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
fk=$(jq -c .build.footprint_kernel "$d/jobs/$mk/result.json")
expect_eq "alone: reference built" false "$(jq .bare_cached <<<"$fk")"
expect_eq "alone: delta.flash = image - bare" "$(jq '.image.flash - .bare.flash' <<<"$fk")" "$(jq .delta.flash <<<"$fk")"
expect_eq "alone: the reference is not a job" 1 "$(jq '.jobs | length' "$d/run.json")"
expect_contains "alone: reference built with the job's samples" "-DRB_SAMPLES=48" \
  "$(cat "$d/builds/$mk/bare-reference/build.log")"
# Without a bare job the report can only show the stored figure.
"$RB" report "$d" --md "$WORK/report-alone.md" 2>/dev/null
expect_contains "alone: report footprint row" "| $(jq .delta.flash <<<"$fk") | $(jq .delta.ram <<<"$fk") |" \
  "$(grep "| $mk |" "$WORK/report-alone.md" | grep -v instructions)"

# 3. The bare port does not build: the job is still OK; the figure says why.
echo 'message(FATAL_ERROR "bare port broken on purpose")' >"$WORK/testfw/ports/bare/port.cmake"
rb_run --matrix "$WORK/alone.yaml" --out "$WORK/runs"
expect_eq "broken reference: exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
r=$d/jobs/$mk/result.json
expect_eq "broken reference: job OK" OK "$(jq -r .status "$r")"
expect_contains "broken reference: error" "the bare reference image did not build: cmake configure failed" \
  "$(jq -r .build.footprint_kernel.error "$r")"
expect_eq "broken reference: no figures" null "$(jq .build.footprint_kernel.delta "$r")"
expect_contains "broken reference: noted" "kernel-alone footprint not computed" "$ERR"
expect_contains "broken reference: job.log" "kernel-alone footprint not computed" "$(cat "$d/jobs/$mk/job.log")"
finish
