"""tests/kernel/crash_replay.py on synthetic dm-log-writes logs: the log
format, the left-symmetric mapping, lost data, parity at marks and the
write hole it must count."""
import importlib.util
import json
import os
import struct

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "crash_replay", os.path.join(HERE, "..", "kernel", "crash_replay.py"))
cr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cr)

SS = 512
N, MS, CHUNK = 4, 64, 8          # 4 members of 32 KiB, 4 KiB chunks: 8 rows


def block(seq, lb):
    return (b"SSAW" + bytes(4) + struct.pack("<QQ", seq, lb)).ljust(4096, bytes([seq % 251]))


def xor(*bs):
    acc = 0
    for b in bs:
        acc ^= int.from_bytes(b, "little")
    return acc.to_bytes(4096, "little")


class Log:
    def __init__(self):
        self.entries = []

    def write(self, byte_off, data, flags=0):
        self.entries.append(struct.pack("<QQQQ", byte_off // SS, len(data) // SS, flags, 0)
                            .ljust(SS, b"\0") + data)

    def flush(self):
        self.entries.append(struct.pack("<QQQQ", 0, 0, cr.FLUSH, 0).ljust(SS, b"\0"))

    def mark(self, name):
        m = name.encode()
        # the name follows the entry in its sector
        self.entries.append((struct.pack("<QQQQ", 0, 0, cr.MARK, len(m)) + m).ljust(SS, b"\0"))

    def save(self, path):
        sup = struct.pack("<QQQI", cr.MAGIC, 1, len(self.entries), SS).ljust(SS, b"\0")
        with open(path, "wb") as f:
            f.write(sup + b"".join(self.entries))


def rmw(log, geo, img, seq, lb, parity_first=False, drop_parity=False):
    """The two member writes of a one-chunk write, as the target issues them."""
    m, off = geo.locate(lb)
    row = (off - m * MS * SS) // geo.cb
    pm = geo.parity_member(row)
    poff = pm * MS * SS + row * geo.cb
    new = block(seq, lb)
    par = xor(bytes(img[poff:poff + 4096]), bytes(img[off:off + 4096]), new)
    ops = [(off, new), (poff, par)]
    if parity_first:
        ops.reverse()
    for o, d in ops[:1 if drop_parity else 2]:
        log.write(o, d)
        img[o:o + 4096] = d


def run(tmp_path, log, writes, extra=()):
    lp, wp, jp = tmp_path / "log", tmp_path / "w.csv", tmp_path / "r.json"
    log.save(lp)
    wp.write_text("seq,block\n" + "".join(f"{s},{b}\n" for s, b in writes))
    rc = cr.main(["--log", str(lp), "--members", str(N), "--member-sectors", str(MS),
                  "--chunk", str(CHUNK), "--writes", str(wp), "--json", str(jp), *extra])
    return rc, json.loads(jp.read_text())


def test_mapping_is_left_symmetric():
    g = cr.Raid5(N, MS, CHUNK)
    # row 0: D0 D1 D2 P; row 1: D4 D5 P D3 (Documentation/parity.rst)
    assert [g.locate(b)[0] for b in range(6)] == [0, 1, 2, 3, 0, 1]
    assert g.parity_member(0) == 3 and g.parity_member(1) == 2


def test_a_clean_log_loses_nothing_and_sees_the_hole_between_data_and_parity(tmp_path):
    g = cr.Raid5(N, MS, CHUNK)
    img = bytearray(N * MS * SS)
    log, writes = Log(), []
    for seq, lb in enumerate([0, 1, 4, 0, 7], 1):
        rmw(log, g, img, seq, lb, parity_first=seq % 2 == 0)
        writes.append((seq, lb))
        if seq in (2, 5):
            log.flush()
            log.mark(f"m{seq}")
    rc, r = run(tmp_path, log, writes)
    assert rc == 0
    assert (r["writes_logged"], r["marks"], r["lost_blocks"], r["mark_mismatches"]) == (10, 2, 0, 0)
    # every write leaves one crash point between its two member writes where
    # its row's parity is stale, and in each such row a chunk at rest (one
    # never written, say) that a failure of its member would rebuild wrongly
    assert r["points_with_mismatch"] == 5
    assert r["points_with_hole"] == 5 and r["hole_points"] == [1, 3, 7, 9, 11]
    assert (r["last_hole_point"], r["last_hole_durable"]) == (11, 2)


def test_lost_flushed_data_and_a_mark_with_stale_parity_fail(tmp_path):
    g = cr.Raid5(N, MS, CHUNK)
    img = bytearray(N * MS * SS)
    log, writes = Log(), []
    rmw(log, g, img, 1, 0)
    rmw(log, g, img, 2, 1, drop_parity=True)     # the parity never written
    writes += [(1, 0), (2, 1), (3, 2)]            # and write 3 never logged at all
    log.flush()
    log.mark("m3")
    rc, r = run(tmp_path, log, writes)
    assert rc == 1
    assert r["mark_mismatches"] == 1
    assert r["lost_blocks"] >= 1 and r["lost_examples"][0]["block"] == 2


def test_dump_writes_the_replayed_device(tmp_path):
    g = cr.Raid5(N, MS, CHUNK)
    img = bytearray(N * MS * SS)
    log = Log()
    rmw(log, g, img, 1, 5)
    out = tmp_path / "img"
    rc, _ = run(tmp_path, log, [(1, 5)], ["--dump", f"1:{out}"])
    assert rc == 0
    d = out.read_bytes()
    m, off = g.locate(5)
    assert cr.stamp_of(d[off:off + 4096]) == 1
    assert d.count(0) > len(d) - 2 * 4096      # only the data chunk so far


def test_mirror_copies_may_differ_only_in_flight(tmp_path):
    g = cr.Mirror(N, MS, CHUNK, 2)
    # 2 sets of 2: chunk 0 on members 0 and 1, chunk 1 on members 2 and 3
    assert g.copies(1) == [2 * MS * SS, 3 * MS * SS]
    log, writes = Log(), [(1, 0), (2, 1)]
    for seq, lb in writes:
        for off in g.copies(lb):
            log.write(off, block(seq, lb))
    log.flush()
    log.mark("m2")
    # at rest and different: write 1's block rewritten on one copy only, by
    # no write of the workload (what a lost copy write would leave)
    log.write(g.copies(0)[1], block(7, 0))
    rc, r = run(tmp_path, log, writes, ["--layout", "mirror"])
    assert rc == 1                               # block 0's copy 1 lost write 1
    assert r["lost_blocks"] >= 1 and r["lost_examples"][0]["block"] == 0
    # one point between each write's two copies, not at rest; the last entry
    # leaves block 0's copies different at rest
    assert r["points_with_mismatch"] == 3
    assert r["points_with_hole"] == 1 and r["hole_points"] == [7]


def test_chunks_touched_crosses_chunks_and_members():
    # members of 64 sectors (32 KiB), 4 KiB chunks: 8 KiB from the end of
    # member 0's row 7 runs into member 1's row 0
    got = list(cr.chunks_touched(MS, 4096, 7 * 4096 + 512, 9 * 4096))
    assert got == [(0, 7), (1, 0)]


def _check_parity():
    sp = importlib.util.spec_from_file_location(
        "check_parity", os.path.join(HERE, "..", "kernel", "check_parity.py"))
    mod = importlib.util.module_from_spec(sp)
    sp.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("n", [3, 4, 5])
def test_pstripe_mapping_agrees_with_the_parity_checker(n):
    """Groups as check_parity.py (written apart) sees them; every chunk in
    exactly one group; logical blocks fill the data areas one to one."""
    geo = cr.Pstripe(n, 8 * n * 4, CHUNK)       # rows = 4n: G = 4, D = 4n - 4
    cp = _check_parity()
    seen = {}
    for idx in range(geo.rows):
        chunks = geo.group_chunks(idx)
        assert chunks == cp.group_chunks("pstripe", n, geo.rows, idx)
        for m, c in chunks:
            assert geo.group_of(m, c) == idx
            assert (m, c) not in seen
            seen[(m, c)] = idx
    offs = {geo.locate(lb)[1] for lb in range(n * geo.dchunks)}
    assert len(offs) == n * geo.dchunks
    for off in offs:
        m, within = divmod(off, geo.ms * SS)
        assert within // geo.cb < geo.dchunks     # in the data area


def test_pstripe_hole_counts_a_data_chunk_behind_stale_parity():
    geo = cr.Pstripe(3, 8 * 6, CHUNK)             # rows 6: G = 2, D = 4
    img = bytearray(geo.n * geo.ms * SS)
    idx = 1                                        # parity on member 1, chunk 4
    (pm, pc), a, b = geo.group_chunks(idx)
    new = block(1, 0)
    at = a[0] * geo.ms * SS + a[1] * geo.cb
    img[at:at + geo.cb] = new
    assert not geo.unit_ok(img, idx)
    # chunk a is being written: only b is at rest, and rebuilding it from
    # a and the stale (zero) parity gives new data, not b's zeros
    assert geo.hole(img, idx, lambda key: key == a) == 1
    assert geo.hole(img, idx, lambda key: True) == 0
    at = pm * geo.ms * SS + pc * geo.cb
    img[at:at + geo.cb] = new
    assert geo.unit_ok(img, idx)


def test_bitmap_must_cover_every_row_whose_parity_lies(tmp_path):
    """With --bitmap-sector: a row between its data and parity writes is
    protected when its region's bit is on the bitmap device, and a point
    where it is not counts as unprotected (and fails the replay)."""
    g = cr.Raid5(N, MS, CHUNK)
    img = bytearray(N * MS * SS)
    bm_sector = N * MS                      # the bitmap device follows the members
    bits = bytearray(4096)
    bits[0] = 0b01                          # region 0 (row 0, one row a region)
    log, writes = Log(), [(1, 0), (2, 4)]
    log.write((bm_sector + cr.BM_SB_SECTORS) * SS, bytes(bits), cr.FUA)
    rmw(log, g, img, 1, 0)                  # row 0: its bit is set
    args = ["--bitmap-sector", str(bm_sector), "--bitmap-region", "1"]
    rc, r = run(tmp_path, log, writes[:1], args)
    assert rc == 0
    assert (r["bitmap_writes"], r["writes_logged"], r["points_unprotected"]) == (1, 2, 0)
    assert r["points_with_mismatch"] == 1
    rmw(log, g, img, 2, 4)                  # row 1: its bit never set
    rc, r = run(tmp_path, log, writes, args)
    assert rc == 1
    assert (r["points_unprotected"], r["units_unprotected_max"]) == (1, 1)
    # the bit set, row 1 is covered too
    bits[0] = 0b11
    log.write((bm_sector + cr.BM_SB_SECTORS) * SS, bytes(bits), cr.FUA)
    log.entries.insert(1, log.entries.pop())
    rc, r = run(tmp_path, log, writes, args)
    assert rc == 0 and r["points_unprotected"] == 0



def test_mirror_bitmap_counts_the_member_chunk_row(tmp_path):
    """A mirror's unit is (set, row): its bit is the row's region's, on
    whichever set the chunk lies (rows are shared by the sets)."""
    g = cr.Mirror(N, MS, CHUNK, 2)
    bm_sector = N * MS
    bits = bytearray(4096)
    bits[0] = 0b10                          # region 1: row 1 (one row a region)
    # logical chunk 3: set 1, row 1 -- its first copy written, not the second
    log, writes = Log(), [(1, 3)]
    log.write((bm_sector + cr.BM_SB_SECTORS) * SS, bytes(bits), cr.FUA)
    log.write(g.copies(3)[0], block(1, 3))
    args = ["--layout", "mirror", "--bitmap-sector", str(bm_sector), "--bitmap-region", "1"]
    rc, r = run(tmp_path, log, writes, args)
    assert rc == 0 and r["points_with_mismatch"] == 1 and r["points_unprotected"] == 0
    # logical chunk 0 (set 0, row 0): region 0's bit is clear
    log.write(g.copies(0)[0], block(2, 0))
    rc, r = run(tmp_path, log, writes + [(2, 0)], args)
    assert rc == 1 and r["points_unprotected"] == 1

# -- the partial parity log (ssa-parity-ppl.c's format) ------------------

PPL_SLOTS, PPL_SLOT = 64, 16       # sectors a slot: the header's 4 KiB and a chunk


def ppl_sb(tail, log_id=7):
    sb = bytearray(cr.PPL_SB.pack(b"SSAPPL01", 1, 0, N, CHUNK, MS // CHUNK, PPL_SLOTS,
                                  PPL_SLOT, 0, log_id, tail, 1, 0, 0))
    struct.pack_into("<I", sb, cr.PPL_SB.size - 4, cr.kcrc32(bytes(sb[:-4])))
    return bytes(sb).ljust(4096, b"\0")


def ppl_entry(seq, group, ranges, pp, log_id=7, tear=False):
    hdr = bytearray(cr.PPL_HDR.pack(b"SSAPPLE1", log_id, seq, group, 0, CHUNK, len(ranges),
                                    cr.kcrc32(pp), 0).ljust(cr.PPL_HDR.size + 12 * 64, b"\0"))
    for i, r in enumerate(ranges):
        struct.pack_into("<III", hdr, cr.PPL_HDR.size + 12 * i, *r)
    struct.pack_into("<I", hdr, cr.PPL_HDR.size - 4, cr.kcrc32(bytes(hdr)))
    body = bytes(hdr).ljust(4096, b"\0") + pp
    return body[:4096] + bytes(len(pp)) if tear else body


def logged_rmw(log, geo, img, base, seq, lb, slot_seq, write_parity, **kw):
    """A one-chunk write as the target makes it with a ppl: the entry
    (FUA) first, then data and parity."""
    m, off = geo.locate(lb)
    row = (off - m * MS * SS) // geo.cb
    pm = geo.parity_member(row)
    poff = pm * MS * SS + row * geo.cb
    pp = xor(bytes(img[poff:poff + 4096]), bytes(img[off:off + 4096]))
    e = ppl_entry(slot_seq, row, [(m, 0, CHUNK)], pp, **kw)
    eoff = base + 4096 + (slot_seq % PPL_SLOTS) * PPL_SLOT * SS
    log.write(eoff, e, cr.FUA)
    new = block(seq, lb)
    par = xor(pp, new)
    log.write(off, new)
    img[off:off + 4096] = new
    if write_parity:
        log.write(poff, par)
        img[poff:poff + 4096] = par


def prefill(log, geo, img):
    """Rows with data in them (a hole needs a chunk at rest to lose), all
    members in one log entry: no crash point while they are written."""
    for lb in range(6):
        m, off = geo.locate(lb)
        row = (off - m * MS * SS) // geo.cb
        poff = geo.parity_member(row) * MS * SS + row * geo.cb
        old = bytes(img[off:off + 4096])
        img[off:off + 4096] = block(100 + lb, lb)
        img[poff:poff + 4096] = xor(bytes(img[poff:poff + 4096]), old, bytes(img[off:off + 4096]))
    log.write(0, bytes(img))


def ppl_run(tmp_path, log, writes):
    return run(tmp_path, log, writes, ["--ppl-sector", str(N * MS)])


def test_ppl_mends_every_crash_point(tmp_path):
    g = cr.Raid5(N, MS, CHUNK)
    base = N * MS * SS
    img = bytearray(base)
    log, writes = Log(), []
    log.write(base, ppl_sb(0))
    prefill(log, g, img)
    # two whole writes to row 0 (members 0, then 1), flushed; then one to
    # row 1 whose parity never comes.  With member 1 gone, only the newer
    # of row 0's entries may tell its parity: the older one's partial
    # parity holds member 1's old data.
    for seq, lb in enumerate([0, 4, 1, 5], 1):
        logged_rmw(log, g, img, base, seq, lb, seq - 1, write_parity=seq != 4)
        writes.append((seq, lb))
        if seq == 3:
            log.flush()
            log.mark("m3")
    rc, r = ppl_run(tmp_path, log, writes)
    # the raw members still show the hole (write 4's parity never came) ...
    assert r["points_with_hole"] > 0
    # ... and the replay closes it at every point, whichever member is gone
    assert rc == 0, r
    assert r["ppl_points_unclosed"] == 0 and r["ppl_entries_max"] == 4
    assert r["ppl_writes"] == 5
    # replayed oldest first, entry by entry, the older row-0 entry would
    # rebuild member 1's flushed block wrongly
    entries = cr.ppl_entries
    cr.ppl_entries = lambda img, b: sorted(entries(img, b), key=lambda e: e[0])[::-1]
    try:
        rc, r = ppl_run(tmp_path, log, writes)
    finally:
        cr.ppl_entries = entries
    assert rc == 1 and r["ppl_points_unclosed"] > 0


def test_ppl_checks_fail_when_the_log_lies(tmp_path):
    g = cr.Raid5(N, MS, CHUNK)
    base = N * MS * SS
    for bad in ("stale", "torn"):
        img = bytearray(base)
        log = Log()
        log.write(base, ppl_sb(0 if bad == "torn" else 5))
        prefill(log, g, img)
        # seq 1 < tail 5: a void entry; or an entry whose partial parity was cut
        logged_rmw(log, g, img, base, 1, 0, 1, write_parity=False, tear=bad == "torn")
        rc, r = ppl_run(tmp_path, log, [(1, 0)])
        assert rc == 1 and r["ppl_points_unclosed"] > 0, (bad, r)


def test_ppl_undo_puts_back_overlapping_ranges_newest_first():
    """Two entries of a group overwrite overlapping parity ranges at
    different starts (entries of different chunk ranges): undoing them
    must give back the image as it was, whatever the order of offsets."""
    orig = bytes(range(32))
    img = bytearray(orig)
    saved = []
    for lo, hi, fill in ((8, 16, 0xAA), (0, 16, 0xBB)):
        saved.append((lo, bytes(img[lo:hi])))
        img[lo:hi] = bytes([fill]) * (hi - lo)
    cr.ppl_undo(img, saved)
    assert bytes(img) == orig
