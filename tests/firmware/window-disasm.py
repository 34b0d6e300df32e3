#!/usr/bin/python3
"""Checks the measurement windows (firmware/harness/window.c) in built images.

    window-disasm.py REPO_ROOT [--kernels] BUILD_DIR...
    window-disasm.py REPO_ROOT --disasm FILE BOARD     (a saved objdump listing)

A BUILD_DIR holds rtosbench-fw.elf and CMakeCache.txt (its RB_BOARD and
RB_PORT); a directory without them is searched one level down, so the ports
tests' work directory checks every kernel image built there.

For each image, `arm-none-eabi-objdump -d` of every window routine must show:
  - the counter read twice: `ldr rT, [rC, #K]` where rC, set before the first
    read and not written again, plus K is the address the board's
    rb_counter_now() reads (from firmware/boards/<board>/rb_board_hw.h);
  - between the two reads only the call(s): rb_window1, rb_window1_send,
    rb_window1_recv, rb_window1_void, rb_window1_alloc and rb_window1_free exactly one `blx`; rb_window2 `blx`, two register moves
    (`mov rX, r0`, `mov r0, rY`), `blx`. No load, store, compare or branch;
  - round_trip's window: ctl's rb_window2 interior followed by the partner's
    loop as it runs inside that window (rb_round_partner's loop, from the
    instruction after its last `blx` round to that `blx`), instruction for
    instruction the interior of its baseline's routine, rb_window_round
    (ruler_round), which must also begin with rb_window2's interior.
Then the routines' code (addresses and literal values aside) must be the same
in every image of one board, whatever the kernel.
--kernels: exit 77 (skipped) when no image of a kernel port (other than bare
and template) is found, since then nothing is compared across kernels.
Exit 0 when every image passes, 1 with the reasons otherwise, 2 on usage.
"""
import os
import re
import subprocess
import sys

WINDOWS = ("rb_window1", "rb_window1_send", "rb_window1_recv", "rb_window1_void",
           "rb_window1_alloc", "rb_window1_free", "rb_window2", "rb_window_round")
# round_trip's window: (series, ctl's window routine, the partner's loop
# routine, the baseline's window routine).
ROUND = ("round_trip", "rb_window2", "rb_round_partner", "rb_window_round")
# Routines compared across the images of a board: the windows and the loop.
SAME_CODE = WINDOWS + ("rb_round_partner",)
# Allowed instructions between the reads, as (mnemonic regex, operands regex).
BLX = (r"blx", r"r\d+|sb|sl|fp|ip|lr")
MOV_FROM_R0 = (r"movs?", r"(r\d+|sb|sl|fp|ip|lr), r0")
MOV_TO_R0 = (r"movs?", r"r0, (r\d+|sb|sl|fp|ip|lr)")
INSIDE = {
    "rb_window1": [BLX],
    "rb_window1_send": [BLX],
    "rb_window1_recv": [BLX],
    "rb_window1_void": [BLX],
    "rb_window1_alloc": [BLX],
    "rb_window1_free": [BLX],
    "rb_window2": [BLX, MOV_FROM_R0, MOV_TO_R0, BLX],
    # rb_window2's interior, then anything: the rest is compared with the
    # partner's loop (check_round).
    "rb_window_round": [BLX, MOV_FROM_R0, MOV_TO_R0, BLX, None],
}
BRANCH_RE = re.compile(r"b(eq|ne|cs|cc|hs|lo|mi|pl|hi|ls|ge|lt|gt|le)?(\.[nw])?")

INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
LDR_RE = re.compile(r"^(r\d+|sb|sl|fp|ip|lr), \[(r\d+|sb|sl|fp|ip|lr)(?:, #(\d+))?\]$")


def fail_usage(msg):
    print(f"usage error: {msg}", file=sys.stderr)
    sys.exit(2)


def counter_address(root, board):
    hdr = os.path.join(root, "firmware", "boards", board, "rb_board_hw.h")
    try:
        text = open(hdr, encoding="utf-8").read()
        # and the shared headers it includes (boards/common/qemu_stm32_hw.h)
        for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
            text += open(os.path.join(os.path.dirname(hdr), inc), encoding="utf-8").read()
    except OSError as e:
        fail_usage(f"cannot read {hdr}: {e}")
    m = re.search(r"rb_counter_now\(void\)\s*\{\s*return\s*\*\(volatile uint32_t\s*\*\)\s*"
                  r"(0x[0-9a-fA-F]+)u?\s*;", text)
    if not m:
        fail_usage(f"{hdr}: rb_counter_now() does not read a fixed address")
    return int(m.group(1), 16)


