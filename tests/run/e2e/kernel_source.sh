#!/usr/bin/env bash
# Kernel sources with real git: a local checkout at the pinned tag builds and
# its commit is recorded; a checkout at another commit is SOURCE_MISSING
# unless --allow-other-commit; --fetch-kernels clones the tag into the cache
# (from a file:// URL: no network); a kernel pinned by commit is fetched by
# that commit; `rtosbench kernels env` exports exactly the cached checkouts at
# their pin.
source "$(dirname "$0")/lib.sh" "$@"

up=$WORK/fakeos
mkdir -p "$up"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
git -C "$up" init -q -b main
echo '#define FAKEOS 1' >"$up/fakeos.h"
git -C "$up" add fakeos.h && git -C "$up" commit -q -m v1 && git -C "$up" tag v1.0.0
tag_commit=$(git -C "$up" rev-parse HEAD)
echo '#define FAKEOS 2' >"$up/fakeos.h"
git -C "$up" commit -q -am v2

sed "s|@URL@|file://$up|" "$DATA/run/kernel.yaml.in" >"$WORK/kernel.yaml"
cp -r "$DATA/run/testfw" "$WORK/testfw"
cp -r "$DATA/run/benches" "$WORK/benches"

rb_run --matrix "$WORK/kernel.yaml" --out "$WORK/runs" --kernel-source "fakeos=$up"
expect_eq "checkout not at the tag: exit code" 2 "$RC"
d=$(run_dir "$WORK/runs")
expect_eq "status" SOURCE_MISSING "$(job_status "$d" fakeos-O2-tick1000-fpu0)"
expect_contains "reason" "the pinned tag v1.0.0" "$(job_reason "$d" fakeos-O2-tick1000-fpu0)"

rb_run --matrix "$WORK/kernel.yaml" --out "$WORK/runs" --kernel-source "fakeos=$up" --allow-other-commit
expect_eq "accepted with --allow-other-commit" 0 "$RC"
d=$(run_dir "$WORK/runs")
r=$d/jobs/fakeos-O2-tick1000-fpu0/result.json
expect_eq "HEAD recorded" "$(git -C "$up" rev-parse HEAD)" "$(jq -r .kernel_source.commit "$r")"
expect_eq "not at tag" false "$(jq .kernel_source.at_tag "$r")"
expect_contains "note recorded" "accepted by --allow-other-commit" "$(jq -r .kernel_source.note "$r")"

git -C "$up" checkout -q v1.0.0
rb_run --matrix "$WORK/kernel.yaml" --out "$WORK/runs" --kernel-source "fakeos=$up"
expect_eq "checkout at the tag" 0 "$RC"
d=$(run_dir "$WORK/runs")
r=$d/jobs/fakeos-O2-tick1000-fpu0/result.json
expect_eq "tag commit recorded" "$tag_commit" "$(jq -r .kernel_source.commit "$r")"
expect_eq "commit echoed by the firmware and pinned" "$tag_commit" "$(jq -r .conditions.kernel_commit "$r")"
expect_eq "origin" "command line" "$(jq -r .kernel_source.origin "$r")"

rb_run --matrix "$WORK/kernel.yaml" --out "$WORK/runs"
expect_eq "not in the cache, no fetch" 2 "$RC"
rb_run --matrix "$WORK/kernel.yaml" --out "$WORK/runs" --fetch-kernels
expect_eq "fetched into the cache" 0 "$RC"
d=$(run_dir "$WORK/runs")
expect_eq "fetched origin" fetched "$(jq -r .kernel_source.origin "$d/jobs/fakeos-O2-tick1000-fpu0/result.json")"
expect_file "$KCACHE/fakeos-v1.0.0/fakeos.h"

# Pinned by commit, with a branch name that has moved on as its tag.
sed -e "s|@URL@|file://$up|" -e "s|tag: v1.0.0|tag: main\n    commit: $tag_commit|" "$DATA/run/kernel.yaml.in" \
  >"$WORK/kernel-commit.yaml"
