#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check an srarray dm-ssastripe volume from its raw members, independently
of the module, per Documentation/srarray.rst.

usage: check_srarray.py NAME    (a live volume: reads `dmsetup table NAME`)

Two checks:
  replicas  on every member, the replicas arcs of every track hold the same
            bytes (every write reached every replica);
  content   the volume read through the target equals the volume rebuilt
            from replica 0 of each member with the stripe mapping (the
            placement is the documented one).
Prints "tracks=T mismatched=M content=ok|bad" and exits 1 on any mismatch.
"""
import argparse
import mmap
import os
import subprocess
import sys

SECTOR = 512


def devnode(dev):
    """/dev path of a table's member: a MAJ:MIN pair or already a path."""
    if ":" not in dev:
        return dev
    with open(f"/sys/dev/block/{dev}/uevent") as f:
        for line in f:
            if line.startswith("DEVNAME="):
                return "/dev/" + line.strip().split("=", 1)[1]
    raise SystemExit(f"no device node for {dev}")


def parse_table(line):
    """(length, chunk, [(path, offset)], replicas, track) of a table line."""
    t = line.split()
    length, layout, chunk, n = int(t[1]), t[3], int(t[4]), int(t[5])
    if layout != "srarray":
        raise SystemExit(f"{layout}: not an srarray volume")
    members = [(devnode(t[6 + 2 * i]), int(t[7 + 2 * i])) for i in range(n)]
    rest = t[6 + 2 * n:]
    opts = dict(zip(rest[1::2], rest[2::2])) if rest else {}
    return (length, chunk, members, int(opts.get("replicas", 2)),
            int(opts["track_sectors"]))


def sr_sector(u, track, replicas, r):
    """Member sector of replica r of data-space sector u (ssa_sr_sector())."""
    arc = track // replicas
    return (u // arc) * track + r * arc + u % arc


def stripe_map(ls, chunk, n):
    """(member, data-space sector) of logical sector ls."""
    c, off = divmod(ls, chunk)
    row, m = divmod(c, n)
    return m, row * chunk + off


def read_at(path, sector, count):
    """Bytes as on the device, read with O_DIRECT (a page cached earlier,
    by udev's probe say, would be stale: the module writes with bios)."""
    nbytes = count * SECTOR
    buf = mmap.mmap(-1, max(nbytes, 1))     # page-aligned, as O_DIRECT wants
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        got = os.preadv(fd, [buf], sector * SECTOR)
    finally:
        os.close(fd)
    if got != nbytes:
        raise SystemExit(f"{path}: short read ({got} of {nbytes})")
    return bytes(buf[:nbytes])


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
    """The volume's bytes as replica 0 of each member holds them."""
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
    a = ap.parse_args()
    line = subprocess.run(["dmsetup", "table", a.name], check=True,
                          capture_output=True, text=True).stdout
    length, chunk, members, replicas, track = parse_table(line)
    n = len(members)
    member_len = length // n // (track // replicas) * track
    raws = [read_at(p, off, member_len) for p, off in members]
    tracks, mismatched = 0, []
    for m, raw in enumerate(raws):
        t, bad = check_replicas(raw, track, replicas)
        tracks += t
        mismatched += [(m, b) for b in bad]
    vol = read_at(f"/dev/mapper/{a.name}", 0, length)
    content = vol == rebuild(raws, length, chunk, track, replicas)
    print(f"tracks={tracks} mismatched={len(mismatched)} "
          f"content={'ok' if content else 'bad'}"
          + (f" first={mismatched[:4]}" if mismatched else ""))
    return 0 if content and not mismatched else 1


if __name__ == "__main__":
    sys.exit(main())
