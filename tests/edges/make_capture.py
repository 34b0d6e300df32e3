#!/usr/bin/python3
"""Writes a synthetic logic-analyzer capture (VCD, channels MK, EV, TK) from a
real edges=on capture of the emulated bench (QEMU models no GPIO timing, so
its "pins" are stores nobody sees): the edges the EDGE PROTOCOL v1
(docs/firmware.md, "Edges") makes a board drive for that capture's DWT
samples, with a known offset and jitter (event_to_task's TK also after the
lag its PHASE record reports, tk_lag_min..tk_lag_max).

  make_capture.py RAW OUT_DIR [--offset-ns 30] [--jitter-ns 8] [--clock 1.0]
                  [--drop-ev K:J] [--extra-ev K:J] [--truncate] [--seed 1]

OUT_DIR gets capture.raw (the job's attempt, a copy of RAW) and capture.vcd
(timescale 1 ns). One MK pulse per edge-mapped series, in capture order:
wake_latency (EV forced by software, at irregular instants), event_to_task of
irq_latency's phases idle, busy, critical (EV on the event timer's grid,
irq_period_ticks / irq_hz), tick_period (TK toggles, n + 1 edges for n
periods). K is the index of a series in that order, J a sample number.
--clock 1.1: every DWT tick lasts 10 % longer than CONFIG's clock says (the
clock tree is not what CONFIG claims). --truncate: the capture ends inside the
last series' MK pulse (an analyzer that overflowed).
"""
import argparse
import os
import random
import re

SUFFIX = re.compile(r"^(.*)\|(\d+)\|([0-9a-f]{8})$")


def edge_kind(name, phase):
    if name == "wake_latency" and phase == "":
        return "ordered"
    if name == "event_to_task" and phase in ("idle", "busy", "critical"):
        return "grid"
    if name == "tick_period" and phase == "":
        return "periodic"
    return None


def records_of(lines):
    """The protocol records of a V2 capture, integrity suffix stripped."""
    out = []
    for line in lines:
        m = SUFFIX.match(line)
        if m:
            out.append(m.group(1))
    return out


def series_of(records):
    phase, series, config = "", [], {}
    index = {}
    lag = None  # the PHASE's tk_lag_min, tk_lag_max (event timer ticks)
    for r in records:
        f = r.split(",")
        if f[0] == "CONFIG":
            for kv in f[1:]:
                k, _, v = kv.partition("=")
                config[k] = v
        elif f[0] == "TEST":
            phase = ""
        elif f[0] == "PHASE":
            phase = f[1]
            fields = dict(kv.partition("=")[::2] for kv in f[2:])
            lag = None
            if "tk_lag_min" in fields and "tk_lag_max" in fields:
                lag = (int(fields["tk_lag_min"]), int(fields["tk_lag_max"]))
        elif f[0] == "RAW" and edge_kind(f[1], phase):
            key = (phase, f[1])
            if key not in index:
                index[key] = len(series)
                series.append({"phase": phase, "name": f[1], "kind": edge_kind(f[1], phase),
                               "samples": [], "hz": 0,
                               "lag": lag if edge_kind(f[1], phase) == "grid" else None})
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
    series, config = series_of(records_of(lines))
    if config.get("edges") != "on":
        raise SystemExit(f"{a.raw}: no CONFIG edges=on: not an edges=on capture")
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
        if s["kind"] == "ordered":
            # ctl forces EV high just before the window, hi raises TK right
            # after it, ctl lowers both after the window; rounds come at
            # software's pace, on no grid.
            ev = t0
            for j, lat in enumerate(ns):
                tk = max(ev + lat + a.offset_ns + rnd.gauss(0, a.jitter_ns), ev + 1)
                low = tk + 400 + rnd.uniform(0, 300)
                if drop != (k, j):
                    changes += [(ev, "EV", 1), (low, "EV", 0)]
                changes += [(tk, "TK", 1), (low + 40, "TK", 0)]
                nxt = low + 2000 + rnd.uniform(0, 3000)
                if extra == (k, j):
                    changes += [(low + 1000, "EV", 1), (low + 1100, "EV", 0)]
                ev = nxt
            end = ev
        elif s["kind"] == "grid":
            # The timer's compare sets EV on the event grid; hi raises TK
            # after its read, holds it, lowers it, forces EV low and rearms.
            # TK comes the firmware's measured lag after the read (PHASE
            # tk_lag_min..tk_lag_max ticks; none in an older capture).
            period = irq_period_ns * a.clock
            lo, hi = s["lag"] or (0, 0)
            for j, lat in enumerate(ns):
                ev = t0 + j * period
                lag = rnd.uniform(lo, hi) * 1e9 / s["hz"] * a.clock
                tk = max(ev + lat + lag + a.offset_ns + rnd.gauss(0, a.jitter_ns), ev + 1)
                low = tk + 250
                if drop != (k, j):
                    changes += [(ev, "EV", 1), (low + 30, "EV", 0)]
                changes += [(tk, "TK", 1), (low, "TK", 0)]
                if extra == (k, j):
                    changes += [(ev + 0.5 * period, "EV", 1), (ev + 0.55 * period, "EV", 0)]
            end = t0 + len(ns) * period
        else:
            stamp, level = t0, 0
            level ^= 1
            changes.append((stamp + rnd.gauss(0, a.jitter_ns), "TK", level))
            for j, v in enumerate(ns):
                stamp += v
                if drop != (k, j + 1):  # a toggle the firmware missed: the next one goes on
                    level ^= 1
                    changes.append((stamp + rnd.gauss(0, a.jitter_ns), "TK", level))
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
        f.write("\n".join(lines))
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
