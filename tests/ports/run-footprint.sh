#!/usr/bin/env bash
# End-to-end test of the kernel-alone footprint in a real `rtosbench run`:
# configs/qemu.yaml (every kernel port and the bare port) with the port
# tests' sample counts, run under QEMU with the kernels' real sources; every
# kernel job's result.json must hold build.footprint_kernel with
# delta = image - bare image > 0, kernel text > 0, the bare job's image as
# the reference, and the map-file parts adding up to the delta within 128
# bytes once the fill no object owns is added back (map-fill.py on both
# images' maps in the build cache: alignment, in flash 0 to 63 bytes before
# newlib-nano's 64-byte aligned strlen alone, in RAM 0 to 511 before
# LiteOS-M's vector table), and the harness code only one of the two images
# links (map-fill.py --harness: a port's NA tests' code is dropped): what
# they leave out is the
# harness' CONFIG strings that name the kernel (its version and 40-digit
# commit, where the bare image says n/a; 40 to 92 bytes of flash in these
# images).
#
#   run-footprint.sh RTOSBENCH_BIN REPO_ROOT WORK_DIR
#
# Kernel sources come from the variables tests/ports reads
# (RTOSBENCH_KERNEL_FREERTOS, ...; `eval "$(rtosbench kernels env)"` sets
# them from the kernel cache). A kernel without one is SOURCE_MISSING in the
# run and left out of the checks; with none at all the test is SKIPPED
# (exit 77). Images go to a build cache under WORK_DIR, kept between runs.
# Prints one line per kernel: its kernel-alone flash and RAM.
set -euo pipefail
bin=$1 root=$2 work=$3
# shellcheck source=tests/ports/lib.sh
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || fail "jq is required"

# Every source `rtosbench kernels env` found (the same variables the port
# tests read), as --kernel-source arguments.
mapfile -t args < <("$bin" kernels args)
have=()
for a in "${args[@]}"; do
  [[ $a == --kernel-source || $a == *.*=* ]] && continue
  have+=("${a%%=*}")
done
if [[ ${#have[@]} -eq 0 ]]; then
  echo "SKIPPED: no kernel source (set RTOSBENCH_KERNEL_<NAME>, e.g. eval \"\$(rtosbench kernels env)\")"
  exit 77
fi

mkdir -p "$work"
matrix_copy qemu.yaml "$work/footprint-matrix.yaml" \
  -e 's/^samples: .*/samples: 2000/' -e 's/^warmup: .*/warmup: 200/'
rm -rf "$work/runs"
rc=0
"$bin" run --matrix "$work/footprint-matrix.yaml" --bench "$root/tests/data/run/benches/qemu1.yaml" \
  --out "$work/runs" --build-cache "$work/build-cache" --kernel-cache "$work/no-kernel-cache" \
  --build-jobs 1 --no-history "${args[@]}" >"$work/run.out" 2>"$work/run.err" || rc=$?
# 0 all OK; 1 a measurement failed (TencentOS' known mutex_pi defect); 2 a
# kernel without source. The footprint does not depend on the capture.
[[ $rc -le 2 ]] || { cat "$work/run.err" >&2; fail "rtosbench run exited $rc"; }
d=$(ls -d "$work"/runs/*/ | head -1)
bare=$d/jobs/bare-O2-tick1000-fpu0/result.json
[[ $(jq -r .status "$bare") == OK ]] || fail "the bare job is $(jq -r '.status + ": " + .reason' "$bare")"
[[ $(jq '.build | has("footprint_kernel")' "$bare") == false ]] || fail "the bare job has a kernel-alone figure"
bare_key=$(jq -r .build.key "$bare")
for k in "${have[@]}"; do
  r=$d/jobs/$k-O2-tick1000-fpu0/result.json
  [[ -f $r ]] || fail "$k: no result.json"
  [[ $(jq -r .build) != null ]] || fail "$k: no image ($(jq -r '.status + ": " + .reason' "$r"))"
  fk=$(jq -c .build.footprint_kernel "$r")
  [[ $(jq -r '.error // ""' <<<"$fk") == "" ]] || fail "$k: $(jq -r .error <<<"$fk")"
  check() { # WHAT JQ_CONDITION
    [[ $(jq "$2" <<<"$fk") == true ]] || fail "$k: $1 ($2) in $fk"
  }
  check "delta.flash = image - bare" '.delta.flash == .image.flash - .bare.flash'
  check "delta.ram = image - bare" '.delta.ram == .image.ram - .bare.ram'
  check "delta.flash > 0" '.delta.flash > 0'
  check "kernel text > 0" '.kernel.text > 0'
  check "the reference is the bare job's image" ".bare_key == \"$bare_key\" and .bare_cached"
  key=$(jq -r .build.key "$r")
  img_map=$work/build-cache/$key/build/rtosbench-fw.map
  bare_map=$work/build-cache/$(jq -r .bare_key <<<"$fk")/build/rtosbench-fw.map
  # What the split leaves out, image less bare (map-fill.py): the fill no
  # object owns, and the harness and board code the bare image links but the
  # kernel image drops (the code of its NA tests) or the other way round.
  unowned() { # [--ram]
    local a b c d
    a=$("$root/tests/ports/map-fill.py" "$@" "$img_map") || fail "$k: map-fill.py $* on its cached image"
    b=$("$root/tests/ports/map-fill.py" "$@" "$bare_map") || fail "$k: map-fill.py $* on the bare reference image"
    c=$("$root/tests/ports/map-fill.py" "$@" --harness "$img_map") || fail "$k: map-fill.py $* --harness on its cached image"
    d=$("$root/tests/ports/map-fill.py" "$@" --harness "$bare_map") || fail "$k: map-fill.py $* --harness on the bare reference image"
    echo $((a - b + c - d))
  }
  extra=$(unowned)
  check "parts and the fill add up to the delta (flash)" \
    "(.kernel.flash + (.kernel_support.flash // 0) + .port_glue.flash + .libs.flash + (.startup.flash // 0) - .bare_port.flash + $extra - .delta.flash) | fabs <= 128"
  extra=$(unowned --ram)
  check "parts and the fill add up to the delta (RAM)" \
    "(.kernel.ram + (.kernel_support.ram // 0) + .port_glue.ram + .libs.ram + (.startup.ram // 0) - .bare_port.ram + $extra - .delta.ram) | fabs <= 128"
  [[ $(jq .image.flash <<<"$fk") == $(jq .build.footprint.flash "$r") ]] || fail "$k: image is not the job's image"
  echo "$k: kernel alone flash $(jq .delta.flash <<<"$fk") B, RAM $(jq .delta.ram <<<"$fk") B" \
    "(kernel objects $(jq .kernel.flash <<<"$fk")/$(jq .kernel.ram <<<"$fk"), job $(jq -r .status "$r"))"
done
echo "kernel-alone footprints stored for: ${have[*]}"
