#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check an srarray dm-ssastripe volume from its raw members, independently
of the module, per Documentation/srarray.rst.

usage: check_srarray.py NAME [--skip M]...  (a live volume: reads
       `dmsetup table NAME`; --skip: a failed member, left out)

Three checks:
  replicas  on every member, the replicas arcs of every track hold the same
            bytes (every write reached every replica);
  copies    the members of a set (option copies) hold the same bytes;
  content   the volume read through the target equals the volume rebuilt
            from replica 0 of the first member of each set with the stripe
            mapping over the sets (the placement is the documented one).
Prints "tracks=T mismatched=M content=ok|bad" and exits 1 on any mismatch.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawdev import SECTOR, devnode, read_direct  # noqa: E402


def parse_table(line):
    """(length, chunk, [(path, offset)], replicas, track, copies) of a
    table line."""
    t = line.split()
    length, layout, chunk, n = int(t[1]), t[3], int(t[4]), int(t[5])
    if layout != "srarray":
        raise SystemExit(f"{layout}: not an srarray volume")
    members = [(devnode(t[6 + 2 * i]), int(t[7 + 2 * i])) for i in range(n)]
    rest = t[6 + 2 * n:]
    opts = dict(zip(rest[1::2], rest[2::2])) if rest else {}
    return (length, chunk, members, int(opts.get("replicas", 2)),
            int(opts["track_sectors"]), int(opts.get("copies", 1)))


def sr_sector(u, track, replicas, r):
    """Member sector of replica r of data-space sector u (ssa_sr_sector())."""
    arc = track // replicas
    return (u // arc) * track + r * arc + u % arc


def stripe_map(ls, chunk, n):
    """(member, data-space sector) of logical sector ls."""
    c, off = divmod(ls, chunk)
    row, m = divmod(c, n)
    return m, row * chunk + off


def check_replicas(raw, track, replicas):
    """(tracks, [mismatched track numbers]) of one member's raw bytes."""
    arc = track // replicas * SECTOR
    tb = track * SECTOR
    bad = []
    ntracks = len(raw) // tb
    for t in range(ntracks):
        base = t * tb
        first = raw[base:base + arc]
        if any(raw[base + r * arc:base + (r + 1) * arc] != first
               for r in range(1, replicas)):
            bad.append(t)
    return ntracks, bad


def rebuild(raws, length, chunk, track, replicas):
    """The volume's bytes as replica 0 of each set's member in raws holds
    them (one raw image per set)."""
    n = len(raws)
    out = bytearray(length * SECTOR)
    for c in range(length // chunk):
        m, u = stripe_map(c * chunk, chunk, n)
        ms = sr_sector(u, track, replicas, 0)
        out[c * chunk * SECTOR:(c + 1) * chunk * SECTOR] = \
            raws[m][ms * SECTOR:(ms + chunk) * SECTOR]
    return bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name")
    ap.add_argument("--skip", type=int, action="append", default=[],
                    help="a member to leave out (failed)")
    a = ap.parse_args()
    line = subprocess.run(["dmsetup", "table", a.name], check=True,
                          capture_output=True, text=True).stdout
    length, chunk, members, replicas, track, copies = parse_table(line)
    sets = len(members) // copies
    member_len = length // sets // (track // replicas) * track
    raws = {m: read_direct(p, off, member_len * SECTOR) for m, (p, off) in enumerate(members)
            if m not in a.skip}
    tracks, mismatched, differ = 0, [], []
    for m, raw in raws.items():
        t, bad = check_replicas(raw, track, replicas)
        tracks += t
        mismatched += [(m, b) for b in bad]
    firsts = []
    for s in range(sets):
        live = [m for m in range(s * copies, (s + 1) * copies) if m in raws]
        if not live:
            raise SystemExit(f"set {s}: every member skipped")
        firsts.append(raws[live[0]])
        differ += [m for m in live[1:] if raws[m] != raws[live[0]]]
    vol = read_direct(f"/dev/mapper/{a.name}", 0, length * SECTOR)
    content = vol == rebuild(firsts, length, chunk, track, replicas)
    print(f"tracks={tracks} mismatched={len(mismatched)} copies_differ={len(differ)} "
          f"content={'ok' if content else 'bad'}"
          + (f" first={mismatched[:4]}" if mismatched else "")
          + (f" differ={differ}" if differ else ""))
    return 0 if content and not mismatched and not differ else 1


if __name__ == "__main__":
    sys.exit(main())
