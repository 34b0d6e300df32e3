#!/usr/bin/env bash
# Footprint of a kernel alone: a kernel port's image compared with the bare
# port's image of the same board and build options.
#
#   scripts/footprint.sh KERNEL_BUILD_DIR BARE_BUILD_DIR
#
# Both directories are firmware builds (scripts/fw-build.sh, or what
# `rtosbench run` builds) with their size.json and rtosbench-fw.map. They must
# agree on RB_BOARD, RB_OPT, RB_TICK_HZ, RB_FPU_CONTEXT, RB_SAMPLES,
# RB_WARMUP and RB_TESTS (read from each CMakeCache.txt), since the harness,
# the board and the sample buffers are the same only then.
#
# Prints one JSON object (bytes):
#   image   {flash, ram} of the kernel image       (size.json: flash = text + data,
#   bare    {flash, ram} of the bare image          ram = data + bss)
#   delta   {flash, ram} = image - bare: the kernel in place of the bare
#           port's own scheduler, i.e. what choosing the kernel costs
#   kernel  {text, data, bss, flash, ram}: the kernel's own object files
#           (the rb_kernel object library), summed from the map file
#   port_glue {text, data, bss, flash, ram}: the port's glue (ports/<name>/*.c),
#           which holds, e.g., the idle-task stack some kernels ask the
#           application for
#   libs    {flash, ram}: C library code and data (libc, libgcc) in the kernel
#           image minus that in the bare image: what the kernel pulls in
#           from newlib (memset, memcpy, ...)
#   bare_port {text, data, bss, flash, ram}: the bare port's scheduler in
#           the bare image, for reference
# kernel + port_glue + libs - bare_port equals delta up to section alignment.
# Kernel-owned stacks (idle, timer and ISR stacks the kernel allocates itself)
# count in `kernel`; the harness' task stacks and sample buffers are in neither.
# Exit status: 0 printed; 1 a build lacks a file or the builds differ; 2 usage.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 KERNEL_BUILD_DIR BARE_BUILD_DIR" >&2
  exit 2
fi
kdir=$1
bdir=$2
for d in "$kdir" "$bdir"; do
  for f in size.json rtosbench-fw.map CMakeCache.txt; do
    if [[ ! -f $d/$f ]]; then
      echo "footprint: $d/$f not found (is $d a built firmware directory?)" >&2
      exit 1
    fi
  done
done

cache_value() { # DIR VAR
  sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt" | head -n 1
}
if [[ $(cache_value "$bdir" RB_PORT) != bare ]]; then
  echo "footprint: $bdir is not a bare-port build (RB_PORT=$(cache_value "$bdir" RB_PORT))" >&2
  exit 1
fi
for v in RB_BOARD RB_OPT RB_TICK_HZ RB_FPU_CONTEXT RB_SAMPLES RB_WARMUP RB_TESTS; do
  a=$(cache_value "$kdir" "$v")
  b=$(cache_value "$bdir" "$v")
  if [[ "$a" != "$b" ]]; then
    echo "footprint: the builds differ in $v ('$a' in $kdir, '$b' in $bdir); compare like with like" >&2
    exit 1
  fi
done
port=$(cache_value "$kdir" RB_PORT)

json_field() { # FILE KEY
  sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1"
}

# Sums the input sections of the map file by owner (kernel, port glue) and by
# kind (text: flash only; data: flash and RAM; bss: RAM only). Input-section
# lines name their object file; long section names put address, size and
# file on the next line.
map_sums() { # MAP PORT -> "ktext kdata kbss ptext pdata pbss ltext ldata lbss"
  awk -v port="$2" '
    /^Linker script and memory map/ { inmap = 1; next }
    !inmap { next }
    /^[.][A-Za-z_]/ { out = $1; pending = ""; next }
    function hex(s,    n, i, c) {
      n = 0
      s = tolower(s)
      sub(/^0x/, "", s)
      for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1)) - 1
        n = n * 16 + c
      }
      return n
    }
    function account(size, file) {
      if (file ~ /rb_kernel\.dir\//) who = "k"
      else if (file ~ ("/ports/" port "/")) who = "p"
      else if (file ~ /\/lib[a-z_]*\.a\(/) who = "l"
      else return
      kind = (out == ".data") ? "data" : (out == ".bss") ? "bss" : \
             (out == ".text" || out == ".isr_vector" || out == ".ARM.exidx") ? "text" : ""
      if (kind != "") sum[who kind] += hex(size)
    }
    /^ [.*A-Za-z_]/ && $1 != "*fill*" {
      if (NF >= 4 && $2 ~ /^0x/ && $3 ~ /^0x/) { account($3, $4); pending = "" }
      else if (NF == 1) pending = $1
      next
    }
    pending != "" && NF == 3 && $1 ~ /^0x/ && $2 ~ /^0x/ { account($2, $3); pending = ""; next }
    { pending = "" }
    END {
      printf "%d %d %d %d %d %d %d %d %d\n", sum["ktext"], sum["kdata"], sum["kbss"], \
             sum["ptext"], sum["pdata"], sum["pbss"], sum["ltext"], sum["ldata"], sum["lbss"]
    }' "$1"
}

read -r ktext kdata kbss ptext pdata pbss ltext ldata lbss < <(map_sums "$kdir/rtosbench-fw.map" "$port")
read -r _ _ _ btext bdata bbss bltext bldata blbss < <(map_sums "$bdir/rtosbench-fw.map" bare)
iflash=$(json_field "$kdir/size.json" flash)
iram=$(json_field "$kdir/size.json" ram)
bflash=$(json_field "$bdir/size.json" flash)
bram=$(json_field "$bdir/size.json" ram)
if [[ -z $iflash || -z $iram || -z $bflash || -z $bram ]]; then
  echo "footprint: cannot read flash/ram from size.json in $kdir or $bdir" >&2
  exit 1
fi
if ((ktext == 0)); then
  echo "footprint: no kernel object (rb_kernel) in $kdir/rtosbench-fw.map; is $port a kernel port?" >&2
  exit 1
fi

part() { # TEXT DATA BSS
  printf '{"text":%d,"data":%d,"bss":%d,"flash":%d,"ram":%d}' "$1" "$2" "$3" $(($1 + $2)) $(($2 + $3))
}
printf '{"port":"%s","board":"%s","image":{"flash":%d,"ram":%d},"bare":{"flash":%d,"ram":%d},' \
  "$port" "$(cache_value "$kdir" RB_BOARD)" "$iflash" "$iram" "$bflash" "$bram"
printf '"delta":{"flash":%d,"ram":%d},"kernel":%s,"port_glue":%s,"libs":{"flash":%d,"ram":%d},' \
  $((iflash - bflash)) $((iram - bram)) "$(part "$ktext" "$kdata" "$kbss")" \
  "$(part "$ptext" "$pdata" "$pbss")" $((ltext + ldata - bltext - bldata)) $((ldata + lbss - bldata - blbss))
printf '"bare_port":%s}\n' "$(part "$btext" "$bdata" "$bbss")"
