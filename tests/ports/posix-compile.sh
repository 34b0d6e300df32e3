#!/usr/bin/env bash
# The POSIX port (firmware/ports/posix/) and its PX5 layer compiled against
# another system's POSIX headers: the host's C library, with the host's gcc
# (-fsyntax-only: the PX5 layer's Cortex-M assembly is not assembled). PX5's
# own source is commercial and absent here, so this is what exercises the
# port's code in CI; the NuttX layer is built for real by ports_nuttx_*.
#
#   posix-compile.sh REPO_ROOT WORK_DIR
set -euo pipefail
root=$1 work=$2
mkdir -p "$work"
# The generated build header, reduced to what the port reads.
printf '#define RB_CFG_TICK_HZ 1000u\n' >"$work/rb_build_config.h"
cc=${CC:-gcc}
command -v "$cc" >/dev/null || { echo "SKIPPED: no host C compiler ($cc)"; exit 77; }
for slicing in 0 1; do
  "$cc" -fsyntax-only -std=gnu11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
    -DRB_TIME_SLICING=$slicing -I"$work" -I"$root/firmware/harness" \
    -I"$root/firmware/ports/px5" -I"$root/firmware/ports/posix" \
    "$root/firmware/ports/posix/rbp_posix.c" "$root/firmware/ports/px5/rbp_sys_px5.c"
done
echo "ports/posix/rbp_posix.c and ports/px5/rbp_sys_px5.c compile against $("$cc" -dumpmachine)'s POSIX headers (-Wall -Wextra -Werror)"
