#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Replay a dm-log-writes log of a raid5, pstripe or mirror volume's members and
check every crash point: is acknowledged data still there, does the parity
(do the copies) agree, and what would a member failure then get wrong (the
write hole)?

usage: crash_replay.py [--layout raid5|pstripe|mirror [--copies K]] --log DEV
                       --members N --member-sectors S --chunk C
                       --writes FILE [--json FILE] [--dump K:FILE ...]
                       [--bitmap-sector B [--bitmap-region R] | --ppl-sector P]
       crash_replay.py --verify DEV --durable SEQ --writes FILE [--all-blocks N]

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
  have landed), on every copy: a lost block is counted;
- raid5: the rows whose chunks do not XOR to zero; mirror: the chunks
  whose copies differ;
- the write hole: in those rows, the chunks at rest (no write since the
  last flush) that a failure of their member would rebuild from the others
  and the stale parity, and get wrong; for a mirror, chunks at rest whose
  copies differ.

With --bitmap-sector, the volume has a write-intent bitmap whose device
follows the members in the logged device: at every point, every group
whose parity lies must have its region's bit set there (a point where one
has not is "unprotected": a restart would not resync it).

With --ppl-sector, the volume has a partial parity log whose device
follows the members: at every point the log is replayed as a restart
would (ppl_replay(), written from the format in Documentation/parity.rst,
not from the module), with every member present and then with each member
gone in turn; after it every group must agree, and no chunk at rest of a
gone member may be rebuilt wrongly (a point where one does is
"ppl_unclosed").

Prints one summary line and exits 1 if acknowledged data was lost, a
mark's point has a parity mismatch, a point is unprotected or the ppl
left a hole or a lying group.  --dump K:FILE writes the replayed
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
import zlib

MAGIC = 0x6A736677736872
BM_SB_SECTORS = 8               # the bitmap's superblock (ssa-bitmap.c)
BM_MAX_BYTES = 1 << 17          # its bits: at most 2^20 regions
PPL_BLOCK = 4096                # the ppl's unit (ssa-parity-ppl.c)
PPL_SB = struct.Struct("<8sIIIIQQIIQQQQI")
PPL_HDR = struct.Struct("<8sQQQIIIII")
PPL_RANGES = 64                 # SSA_MAX_MEMBERS
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


