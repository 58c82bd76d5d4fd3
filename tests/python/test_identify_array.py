"""ssa.identify_array against a model of an array whose geometry the
analysis is not told: chunk, width and copies drawn at random (seeded),
then recovered exactly from the order and times in which batches of
reads complete.

The model: members that serve one request at a time, first come first
served, each a rotating disk (ssadisk's mechanical model: a command
overhead, a seek a + b sqrt(cylinders), the wait for the sector to come
round, every track's sector 0 at the same angle) with its own spindle
phase and all turning at the same speed (their phases stay locked, the
hard case); raid 0 places chunk k on member k mod W; a mirror places it
on set k mod S and sends each read to the copy with the fewest reads
outstanding, ties in turn (ssastripe's ``queue`` policy).  The host adds
a path before and after each request, with jitter.
"""

from __future__ import annotations

import math
import os
import random

import pytest

from ssa import identify_array as ia
from ssa.identify import IdentifyError


class Member:
    def __init__(self, rng, spt, heads, rotation, seek_a, seek_b, overhead):
        self.spt, self.heads, self.rot = spt, heads, rotation
        self.a, self.b, self.oh = seek_a, seek_b, overhead
        self.phase = rng.uniform(0, rotation)
        self.arm = 0
        self.busy = 0.0

    def serve(self, sector: int, arrive: float) -> float:
        """The end of the read of ``sector`` that arrives at ``arrive``."""
        start = max(arrive, self.busy)
        cyl = sector // (self.spt * self.heads)
        d = abs(cyl - self.arm)
        t = start + self.oh + (self.a + self.b * math.sqrt(d) if d else 0.0)
        ts = self.rot / self.spt
        target = (sector % self.spt) * ts
        ph = (t + self.phase) % self.rot
        wait = (target - ph) % self.rot
        end = t + wait + ts
        self.arm, self.busy = cyl, end
        return end


class ArrayModel:
    """raid 0 (copies 1) or a mirror (copies K) over width * copies
    members; width 1 and copies 1 is a single disk."""

    def __init__(self, chunk, width, copies=1, seed=0, spt=135, heads=8, rpm=7200,
                 seek_a=2e-3, seek_b=192e-6, overhead=500e-6, member_sectors=200_000,
                 host=40e-6, jitter=40e-6, offset=0, parity=False, policy="queue"):
        """``parity``: md raid5 left-symmetric over ``width`` members (data
        chunk k on member k mod W, row k // (W - 1)); ``policy`` of a
        mirror: "queue" (fewest outstanding, ties in turn) or "md-raid1"
        (a read that continues the copy's last one goes there; else the
        fewest outstanding, the first of a tie: read_balance() over
        members that say they are not rotational)."""
        rng = random.Random(seed)
        self.parity, self.policy = parity, policy
        self.next_seq: dict[int, int] = {}
        self.offset = offset            # the volume starts this far into a chunk
        self.rng = rng
        self.chunk, self.width, self.k = chunk, width, copies
        rot = 60 / rpm
        self.members = [Member(rng, spt, heads, rot, seek_a, seek_b, overhead)
                        for _ in range(width * copies)]
        per = member_sectors // chunk * chunk
        self.sectors = per * (width - 1 if parity else width) - offset
        self.unit = 1
        self.host, self.jitter = host, jitter
        self.now = 1.0
        self.turn = [0] * width
        self.reads = 0

    def place(self, s: int) -> tuple[int, int]:
        c, off = divmod(s + self.offset, self.chunk)
        st, row = c % self.width, c // (self.width - 1 if self.parity else self.width)
        return st, row * self.chunk + off

    def idle(self, seconds):
        self.now += seconds

    def batch(self, sectors):
        t0 = self.now
        arrive = t0 + self.host + self.rng.uniform(0, self.jitter)
        load: dict[int, int] = {}
        ends = []
        for i, s in enumerate(sectors):
            if s < 0 or s >= self.sectors:
                raise IdentifyError(f"sector {s} outside")
            st, ms = self.place(s)
            copies = [st * self.k + j for j in range(self.k)]
            low = min(load.get(c, 0) for c in copies)
            cand = [c for c in copies if load.get(c, 0) == low]
            seq = [c for c in copies if self.next_seq.get(c) == ms]
            if self.policy == "md-raid1":
                pick = seq[0] if seq else cand[0]
            else:
                pick = cand[self.turn[st] % len(cand)]
            self.next_seq[pick] = ms + 1
            self.turn[st] += 1
            load[pick] = load.get(pick, 0) + 1
            # one io_submit: the reads reach the array in the order given
            arrive += self.rng.uniform(1e-6, 5e-6)
            ends.append((self.members[pick], ms, arrive, i))
        # each member serves in arrival order
        done = []
        for m, ms, arrive, i in sorted(ends, key=lambda e: e[2]):
            done.append((m.serve(ms, arrive) + self.host + self.rng.uniform(0, self.jitter), i))
        done.sort()
        self.now = done[-1][0] + self.rng.uniform(50e-6, 400e-6)
        self.reads += len(sectors)
        return [(i, t - t0) for t, i in done]


