#!/usr/bin/env bash
# End-to-end: a real quick emulated run (bare, one test) is bundled, checks
# clean, and is read by report and diff; one capture byte changed is refused
# by name (exit 2), one result figure changed with MANIFEST made to agree is
# refused by name (exit 1), a member added (3) and one removed (4) too.
#   e2e.sh RTOSBENCH TEST_DATA WORK
set -euo pipefail
bin=$1 data=$2/bundle work=$3
export RTOSBENCH_HISTORY="$work/history.sqlite"

source "$(dirname "$0")/../lib/expect.sh"

rm -rf "$work"
mkdir -p "$work"
expect_status 0 "$bin" run --matrix "$data/matrix.yaml" --out "$work/runs" --no-history \
  --build-cache "$work/build-cache"
run=$(echo "$work"/runs/*/)
run=${run%/}
id=$(basename "$run")
job=bare-O2-tick1000-fpu0
[[ -f $run/jobs/$job/attempt-1/capture.raw ]] || fail "no capture in $run"

expect_status 0 "$bin" bundle "$run" -o "$work/run.tar.zst"
contains "$out" "under $id/"
expect_status 0 "$bin" check "$work/run.tar.zst"
contains "$out" "1 results, 1 captures re-verified"
contains "$out" ": clean"

# report and diff read the bundle as they read the run directory, and write
# nothing next to it.
before=$(ls "$work" | sort)
expect_status 0 "$bin" report "$work/run.tar.zst" --md "$work/bundle.md"
expect_status 0 "$bin" report "$run" --md "$work/dir.md"
cmp -s "$work/bundle.md" "$work/dir.md" || fail "the report of the bundle is not the run directory's"
ok "report of the bundle = report of the run directory"
expect_status 0 "$bin" diff "$run" "$work/run.tar.zst"
contains "$out" "identical"
contains "$out" "run.tar.zst (bundle)"
expect_status 0 "$bin" regress --baseline "$work/run.tar.zst" "$run"
[[ $(ls "$work" | sort | grep -v -e '^bundle.md$' -e '^dir.md$') == "$before" ]] ||
  fail "reading the bundle wrote next to it: $(ls "$work")"
ok "nothing written next to the bundle"

# Unpack, change, repack (MANIFEST first, as bundles have it).
unpack() { rm -rf "$work/x" && mkdir "$work/x" && tar --zstd -xf "$work/run.tar.zst" -C "$work/x"; }
repack() {
  (cd "$work/x" && find "$id" -type f ! -name MANIFEST | sort >"$work/list" &&
    tar --zstd -cf "$1" "$id/MANIFEST" -T "$work/list")
}
remanifest() { (cd "$work/x/$id" && find . -type f ! -name MANIFEST | sed 's|^\./||' | sort |
  xargs sha256sum >MANIFEST); }

unpack
(cd "$work/x/$id" && sha256sum --quiet -c MANIFEST) || fail "MANIFEST does not check with sha256sum"
ok "sha256sum -c MANIFEST"

capture=jobs/$job/attempt-1/capture.raw
unpack
printf 'X' | dd of="$work/x/$id/$capture" bs=1 seek=200 conv=notrunc status=none
repack "$work/capture.tar.zst"
expect_status 2 "$bin" check "$work/capture.tar.zst"
contains "$out" "REFUSED $capture [tampered]"
expect_status 65 "$bin" report "$work/capture.tar.zst"
contains "$out" "$capture"

result=jobs/$job/result.json
unpack
/usr/bin/python3 - "$work/x/$id/$result" <<'PY'
import json, sys
p = sys.argv[1]
r = json.load(open(p))
r["series"][0]["median_ticks"] += 1  # one figure of the first series
json.dump(r, open(p, "w"), indent=2)
PY
remanifest
repack "$work/result.tar.zst"
expect_status 1 "$bin" check "$work/result.tar.zst"
contains "$out" "REFUSED $result [disagrees]"
contains "$out" "median_ticks"

unpack
echo smuggled >"$work/x/$id/extra.txt"
repack "$work/extra.tar.zst"
expect_status 3 "$bin" check "$work/extra.tar.zst"
contains "$out" "REFUSED extra.txt [not_in_manifest]"

unpack
rm "$work/x/$id/$result"
repack "$work/missing.tar.zst"
expect_status 4 "$bin" check "$work/missing.tar.zst"
contains "$out" "REFUSED $result [missing]"

echo "not a bundle" >"$work/garbage.tar.zst"
expect_status 65 "$bin" check "$work/garbage.tar.zst"
rm -rf "$work/x"
ok "bundle e2e"
