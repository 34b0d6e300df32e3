#!/usr/bin/env bash
# A lab repository that carries a git directory as plain files (HEAD,
# config, objects, refs) for a kernel's `source:`, its config setting
# core.worktree and a core.fsmonitor command: after a plain `git clone` of
# the lab repository, neither `doctor` nor `run` runs the command; the
# source is refused (SOURCE_MISSING), naming why.
source "$(dirname "$0")/lib.sh" "$@"

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
up=$WORK/fakeos
mkdir -p "$up"
git -C "$up" init -q -b main
echo '#define FAKEOS 1' >"$up/fakeos.h"
git -C "$up" add fakeos.h && git -C "$up" commit -q -m v1 && git -C "$up" tag v1.0.0

lab=$WORK/lab
mkdir -p "$lab/fakeos"
cp -r "$DATA/run/testfw" "$lab/testfw"
cp -r "$DATA/run/benches" "$lab/benches"
cp "$up/fakeos.h" "$lab/fakeos/"
cp -r "$up/.git" "$lab/fakeos/gitdir"
pwned=$WORK/pwned
git config --file "$lab/fakeos/gitdir/config" core.bare false
git config --file "$lab/fakeos/gitdir/config" core.worktree ..
git config --file "$lab/fakeos/gitdir/config" core.fsmonitor "touch $pwned;"
sed -e "s|@URL@|file://$up|" -e 's|^    tag: v1.0.0$|    tag: v1.0.0\n    source: fakeos/gitdir|' \
  "$DATA/run/kernel.yaml.in" >"$lab/kernel.yaml"
grep -q 'source: fakeos/gitdir' "$lab/kernel.yaml" || fail "kernel.yaml.in: no tag line to add source: after"
git -C "$lab" init -q -b main && git -C "$lab" add . && git -C "$lab" commit -q -m lab
git clone -q "$lab" "$WORK/clone"
[[ -f $WORK/clone/fakeos/gitdir/config ]] || fail "the clone lacks the committed git directory"

set +e
out=$("$RB" doctor --matrix "$WORK/clone/kernel.yaml" --kernel-cache "$KCACHE" 2>&1)
set -e
[[ -e $pwned ]] && fail "doctor ran the source's core.fsmonitor" || echo "ok: doctor ran nothing"
expect_contains "doctor says why" "bare git directory" "$out"

rb_run --matrix "$WORK/clone/kernel.yaml" --out "$WORK/runs" --no-history
[[ -e $pwned ]] && fail "run ran the source's core.fsmonitor" || echo "ok: run ran nothing"
expect_eq "run: exit code" 2 "$RC"
d=$(run_dir "$WORK/runs")
expect_eq "status" SOURCE_MISSING "$(job_status "$d" fakeos-O2-tick1000-fpu0)"
expect_contains "reason" "bare git directory" "$(job_reason "$d" fakeos-O2-tick1000-fpu0)"
finish
