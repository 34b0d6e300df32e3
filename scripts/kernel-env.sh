#!/usr/bin/env bash
# Prints `export RTOSBENCH_KERNEL_<NAME>=...` for every kernel whose checkout
# is in rtosbench's kernel cache (the same place `rtosbench run` looks:
# $RTOSBENCH_KERNEL_CACHE, else $XDG_CACHE_HOME/rtosbench/kernels, else
# ~/.cache/rtosbench/kernels; entries are <name>-<tag>). tests/ports reads
# these variables; a kernel without a cached checkout is skipped there with
# its reason. Usage: eval "$(scripts/kernel-env.sh)"
set -euo pipefail
cache=${RTOSBENCH_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rtosbench/kernels}

# variable suffix, cache entry (the pinned tag as in configs/*.yaml)
entries=(
  "FREERTOS freertos-V10.5.1"
  "THREADX threadx-v6.2.0_rel"
  "UCOS3 ucos3-v3.08.00"
  "UCOS3_CPU ucos3-uc_cpu-v1.32.01"
  "UCOS3_LIB ucos3-uc_lib-v1.39.01"
  "TENCENTOS tencentos-master"
  "RTTHREAD_NANO rtthread_nano-v3.1.5"
)
for e in "${entries[@]}"; do
  read -r var dir <<<"$e"
  name=RTOSBENCH_KERNEL_$var
  # A value the caller set wins over the cache.
  if [[ -z ${!name:-} && -d "$cache/$dir" ]]; then
    printf 'export %s=%q\n' "$name" "$cache/$dir"
  fi
done
