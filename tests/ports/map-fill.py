#!/usr/bin/python3
"""Prints the bytes of flash an image's map file attributes to no object.

    map-fill.py [--ram] [--harness] MAP

--ram: the same for RAM, within each output section (.data, .bss: the
image's RAM as `size` counts it): alignment fill between variables, e.g.
before LiteOS-M's vector table, which VTOR needs aligned to 512 bytes (0 to
511 bytes, moving with what is linked ahead of it).

The sum, over the flash input sections in address order, of the gap between
one section's end and the next one's start: alignment fill (newlib-nano's
strlen is 64-byte aligned, so the fill before it alone is 0 to 63 bytes and
moves with everything linked ahead of it), less the overlap of string
sections the linker merged. The footprint's split by object (kernel, port
glue, libraries, bare port) leaves it out; the port tests add the image's
and the bare image's fill back before they compare the split with the image
delta.

--harness: instead, the bytes of the objects every image builds from the
same source and the footprint gives no owner: the harness (harness/) and
the board's code but its start-up (boards/; in a Zephyr image both are
app/libapp.a's members). The same source, but a test a port reports
NA leaves its code unreferenced, so the linker drops it: the harness of a
port with fewer tests than the bare scheduler is smaller, and the image
delta less than the kernel + glue split. The port tests add the difference
back.
"""
import re
import sys

FLASH = (0x08000000, 0x08100000)
RAM = (0x20000000, 0x20100000)


def sections(path, region):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    inmem = False
    out = ""
    for i, line in enumerate(lines):
        if line.startswith("Linker script and memory map"):
            inmem = True
        if not inmem:
            continue
        o = re.match(r"^(\.\S+)", line)
        if o:
            out = o.group(1)  # an output section
            continue
        m = re.match(r"^ (\.\S+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S+)$", line)
        if m:
            addr, size, obj = int(m.group(2), 16), int(m.group(3), 16), m.group(4)
        else:
            # A long section name: address, size and object on the next line.
            if not re.match(r"^ \.\S+$", line) or i + 1 >= len(lines):
                continue
            m = re.match(r"^\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S+)$", lines[i + 1])
            if not m:
                continue
            addr, size, obj = int(m.group(1), 16), int(m.group(2), 16), m.group(3)
        if region[0] <= addr < region[1] and size > 0:
            yield addr, size, out, obj


def owned_by_none(obj):
    return ("/harness/" in obj or ("/boards/" in obj and "/boards/common/startup.c" not in obj)
            or obj.startswith("app/libapp.a("))


def main():
    args = sys.argv[1:]
    ram = "--ram" in args
    harness = "--harness" in args
    args = [a for a in args if a not in ("--ram", "--harness")]
    if len(args) != 1:
        sys.exit("usage: map-fill.py [--ram] [--harness] MAP")
    s = sorted(sections(args[0], RAM if ram else FLASH))
    if not s:
        sys.exit(f"map-fill.py: no {'RAM' if ram else 'flash'} section in {args[0]}")
    if harness:
        h = sum(a[1] for a in s if owned_by_none(a[3]))
        if not h:
            sys.exit(f"map-fill.py: no harness object in {args[0]}")
        print(h)
        return
    print(sum(b[0] - (a[0] + a[1]) for a, b in zip(s, s[1:]) if not ram or a[2] == b[2]))


main()
