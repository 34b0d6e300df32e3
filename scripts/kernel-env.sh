#!/usr/bin/env bash
# Prints `export RTOSBENCH_KERNEL_<NAME>=...` for every kernel of a matrix
# (default configs/qemu.yaml, the kernels the port tests cover) whose
# checkout is in rtosbench's kernel cache at the pinned tag or commit, and
# unmodified: the same place and the same check `rtosbench run` uses
# ($RTOSBENCH_KERNEL_CACHE, else $XDG_CACHE_HOME/rtosbench/kernels, else
# ~/.cache/rtosbench/kernels; entries are <name>-<commit> for a kernel pinned
# by commit, else <name>-<tag>; extra sources <name>-<extra>-<tag>).
# tests/ports reads these variables and skips a kernel without one, with its
# reason. A kernel left out gets a `# ...` line saying why. A variable the
# caller already set wins over the cache.
#
#   eval "$(scripts/kernel-env.sh [MATRIX])"
#
# With --pins it prints the matrix's pins instead, one line per source:
# KERNEL EXTRA VERSION TAG COMMIT ("-" for an empty field; EXTRA "-" for the
# kernel itself). Tests and scripts read a kernel's pin this way, so it lives
# in its matrix entry only. With --expects it prints each kernel's own CONFIG
# pins (its one-line `expect: {key: value, ...}`), one per line: KERNEL KEY VALUE.
#
# With --args it prints, one per line, the `--kernel-source NAME[.EXTRA]=PATH`
# arguments of `rtosbench run` for the sources whose variables are set in the
# environment (after the eval above): tests run a matrix on exactly the
# sources the port tests use.
#
#   scripts/kernel-env.sh --pins [MATRIX]
#   scripts/kernel-env.sh --expects [MATRIX]
#   mapfile -t args < <(scripts/kernel-env.sh --args [MATRIX])
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pins_only=0
expects_only=0
args_only=0
if [[ ${1:-} == --pins ]]; then
  pins_only=1
  shift
elif [[ ${1:-} == --expects ]]; then
  expects_only=1
  shift
elif [[ ${1:-} == --args ]]; then
  args_only=1
  shift
fi
matrix=${1:-$root/configs/qemu.yaml}
cache=${RTOSBENCH_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rtosbench/kernels}
[[ -r $matrix ]] || { echo "kernel-env.sh: cannot read $matrix" >&2; exit 66; }

if ((expects_only)); then
  awk '
    /^[^ #]/ { inkernels = ($0 ~ /^kernels:/); next }
    !inkernels { next }
    /^  - name:/ { k = $0; sub(/^[^:]*:[ \t]*/, "", k); sub(/[ \t]+#.*$/, "", k); next }
    /^    expect:[ \t]*[{]/ {
      e = $0; sub(/^[^{]*[{]/, "", e); sub(/[}].*$/, "", e)
      n = split(e, kv, ",")
      for (i = 1; i <= n; i++) {
        key = kv[i]; sub(/:.*$/, "", key); gsub(/[ \t"\047]/, "", key)
        val = kv[i]; sub(/^[^:]*:/, "", val); gsub(/[ \t"\047]/, "", val)
        if (key != "") print k, key, val
      }
    }
  ' "$matrix"
  exit 0
fi

# tests/ports names the extra sources of uC/OS-III this way.
declare -A extra_var=([ucos3.uc_cpu]=UCOS3_CPU [ucos3.uc_lib]=UCOS3_LIB)

# One line per source: KERNEL EXTRA TAG COMMIT VERSION ("-" for an empty field), from
# the matrix's `kernels:` list (entries at two spaces, extra sources at six;
# commented-out kernels are not listed).
sources=$(awk '
  function flush() { if (k != "") print k, (x == "" ? "-" : x), (t == "" ? "-" : t), (c == "" ? "-" : c), (v == "" || x != "" ? "-" : v) }
  function value(line) { sub(/^[^:]*:[ \t]*/, "", line); sub(/[ \t]+#.*$/, "", line); gsub(/["\047]/, "", line); return line }
  /^[^ #]/ { inkernels = ($0 ~ /^kernels:/); next }
  !inkernels { next }
  /^  - name:/ { flush(); k = value($0); x = ""; t = ""; c = ""; v = ""; next }
  /^    version:/ { v = value($0); next }
  /^    tag:/ { t = value($0); next }
  /^    commit:/ { c = value($0); next }
  /^      - name:/ { flush(); x = value($0); t = ""; c = ""; next }
  /^        tag:/ { t = value($0); next }
  /^        commit:/ { c = value($0); next }
  END { flush() }
' "$matrix")

if ((pins_only)); then
  awk '{ print $1, $2, $5, $3, $4 }' <<<"$sources"
  exit 0
fi

git_at() { git -c safe.directory='*' -C "$1" "${@:2}" 2>/dev/null; }

while read -r kernel extra tag commit _version; do
  [[ -n $kernel ]] || continue
  [[ $tag == - ]] && tag=""
  [[ $commit == - ]] && commit=""
  [[ -z $tag && -z $commit ]] && continue  # no upstream (bare)
  if [[ $extra == - ]]; then
    var=RTOSBENCH_KERNEL_${kernel^^}
    entry=$kernel-${commit:-$tag}
    name=$kernel
  else
    var=RTOSBENCH_KERNEL_${extra_var[$kernel.$extra]:-${kernel^^}_${extra^^}}
    entry=$kernel-$extra-${commit:-$tag}
    name=$kernel.$extra
  fi
  if ((args_only)); then
    [[ -n ${!var:-} ]] && printf -- '--kernel-source\n%s=%s\n' "$name" "${!var}"
    continue
  fi
  [[ -n ${!var:-} ]] && continue
  dir=$cache/$entry
  if [[ ! -d $dir ]]; then
    echo "# $var not set: no $dir"
    continue
  fi
  head=$(git_at "$dir" rev-parse --verify HEAD) || { echo "# $var not set: $dir is not a git checkout"; continue; }
  if [[ -n $commit ]]; then
    want=$commit
  else
    want=$(git_at "$dir" rev-parse --verify --quiet "$tag^{commit}") || {
      echo "# $var not set: tag $tag is not in $dir"
      continue
    }
  fi
  if [[ $head != "$want" ]]; then
    echo "# $var not set: $dir is at ${head:0:12}, not the pinned ${commit:+commit}${commit:-tag $tag} (${want:0:12})"
    continue
  fi
  if [[ -n $(git_at "$dir" status --porcelain --untracked-files=no) ]]; then
    echo "# $var not set: $dir has modified tracked files"
    continue
  fi
  printf 'export %s=%q\n' "$var" "$dir"
done <<<"$sources"