def chunks_touched(member_sectors, chunk_bytes, lo, hi):
    """(member, row) of every chunk that bytes [lo, hi) of the data device
    (members of member_sectors each, side by side) touch."""
    b = lo
    while b < hi:
        m, moff = divmod(b, member_sectors * SECTOR)
        row = moff // chunk_bytes
        yield m, row
        b = m * member_sectors * SECTOR + (row + 1) * chunk_bytes


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

    def group_chunks(self, row):
        """[(member, chunk)] of group ``row``, the parity chunk first."""
        pm = self.parity_member(row)
        return [(pm, row)] + [(m, row) for m in range(self.n) if m != pm]

    def chunk_at(self, img, m, row):
        off = m * self.ms * SECTOR + row * self.cb
        return img[off:off + self.cb]

    def row_ok(self, img, row):
        acc = 0
        for m in range(self.n):
            acc ^= int.from_bytes(self.chunk_at(img, m, row), "little")
        return acc == 0

    # -- what replay() asks of a layout --
    def copies(self, lblock):
        """Byte offsets that must hold the block (a failure may leave any)."""
        return [self.locate(lblock)[1]]

    def key(self, lblock):
        """The unit of placement a write of the block changes."""
        m, off = self.locate(lblock)
        return (m, (off - m * self.ms * SECTOR) // self.cb)

    def units_of(self, lo, hi):
        return {row for _, row in chunks_touched(self.ms, self.cb, lo, hi)}

    def unit_ok(self, img, row):
        return self.row_ok(img, row)

    def hole(self, img, row, busy, only=None):
        """Chunks at rest in a row with stale parity that a failure of
        their member (of member ``only``) would rebuild wrongly."""
        pm, n = self.parity_member(row), 0
        for m in range(self.n):
            if m == pm or busy((m, row)) or only not in (None, m):
                continue
            acc = 0
            for k in range(self.n):
                if k != m:
                    acc ^= int.from_bytes(self.chunk_at(img, k, row), "little")
            if acc.to_bytes(self.cb, "little") != bytes(self.chunk_at(img, m, row)):
                n += 1
        return n


class Pstripe(Raid5):
    """pstripe (parity striping) over N members of S sectors, chunk C
    sectors (Documentation/parity.rst): with R rows, G = R div N and
    D = R - G, member i's chunks 0 .. D - 1 hold logical chunks i * D ..;
    group g * N + p has its parity in member p's chunk D + g and covers
    chunk k * G + g of every other member j, k = (p - j - 1) mod N."""

    def __init__(self, n, member_sectors, chunk):
        super().__init__(n, member_sectors, chunk)
        self.per_seg = self.rows // n
        self.dchunks = self.rows - self.per_seg

    def group_chunks(self, idx):
        """[(member, chunk)] of group idx, the parity chunk first."""
        g, p = divmod(idx, self.n)
        return [(p, self.dchunks + g)] + [
            (j, ((p - j - 1) % self.n) * self.per_seg + g) for j in range(self.n) if j != p]

    def group_of(self, m, c):
        if c >= self.dchunks:
            return (c - self.dchunks) * self.n + m
        seg, g = divmod(c, self.per_seg)
        return g * self.n + (m + 1 + seg) % self.n

    def locate(self, lblock):
        c, within = divmod(lblock * BLOCK, self.cb)
        m, mc = divmod(c, self.dchunks)
        return m, m * self.ms * SECTOR + mc * self.cb + within

    def key(self, lblock):
        m, off = self.locate(lblock)
        return (m, (off - m * self.ms * SECTOR) // self.cb)

    def units_of(self, lo, hi):
        return {self.group_of(m, c) for m, c in chunks_touched(self.ms, self.cb, lo, hi)
                if c < self.rows}

    def unit_ok(self, img, idx):
        acc = 0
        for m, c in self.group_chunks(idx):
            acc ^= int.from_bytes(self.chunk_at(img, m, c), "little")
        return acc == 0

    def hole(self, img, idx, busy, only=None):
        chunks, n = self.group_chunks(idx), 0
        for i, (m, c) in enumerate(chunks):
            if i == 0 or busy((m, c)) or only not in (None, m):
                continue
            acc = 0
            for k, (mk, ck) in enumerate(chunks):
                if k != i:
                    acc ^= int.from_bytes(self.chunk_at(img, mk, ck), "little")
            if acc.to_bytes(self.cb, "little") != bytes(self.chunk_at(img, m, c)):
                n += 1
        return n


class Mirror:
    """The mirror layout over N members, K copies, chunk C sectors
    (Documentation/mirror.rst): member k of set s is member s * K + k, and
    logical chunk c is chunk c div S of every member of set c mod S."""

    def __init__(self, n, member_sectors, chunk, copies):
        if n % copies:
            raise SystemExit("members must be a multiple of copies")
        self.n, self.ms, self.chunk, self.k = n, member_sectors, chunk, copies
        self.cb = chunk * SECTOR
        self.sets = n // copies

    def _set_row(self, lblock):
        c, within = divmod(lblock * BLOCK, self.cb)
        return c % self.sets, c // self.sets, within

    def copies(self, lblock):
        s, row, within = self._set_row(lblock)
        return [(s * self.k + j) * self.ms * SECTOR + row * self.cb + within
                for j in range(self.k)]

    def key(self, lblock):
        s, row, _ = self._set_row(lblock)
        return (s, row)

    def units_of(self, lo, hi):
        return {(m // self.k, row) for m, row in chunks_touched(self.ms, self.cb, lo, hi)}

    def _chunks(self, img, unit):
        s, row = unit
        return [bytes(img[(s * self.k + j) * self.ms * SECTOR + row * self.cb:][:self.cb])
                for j in range(self.k)]

    def unit_ok(self, img, unit):
        c = self._chunks(img, unit)
        return all(x == c[0] for x in c[1:])

    def hole(self, img, unit, busy):
        """A chunk at rest whose copies differ: a failure could leave the
        wrong one."""
        return 0 if busy(unit) or self.unit_ok(img, unit) else 1


def stamp_of(block):
    """Sequence number a crash_writer block carries (0: never written)."""
    head = block[:16]
    if head[:4] != b"SSAW":
        return 0
    return struct.unpack_from("<Q", head, 8)[0]


def load_writes(path):
    """[(seq, lblock)] of crash_writer.py's CSV, in order."""
    writes = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            writes.append((int(row["seq"]), int(row["block"])))
    return writes


def bitmap_bit(img, bm, unit):
    """Whether the write-intent bitmap in img (bm: its first sector in the
    data device and the rows a region) has the bit of ``unit``: a parity
    group, or a mirror's (set, member chunk row), whose row counts."""
    sector, region = bm
    r = (unit[1] if isinstance(unit, tuple) else unit) // region
    return bool(img[(sector + BM_SB_SECTORS) * SECTOR + r // 8] >> (r % 8) & 1)


def kcrc32(data):
    """The kernel's crc32(0, data): CRC-32 without the inversions."""
    return zlib.crc32(data, 0xFFFFFFFF) ^ 0xFFFFFFFF


def ppl_entries(img, base):
    """The entries a restart replays, from the ppl whose superblock is at
    byte ``base`` of img, by group and newest first in a group: each
    (group, lo, hi, ranges, pp), ranges [(member, lo, hi)] in sectors of
    the chunk."""
    sb = PPL_SB.unpack_from(img, base)
    (magic, _ver, _lay, _mem, _chunk, _rows, slots, slot_sectors, _flags,
     log_id, tail, _events, _sync, csum) = sb
    if magic != b"SSAPPL01" or kcrc32(bytes(img[base:base + PPL_SB.size - 4])) != csum:
        return []
    found = []
    for s in range(slots):
        off = base + PPL_BLOCK + s * slot_sectors * SECTOR
        hdr = bytearray(img[off:off + PPL_HDR.size + 12 * PPL_RANGES])
        magic, lid, seq, group, lo, hi, nr, pp_csum, hcsum = PPL_HDR.unpack_from(hdr)
        if magic != b"SSAPPLE1" or lid != log_id or seq < tail or nr > PPL_RANGES:
            continue
        struct.pack_into("<I", hdr, PPL_HDR.size - 4, 0)
        if kcrc32(bytes(hdr)) != hcsum or not lo < hi:
            continue
        pp = bytes(img[off + PPL_BLOCK:off + PPL_BLOCK + (hi - lo) * SECTOR])
        if kcrc32(pp) != pp_csum:
            continue            # cut short
        ranges = [struct.unpack_from("<III", hdr, PPL_HDR.size + 12 * i) for i in range(nr)]
        found.append((group, -seq, lo, hi, ranges, pp))
    found.sort(key=lambda f: f[:2])
    return [(f[0],) + f[2:] for f in found]


def ppl_replay(img, geo, base, gone=None):
    """Replay the ppl onto img as a restart would, member ``gone`` unread
    and unwritten: each sector of an entry's parity range that no newer
    entry of its group covers becomes its partial parity ^ the ranges it
    changed as they are now (where the gone member was changing, the
    parity stays).  Returns (the groups mended, and the bytes the replay
    overwrote: [(offset, old bytes)] in the order overwritten, to put
    back)."""
    saved, groups = [], set()
    decided, last = set(), None
    for group, lo, hi, ranges, pp in ppl_entries(img, base):
        if group != last:
            decided, last = set(), group
        # the sectors a newer entry decided keep what it made of them
        keep = [(x, x + 1) for x in range(lo, hi) if x in decided]
        decided.update(range(lo, hi))
        chunks = geo.group_chunks(group)
        pm, pc = chunks[0]
        if pm == gone:
            continue
        where = dict(chunks)
        acc = bytearray(pp)
        for m, a, b in ranges:
            if m == gone:
                keep.append((a, b))
                continue
            off = m * geo.ms * SECTOR + where[m] * geo.cb
            cur = int.from_bytes(img[off + a * SECTOR:off + b * SECTOR], "little")
            x = int.from_bytes(acc[(a - lo) * SECTOR:(b - lo) * SECTOR], "little") ^ cur
            acc[(a - lo) * SECTOR:(b - lo) * SECTOR] = x.to_bytes((b - a) * SECTOR, "little")
        poff = pm * geo.ms * SECTOR + pc * geo.cb
        for a, b in keep:
            acc[(a - lo) * SECTOR:(b - lo) * SECTOR] = img[poff + a * SECTOR:poff + b * SECTOR]
        lo_b, hi_b = poff + lo * SECTOR, poff + hi * SECTOR
        saved.append((lo_b, bytes(img[lo_b:hi_b])))
        img[lo_b:hi_b] = acc
        groups.add(group)
    return groups, saved


def ppl_undo(img, saved):
    # newest first: two entries of a group may overwrite overlapping
    # ranges of its parity (different ranges of the chunks)
    for off, old in reversed(saved):
        img[off:off + len(old)] = old


def replay(ss, entries, geo, writes, dumps, bm=None, ppl=None, checks=True):
    data_end = geo.n * geo.ms * SECTOR
    size = data_end
    if bm:
        size = max(size, (bm[0] + BM_SB_SECTORS) * SECTOR + BM_MAX_BYTES)
    img = bytearray(size)
    bad_rows = set()
    # versions[lblock] = sorted seqs written to it
    versions = {}
    for seq, lb in writes:
        versions.setdefault(lb, []).append(seq)
    by_key = {}
    for seq, lb in writes:
        by_key.setdefault(geo.key(lb), []).append(seq)
    # a write's blocks (crash_writer.py: one row per block)
    blocks_of = {}
    for seq, lb in writes:
        blocks_of.setdefault(seq, set()).add(lb)

    durable = 0                 # writes <= this seq were acknowledged and flushed
    issued = 0                  # the newest write seen in the log (the next may be in flight)
    res = {"points": 0, "marks": 0, "flushes": 0, "writes_logged": 0,
           "points_with_mismatch": 0, "max_rows_mismatched": 0,
           "points_with_hole": 0, "hole_chunks_max": 0, "hole_chunks_sum": 0,
           "lost_blocks": 0, "mark_mismatches": 0, "first_hole_point": None,
           "lost_examples": [], "hole_points": [], "bitmap_writes": 0,
           "points_unprotected": 0, "units_unprotected_max": 0,
           "ppl_points_unclosed": 0, "ppl_entries_max": 0, "ppl_points_replayed": 0,
           "ppl_ranges_max": 0, "ppl_points_mixed_ranges": 0,
           "ppl_examples": []}

    def check(point, is_mark):
        res["points"] += 1
        if not checks:
            return
        nbad = len(bad_rows)
        res["max_rows_mismatched"] = max(res["max_rows_mismatched"], nbad)
        if nbad:
            res["points_with_mismatch"] += 1
            res["last_mismatch_point"], res["last_mismatch_durable"] = point, durable
            if is_mark:
                res["mark_mismatches"] += 1
        # the write hole: chunks at rest in a mismatched unit, rebuilt wrong
        # (a chunk written since the last flush is not at rest)
        def busy(key):
            return any(durable < s <= issued + 1 for s in by_key.get(key, []))
        if bm:
            # every unit whose parity lies has its region's bit on the device
            bare = sum(1 for u in bad_rows if not bitmap_bit(img, bm, u))
            if bare:
                res["points_unprotected"] += 1
                res["units_unprotected_max"] = max(res["units_unprotected_max"], bare)
        if ppl is not None:
            ppl_check(point, busy)
        hole = sum(geo.hole(img, u, busy) for u in bad_rows)
        if hole:
            res["points_with_hole"] += 1
            res["hole_chunks_sum"] += hole
            res["hole_chunks_max"] = max(res["hole_chunks_max"], hole)
            if res["first_hole_point"] is None:
                res["first_hole_point"] = point
                res["first_hole_durable"] = durable
            res["last_hole_point"], res["last_hole_durable"] = point, durable
            if not isinstance(geo, Mirror):
                # whose failure would do it
                res["last_hole_members"] = [
                    m for m in range(geo.n)
                    if any(geo.hole(img, u, busy, only=m) for u in bad_rows)]
            if len(res["hole_points"]) < 16:
                res["hole_points"].append(point)
        # acknowledged data: each block's durable version or a later one
        for lb, seqs in versions.items():
            want = [s for s in seqs if s <= durable]
            if not want:
                continue
            for off in geo.copies(lb):
                got = stamp_of(img[off:off + BLOCK])
                if got < want[-1] or got not in seqs:
                    res["lost_blocks"] += 1
                    if len(res["lost_examples"]) < 8:
                        res["lost_examples"].append({"point": point, "block": lb,
                                                     "want": want[-1], "got": got})

    def ppl_check(point, busy):
        # the restart's replay, with every member and with each one gone
        base = ppl * SECTOR
        if len(img) < base + PPL_BLOCK:
            return
        entries = ppl_entries(img, base)
        n = len(entries)
        res["ppl_entries_max"] = max(res["ppl_entries_max"], n)
        for e in entries:
            # entries of several ranges; those whose ranges lie at
            # different offsets in their chunks
            res["ppl_ranges_max"] = max(res["ppl_ranges_max"], len(e[3]))
            if len({(a, b) for _, a, b in e[3]}) > 1:
                res["ppl_points_mixed_ranges"] += 1
                break
        if n:
            res["ppl_points_replayed"] += 1
        bad = 0
        for gone in [None] + list(range(geo.n)):
            groups, saved = ppl_replay(img, geo, base, gone)
            units = bad_rows | groups
            if gone is None:
                lying = [u for u in units if not geo.unit_ok(img, u)]
            else:
                lying = [u for u in units if geo.hole(img, u, busy, only=gone)]
            ppl_undo(img, saved)
            if lying:
                bad += 1
                if len(res["ppl_examples"]) < 8:
                    res["ppl_examples"].append({"point": point, "gone": gone,
                                                "groups": sorted(lying)[:8]})
        if bad:
            res["ppl_points_unclosed"] += 1

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
        if nsec and sector * ss >= data_end:
            # the bitmap's or the ppl's device
            end = sector * ss + nsec * ss
            if end > len(img):
                img.extend(bytes(end - len(img)))
            img[sector * ss:end] = data
            res["bitmap_writes" if bm else "ppl_writes"] = \
                res.get("bitmap_writes" if bm else "ppl_writes", 0) + 1
            if ppl is not None and sector * ss == ppl * SECTOR:
                # a superblock: the image holds the whole log (for --dump)
                sb = PPL_SB.unpack_from(img, ppl * SECTOR)
                end = ppl * SECTOR + PPL_BLOCK + sb[6] * sb[7] * SECTOR
                if sb[0] == b"SSAPPL01" and end > len(img):
                    img.extend(bytes(end - len(img)))
        elif nsec:
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
                    if st in blocks_of:
                        lb = struct.unpack_from("<Q", data, b + 16)[0]
                        if lb in blocks_of[st] and lo + b in geo.copies(lb):
                            issued = max(issued, st)
            for u in geo.units_of(lo, hi):
                if geo.unit_ok(img, u):
                    bad_rows.discard(u)
                else:
                    bad_rows.add(u)
        check(i, False)
        dump(i)
    res["durable_at_end"] = durable
    return res


def verify_volume(dev, writes, durable, all_blocks=0):
    """Blocks lost on a live volume: read each written block through it
    (O_DIRECT) and hold it to its last write up to ``durable``; with
    ``all_blocks``, also each of the first all_blocks blocks never written,
    which must read as zeros (the volume began zeroed)."""
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
        big = mmap.mmap(-1, 256 * BLOCK)          # 1 MiB a read
        zero = bytes(BLOCK)
        for first in range(0, all_blocks, 256):
            n = min(256, all_blocks - first)
            if os.preadv(fd, [memoryview(big)[:n * BLOCK]], first * BLOCK) != n * BLOCK:
                raise SystemExit(f"{dev}: short read at block {first}")
            for lb in range(first, first + n):
                off = (lb - first) * BLOCK
                if lb not in versions and big[off:off + BLOCK] != zero:
                    lost.append((lb, 0, "not zero"))
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
    ap.add_argument("--all-blocks", type=int, default=0, metavar="N",
                    help="with --verify: blocks 0..N-1 never written must read as zeros")
    ap.add_argument("--log")
    ap.add_argument("--members", type=int)
    ap.add_argument("--member-sectors", type=int)
    ap.add_argument("--chunk", type=int, help="chunk, sectors")
    ap.add_argument("--layout", choices=("raid5", "pstripe", "mirror"), default="raid5")
    ap.add_argument("--copies", type=int, default=2, help="mirror: copies (2)")
    ap.add_argument("--bitmap-sector", type=int,
                    help="the write-intent bitmap's device starts at this sector of the "
                         "logged device (after the members): check that every group "
                         "whose parity lies has its region's bit set")
    ap.add_argument("--bitmap-region", type=int, default=16, help="groups a region (16)")
    ap.add_argument("--ppl-sector", type=int,
                    help="the partial parity log's device starts at this sector of the "
                         "logged device: replay it at every point and check that it "
                         "leaves no lying group and no hole")
    ap.add_argument("--json", help="write the counts here")
    ap.add_argument("--dump", action="append", default=[], metavar="K:FILE")
    a = ap.parse_args(argv)
    if a.verify:
        lost = verify_volume(a.verify, load_writes(a.writes), a.durable, a.all_blocks)
        print(f"verified={a.verify} durable={a.durable} lost={len(lost)}"
              + (f" first={lost[:4]}" if lost else ""))
        return 1 if lost else 0
    if not (a.log and a.members and a.member_sectors and a.chunk):
        ap.error("a replay needs --log, --members, --member-sectors and --chunk")
    ss, entries = read_log(a.log)
    if a.layout == "mirror":
        geo = Mirror(a.members, a.member_sectors, a.chunk, a.copies)
    else:
        geo = (Raid5 if a.layout == "raid5" else Pstripe)(a.members, a.member_sectors, a.chunk)
    dumps = {}
    for d in a.dump:
        k, f = d.split(":", 1)
        dumps[int(k)] = f
    bm = (a.bitmap_sector, a.bitmap_region) if a.bitmap_sector is not None else None
    # dumps alone (no --json): the images, without the checks at every point
    res = replay(ss, entries, geo, load_writes(a.writes), dumps, bm, a.ppl_sector,
                 checks=bool(a.json) or not dumps)
    res["entries"] = len(entries)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    print(f"points={res['points']} marks={res['marks']} writes={res['writes_logged']} "
          f"lost={res['lost_blocks']} mark_mismatches={res['mark_mismatches']} "
          f"mismatch_points={res['points_with_mismatch']} hole_points={res['points_with_hole']} "
          f"hole_chunks_max={res['hole_chunks_max']} first_hole={res['first_hole_point']}"
          + (f" bitmap_writes={res['bitmap_writes']} "
             f"unprotected_points={res['points_unprotected']}" if bm else "")
          + (f" ppl_writes={res.get('ppl_writes', 0)} ppl_replayed_points="
             f"{res['ppl_points_replayed']} ppl_entries_max={res['ppl_entries_max']} "
             f"ppl_ranges_max={res['ppl_ranges_max']} "
             f"ppl_mixed_range_points={res['ppl_points_mixed_ranges']} "
             f"ppl_unclosed={res['ppl_points_unclosed']}" if a.ppl_sector is not None else "")
          + (f" ppl_examples={res['ppl_examples'][:3]}" if res["ppl_points_unclosed"] else ""))
    return 1 if (res["lost_blocks"] or res["mark_mismatches"] or res["points_unprotected"]
                 or res["ppl_points_unclosed"]) else 0


if __name__ == "__main__":
    sys.exit(main())