def draw(rng: random.Random) -> dict:
    """A hidden array: single disk, raid 0 over 2 to 6 members, or a
    mirror of 2 or 3 copies over 2 or 3 sets; chunk 8 to 256 KiB in 4 KiB
    steps; disk 5400 to 15000 rpm, 60 to 300 sectors a track."""
    kind = rng.choice(["stripe", "stripe", "mirror", "single"])
    chunk = 8 * rng.randint(2, 64)
    if kind == "stripe":
        width, copies = rng.randint(2, 6), 1
    elif kind == "mirror":
        width, copies = rng.randint(2, 3), rng.choice([2, 2, 3])
    else:
        width, copies = 1, 1
    return {"kind": kind, "chunk": chunk, "width": width, "copies": copies,
            "rpm": rng.randint(5400, 15000), "spt": rng.randint(60, 300),
            "heads": rng.randint(2, 8), "seek_a": rng.uniform(0.5e-3, 3e-3),
            "seek_b": rng.uniform(40e-6, 250e-6), "overhead": rng.uniform(0, 600e-6),
            "seed": rng.randint(1, 10**9)}


@pytest.mark.parametrize("seed", range(1, 11))
def test_hidden_array_recovered(seed):
    p = draw(random.Random(seed))
    dev = ArrayModel(p["chunk"], p["width"], p["copies"], seed=p["seed"], spt=p["spt"],
                     heads=p["heads"], rpm=p["rpm"], seek_a=p["seek_a"], seek_b=p["seek_b"],
                     overhead=p["overhead"])
    out = ia.measure_array(dev, quick=True, budget_s=1e9, echo=lambda *_: None, seed=seed)
    r = out["result"]
    assert r["copies"] == p["copies"], (r, p)
    assert r["mirrored"] == (p["copies"] > 1)
    assert r["width"] == p["width"], (r, p)
    if p["width"] > 1:
        assert r["chunk_sectors"] == p["chunk"], (r, p)
        assert r["layout"] == ("mirror" if p["copies"] > 1 else "stripe")
    else:
        assert r["chunk_sectors"] is None
        assert r["layout"] == ("mirror" if p["copies"] > 1 else "single")
    assert r["confidence"] in ("high", "medium")


def test_every_kind_is_drawn():
    kinds = {draw(random.Random(s))["kind"] for s in range(1, 11)}
    assert kinds == {"stripe", "mirror", "single"}


@pytest.mark.parametrize("chunk,width,copies", [(16, 2, 1), (512, 6, 1), (192, 3, 1),
                                                 (128, 2, 2), (24, 4, 1)])
def test_edges_of_the_ranges(chunk, width, copies):
    dev = ArrayModel(chunk, width, copies, seed=chunk + width)
    r = ia.measure_array(dev, budget_s=1e9, echo=lambda *_: None, seed=3)["result"]
    assert (r["chunk_sectors"], r["width"], r["copies"]) == (chunk, width, copies)


def test_a_volume_that_starts_inside_a_chunk():
    dev = ArrayModel(64, 3, offset=24, seed=5)
    out = ia.measure_array(dev, quick=True, budget_s=1e9, echo=lambda *_: None, seed=5)
    assert (out["result"]["chunk_sectors"], out["result"]["width"]) == (64, 3)
    assert {"check": "the volume starts at a chunk's start", "ok": False, "first_chunk": 40,
            "second_chunk": 64} in out["checks"]


@pytest.mark.parametrize("chunk,members,seed", [(128, 4, 1), (64, 3, 2), (1024, 4, 3),
                                                 (200, 5, 4), (96, 6, 5)])
