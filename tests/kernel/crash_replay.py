#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Replay a dm-log-writes log of a raid5 volume's members and check every
crash point: is acknowledged data still there, does the parity agree, and
what would a member failure then reconstruct wrongly (the write hole)?

usage: crash_replay.py --log DEV --members N --member-sectors S --chunk C
                       --writes FILE [--json FILE] [--dump K:FILE ...]
       crash_replay.py --verify DEV --durable SEQ --writes FILE

The members are N linear slices of one device that dm-log-writes logged
(member i at sector i * S of it), so the log holds every member write in
the order the members completed them: replaying it to entry K gives the
members as a crash right after that completion would leave them.  The
workload (crash_writer.py) wrote 4 KiB blocks, each stamped with its
sequence number, and put a mark "m<seq>" in the log after each flush that
followed write <seq>.  A crash point is every entry of the log.

At each point:
- acknowledged data: every block whose last write before the last mark
  reached is still that write's, or a later write's (one in flight may
  have landed): a lost block is counted;
- parity: the rows whose chunks do not XOR to zero;
- the write hole: in those rows, the chunks at rest (no write in flight
  to them) that a failure of their member would rebuild from the others
  and the stale parity, and get wrong.

Prints one summary line and exits 1 if acknowledged data was lost or a
mark's point has a parity mismatch.  --dump K:FILE writes the replayed
data device at point K (0: before the first entry) to FILE.  --verify
reads the written blocks through a live volume (one rebuilt from a dump,
say) and holds each to its last write up to --durable.
"""
import argparse
import csv
import json
import mmap
import os
import struct
import sys

MAGIC = 0x6A736677736872
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16
BLOCK = 4096
SECTOR = 512


def read_log(path):
    """(sectorsize, [(sector, nr_sectors, flags, data or mark name)])."""
    with open(path, "rb") as f:
        raw = f.read()
    magic, version, nr, ss = struct.unpack_from("<QQQI", raw, 0)
    if magic != MAGIC:
        raise SystemExit(f"{path}: not a dm-log-writes log (magic {magic:#x})")
    entries, pos = [], ss
    for _ in range(nr):
        sector, nsec, flags, dlen = struct.unpack_from("<QQQQ", raw, pos)
        if flags & MARK:
            entries.append((sector, 0, flags, raw[pos + 32:pos + 32 + dlen].decode()))
            pos += ss
            continue
        if dlen and not flags & DISCARD:
            raise SystemExit(f"{path}: an entry with inline data, not handled")
        pos += ss
        data = b""
        if not flags & DISCARD and nsec:
            data = raw[pos:pos + nsec * ss]
            pos += nsec * ss
        entries.append((sector, nsec, flags, data))
    return ss, entries


class Raid5:
    """left_symmetric raid5 over N members of S sectors, chunk C sectors
    (Documentation/parity.rst): row r has its parity on member
    N - 1 - r mod N and data chunk j on member (parity + 1 + j) mod N."""

    def __init__(self, n, member_sectors, chunk):
        self.n, self.ms, self.chunk = n, member_sectors, chunk
        self.cb = chunk * SECTOR
        self.rows = member_sectors // chunk

    def parity_member(self, row):
        return self.n - 1 - row % self.n

    def locate(self, lblock):
        """(member, byte offset in the data device) of logical 4 KiB block."""
        lbyte = lblock * BLOCK
        c, within = divmod(lbyte, self.cb)
        row, j = divmod(c, self.n - 1)
        m = (self.parity_member(row) + 1 + j) % self.n
        return m, m * self.ms * SECTOR + row * self.cb + within

    def chunk_at(self, img, m, row):
        off = m * self.ms * SECTOR + row * self.cb
        return img[off:off + self.cb]

    def row_ok(self, img, row):
        acc = 0
        for m in range(self.n):
            acc ^= int.from_bytes(self.chunk_at(img, m, row), "little")
        return acc == 0

    def rows_of(self, byte_lo, byte_hi):
        """(member, row) pairs a byte range of the data device touches."""
        out = set()
        b = byte_lo
        while b < byte_hi:
            m, moff = divmod(b, self.ms * SECTOR)
            row = moff // self.cb
            out.add((m, row))
            b = m * self.ms * SECTOR + (row + 1) * self.cb
        return out


def stamp_of(block):
    """Sequence number a crash_writer block carries (0: never written)."""
    head = block[:16]
    if head[:4] != b"SSAW":
        return 0
    return struct.unpack_from("<Q", head, 8)[0]


def load_writes(path):
    """[(seq, lblock)] in order, and the marks {seq: index}."""
    writes = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            writes.append((int(row["seq"]), int(row["block"])))
    return writes


def replay(ss, entries, geo, writes, dumps):
    size = geo.n * geo.ms * SECTOR
    img = bytearray(size)
    bad_rows = set()
    # versions[lblock] = sorted seqs written to it
    versions = {}
    for seq, lb in writes:
        versions.setdefault(lb, []).append(seq)
    in_flight_by_chunk = {}
    for seq, lb in writes:
        m, off = geo.locate(lb)
        in_flight_by_chunk.setdefault((m, (off - m * geo.ms * SECTOR) // geo.cb), []).append(seq)

    durable = 0                 # writes <= this seq were acknowledged and flushed
    issued = 0                  # the newest write seen in the log (the next may be in flight)
    res = {"points": 0, "marks": 0, "flushes": 0, "writes_logged": 0,
           "points_with_mismatch": 0, "max_rows_mismatched": 0,
           "points_with_hole": 0, "hole_chunks_max": 0, "hole_chunks_sum": 0,
           "lost_blocks": 0, "mark_mismatches": 0, "first_hole_point": None,
           "lost_examples": [], "hole_points": []}

    def check(point, is_mark):
        res["points"] += 1
        nbad = len(bad_rows)
        res["max_rows_mismatched"] = max(res["max_rows_mismatched"], nbad)
        if nbad:
            res["points_with_mismatch"] += 1
            if is_mark:
                res["mark_mismatches"] += 1
        # the write hole: chunks at rest in a mismatched row, rebuilt wrong
        hole = 0
        for row in bad_rows:
            pm = geo.parity_member(row)
            for m in range(geo.n):
                if m == pm:
                    continue
                seqs = in_flight_by_chunk.get((m, row), [])
                if any(durable < s <= issued + 1 for s in seqs):
                    continue    # written since the last flush: not at rest
                acc = 0
                for k in range(geo.n):
                    if k != m:
                        acc ^= int.from_bytes(geo.chunk_at(img, k, row), "little")
                if acc.to_bytes(geo.cb, "little") != bytes(geo.chunk_at(img, m, row)):
                    hole += 1
        if hole:
            res["points_with_hole"] += 1
            res["hole_chunks_sum"] += hole
            res["hole_chunks_max"] = max(res["hole_chunks_max"], hole)
            if res["first_hole_point"] is None:
                res["first_hole_point"] = point
                res["first_hole_durable"] = durable
            res["last_hole_point"], res["last_hole_durable"] = point, durable
            if len(res["hole_points"]) < 16:
                res["hole_points"].append(point)
        # acknowledged data: each block's durable version or a later one
        for lb, seqs in versions.items():
            want = [s for s in seqs if s <= durable]
            if not want:
                continue
            m, off = geo.locate(lb)
            got = stamp_of(img[off:off + BLOCK])
            if got < want[-1] or got not in seqs:
                res["lost_blocks"] += 1
                if len(res["lost_examples"]) < 8:
                    res["lost_examples"].append({"point": point, "block": lb,
                                                 "want": want[-1], "got": got})

    def dump(point):
        if point in dumps:
            with open(dumps[point], "wb") as f:
                f.write(img)

    dump(0)
    check(0, False)
    for i, (sector, nsec, flags, data) in enumerate(entries, 1):
        if flags & MARK:
            res["marks"] += 1
            if data.startswith("m"):
                durable = max(durable, int(data[1:]))
            check(i, True)
            dump(i)
            continue
        if flags & FLUSH and not nsec:
            res["flushes"] += 1
        if nsec:
            lo = sector * ss
            hi = lo + nsec * ss
            if flags & DISCARD:
                img[lo:hi] = bytes(hi - lo)
            else:
                img[lo:hi] = data
                res["writes_logged"] += 1
                for b in range(0, len(data), BLOCK):
                    # a data block of write st (a parity block may look like one)
                    st = stamp_of(data[b:b + BLOCK])
                    if 0 < st <= len(writes) and geo.locate(writes[st - 1][1])[1] == lo + b:
                        issued = max(issued, st)
            for _, row in geo.rows_of(lo, hi):
                if geo.row_ok(img, row):
                    bad_rows.discard(row)
                else:
                    bad_rows.add(row)
        check(i, False)
        dump(i)
    res["durable_at_end"] = durable
    return res


def verify_volume(dev, writes, durable):
    """Blocks lost on a live volume: read each written block through it
    (O_DIRECT) and hold it to its last write up to ``durable``."""
    versions = {}
    for seq, lb in writes:
        versions.setdefault(lb, []).append(seq)
    buf = mmap.mmap(-1, BLOCK)
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    lost = []
    try:
        for lb, seqs in sorted(versions.items()):
            want = [x for x in seqs if x <= durable]
            if not want:
                continue
            if os.preadv(fd, [buf], lb * BLOCK) != BLOCK:
                raise SystemExit(f"{dev}: short read at block {lb}")
            got = stamp_of(bytes(buf[:16]))
            if got < want[-1] or got not in seqs:
                lost.append((lb, want[-1], got))
    finally:
        os.close(fd)
    return lost


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--writes", required=True, help="crash_writer.py's CSV")
    ap.add_argument("--verify", metavar="DEV",
                    help="instead of a replay: check the blocks on a live volume")
    ap.add_argument("--durable", type=int, default=0,
                    help="with --verify: writes up to this one were flushed")
    ap.add_argument("--log")
    ap.add_argument("--members", type=int)
    ap.add_argument("--member-sectors", type=int)
    ap.add_argument("--chunk", type=int, help="chunk, sectors")
    ap.add_argument("--json", help="write the counts here")
    ap.add_argument("--dump", action="append", default=[], metavar="K:FILE")
    a = ap.parse_args(argv)
    if a.verify:
        lost = verify_volume(a.verify, load_writes(a.writes), a.durable)
        print(f"verified={a.verify} durable={a.durable} lost={len(lost)}"
              + (f" first={lost[:4]}" if lost else ""))
        return 1 if lost else 0
    if not (a.log and a.members and a.member_sectors and a.chunk):
        ap.error("a replay needs --log, --members, --member-sectors and --chunk")
    ss, entries = read_log(a.log)
    geo = Raid5(a.members, a.member_sectors, a.chunk)
    dumps = {}
    for d in a.dump:
        k, f = d.split(":", 1)
        dumps[int(k)] = f
    res = replay(ss, entries, geo, load_writes(a.writes), dumps)
    res["entries"] = len(entries)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    print(f"points={res['points']} marks={res['marks']} writes={res['writes_logged']} "
          f"lost={res['lost_blocks']} mark_mismatches={res['mark_mismatches']} "
          f"mismatch_points={res['points_with_mismatch']} hole_points={res['points_with_hole']} "
          f"hole_chunks_max={res['hole_chunks_max']} first_hole={res['first_hole_point']}")
    return 1 if res["lost_blocks"] or res["mark_mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
