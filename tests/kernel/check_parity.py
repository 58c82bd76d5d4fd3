#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Recompute the parity of a raid5 or pstripe dm-ssastripe volume from its
raw members, independently of the module, per Documentation/parity.rst.

usage: check_parity.py NAME       (a live volume: reads `dmsetup table NAME`)
       check_parity.py --table "0 LEN ssastripe raid5 CHUNK N DEV OFF ..."

Every parity group must XOR to zero over its N chunks (the parity chunk and
the N - 1 data chunks it covers).  Prints one line,
"groups=G mismatches=M [first=IDX,...]", and exits 1 if M > 0.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawdev import SECTOR, devnode, read_direct  # noqa: E402


def parse_table(line):
    """(layout, chunk sectors, rows, [(path, offset)]) of a table line."""
    t = line.split()
    length, layout, chunk, n = int(t[1]), t[3], int(t[4]), int(t[5])
    if layout not in ("raid5", "pstripe"):
        raise SystemExit(f"{layout}: not a parity layout")
    members = [(devnode(t[6 + 2 * i]), int(t[7 + 2 * i])) for i in range(n)]
    rows = length // (chunk * (n - 1))
    return layout, chunk, rows, members


def group_chunks(layout, n, rows, idx):
    """[(member, chunk)] of parity group idx, the parity chunk first.

    raid5: group r is row r on every member.  pstripe: with G = rows / n and
    D = rows - G, group idx = g * n + p has its parity in member p's chunk
    D + g and covers chunk k * G + g of every member j != p, where
    k = (p - j - 1) mod n is the segment of j that p's parity area covers.
    """
    if layout == "raid5":
        return [(m, idx) for m in range(n)]
    per_seg = rows // n
    dchunks = rows - per_seg
    g, p = divmod(idx, n)
    out = [(p, dchunks + g)]
    for j in range(n):
        if j != p:
            out.append((j, ((p - j - 1) % n) * per_seg + g))
    return out


def mismatches(layout, chunk, rows, members):
    """Indices of the groups whose chunks do not XOR to zero."""
    n = len(members)
    cb = chunk * SECTOR
    data = [read_direct(p, off, rows * cb) for p, off in members]
    bad = []
    if layout == "raid5":
        # every row is a group: XOR the members whole, then look per row
        acc = 0
        for d in data:
            acc ^= int.from_bytes(d, "little")
        x = acc.to_bytes(rows * cb, "little")
        zero = bytes(cb)
        bad = [r for r in range(rows) if x[r * cb:(r + 1) * cb] != zero]
        return bad
    for idx in range(rows):
        acc = 0
        for m, c in group_chunks(layout, n, rows, idx):
            acc ^= int.from_bytes(data[m][c * cb:(c + 1) * cb], "little")
        if acc:
            bad.append(idx)
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name", nargs="?", help="dm device name")
    ap.add_argument("--table", help="a table line instead of a live device")
    a = ap.parse_args(argv)
    if a.table:
        line = a.table
    elif a.name:
        line = subprocess.run(["dmsetup", "table", a.name], check=True,
                              capture_output=True, text=True).stdout
    else:
        ap.error("give NAME or --table")
    os.sync()
    layout, chunk, rows, members = parse_table(line)
    bad = mismatches(layout, chunk, rows, members)
    extra = f" first={','.join(map(str, bad[:8]))}" if bad else ""
    print(f"groups={rows} mismatches={len(bad)}{extra}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