def parse(listing):
    """{function: [(addr, mnemonic, operands, comment)]} and {addr: word}."""
    funcs, words, cur = {}, {}, None
    for line in listing.splitlines():
        fm = FUNC_RE.match(line.strip())
        if fm:
            cur = fm.group(2)
            funcs[cur] = []
            continue
        im = INSN_RE.match(line)
        if not im or cur is None:
            continue
        addr = int(im.group(1), 16)
        mnem, rest = im.group(2), im.group(3)
        ops, _, comment = rest.partition("@")
        if mnem == ".word":
            words[addr] = int(ops.strip(), 16)
            continue
        funcs[cur].append((addr, mnem, ops.strip(), comment.strip()))
    return funcs, words


def reg_value(insns, upto, reg, words):
    """The constant the last write to `reg` before index `upto` puts there, or None."""
    value = None
    for _, mnem, ops, comment in insns[:upto]:
        parts = [p.strip() for p in ops.split(",", 1)]
        if len(parts) < 2 or parts[0] != reg:
            continue
        src = parts[1]
        if re.fullmatch(r"mov(s|w)?(\.w)?", mnem) and src.startswith("#"):
            value = int(src[1:], 0)
        elif re.fullmatch(r"movt(\.w)?", mnem) and value is not None:
            value = (value & 0xFFFF) | (int(src[1:], 0) << 16)
        elif re.fullmatch(r"ldr(\.w)?", mnem) and src.startswith("[pc"):
            m = re.search(r"\(([0-9a-f]+)", comment) or re.search(r"^([0-9a-f]+)", comment)
            value = words.get(int(m.group(1), 16)) if m else None
        else:
            value = None
    return value


def interior(insns, words, counter):
    """The instructions between the two counter reads, or None."""
    reads = counter_reads(insns, words, counter)
    return insns[reads[0] + 1:reads[1]] if len(reads) == 2 else None


def counter_reads(insns, words, counter):
    reads = []
    for i, (_, mnem, ops, _) in enumerate(insns):
        m = LDR_RE.match(ops)
        if re.fullmatch(r"ldr(\.w)?", mnem) and m and m.group(2) != "pc":
            base = reg_value(insns, i, m.group(2), words)
            if base is not None and base + int(m.group(3) or 0) == counter:
                reads.append(i)
    return reads


def check_routine(name, insns, words, counter):
    """Problems of one window routine (empty list when it is exact)."""
    reads = counter_reads(insns, words, counter)
    if len(reads) != 2:
        return [f"{name}: {len(reads)} counter read(s) of 0x{counter:08x}, 2 expected"]
    first, last = reads
    inside = insns[first + 1:last]
    want = INSIDE[name]
    shown = "; ".join(f"{m} {o}".strip() for _, m, o, _ in inside) or "nothing"
    if want and want[-1] is None:  # a prefix; check_round judges the rest
        want = want[:-1]
        inside = inside[:len(want)]
    ok = len(inside) == len(want) and all(
        re.fullmatch(wm, m) and re.fullmatch(wo, o) for (_, m, o, _), (wm, wo) in zip(inside, want))
    if not ok:
        return [f"{name}: between the counter reads: {shown} "
                f"(expected only the call(s): {len(want)} instruction(s))"]
    # The base register of the reads is not rewritten inside (mov/blx only).
    base = LDR_RE.match(insns[first][2]).group(2)
    if LDR_RE.match(insns[last][2]).group(2) != base:
        return [f"{name}: the two counter reads use different base registers"]
    return []


def loop_in_window(insns):
    """A loop's instructions as they run between two passes of its last call:
    the body of the backward branch, rotated to start after its last `blx`.
    None when the routine has no such loop."""
    addrs = {a: i for i, (a, _, _, _) in enumerate(insns)}
    for j, (addr, mnem, ops, _) in enumerate(insns):
        if not BRANCH_RE.fullmatch(mnem) or not ops:
            continue
        try:
            target = int(ops.split()[0], 16)
        except ValueError:
            continue
        if target < addr and target in addrs:
            body = insns[addrs[target]:j + 1]
            calls = [k for k, (_, m, _, _) in enumerate(body) if m == "blx"]
            if calls:
                return body[calls[-1] + 1:] + body[:calls[-1] + 1]
    return None


def shape(insns):
    """Mnemonics (without the .n width hint) and, but for branches, operands."""
    out = []
    for _, m, o, _ in insns:
        m = m[:-2] if m.endswith(".n") else m
        out.append(m if BRANCH_RE.fullmatch(m) else f"{m} {o}".strip())
    return out


