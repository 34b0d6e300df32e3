#!/usr/bin/python3
"""A plain re-deriver, the yardstick of bench/verify_throughput: reads a
captured log (docs/protocol.md) and re-derives n, min, median, p99 and max of
every series from its RAW lines, as a careful user would script it. It checks
nothing else (no CRC, no sequence, no RESULT). Memory stays bounded: each
series is a Counter of its values. Percentiles are nearest-rank
(docs/protocol.md section 4: rank ceil(p * n / 100), so the median of an even
count is the lower middle).

    /usr/bin/python3 bench/rederive.py LOG

prints one line per series, in the order of its first RAW line:
    <test>/<phase>/<name> <n> <min> <median> <p99> <max>
"""
import collections
import sys


def nearest_rank(counts, n, p_num, p_den):
    rank = max(1, min(n, (p_num * n + p_den - 1) // p_den))
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= rank:
            return value
    raise ValueError("empty series")


def main(path):
    series = {}
    test = phase = ""
    with open(path, "rb") as log:
        for raw in log:
            line = raw.rstrip(b"\r\n")
            if b"|" in line:
                line = line.rsplit(b"|", 2)[0]
            if line.startswith(b"RAW,"):
                fields = line.split(b",")
                key = (test, phase, fields[1].decode("utf-8", "replace"))
                counts = series.get(key)
                if counts is None:
                    counts = series[key] = collections.Counter()
                counts.update(map(int, fields[3:]))
            elif line.startswith(b"TEST,"):
                test = line[5:].decode("utf-8", "replace")
                phase = ""
            elif line.startswith(b"PHASE,"):
                phase = line.split(b",")[1].decode("utf-8", "replace")
    for (t, p, name), counts in series.items():
        n = sum(counts.values())
        print(f"{t}/{p}/{name} {n} {min(counts)} {nearest_rank(counts, n, 50, 100)} "
              f"{nearest_rank(counts, n, 99, 100)} {max(counts)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: rederive.py LOG")
    main(sys.argv[1])