def test_md_raid5_left_symmetric(chunk, members, seed):
    """Data chunk k on member k mod N as raid 0, but a parity row every N
    rows: the parity test sees the holes and names the layout."""
    dev = ArrayModel(chunk, members, parity=True, seed=seed, spt=[135, 211, 97, 160, 300][seed - 1])
    out = ia.measure_array(dev, quick=True, budget_s=1e9, echo=lambda *_: None, seed=seed)
    r = out["result"]
    assert (r["layout"], r["parity"], r["chunk_sectors"], r["width"], r["members"],
            r["copies"]) == ("raid5", "left-symmetric", chunk, members - 1, members, 1), \
        (r, out["parity"]["score"])


@pytest.mark.parametrize("chunk,width,seed", [(128, 4, 6), (64, 3, 7), (256, 5, 8)])
def test_raid0_is_not_taken_for_raid5(chunk, width, seed):
    dev = ArrayModel(chunk, width, seed=seed)
    out = ia.measure_array(dev, quick=True, budget_s=1e9, echo=lambda *_: None, seed=seed)
    r = out["result"]
    assert (r["layout"], r["parity"], r["width"]) == ("stripe", None, width), \
        out["parity"]["score"]


def test_parity_undecided_when_a_chunk_is_whole_tracks():
    turn = 8e-3
    out = ia.parity_from_gaps([0.0] * 12, 20e-6, 4, turn)
    assert out["layout"] is None and "whole number of tracks" in out["why"]
    holes = [ia.raid5_hole(j, 4) for j in range(12)]
    assert holes == [j % 3 == 2 for j in range(12)]
    got = ia.parity_from_gaps([-0.4e-3 if h else 10e-6 for h in holes], -0.43e-3, 4, turn)
    assert got["layout"] == "raid5-left-symmetric" and got["score"]["raid0"] == 8


@pytest.mark.parametrize("policy,seq", [("queue", 2), ("md-raid1", 1)])
def test_read_policy_of_a_mirror(policy, seq):
    """md raid1 keeps a sequential run on one copy (next_seq_sect); a
    fewest-outstanding policy (md raid10 near over non-rotational members,
    ssastripe's queue) spreads it; both spread a burst of one block."""
    dev = ArrayModel(64, 2, copies=2, seed=11, policy=policy)
    out = ia.measure_array(dev, quick=True, budget_s=1e9, echo=lambda *_: None, seed=4)
    r = out["result"]
    assert (r["copies"], r["width"]) == (2, 2)
    assert out["read_policy"]["sequential_copies"] == seq, out["read_policy"]
    assert ("stays on one copy" in r["read_policy"]) == (seq == 1)


@pytest.mark.parametrize("policy", ["queue", "md-raid1"])
def test_copies_half_a_turn_apart_report_the_whole_turn(policy):
    """Two copies whose spindles lie half a turn apart complete a burst
    every half turn, as one server twice as fast would: the copies come
    out 2 from the turn, and the round reported is the turn (md raid1
    once gave 3.005 ms over 6 ms disks)."""
    dev = ArrayModel(64, 1, copies=2, seed=3, rpm=10000, policy=policy)
    m0, m1 = dev.members
    m1.phase = (m0.phase + m0.rot / 2) % m0.rot
    out = ia.measure_array(dev, quick=True, budget_s=1e9, echo=lambda *_: None, seed=2)
    r = out["result"]
    assert r["copies"] == 2
    assert abs(r["round_s"] - 6e-3) < 0.02 * 6e-3, r["round_s"]
    assert "a turn 6.0" in out["summary"]


def test_servers_from_span():
    turn = 8e-3
    assert round(ia.servers_from_span([i * (turn + 60e-6) for i in range(12)], turn)) == 1
    two = [i * (turn + 120e-6) for i in range(6)] + [3e-3 + i * (turn + 120e-6) for i in range(6)]
    assert round(ia.servers_from_span(two, turn)) == 2


def test_a_device_too_small():
    dev = ArrayModel(16, 2, member_sectors=1024)
    with pytest.raises(IdentifyError, match="at least 8192"):
        ia.measure_array(dev, echo=lambda *_: None)


def test_budget_runs_out_with_a_clear_message():
    dev = ArrayModel(64, 3)
    with pytest.raises(IdentifyError, match="time budget"):
        ia.measure_array(dev, budget_s=0.0, echo=lambda *_: None)


