#!/usr/bin/env python3
"""Writes tests/data/verify/independent_v2.log to stdout.

An RTOS_BENCH_V2 log whose CRCs, sequence numbers and RESULT statistics are
computed here, in plain Python from the definitions in docs/protocol.md,
without any of rtosbench's code: the C++ checker must accept it as valid.
This pins the CRC-32C and the statistics rules against a second, independent
implementation. Regenerate with:

    python3 tests/verify/make_independent_log.py > tests/data/verify/independent_v2.log

(Python is needed only to regenerate the file, not to run the tests.)
"""
import sys


def crc32c(data: bytes) -> int:
    # Bit by bit from the definition: reflected polynomial 0x82F63B78,
    # initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF.
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def nearest_rank(sorted_values, num, den):
    n = len(sorted_values)
    rank = -(-num * n // den)  # ceil
    rank = min(max(rank, 1), n)
    return sorted_values[rank - 1]


def result(name, values, hz, base=None):
    v = sorted(values)
    n = len(v)
    total = sum(v)
    stats = {
        "min": v[0],
        "median": nearest_rank(v, 50, 100),
        "avg": total // n,
        "p90": nearest_rank(v, 90, 100),
        "p99": nearest_rank(v, 99, 100),
        "p999": nearest_rank(v, 999, 1000),
        "max": v[-1],
    }
    fields = [f"n={n}", f"hz={hz}"]
    fields += [f"{k}_ticks={x}" for k, x in stats.items()]
    for k, x in stats.items():
        ns = total * 10**9 // (n * hz) if k == "avg" else x * 10**9 // hz
        fields.append(f"{k}_ns={ns}")
    if base is not None:
        fields.append(f"base_ticks={base}")
    return f"RESULT,{name}," + ",".join(fields)


def raw(name, values, per_line=16):
    for i in range(0, len(values), per_line):
        yield f"RAW,{name},{i}," + ",".join(str(x) for x in values[i:i + per_line])


def lcg(seed):
    while True:
        seed = (seed * 1103515245 + 12345) % 2**31
        yield seed


def series(seed, n, base, spread):
    g = lcg(seed)
    return [base + (next(g) >> 16) % spread for _ in range(n)]


HZ = 250000000
records = ["BEGIN,RTOS_BENCH_V2",
           "CONFIG,core=250000000,tick=1000,preempt=1,slicing=1,fpu=0,compiler=14.2.1 20241119,"
           "counter=dwt,unit=cycles,debugger=0,dhcsr=0x03000000,nonce=5eed0003"]
records.append("TEST,ruler")
loop = series(1, 33, 10, 4)
records += list(raw("ruler_loop", loop))
records.append(result("ruler_loop", loop, HZ))
base = nearest_rank(sorted(loop), 50, 100)
records.append("TEST,irq_latency")
records.append("PHASE,idle,irq=50,task=50,bad=0,status=OK")
irq = series(2, 50, 26, 20)
task = series(3, 50, 466, 170)
records += list(raw("irq_entry", irq))
records += list(raw("event_to_task", task))
records.append(result("irq_entry", irq, HZ, base))
records.append(result("event_to_task", task, HZ, base))
records.append("END,RTOS_BENCH_V2")

out = []
for seq, rec in enumerate(records):
    head = f"{rec}|{seq}"
    out.append(f"{head}|{crc32c(head.encode()):08x}\n")
sys.stdout.write("".join(out))