def check_round(funcs, words, counter):
    """round_trip's window against its baseline's routine (ROUND)."""
    series, ctl, partner, base = ROUND
    missing = [n for n in (ctl, partner, base) if n not in funcs]
    if missing:
        return [f"{series}: no routine {', '.join(missing)} (its window is not checked)"]
    ctl_in = interior(funcs[ctl], words, counter)
    base_in = interior(funcs[base], words, counter)
    loop = loop_in_window(funcs[partner])
    if ctl_in is None or base_in is None:
        return []  # check_routine reports the counter reads
    if loop is None:
        return [f"{series}: {partner} holds no loop around a blx"]
    window, baseline = shape(ctl_in) + shape(loop), shape(base_in)
    # Register names aside for ctl's part: rb_window2 keeps a's result in a
    # callee-saved register, the ruler's copy in r1 (both one 16-bit mov).
    def loose(seq):
        return [re.sub(r"\b(r\d+|sb|sl|fp|ip)\b", "R", x) for x in seq]
    n = len(ctl_in)
    if (len(window) != len(baseline) or loose(window[:n]) != loose(baseline[:n])
            or window[n:] != baseline[n:]):
        return [f"{series}: its window holds {len(window)} instruction(s): {ctl}'s "
                f"{'; '.join(window[:n])} + {partner}'s loop {'; '.join(window[n:])}; "
                f"its baseline {base} holds {len(baseline)}: {'; '.join(baseline)}"]
    return []


def normalized(insns):
    """Instruction text without addresses and comments (literal offsets kept;
    a branch's target by its routine and offset, `<name+0x10>`)."""
    return [re.sub(r"\b[0-9a-f]+ (<[^>]+>)", r"\1", f"{m} {o}".strip()) for _, m, o, _ in insns]


def disassemble(elf):
    try:
        out = subprocess.run(["arm-none-eabi-objdump", "-d", "--no-show-raw-insn", elf],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail_usage(f"arm-none-eabi-objdump on {elf} failed: {e}")
    return out


def cache_value(build, key):
    try:
        for line in open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8"):
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def images(paths):
    found = []
    for p in paths:
        if os.path.isfile(os.path.join(p, "rtosbench-fw.elf")):
            found.append(p)
        elif os.path.isdir(p):
            for sub in sorted(os.listdir(p)):
                q = os.path.join(p, sub)
                if os.path.isfile(os.path.join(q, "rtosbench-fw.elf")):
                    found.append(q)
        else:
            fail_usage(f"{p} is not a directory")
    return found


def main(argv):
    if len(argv) < 3:
        fail_usage("window-disasm.py REPO_ROOT BUILD_DIR... | REPO_ROOT --disasm FILE BOARD")
    root = argv[1]
    subjects = []  # (label, board, listing)
    if argv[2] == "--disasm":
        if len(argv) != 5:
            fail_usage("--disasm FILE BOARD")
        subjects.append((argv[3], argv[4], open(argv[3], encoding="utf-8").read()))
    else:
        args = argv[2:]
        kernels = args[:1] == ["--kernels"]
        if kernels:
            args = args[1:]
        builds = images(args)
        if not builds:
            fail_usage(f"no rtosbench-fw.elf under {' '.join(args)}")
        for b in builds:
            board = cache_value(b, "RB_BOARD")
            if not board:
                fail_usage(f"{b}/CMakeCache.txt names no RB_BOARD")
            label = f"{cache_value(b, 'RB_PORT')}/{board} ({b})"
            subjects.append((label, board, disassemble(os.path.join(b, "rtosbench-fw.elf"))))
        ports = {cache_value(b, "RB_PORT") for b in builds}
        if kernels and not ports - {"bare", "template"}:
            print("SKIPPED: no kernel port image built (the ports_* tests skipped or failed)")
            return 77

    problems = []
    reference = {}  # board -> (label, {routine: normalized code})
    for label, board, listing in subjects:
        counter = counter_address(root, board)
        funcs, words = parse(listing)
        code = {}
        for name in WINDOWS:
            if name not in funcs:
                problems.append(f"{label}: no routine {name}")
                continue
            for p in check_routine(name, funcs[name], words, counter):
                problems.append(f"{label}: {p}")
        for name in SAME_CODE:
            if name in funcs:
                code[name] = normalized(funcs[name])
        for p in check_round(funcs, words, counter):
            problems.append(f"{label}: {p}")
        if board not in reference:
            reference[board] = (label, code)
        else:
            ref_label, ref = reference[board]
            for name in SAME_CODE:
                if name in code and name in ref and code[name] != ref[name]:
                    problems.append(f"{label}: {name} differs from {ref_label}'s: "
                                    f"{' ; '.join(code[name])} vs {' ; '.join(ref[name])}")
        if not any(p.startswith(label + ":") for p in problems):
            print(f"ok {label}: counter 0x{counter:08x}, "
                  + ", ".join(f"{n} [{len(code[n])} insns]" for n in SAME_CODE)
                  + f"; {ROUND[0]} window = {ROUND[3]}'s interior")
    for p in problems:
        print(f"FAIL: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