def test_copies_from_burst():
    # one server: twelve completions a turn apart
    assert ia.copies_from_burst([0.001 + 0.008 * i for i in range(12)])[0] == 1
    # two copies in phase, and two half a turn apart
    assert ia.copies_from_burst(sorted([0.001 + 0.008 * i for i in range(6)] * 2))[0] == 2
    # two copies half a turn apart look like one server of half the turn
    # (measure_copies tells them apart by the turn itself)
    assert ia.copies_from_burst(sorted([0.001 + 0.008 * i for i in range(6)] +
                                       [0.005 + 0.008 * i for i in range(6)]))[0] == 1
    assert ia.copies_from_burst(sorted([0.001 + 0.008 * i for i in range(6)] +
                                       [0.006 + 0.008 * i for i in range(6)]))[0] == 2
    three = sorted(0.001 + 0.0025 * c + 0.008 * i for c in range(3) for i in range(4))
    assert ia.copies_from_burst(three)[0] == 3


def test_anchors_descend_and_stay_in_range():
    rng = random.Random(1)
    for lo, hi, n in [(0, 2, 4), (0, 8, 4), (100, 164, 6), (0, 1000, 10)]:
        a = ia.anchors(lo, hi, n, 1, rng)
        assert len(a) == n and all(lo <= s < hi for s in a)
        if hi - lo >= n:
            assert a == sorted(a, reverse=True) and len(set(a)) == n


def test_a_path_that_is_not_a_device(tmp_path):
    with pytest.raises(IdentifyError, match="cannot open"):
        ia.measure_array(str(tmp_path / "none"), echo=lambda *_: None)
    assert ia.main([str(tmp_path / "none")]) == 2


# -- bad input: clear messages, a non-zero exit, nothing written -----------------------------

def test_the_device_is_opened_read_only(monkeypatch, tmp_path):
    """Every open identify makes is read-only (no write probe exists)."""
    from ssa import identify
    seen = []

    def fake_open(path, flags, *a):
        seen.append(flags)
        raise OSError(13, "Permission denied")
    monkeypatch.setattr(identify.os, "open", fake_open)
    for call in (lambda: identify.Device(str(tmp_path / "x")),
                 lambda: ia.BatchDevice(str(tmp_path / "x"))):
        with pytest.raises(IdentifyError, match="cannot open"):
            call()
    assert seen and all(f & (os.O_WRONLY | os.O_RDWR) == 0 for f in seen)
    assert all(f & os.O_DIRECT for f in seen)


class FailingArray(ArrayModel):
    """An array whose reads fail after ``good`` batches (dm-flakey's down
    interval, a member gone)."""

    def __init__(self, good, **kw):
        super().__init__(64, 3, **kw)
        self.good = good

    def batch(self, sectors):
        if self.good <= 0:
            raise IdentifyError(f"/dev/x: read of sector {sectors[0]} failed: Input/output "
                                "error; a device that returns errors cannot be measured "
                                "(nothing was written)")
        self.good -= 1
        return super().batch(sectors)


@pytest.mark.parametrize("good", [0, 5, 40])
def test_a_device_that_returns_errors(good):
    with pytest.raises(IdentifyError, match="Input/output error"):
        ia.measure_array(FailingArray(good), quick=True, budget_s=1e9, echo=lambda *_: None)


def test_main_says_read_only_first_and_exits_non_zero(monkeypatch, capsys):
    from ssa import identify

    def failing(*a, **kw):
        raise IdentifyError("/dev/x: read of sector 0 failed: Input/output error")
    monkeypatch.setattr(ia, "measure_array", failing)
    assert ia.main(["/dev/x", "--quick"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == identify.READ_ONLY.format(device="/dev/x")
    assert err[-1] == "identify: /dev/x: read of sector 0 failed: Input/output error"


def test_a_batch_that_completes_at_once_is_not_a_crash():
    """All of a sequential batch's reads completing at one instant (merged,
    or answered from a cache) gives an infinite estimate: the read policy
    then says as many copies as there are (it raised OverflowError)."""
    import random as _r

    from ssa import identify_array as ia

    class AtOnce:
        unit, sectors = 8, 1 << 20

        def batch(self, starts):
            return [(s, 0.001) for s in starts]

    out = ia.measure_policy(AtOnce(), 2, 0.006, True, ia.Budget(60), _r.Random(1))
    assert out["sequential_copies"] == 2
    assert out["sequential_estimates"] == [None, None, None]
    # and its progress line says so (it once raised TypeError on None)
    line = ia.sequential_line(out, 2)
    assert "at once, at once, at once copies busy" in line
    assert ia.sequential_line({"sequential_estimates": [0.99, None]}, 2).startswith(
        "identify: a sequential run of 12 blocks: 0.99, at once")
