#!/usr/bin/python3
"""Writes a synthetic logic-analyzer capture (VCD, channels MK, EV, TK) from a
real DWT capture of the emulated bench, as the EDGE PROTOCOL v1 (docs/lab.md)
says an edges=on board drives its pins, with a known offset and jitter, and
the job's capture.raw marked as an edges=on build (CONFIG edges=on,
edge_pins=emulated: QEMU models no GPIO timing, so the edges are made here).

  make_capture.py RAW OUT_DIR [--offset-ns 30] [--jitter-ns 8] [--clock 1.0]
                  [--drop-ev K:J] [--extra-ev K:J] [--truncate] [--seed 1]

OUT_DIR gets capture.raw (the job's attempt) and capture.vcd (timescale 1 ns).
K is the index of an edge-mapped series in log order, J a sample number.
--clock 1.1: every DWT tick lasts 10 % longer than CONFIG's clock says (the
clock tree is not what CONFIG claims). --truncate: the capture ends inside the
last series' MK pulse (an analyzer that overflowed).
"""
import argparse
import os
import random
import re

EVENT = {"wake_latency", "irq_entry"}
PERIODIC = {"tick_period", "tick_sleep"}


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


SUFFIX = re.compile(r"^(.*)\|(\d+)\|([0-9a-f]{8})$")


def rewrite_raw(lines):
    """The capture with one more CONFIG line after the last one, renumbered."""
    records = []
    last_config = -1
    for line in lines:
        m = SUFFIX.match(line)
        if m:
            records.append(m.group(1))
            if m.group(1).startswith("CONFIG,"):
                last_config = len(records) - 1
        else:
            records.append(None)  # a line outside the protocol, kept as it is
    out, seq = [], 0
    extra = "CONFIG,edges=on,edge_mk=synthetic,edge_ev=synthetic,edge_tk=synthetic,edge_pins=emulated"
    for i, (line, rec) in enumerate(zip(lines, records)):
        todo = [rec] if rec is not None else []
        if i == last_config:
            todo.append(extra)
        if rec is None:
            out.append(line)
        for r in todo:
            body = f"{r}|{seq}"
            out.append(f"{body}|{crc32c(body.encode('latin-1')):08x}")
            seq += 1
    return out, records


def series_of(records):
    phase, series, config = "", [], {}
    index = {}
    for r in records:
        if r is None:
            continue
        f = r.split(",")
        if f[0] == "CONFIG":
            for kv in f[1:]:
                k, _, v = kv.partition("=")
                config[k] = v
        elif f[0] == "TEST":
            phase = ""
        elif f[0] == "PHASE":
            phase = f[1]
        elif f[0] == "RAW" and (f[1] in EVENT or f[1] in PERIODIC):
            key = (phase, f[1])
            if key not in index:
                index[key] = len(series)
                series.append({"phase": phase, "name": f[1], "samples": [], "hz": 0})
            series[index[key]]["samples"] += [int(v) for v in f[3:]]
        elif f[0] == "RESULT" and (phase, f[1]) in index:
            for kv in f[2:]:
                k, _, v = kv.partition("=")
                if k == "hz":
                    series[index[(phase, f[1])]]["hz"] = int(v)
    return series, config


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--offset-ns", type=float, default=30.0)
    ap.add_argument("--jitter-ns", type=float, default=8.0)
    ap.add_argument("--clock", type=float, default=1.0)
    ap.add_argument("--drop-ev", default=None)
    ap.add_argument("--extra-ev", default=None)
    ap.add_argument("--truncate", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    with open(a.raw, encoding="latin-1", newline="") as f:
        lines = f.read().split("\n")
    lines = [l[:-1] if l.endswith("\r") else l for l in lines]
    out_lines, records = rewrite_raw(lines)
    series, config = series_of(records)
    drop = tuple(int(x) for x in a.drop_ev.split(":")) if a.drop_ev else None
    extra = tuple(int(x) for x in a.extra_ev.split(":")) if a.extra_ev else None

    changes = []  # (t_ns, channel, level)
    t = 1000.0
    irq_period_ns = int(config["irq_period_ticks"]) * 1e9 / int(config["irq_hz"])
    mk_falls = []
    for k, s in enumerate(series):
        ns = [v * 1e9 / s["hz"] * a.clock for v in s["samples"]]
        changes.append((t, "MK", 1))
        t0 = t + 5000
        if s["name"] in EVENT:
            period = irq_period_ns * a.clock if s["name"] == "irq_entry" else max(2000.0, 4 * max(ns))
            for j, lat in enumerate(ns):
                ev = t0 + j * period
                tk = ev + lat + a.offset_ns + rnd.gauss(0, a.jitter_ns)
                tk = max(tk, ev + 1)
                low = max(tk + 0.05 * period, ev + 0.1 * period)
                if drop != (k, j):
                    changes += [(ev, "EV", 1), (low, "EV", 0)]
                changes += [(tk, "TK", 1), (low, "TK", 0)]
                if extra == (k, j):
                    changes += [(ev + 0.5 * period, "EV", 1), (ev + 0.55 * period, "EV", 0)]
            end = t0 + len(ns) * period
        else:
            stamp, level = t0, 0
            noise = rnd.gauss(0, a.jitter_ns)
            level ^= 1
            changes.append((stamp + noise, "TK", level))
            for v in ns:
                stamp += v
                noise = rnd.gauss(0, a.jitter_ns)
                level ^= 1
                changes.append((stamp + noise, "TK", level))
            end = stamp + 5000  # TK stays where its last toggle left it
        changes.append((end, "MK", 0))
        mk_falls.append(end)
        t = end + 20000
    stop = t
    if a.truncate:
        last = mk_falls[-1]
        stop = (last + (mk_falls[-2] if len(mk_falls) > 1 else 0)) / 2
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "capture.raw"), "w", encoding="latin-1", newline="") as f:
        f.write("\n".join(out_lines))
    ids = {"MK": "!", "EV": '"', "TK": "#"}
    with open(os.path.join(a.out, "capture.vcd"), "w") as f:
        f.write("$timescale 1 ns $end\n$scope module synthetic $end\n")
        for name, i in ids.items():
            f.write(f"$var wire 1 {i} {name} $end\n")
        f.write("$upscope $end\n$enddefinitions $end\n#0\n0!\n0\"\n0#\n")
        last = None
        for tt, ch, lv in sorted(changes, key=lambda c: c[0]):
            ti = int(round(tt))
            if ti >= stop:
                break
            if ti != last:
                f.write(f"#{ti}\n")
                last = ti
            f.write(f"{lv}{ids[ch]}\n")
        f.write(f"#{int(round(stop))}\n")


if __name__ == "__main__":
    main()