rb_run --matrix "$WORK/kernel-commit.yaml" --out "$WORK/runs" --fetch-kernels
expect_eq "fetched by commit" 0 "$RC"
d=$(run_dir "$WORK/runs")
r=$d/jobs/fakeos-O2-tick1000-fpu0/result.json
expect_eq "pinned commit recorded" "$tag_commit" "$(jq -r .kernel_source.pinned_commit "$r")"
expect_eq "built at the pinned commit" "$tag_commit" "$(jq -r .conditions.kernel_commit "$r")"
expect_file "$KCACHE/fakeos-$tag_commit/fakeos.h"
git -C "$up" checkout -q main
rb_run --matrix "$WORK/kernel-commit.yaml" --out "$WORK/runs" --kernel-source "fakeos=$up"
expect_eq "a named checkout off the pinned commit" 2 "$RC"
expect_contains "reason" "pinned commit is ${tag_commit:0:12}" "$(job_reason "$(run_dir "$WORK/runs")" fakeos-O2-tick1000-fpu0)"

# `rtosbench kernels env`: the cached checkouts at their pins, and why not.
kenv() { "$RB" kernels env --matrix "$1" | grep FAKEOS || true; }
out=$(RTOSBENCH_KERNEL_CACHE=$KCACHE kenv "$WORK/kernel.yaml")
expect_eq "kernels env exports the cached tag" "export RTOSBENCH_KERNEL_FAKEOS='$KCACHE/fakeos-v1.0.0'" "$out"
out=$(RTOSBENCH_KERNEL_CACHE=$KCACHE kenv "$WORK/kernel-commit.yaml")
expect_eq "kernels env exports the cached commit" "export RTOSBENCH_KERNEL_FAKEOS='$KCACHE/fakeos-$tag_commit'" "$out"
out=$(RTOSBENCH_KERNEL_CACHE=$KCACHE RTOSBENCH_KERNEL_FAKEOS=/mine kenv "$WORK/kernel.yaml")
expect_eq "kernels env keeps the caller's value" "" "$out"
echo '#define FAKEOS 9' >"$KCACHE/fakeos-v1.0.0/fakeos.h"
out=$(RTOSBENCH_KERNEL_CACHE=$KCACHE kenv "$WORK/kernel.yaml")
expect_contains "kernels env skips a modified checkout" "# RTOSBENCH_KERNEL_FAKEOS not set:" "$out"
expect_contains "kernels env says why" "modified" "$out"
git -C "$KCACHE/fakeos-v1.0.0" checkout -q -- fakeos.h
git -C "$KCACHE/fakeos-v1.0.0" fetch -q origin main && git -C "$KCACHE/fakeos-v1.0.0" checkout -q FETCH_HEAD
out=$(RTOSBENCH_KERNEL_CACHE=$KCACHE kenv "$WORK/kernel.yaml")
expect_contains "kernels env skips a checkout off its tag" "but the pinned tag v1.0.0" "$out"
out=$(RTOSBENCH_KERNEL_CACHE=$WORK/no-cache kenv "$WORK/kernel.yaml")
expect_contains "kernels env says what is missing" "# RTOSBENCH_KERNEL_FAKEOS not set:" "$out"
expect_contains "kernels env names the missing entry" "$WORK/no-cache/fakeos-v1.0.0" "$out"
# A kernel with no public source (PX5-like, `supply:`): without one the job is
# SOURCE_MISSING saying what to supply; a supplied plain directory is taken.
awk '/^  - name: fakeos/ { print; print "    version: \"1.0.0\""; print "    supply: the FakeOS 1.0 directory (fakeos.h)"; skip = 1; next }
     skip && /^    / { next } { skip = 0; print }' "$WORK/kernel.yaml" >"$WORK/supply.yaml"
rb_run --matrix "$WORK/supply.yaml" --out "$WORK/runs-supply"
expect_eq "supplied kernel without source: exit code" 2 "$RC"
d=$(run_dir "$WORK/runs-supply")
expect_eq "supplied kernel without source: status" SOURCE_MISSING "$(job_status "$d" fakeos-O2-tick1000-fpu0)"
expect_contains "supplied kernel without source: what to supply" \
  "supply the FakeOS 1.0 directory (fakeos.h) with --kernel-source fakeos=PATH" "$(job_reason "$d" fakeos-O2-tick1000-fpu0)"
plain=$WORK/fakeos-plain
mkdir -p "$plain" && cp "$up/fakeos.h" "$plain/"
rb_run --matrix "$WORK/supply.yaml" --out "$WORK/runs-supply" --kernel-source "fakeos=$plain"
expect_eq "supplied plain directory: exit code" 0 "$RC"
d=$(run_dir "$WORK/runs-supply")
expect_eq "supplied plain directory: status" OK "$(job_status "$d" fakeos-O2-tick1000-fpu0)"
finish
