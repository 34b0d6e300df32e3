#!/bin/sh
# The report of `verify` on LOG is the same, byte for byte, read by one
# thread, by parsing threads on small pieces, and by parsing threads with
# RTOSBENCH_SIMD=avx2 and =sse (the RAW line parser's paths for CPUs without
# AVX-512, and without AVX2; on such CPUs some runs take the same path).
#   simd_paths.sh RTOSBENCH WORKDIR LOG
bin=$1 dir=$2 log=$3
out=$dir/simd_paths
mkdir -p "$out" || exit 1
"$bin" verify "$log" --threads 1 --json "$out/one.json" > /dev/null
rc1=$?
"$bin" verify "$log" --threads 2 --chunk-bytes 2048 --json "$out/threads.json" > /dev/null
rc2=$?
RTOSBENCH_SIMD=avx2 "$bin" verify "$log" --threads 2 --chunk-bytes 2048 --json "$out/avx2.json" > /dev/null
rc3=$?
RTOSBENCH_SIMD=sse "$bin" verify "$log" --threads 2 --chunk-bytes 2048 --json "$out/sse.json" > /dev/null
rc4=$?
if [ "$rc1" -ne "$rc2" ] || [ "$rc1" -ne "$rc3" ] || [ "$rc1" -ne "$rc4" ]; then
  echo "exit codes differ: one thread $rc1, threads $rc2, RTOSBENCH_SIMD=avx2 $rc3, =sse $rc4" >&2
  exit 1
fi
for f in threads avx2 sse; do
  if ! cmp "$out/one.json" "$out/$f.json"; then
    echo "the $f report differs from the one-thread report: diff $out/one.json $out/$f.json" >&2
    exit 1
  fi
done
echo "same report from one thread, threads, and threads with RTOSBENCH_SIMD=avx2 and =sse (exit $rc1)"
