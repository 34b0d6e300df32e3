#!/usr/bin/python3
"""Prints docs/kernels.md's emulated results table from one run directory of
`rtosbench run --matrix configs/qemu.yaml` (every job's result.json):

    scripts/emulated-table.py runs/<run id>

Per series the raw median, the median net of its ruler baseline where the
series has one, and p99; the critical phase as its delayed share and worst
case beyond the masking window (docs/method.md); series the emulated board
does not measure marked so; the CHECKs. The columns are the run's jobs in its
own order (run.json), the marks the board's declarations each result.json
recorded: no kernel or board is named here."""
import json
import pathlib
import sys

ROWS = [("", "api_overhead"), ("", "wake_latency"), ("", "round_trip"), ("", "queue"),
        ("", "mutex_lock_unlock"), ("", "yield"), ("idle", "event_to_task"), ("busy", "event_to_task"),
        ("", "mixed_load"), ("idle", "irq_entry"), ("busy", "irq_entry"), ("", "tick_irq_empty"),
        ("", "irq_dispatch"), ("", "tick_overhead"), ("", "idle_time"), ("", "time_slice"),
        ("wfi", "sleep_wake")]


def main():
    run = pathlib.Path(sys.argv[1])
    # The matrix's job order (run.json), the reference kernel first.
    summary = json.loads((run / "run.json").read_text())
    jobs = [json.loads((run / j["result"]).read_text()) for j in summary["jobs"] if j.get("result")]
    # A job without a capture (SOURCE_MISSING: a kernel without its source) has no column.
    jobs = [j for j in jobs if j.get("series") and j.get("verify")]
    names = [j["job"]["kernel"] for j in jobs]
    # What the board declared it cannot measure, as each result recorded it.
    not_measured = {s for j in jobs for s in j.get("board", {}).get("not_measured", {})}
    unstable = {s for j in jobs for s in j.get("board", {}).get("unstable", {})}
    print("| series | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for phase, name in ROWS:
        cells = []
        for j in jobs:
            s = next((x for x in j["series"] if x["name"] == name and (x.get("phase") or "") == phase), None)
            if s is None:
                cells.append("-")
                continue
            net = s.get("median_minus_base_ticks")
            cell = f"{s['median_ticks']}" + (f" ({net} net)" if net is not None else "")
            cells.append(cell + f" / {s['p99_ticks']}")
        label = (phase + "/" if phase else "") + name
        if name in not_measured:
            label += " (not a measurement here)"
        if name in unstable:
            label += " (unstable here: never ranked)"
        print(f"| {label} | " + " | ".join(cells) + " |")
    for series in ("irq_entry", "event_to_task"):
        cells = []
        for j in jobs:
            crit = next((p for p in j["verify"]["phases"] if p["name"] == "critical"), None)
            d = next((x for x in (crit or {}).get("delay", []) if x["series"] == series), None)
            cells.append("-" if d is None else
                         f"{100.0 * d['delayed'] / d['n']:.1f} % delayed, worst {d['worst']}, {d['beyond']} beyond")
        print(f"| critical/{series} | " + " | ".join(cells) + " |")
    checks = sorted({c["name"] for j in jobs for c in j["verify"]["checks"]})
    for name in checks:
        cells = []
        for j in jobs:
            c = next((x for x in j["verify"]["checks"] if x["name"] == name), None)
            cells.append("-" if c is None else f"{c['status']} ({c['pass']}/{c['rounds']})")
        print(f"| CHECK {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
