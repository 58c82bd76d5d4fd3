"""ssa identify: what a disk is, deduced from the times of its reads.

Given a block device and nothing else, read it one sector at a time
(O_DIRECT, one request outstanding) in chosen patterns and deduce the
parameters of a mechanical disk from the response times alone, the way
seed 001 deduced the FC-60's policies from a black box and seed 000
calibrated its disks from measurements.  Reads only: the device is never
written.

Every probe is a *pair*: read sector ``a``, then at once sector ``b``; the
second read's time is what is measured.  After the first read the spindle
is where ``a`` ended, so the second read's rotational wait is fixed by the
angle from ``a`` to ``b`` (less the constant time between the two: the
host's path, the drive's command overhead):

* **Rotation, sectors per track** (``sawtooth``): ``b = a - k`` for k = 1,
  2, ...  The wait falls by one sector time per step and jumps up by a turn
  once per track: a sawtooth whose slope is the sector time T_s and whose
  period is the sectors per track S; R = S T_s.  Backwards, so that a
  read-ahead segment (which runs forwards) never serves ``b``.
* **Tracks per cylinder** (``heads``): at the angle of least wait (the
  sawtooth's minimum), ``b`` one track behind ``a`` costs nothing more
  unless it lies on another cylinder, where the arm must move and the
  sector has passed: a turn more.  Stepping ``a`` back a track at a time,
  that happens once per cylinder: its period is the heads H.  With one
  head (``one_head``) every track is a cylinder, and the probes behind
  ``a`` must stay on its track: they start from a track's last sector.
* **Seek curve** (``seek``): ``b`` m cylinders behind ``a`` (m H S sectors:
  the same head, the same angle), swept over one track's angles: the
  least time is the seek plus the same constant as at m = 0 (within one
  sector time), so seek(m) = min_m - min_0.  Fitted to a + b sqrt(m).
* **Zones**: the sawtooth at points across the device; where S changes,
  a zone ends (transfer rate = S x 512 / R).
* **Read-ahead** (``cache``): ``b = a + 1``: a disk that reads ahead
  serves it from its segment at once; one that does not waits a turn.
* **Command overhead** (``queued_overhead``): ``b`` queued behind ``a``,
  which the disk starts the moment a ends: where its wait wraps over k
  gives the overhead, with no host path in it.

The analysis is pure functions over the measured times (``analyse_*``);
``measure`` runs the probes on a ``Probe`` (a device, or the model of one
in the tests) within a time budget.
"""

from __future__ import annotations

import fcntl
import math
import mmap
import os
import struct
import time
from dataclasses import dataclass, field

import numpy as np

SECTOR = 512
BLKSSZGET = 0x1268              # logical block size
BLKGETSIZE64 = 0x80081272       # size in bytes


# said before anything is read: identify has no write probe, and opens the
# device read-only (a read-only device is measured like any other)
READ_ONLY = ("identify: {device}: reads only -- opened read-only (O_RDONLY, O_DIRECT); "
             "nothing is written")


class IdentifyError(ValueError):
    """The device cannot be measured, or what it gave does not fit a disk."""


# -- the probe ---------------------------------------------------------------------------

class Device:
    """A block device read one request at a time with O_DIRECT.  ``read``
    returns the request's time in seconds.  Opened read-only: identify
    never writes."""

    def __init__(self, path: str, max_sectors: int = 2048):
        try:
            self.fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        except OSError as e:
            raise IdentifyError(f"{path}: cannot open for direct reads: {e.strerror}") from e
        try:
            buf = bytearray(8)
            fcntl.ioctl(self.fd, BLKGETSIZE64, buf)
            self.bytes = struct.unpack("Q", buf)[0]
            buf = bytearray(4)
            fcntl.ioctl(self.fd, BLKSSZGET, buf)
            self.block = struct.unpack("I", buf)[0]
        except OSError as e:
            os.close(self.fd)
            raise IdentifyError(f"{path}: not a block device ({e.strerror})") from e
        if self.block != SECTOR:
            os.close(self.fd)
            raise IdentifyError(f"{path}: logical blocks of {self.block} bytes; identify reads "
                                "single 512-byte sectors (a 512e or 512n device)")
        self.path = path
        self.sectors = self.bytes // SECTOR
        self.unit = max(1, self.block // SECTOR)        # sectors per logical block
        self.buf = mmap.mmap(-1, max_sectors * SECTOR)  # page aligned
        self.view = memoryview(self.buf)
        self.reads = 0

    def read(self, sector: int, count: int = 1) -> float:
        n = count * SECTOR
        t0 = time.perf_counter_ns()
        try:
            got = os.preadv(self.fd, [self.view[:n]], sector * SECTOR)
        except OSError as e:
            raise IdentifyError(f"{self.path}: read of sector {sector} failed: "
                                f"{e.strerror}; a device that returns errors cannot be "
                                "measured (nothing was written)") from e
        t = time.perf_counter_ns() - t0
        if got != n:
            raise IdentifyError(f"{self.path}: short read at sector {sector}")
        self.reads += 1
        return t * 1e-9

    def queued(self, a: int, b: int, lead: float = 300e-6) -> float:
        """Read ``a`` and, ``lead`` seconds after issuing it (while it is in
        service), ``b``: the time from a's completion to b's.  The disk
        starts b the moment a ends, so the host's path is not in it."""
        import threading
        ends = {}
        go = threading.Event()

        def first() -> None:
            go.set()
            ends["a0"] = time.perf_counter_ns()
            try:
                os.preadv(self.fd, [self.view[:SECTOR * self.unit]], a * SECTOR)
            except OSError as e:
                ends["error"] = e
            ends["a"] = time.perf_counter_ns()

        th = threading.Thread(target=first)
        th.start()
        go.wait()
        time.sleep(lead)        # lets go of the interpreter's lock: a is issued meanwhile
        issued = time.perf_counter_ns()
        off = 4096 * ((SECTOR * self.unit + 4095) // 4096)
        try:
            os.preadv(self.fd, [self.view[off:off + SECTOR * self.unit]], b * SECTOR)
        except OSError as e:
            ends["error"] = e
        ends["b"] = time.perf_counter_ns()
        th.join()
        if "error" in ends:
            raise IdentifyError(f"{self.path}: read failed: {ends['error'].strerror}; a "
                                "device that returns errors cannot be measured (nothing "
                                "was written)")
        self.reads += 2
        self.a_time = (ends["a"] - ends["a0"]) * 1e-9      # how long a was out
        if ends["a"] < issued or ends["b"] <= ends["a"]:
            return math.nan             # not queued behind a, or served first
        return (ends["b"] - ends["a"]) * 1e-9

    def flush(self) -> float:
        t0 = time.perf_counter_ns()
        try:
            os.fsync(self.fd)
        except OSError:
            return math.nan
        return (time.perf_counter_ns() - t0) * 1e-9

    def close(self) -> None:
        self.view.release()
        self.buf.close()
        os.close(self.fd)


def pair(dev, a: int, b: int) -> float:
    """Read ``a``, then ``b`` at once: the second read's time.  On a disk
    that reads ahead, a read far away first, so that ``a`` is read from
    the platter (a hit would leave the spindle and the arm unknown)."""
    if getattr(dev, "scrub", False):
        dev.read((a + dev.sectors // 2) % (dev.sectors - 8))
    dev.read(a)
    return dev.read(b)


def queued_overhead(dev, a: int, saw: "Sawtooth", budget: "Budget",
                    step: int = 8, prime: int | None = None) -> tuple[float, int, dict]:
    """The disk's command overhead from reads queued behind others: ``a``
    (just passed by a read of the sector after it, so that it waits most
    of a turn) and, issued while it is served, ``b = a - k``.  The disk
    starts b the moment a ends, with no host in between: b pays the
    overhead o, then waits (R - (k + 1) T_s - o) mod R.  Over k that wait
    falls a sector time a step until, at the first k with (k + 1) T_s >
    R - o, it jumps up by a turn: o = R - (k + 1/2) T_s there, to half a
    sector time.  Only the jump's place is read, not the times around
    it, so the jitter of the two completions' wakeups does not enter.
    Every b up to a turn back must lie on a's cylinder: on another, b
    pays a seek as well and the jump comes that much sooner (a disk of
    one head: ``a`` the last sector of its track).  With no overhead the
    jump is at k = S, where the formula gives -T_s/2: that is 0, not a
    turn.  ``prime`` is the read before (by default a + 1).  Returns o,
    the k of the jump and the times seen."""
    s, ts_sec, rot = saw.spt, saw.sector_time, saw.rotation
    first = a + 1 if prime is None else prime

    def q(k: int) -> float:
        dev.read(first)
        return dev.queued(a, a - k)

    # b must reach the disk while a is served.  a waits from the priming
    # read's end for the host's path, thread start included, less its
    # angle ahead: a path near a turn leaves a short wait and b late (at
    # 10,000 rpm in the guest, 2026-11-29: most pairs left out, the rest
    # not queued).  Of primes a quarter of a turn apart (behind a, on its
    # track), the one whose pairs are all queued and a longest out.
    budget.check("the command overhead")
    choice = []
    for i, p in enumerate([first] + [a - s * j // 4 for j in (2, 1, 3)]):
        first = p
        ts, out = [], []
        for _ in range(4):
            ts.append(q(s // 2))
            out.append(getattr(dev, "a_time", 0.0))
        valid = sum(t == t for t in ts)
        choice.append((valid >= 3, valid, float(np.median(out)), -i, p))
    first = max(choice)[-1]

    seen: dict = {}

    def jump_in(ks: list[int]) -> int | None:
        """The first k of ``ks`` whose time is a turn above the one before."""
        prev = None
        for k in ks:
            if k not in seen:
                seen[k] = q(k)
            v = seen[k]
            if v != v:
                continue
            # at the jump the time before it is near its least (b waits
            # little more than o): a pair the host held up a turn elsewhere
            # on the slope is not the jump (o is taken to be under R/2)
            if prev is not None and v - prev[1] > 0.5 * rot and prev[1] < 0.5 * rot:
                return k if k - prev[0] == 1 else -k        # bracketed
            prev = (k, v)
        return None

    budget.check("the command overhead")
    hit = jump_in(list(range(1, s + step + 1, step)))
    if hit is None:
        raise IdentifyError("overhead: no read could be queued behind another, or its "
                            "wait never wrapped (a disk that reorders its queue?)")
    if hit < 0:
        k_hi = -hit
        budget.check("the command overhead")
        fine = jump_in(list(range(max(1, k_hi - step), k_hi + 1)))
        k_star = abs(fine) if fine else k_hi
    else:
        k_star = hit
    # the jump confirmed by the median of three reads at each k around it:
    # a request held up before the jump can look like the jump itself
    # (the true one lies later), and a pair not queued (left out) can hide
    # the k before the jump (the true one lies earlier)
    meds: dict = {}

    def med(k: int) -> float:
        if k not in meds:
            vals = [v for v in [seen.get(k, math.nan)] + [q(k) for _ in range(2)] if v == v]
            meds[k] = float(np.median(vals)) if vals else math.nan  # all left out: none
        return meds[k]

    # not past S: with no overhead the jump is there (b at the head as a
    # ends, waiting nothing or, a nanosecond late, a turn)
    for k in range(max(2, k_star - step), min(k_star + step, s) + 1):
        lo, hi = med(k - 1), med(k)
        if lo == lo and hi == hi and hi - lo > 0.5 * rot and lo < 0.5 * rot:
            k_star = k
            break
    # b a whole track back waits most of a turn whatever the overhead, so
    # the jump is at S at the latest: a search that found it later did so
    # past pairs left out (with no overhead, b ends a sector after a, and
    # the two completions come back in either order; seen at 10,000 rpm
    # in the guest, 2026-11-29).  (An overhead within two sector times of
    # a turn would be read as none.)
    k_star = min(k_star, s)
    o = max(0.0, rot - (k_star + 0.5) * ts_sec)
    return o, k_star, {str(k): v for k, v in sorted(seen.items())}


def read_ahead(dev, x: int, n: int = 8) -> tuple[bool, list[float], list[float]]:
    """The sector after a read, at once, against the sector before: a disk
    that reads ahead serves the first from its segment, one that does not
    waits most of a turn for either."""
    was, dev.scrub = getattr(dev, "scrub", False), True   # no segment left over
    try:
        fwd = [pair(dev, x + 37 * i, x + 37 * i + 1) for i in range(n)]
        back = [pair(dev, x + 37 * i, x + 37 * i - 2) for i in range(n)]
    finally:
        dev.scrub = was
    return float(np.median(fwd)) < 0.5 * float(np.median(back)), fwd, back


# -- analysis (pure) ----------------------------------------------------------------------

@dataclass
class Sawtooth:
    """What one backward sweep says: the sector time, the sectors per
    track, the rotation, and the offset of least wait."""
    sector_time: float
    spt: int
    rotation: float
    k_min: int              # the offset (1..S) with the least time
    t_min: float
    jumps: list = field(default_factory=list)


def analyse_sawtooth(ks: list[int], ts: list[float],
                     rotation: float | None = None) -> Sawtooth:
    """The sweep t(k) of pairs (a, a - k), k consecutive: it falls by the
    sector time per step and jumps up by about a turn once per track.
    Needs two jumps (two tracks' worth of k).  With ``rotation`` known
    (every zone turns at the same rate), S = rotation / T_s."""
    t = np.asarray(ts, dtype=float)
    if len(t) < 8:
        raise IdentifyError("sawtooth: too few points")
    d = np.diff(t)
    # the sawtooth's height: a turn when known, else the times' range
    # without their extremes (a request the host delayed by much more
    # than a turn would hide every jump under half the full range)
    span = rotation or float(np.percentile(t, 98) - np.percentile(t, 2))
    up = np.nonzero(d > 0.5 * span)[0]
    if len(up) < 2:
        raise IdentifyError("sawtooth: no rotational pattern (fewer than two turns seen): "
                            "not a disk with a spindle, or the sweep is too short")
    small = d[np.abs(d) < 0.25 * span]
    if len(small) < 4 or np.median(small) >= 0:
        raise IdentifyError("sawtooth: the times do not fall with the offset")
    # Every jump is a turn, less one sector time: a wrap of the wait, or a
    # step onto the cylinder before (whose seek shifts the later wraps, so
    # the jumps' spacing is not the track's length, but the step is still
    # a turn).  So t(k) = c - T_s k + R n(k), n(k) the jumps up to k: one
    # least-squares fit over the whole sweep gives T_s and R, each to a
    # small part of the host's jitter (a median of single steps would
    # carry it whole), and S = R / T_s.
    ts_sec, rot = fit_sawtooth(np.asarray(ks, dtype=float), t, up)
    if rotation:
        # the turn known: the sector time by a slope that outliers cannot
        # tilt (a request the host held up for a long while lands
        # anywhere in the turn, and may hide or fake a jump)
        ts_sec = robust_sector_time(np.asarray(ks, dtype=float), t, rotation)
    if ts_sec <= 0:
        raise IdentifyError("sawtooth: the times do not fall with the offset")
    if not rot == rot or rot <= 0:
        if not rotation:
            raise IdentifyError("sawtooth: no turn in the sweep's fit")
        rot = rotation
    spt = int(round((rotation or rot) / ts_sec))
    if spt < 4 or abs(spt * ts_sec / (rotation or rot) - 1) > 0.02:
        raise IdentifyError(f"sawtooth: the turn ({rot * 1e3:.3f} ms) is not a whole "
                            f"number of sector times ({ts_sec * 1e6:.2f} us)")
    first = int(up[0])
    seg = t[first + 1:first + 1 + spt] if first + 1 + spt <= len(t) else t[:spt]
    base = first + 1 if first + 1 + spt <= len(t) else 0
    i = int(np.argmin(seg)) + base
    k_min = (int(ks[i]) - 1) % spt + 1          # the same angle, within one track
    return Sawtooth(ts_sec, spt, rot, k_min, float(t[i]), [int(ks[j + 1]) for j in up])


def robust_sector_time(k: np.ndarray, t: np.ndarray, rotation: float) -> float:
    """T_s from a sweep whose turn is known: the times unwrapped (each
    moved by whole turns to the line a rough slope draws) and the median
    of the slopes between points at least eight apart (Theil-Sen)."""
    d = np.diff(t)
    small = d[np.abs(d) < 0.25 * rotation]
    if len(small) < 4:
        return -1.0
    rough = -float(np.median(small))
    pred = t[0] - rough * (k - k[0])
    tu = t - rotation * np.round((t - pred) / rotation)
    i, j = np.triu_indices(len(k), 8)
    if len(i) > 200_000:                         # enough pairs: every few
        pick = np.linspace(0, len(i) - 1, 200_000).astype(int)
        i, j = i[pick], j[pick]
    return -float(np.median((tu[j] - tu[i]) / (k[j] - k[i])))


def fit_sawtooth(k: np.ndarray, t: np.ndarray, up: np.ndarray,
                 rounds: int = 3) -> tuple[float, float]:
    """T_s and R from t(k) = c - T_s k + R n(k), where n(k) counts the
    jumps (indices ``up`` into the steps) before k; points that miss the
    fit by more than a quarter turn (a request the host's jitter made
    late past the edge: a whole turn more) are dropped and the fit done
    again."""
    n = np.zeros(len(t))
    for j in up:
        n[j + 1:] += 1
    # a request made late past the edge waits one turn more and the next
    # is back on the line: a step down undoes a step up
    d = np.diff(t)
    height = float(np.percentile(t, 98) - np.percentile(t, 2))
    for j in np.nonzero(d < -0.5 * height)[0]:
        n[j + 1:] -= 1
    keep = np.ones(len(t), dtype=bool)
    ts_sec = rot = float("nan")
    for _ in range(rounds + 1):
        jumps = np.ptp(n[keep]) > 0             # without a jump, R is not in the sweep
        cols = [np.ones(keep.sum()), -k[keep]] + ([n[keep]] if jumps else [])
        sol, *_ = np.linalg.lstsq(np.c_[tuple(cols)], t[keep], rcond=None)
        c, ts_sec = sol[0], sol[1]
        rot = sol[2] if jumps else float("nan")
        res = t - (c - ts_sec * k + (rot * n if jumps else 0))
        # far outside the host's jitter: a request the host delayed
        mad = float(np.median(np.abs(res[keep] - np.median(res[keep]))))
        new = np.abs(res) < max(6 * 1.4826 * mad, 5e-6)
        if new.sum() < 8 or (new == keep).all():
            break
        keep = new
    return float(ts_sec), float(rot)


def refine_rotation(saws: list[Sawtooth]) -> float:
    """One rotation from several sweeps (zones differ in S, not in R)."""
    return float(np.median([s.rotation for s in saws]))


def crossings(flags: list[bool]) -> list[int]:
    """The steps at which a cylinder starts: the last step of each run of
    flagged steps (a probe's window is longer than a track, so a cylinder
    start may flag two steps in a row; the later one has ``a`` on the
    cylinder's first track)."""
    return [j for j, f in enumerate(flags)
            if f and (j + 1 == len(flags) or not flags[j + 1])]


def analyse_heads(flags: list[bool]) -> int:
    """``flags[j]``: the probe at track step j went to another cylinder;
    that happens once per cylinder: the heads are the spacing."""
    idx = crossings(flags)
    # three at least: two stray flags (a request the host held up) give
    # a spacing of their own
    if len(idx) < 3:
        raise IdentifyError("heads: fewer than three cylinder ends seen (the scan was too "
                            "short for this disk's tracks per cylinder)")
    # the period that most steps agree on: a probe the host delayed past
    # its sector (a turn more, on the same cylinder) flags a step of its own
    sp = [int(x) for x in np.diff(idx)]
    h = max(set(sp), key=sp.count)
    if sp.count(h) < max(2, 0.6 * len(sp)) and len(sp) > 1:
        raise IdentifyError(f"heads: cylinder ends at irregular steps {sp}")
    # a cylinder starts every h steps, so none is missing at either end
    # of the scan (two stray flags far apart, from a window that sees no
    # cylinder start at all, would otherwise read as one long cylinder)
    if idx[0] > h + 1 or len(flags) - 1 - idx[-1] > h + 1:
        raise IdentifyError(f"heads: cylinder ends at steps {idx} of {len(flags)}: none "
                            f"in the first or the last {h + 1}")
    return h


def fit_seek(ms: list[float], seeks: list[float]) -> tuple[float, float, float]:
    """Least squares seek(m) = a + b sqrt(m) over m >= 1; returns a, b and
    the largest residual (s)."""
    m = np.asarray(ms, dtype=float)
    s = np.asarray(seeks, dtype=float)
    keep = m >= 1
    if keep.sum() < 3:
        raise IdentifyError("seek: fewer than three distances measured")
    A = np.c_[np.ones(keep.sum()), np.sqrt(m[keep])]
    (a, b), *_ = np.linalg.lstsq(A, s[keep], rcond=None)
    res = float(np.max(np.abs(A @ [a, b] - s[keep])))
    return float(a), float(b), res


def mean_seek(a: float, b: float, cylinders: int) -> float:
    """The mean seek time of uniformly random accesses over C cylinders
    (distance 0 costs nothing): E[a + b sqrt(D); D > 0], D = |X - Y|."""
    c = cylinders
    d = np.arange(1, c)
    w = 2.0 * (c - d) / (c * c)            # P(D = d) for X, Y uniform on 0..C-1
    return float(np.sum(w * (a + b * np.sqrt(d))))


def off_trend(spts: list[int]) -> list[int]:
    """The indexes of sweeps (outermost first) whose S breaks the zones'
    trend: a disk's tracks hold fewer sectors inwards, never more, so an S
    above the one outside it, or below the one inside it, is in doubt."""
    return [i for i, v in enumerate(spts)
            if (i > 0 and v > spts[i - 1]) or (i + 1 < len(spts) and v < spts[i + 1])]


def recheck_zone_points(pts: list, sweep, tries: int = 2) -> list:
    """Sweep again, twice, each point whose S breaks the trend, and keep
    the sweep of the median S of the three: a request the host held up
    tilts one sweep's sector time (seen in a guest beside a loaded host,
    2026-11-29: S of 175 and 186 between sweeps of 181).  A disk whose
    zones do break the trend gives the same S again, at the cost of the
    sweeps."""
    pts = list(pts)
    for i in off_trend([z.spt for _, z in pts]):
        x, z = pts[i]
        alts = [z]
        for _ in range(tries):
            try:
                alts.append(sweep(x))
            except IdentifyError:
                pass
        alts.sort(key=lambda a: a.spt)
        pts[i] = (x, alts[len(alts) // 2])
    return pts


def snap_spts(spts: list[int]) -> dict:
    """S values one apart are one zone's, read with a sector time a
    quarter of a percent off (S = R / T_s rounds either way near S + 1/2):
    each maps to the most frequent value of its run of neighbours.  (Two
    real zones one sector a track apart would be taken for one.)"""
    vals = sorted(set(spts))
    groups: list[list[int]] = []
    for v in vals:
        if groups and v - groups[-1][-1] <= 1:
            groups[-1].append(v)
        else:
            groups.append([v])
    out = {}
    for g in groups:
        best = max(g, key=lambda v: (spts.count(v), -abs(v - float(np.median(g)))))
        out.update({v: best for v in g})
    return out


def zones_from_edges(edges: list[tuple[int, int]], heads: int,
                     sectors: int) -> list[tuple[int, int]]:
    """(first sector, S) of each zone, in order, to a zone table of
    (cylinders, S): a zone's sectors over its cylinder's, rounded."""
    # a "zone" of less than two cylinders is an edge search's stray (a
    # sweep across an edge): its sectors go to the zone before it
    edges = list(edges)
    while len(edges) > 1:
        size = [((edges[i + 1][0] if i + 1 < len(edges) else sectors) - x) / (heads * s)
                for i, (x, s) in enumerate(edges)]
        small = [i for i in range(1, len(edges)) if size[i] < 2]
        if not small:
            break
        del edges[small[0]]
    out = []
    for i, (x, s) in enumerate(edges):
        end = edges[i + 1][0] if i + 1 < len(edges) else sectors
        out.append((max(1, round((end - x) / (heads * s))), s))
    return out


def zones_from_points(points: list[tuple[int, int]], heads: int,
                      sectors: int) -> list[tuple[int, int]]:
    """(first sector, S) at probe points, in order, to a zone table of
    (cylinders, S) covering ``sectors``: a zone ends halfway between two
    points whose S differ."""
    if not points:
        return []
    pts = sorted(points)
    bounds, spts = [0], [pts[0][1]]
    for (x0, s0), (x1, s1) in zip(pts, pts[1:]):
        if s1 != s0:
            bounds.append((x0 + x1) // 2)
            spts.append(s1)
    bounds.append(sectors)
    out = []
    for i, s in enumerate(spts):
        cyl = max(1, round((bounds[i + 1] - bounds[i]) / (heads * s)))
        out.append((cyl, s))
    return out


# -- measuring ----------------------------------------------------------------------------

@dataclass
class Budget:
    seconds: float
    t0: float = field(default_factory=time.monotonic)

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.t0)

    def check(self, what: str) -> None:
        if self.left() <= 0:
            raise IdentifyError(f"the time budget ({self.seconds:g} s) ran out during "
                                f"{what}; give a larger --budget or --quick")


def sweep(dev, a: int, kmax: int) -> tuple[list[int], list[float]]:
    ks = list(range(1, kmax + 1))
    return ks, [pair(dev, a, a - k) for k in ks]


def local_spt(dev, y: int, rotation: float, n: int = 48) -> float:
    """The sectors per track where ``y`` lies, R / T_s, T_s from the slope
    of a short backward sweep (the rotation is the same everywhere)."""
    ks, ts = sweep(dev, y, n)
    t = np.asarray(ts)
    d = np.diff(t)
    up = np.nonzero(d > 0.5 * rotation)[0]
    ts_sec, _ = fit_sawtooth(np.asarray(ks, dtype=float), t, up)
    return rotation / ts_sec if ts_sec > 0 else 0.0


def in_zone(dev, y: int, rotation: float, spt: int) -> bool:
    """Is S at ``y`` the zone's ``spt`` (within 2 %)?  Two short sweeps,
    and a third when they disagree (a request the host delays can tilt
    one)."""
    votes = [abs(local_spt(dev, y - i * 7, rotation) / spt - 1) < 0.02 for i in range(2)]
    if votes[0] != votes[1]:
        votes.append(abs(local_spt(dev, y - 14, rotation) / spt - 1) < 0.02)
    return sum(votes) * 2 > len(votes)


def zone_edges(dev, pts: list[tuple[int, int]], rotation: float, budget: Budget,
               resolution: int = 16) -> list[tuple[int, int]]:
    """Where each zone begins: between two probe points whose S differ, the
    first sector whose S is not the lower point's (a binary search on the
    slope of short sweeps), and again from there if the S found is a
    third zone's.  Returns (first sector, S) per zone, the first at 0."""
    edges = [(0, pts[0][1])] if pts else []
    resolution = max(resolution, 64)    # the sweeps are 48 sectors long
    for (x0, s0), (x1, s1) in zip(pts, pts[1:]):
        lo, cur = x0, s0
        while cur != s1:
            hi = x1
            while hi - lo > resolution:
                budget.check("the zone edges")
                mid = (lo + hi) // 2
                if in_zone(dev, mid, rotation, cur):
                    lo = mid
                else:
                    hi = mid
            edge = hi - resolution // 2     # the sweep looks back from hi
            # what lies past the edge: the upper point's zone, or a third
            # one (a whole sawtooth says, not a short sweep)
            here = s1
            span = 3 * max(cur, s1) + 8            # the sweep, behind its start
            probe = hi + 4 * resolution + span
            if len(edges) < 3 * len(pts) and probe < x1:
                try:
                    z, _, _ = find_sawtooth(dev, probe, budget, kmax0=span,
                                            rotation=rotation, least=False)
                    if abs(z.spt / s1 - 1) >= 0.02 and abs(z.spt / cur - 1) >= 0.02:
                        here = z.spt
                except IdentifyError:
                    pass
            edges.append((edge, here))
            lo, cur = hi + 4 * resolution, here
            if lo >= x1 or here == s1:
                break
    return edges


def find_sawtooth(dev, a: int, budget: Budget, kmax0: int = 256,
                  kmax_limit: int = 8192, rotation: float | None = None,
                  least: bool = True) -> tuple[Sawtooth, list[int], list[float]]:
    """Sweep back from ``a``, longer until two tracks' jumps are seen;
    then the least time from short sweeps at four bases a third of a track
    apart.  A sweep that crosses into the cylinder before (its arm must
    move) has its least time a seek too high; of four bases over three
    tracks, one has a whole track of its own cylinder behind it (with two
    heads or more), and its least time is the true one."""
    kmax = kmax0
    while True:
        budget.check("the rotation sweep")
        ks, ts = sweep(dev, a, min(kmax, a - 1))
        try:
            up = analyse_sawtooth(ks, ts, rotation)
            if len(ks) >= 2 * up.spt + 2:
                break
        except IdentifyError:
            if kmax >= kmax_limit or kmax >= a - 1:
                raise
        kmax *= 2
        if kmax > kmax_limit:
            raise IdentifyError("sawtooth: no two turns within "
                                f"{kmax_limit} sectors")
    s = up.spt
    if not least:
        return up, ks, ts
    cands = [(t, k, a) for k, t in zip(ks[:s], ts[:s])]
    for i in range(1, 4):
        x = a + i * (s + s // 3)
        if x >= dev.sectors:
            break
        budget.check("the rotation sweep")
        cands += [(pair(dev, x, x - k), k, x) for k in range(1, s + 1)]
    # the least of a few, each read three times: a request the host
    # delayed between the two reads waits less than its angle says (the
    # delay is not in its time), and must not be taken for the edge
    best = None
    for _, k, x in sorted(cands)[:6]:
        t = float(np.median([pair(dev, x, x - k) for _ in range(3)]))
        if best is None or t < best[0]:
            best = (t, (k - 1) % s + 1)  # the wait depends on the offset alone
    up.t_min, up.k_min = best
    return up, ks, ts


def _track_scan(dev, a: int, saw: Sawtooth, w: int, budget: Budget, jmax: int,
                need: int) -> tuple[list[bool], list[float]]:
    s = saw.spt
    flags, times = [], []
    thr = saw.t_min + saw.rotation / 2
    for j in range(jmax):
        x = a - j * s
        if x - w < 0:
            break
        if j % 64 == 0:
            budget.check("the heads scan")
        t = pair(dev, x, x - w)
        times.append(t)
        flags.append(t > thr)
        if len(crossings(flags[:-1])) >= need and not flags[-1]:
            break
        if j >= 15 and all(flags):
            break               # every window crosses: see heads_scan
        if j >= 127 and not any(flags):
            break               # no cylinder start in 128 tracks: see heads_scan
    return flags, times


def heads_scan(dev, a: int, saw: Sawtooth, budget: Budget, jmax: int = 4096,
               need: int = 6) -> tuple[int, list[bool], list[float]]:
    """Step ``a`` back a track at a time; at each, the pair (a, a - w) at
    an offset w of least wait (w = k_min modulo S): a turn more when a - w
    lies on another cylinder, whose arm must move first.

    First with w = k_min + S, a window longer than a track, which holds
    the start of a's track and, when a lies less than k_min into its
    track, the start of the track before too: every cylinder start is
    seen at one or two steps in a row, once per H steps.  With two heads
    and two steps a cylinder, every step is flagged; then again with w =
    k_min, shorter than a track, which holds only the start of a's own
    track (a lies less than k_min into it, or the first scan would have
    seen single steps): one step a cylinder, or every step with one head.
    With one head the sweep's offset of least wait may be a seek's, and
    the window then sees no cylinder start at all: a scan stops after 128
    tracks without one (so at most 128 heads are told), and
    ``one_head`` looks again."""
    s = saw.spt
    # not the very offset of least wait, at the edge where a request the
    # host makes a little late waits a whole turn: a few sector times
    # short of it (wait < 250 us, or R/10), still far less than a seek
    j = max(1, math.ceil(min(250e-6, saw.rotation / 10) / saw.sector_time))
    k0 = (saw.k_min - j - 1) % s + 1

    def scan(w: int) -> tuple[list[bool], list[float]]:
        """The scan; when its cylinder ends are irregular (a request the
        host delayed can flag a step, or hide one), twice more over the
        same steps, each step flagged by the majority."""
        flags, times = _track_scan(dev, a, saw, w, budget, jmax, need)
        if not any(flags):
            return flags, times         # nothing to vote on
        try:
            if flags and not all(flags):
                analyse_heads(flags)
            return flags, times
        except IdentifyError:
            pass
        again = [_track_scan(dev, a, saw, w, budget, len(flags), 10**9)[0] for _ in range(2)]
        return [sum(v) >= 2 for v in zip(flags, *again)], times

    flags, times = scan(k0 + s)
    if flags and not all(flags):
        return analyse_heads(flags), flags, times
    flags, times = scan(k0)
    if len(flags) >= 16 and all(flags):
        return 1, flags, times
    return analyse_heads(flags), flags, times


def one_head(dev, x: int, saw: Sawtooth, budget: Budget) -> dict:
    """A disk whose every track is a cylinder of its own (one head): the
    offset of least wait, a track's first sector near ``x``, and the
    evidence.  Raises when the tracks near ``x`` are not each a cylinder.

    With one head, ``b = x - k`` lies on ``x``'s track only for k up to
    x's place p in its track; further back the arm must move a cylinder.
    A sweep from x then mixes two floors (the host's path alone, and that
    path and a one-cylinder seek), so that its least time, the heads
    scan's window and the overhead's jump (which the seek moves by its
    length: a 1.5 ms "overhead" on a disk that has none) all depend on p.
    Here, at each k, the two sectors at b's angle around it, ``x - k``
    and ``x + S - k``, of which exactly one is on x's track: the lesser
    time is the track's own (a seek only ever adds a turn), so k_min is
    the true one.  Then, at an offset w a few sector times short of it
    (a wait of some 250 us, less than any seek), a pair (y, y - w) waits
    a turn more exactly when y lies less than w into its track: a scan
    of y over one track finds where the track begins, and three tracks
    further back show the same (one head: every track a cylinder).
    Forward reads would be served by a read-ahead segment: not on such a
    disk."""
    s, rot, ts_sec = saw.spt, saw.rotation, saw.sector_time
    if getattr(dev, "scrub", False):
        raise IdentifyError("heads: one track per cylinder is not measured on a disk that "
                            "reads ahead (the probe reads forward)")
    # three times at most, each from the offset of least wait on: the
    # offset, w and the threshold come from a few reads, and one the host
    # held up makes every check after it fail the same way (CI of
    # 28144bf, 2026-11-29: the same start and the same checks three times)
    seen: list = []
    for _ in range(3):
        try:
            one = _one_head_try(dev, x, s, rot, ts_sec, budget)
        except IdentifyError as e:
            seen.append(str(e))
            continue
        one["retries"] = seen + one["retries"]
        return one
    if all("no cylinder start" in v for v in seen):
        raise IdentifyError("heads: no cylinder start seen at a one-track window (a disk "
                            "of one head would show one every track)")
    raise IdentifyError("heads: a cylinder start on one track but not on the tracks "
                        f"before it, three times ({'; '.join(seen)}): not a disk of one head")


def _one_head_try(dev, x: int, s: int, rot: float, ts_sec: float, budget: Budget) -> dict:
    """One_head's measurement once: raises when the tracks disagree."""
    budget.check("the heads scan")
    back = {k: pair(dev, x, x - k) for k in range(1, s)}
    fwd = {k: pair(dev, x, x + s - k) for k in range(1, s)}
    least = {k: min(back[k], fwd[k]) for k in back}
    # the least of a few, each read three times (a request the host
    # delayed between the two reads waits less than its angle says)
    best = None
    for k in sorted(least, key=least.get)[:6]:
        t = float(np.median([min(pair(dev, x, x - k), pair(dev, x, x + s - k))
                             for _ in range(3)]))
        if best is None or t < best[0]:
            best = (t, k)
    t_min, k_min = best
    j = max(1, math.ceil(min(250e-6, rot / 10) / ts_sec))
    w = (k_min - j - 1) % s + 1
    # the pair at w waits j sector times more than at k_min (a time read
    # once may be a request the host held up: not the threshold's base)
    thr = t_min + j * ts_sec + rot / 2

    def late(y: int) -> bool:
        """(y, y - w) a turn late: y less than w into its track (the
        majority of three reads)."""
        return sum(pair(dev, y, y - w) > thr for _ in range(3)) >= 2

    # the track's first sector: where, going forward over one track, a
    # pair stops being on time (coarse, then one sector at a time); then
    # three tracks further back must show the same.  A pair the host held
    # up in two reads of three during the search puts the start a few
    # sectors early, and the tracks behind then disagree (seen once in CI,
    # 2026-11-29): the search is made again, three times at most
    step = max(1, min(8, w // 2, (s - w) // 2))
    ys = list(range(x - s - step, x + 1, step))
    seen = []
    for _ in range(2):
        budget.check("the heads scan")
        flags = [late(y) for y in ys]
        start = _first_late(ys, flags, late)
        if start is None:
            seen.append("no cylinder start")
            continue
        # every track a cylinder: three tracks back, the pair from a
        # track's first sector is late, and from the sector before it (the
        # last of the track before) and from w sectors into it on time --
        # which pins the start to the sector (late from the start alone
        # holds for any sector less than w into the track)
        checks = [(late(start - i * s), late(start - i * s - 1), late(start - i * s + w))
                  for i in range(1, 4)]
        if all(first and not before and not into for first, before, into in checks):
            break
        seen.append(f"start {start}, w {w}: {checks}")
    else:
        raise IdentifyError("; ".join(seen))
    return {"k_min": k_min, "t_min": t_min, "w": w, "track_start": start,
            "scan": list(zip(ys, flags)), "checks": checks, "retries": seen}


def _first_late(ys: list[int], flags: list[bool], late) -> int | None:
    """The first ``y`` at which ``late`` turns true going forward (from a
    coarse scan ``flags`` over ``ys``, then halving the step), or None."""
    for i in range(1, len(ys)):
        if flags[i] and not flags[i - 1]:
            lo, hi = ys[i - 1], ys[i]           # lo on time, hi late
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if late(mid):
                    hi = mid
                else:
                    lo = mid
            return hi
    return None


def cylinder_start(a: int, saw: Sawtooth, flags: list[bool], heads: int) -> int:
    """A sector at ``a``'s angle on the first track of a cylinder: the
    last cylinder end in step with the others (a step the host delayed can
    lengthen a run by one)."""
    ends = crossings(flags)
    phases = [j % heads for j in ends]
    phase = max(set(phases), key=phases.count)
    return a - max(j for j in ends if j % heads == phase) * saw.spt


def seek_min(dev, a: int, b0: int, saw: Sawtooth, budget: Budget, step: int = 8,
             wrap: bool = False) -> float:
    """The least time of pairs (a, b0 - k) over one track's angles k,
    found coarse (every ``step``) then fine around the least.  With
    ``wrap`` (b0 the last sector of a track of a one-head disk), the fine
    angles are taken modulo the track, so that b stays on b0's track: a
    sector past it lies a cylinder nearer."""
    s = saw.spt
    coarse = {k: pair(dev, a, b0 - k) for k in range(0, s, step)}
    kbest = min(coarse, key=coarse.get)
    budget.check("the seek curve")
    near = range(kbest - step, kbest + step + 1)
    fine = {k: pair(dev, a, b0 - k) for k in sorted({k % s if wrap else k for k in near})
            if k not in coarse and b0 - k >= 0}
    fine.update(coarse)
    # the three least, each read twice more: a request the host delayed
    # waits less than its angle says, and is not the seek's least
    least = sorted(fine, key=fine.get)[:3]
    return min(float(np.median([fine[k], pair(dev, a, b0 - k), pair(dev, a, b0 - k)]))
               for k in least)


def distances(cylinders: int, count: int) -> list[int]:
    """Seek distances for the curve: 1, 2, 3 and then geometric to C - 1."""
    top = max(2, cylinders - 1)
    ms = {1, 2, 3} | {int(round(x)) for x in np.geomspace(4, top, max(2, count - 3))}
    return sorted(m for m in ms if 1 <= m <= top)


def measure(dev, quick: bool = False, budget_s: float = 600.0, echo=print) -> dict:
    """Every probe on ``dev`` (a Device, or anything with ``read``,
    ``sectors`` and ``flush``); the results as a dict (times in s)."""
    import gc
    # numpy's linear algebra loads its libraries at the first call: before
    # the clock starts (in an emulated guest, reading them from the host
    # can take what looks like minutes of its time)
    np.linalg.lstsq(np.eye(3), np.ones(3), rcond=None)
    was = gc.isenabled()
    gc.disable()            # a collection between the reads of a pair would be in its time
    try:
        return _measure(dev, quick, budget_s, echo)
    finally:
        if was:
            gc.enable()


def _measure(dev, quick: bool, budget_s: float, echo) -> dict:
    budget = Budget(budget_s)
    say = echo

    def echo(msg: str) -> None:                 # noqa: F811  with the time so far
        say(f"{msg} [{budget.seconds - budget.left():.0f} s, "
            f"{getattr(dev, 'reads', 0)} reads]")
    n = dev.sectors
    if n < 4096:
        raise IdentifyError(f"the device has {n} sectors: at least 4096 (2 MiB) are needed "
                            "to see its tracks and cylinders")
    out: dict = {"sectors": n, "quick": quick}

    mid = n // 2
    echo("identify: read-ahead")
    hit, fwd, back = read_ahead(dev, mid)
    out["read_ahead"] = {"forward_t": fwd, "backward_t": back, "present": bool(hit)}
    dev.scrub = hit

    # rotation and the sectors per track in the middle of the device
    echo("identify: rotation (a backward sweep of single-sector reads)")
    saw, ks, ts = find_sawtooth(dev, mid, budget)
    out["sawtooth"] = {"at": mid, "k": ks, "t": ts, "spt": saw.spt,
                       "sector_time": saw.sector_time, "rotation": saw.rotation,
                       "k_min": saw.k_min, "t_min": saw.t_min}

    # zones: the sectors per track across the device
    # points spread over the device and one at each end, where a disk's
    # outermost and innermost zones lie (zones between two points of the
    # same S would need S to change back: the edge search finds the rest)
    npts = 5 if quick else 9
    pts: list[tuple[int, Sawtooth]] = []
    lo_x, hi_x = 8 * saw.spt + 64, n - 8
    xs = sorted({min(hi_x, max(lo_x, int((i + 0.5) * n / npts))) for i in range(npts)}
                | {lo_x, hi_x})
    echo(f"identify: zones ({len(xs)} sweeps across the device)")
    for x in xs:
        try:
            z, _, _ = find_sawtooth(dev, x, budget, kmax0=2 * saw.spt + 8, least=False,
                                    rotation=saw.rotation)
            pts.append((x, z))
        except IdentifyError as e:
            echo(f"identify: zone point at sector {x}: {e}")
    if not pts:
        raise IdentifyError("zones: no sweep across the device showed the rotation")
    pts = recheck_zone_points(pts, lambda x: find_sawtooth(
        dev, x, budget, kmax0=2 * saw.spt + 8, least=False, rotation=saw.rotation)[0])
    # one turn for the whole disk: the median of every sweep's, and each
    # sweep's S again from it and its own sector time
    rot = float(np.median([z.rotation for _, z in pts] + [saw.rotation]))
    for z in [z for _, z in pts] + [saw]:
        z.spt, z.rotation = int(round(rot / z.sector_time)), rot
    snap = snap_spts([z.spt for _, z in pts] + [saw.spt])
    for _, z in pts:
        z.spt = snap[z.spt]
    saw.spt = snap[saw.spt]
    edges = zone_edges(dev, [(x, z.spt) for x, z in pts], rot, budget)
    out["rotation"] = rot

    # tracks per cylinder, and the seek curve, inside the zone with the
    # most sectors (a cylinder's sectors are the same there), from near its
    # end backwards; its sweep's offset of least wait holds all over it
    bounds = [(e[0], edges[i + 1][0] if i + 1 < len(edges) else n, e[1])
              for i, e in enumerate(edges)]
    z_lo, z_hi, s_z = max(bounds, key=lambda b: b[1] - b[0])
    # far enough inside: the edge after it is known to 64 sectors
    xa = z_hi - 2 * s_z - 8 - (512 + (z_hi - z_lo) // 50 if z_hi < n else 0)
    if s_z == saw.spt:
        za = saw
    else:                           # the offset of least wait in this zone
        za, _, _ = find_sawtooth(dev, xa, budget, kmax0=2 * s_z + 8, rotation=rot)
    echo(f"identify: tracks per cylinder (S = {s_z})")
    try:
        heads, fa, htimes = heads_scan(dev, xa, za, budget)
        scan_err = None
    except IdentifyError as e:
        heads, fa, htimes, scan_err = 0, [], [], e
    one = None
    if heads <= 1:
        # one head, or a scan thrown off by it: with one head the sweep's
        # least time may be a seek's, and its window misplaced
        echo("identify: one head? (every track a cylinder of its own)")
        try:
            one = one_head(dev, xa, za, budget)
        except IdentifyError:
            if scan_err:
                raise scan_err from None
            raise
        heads = 1
        za.k_min, za.t_min = one["k_min"], one["t_min"]
    out["heads"] = {"at": xa, "heads": heads, "flags": fa, "t": htimes, "one_head": one}
    zones = zones_from_edges(edges, heads, n)
    cyl_total = sum(c for c, _ in zones)
    out["zones"] = {"points": [{"sector": x, "spt": z.spt, "rotation": z.rotation}
                               for x, z in pts], "edges": edges, "table": zones}

    c0 = cylinder_start(xa, za, fa, heads) if one is None else one["track_start"]
    per_cyl = heads * s_z
    cmax = max(3, (c0 - max(z_lo, s_z)) // per_cyl - 2)     # the edge is known to 64 sectors
    ms = distances(cmax, 6 if quick else 12)
    echo(f"identify: seek curve ({len(ms)} distances, up to {ms[-1]} cylinders, "
         f"S = {s_z})")
    # a on the cylinder's second track: one track's angles behind it stay
    # on the cylinder; with one head, a is its track's last sector and
    # the angles behind it are its own track's
    a = c0 + s_z if heads > 1 else c0 + s_z - 1
    base = (seek_min(dev, a, a - 1, za, budget) if heads > 1 else
            seek_min(dev, a, a, za, budget, wrap=True))
    if heads > 1:
        # and one track on: if the scan put the cylinder's start a track
        # late, a's track is the first and the sweep behind it crossed onto
        # the cylinder before (a seek in its least time); the lower is right
        base2 = seek_min(dev, a + s_z, a + s_z - 1, za, budget)
        if base2 < base:
            a, base = a + s_z, base2
    seeks = []
    for m in ms:
        b0 = a - m * per_cyl
        if b0 - s_z < 0:
            break
        seeks.append(seek_min(dev, a, b0, za, budget, wrap=heads == 1) - base)
    ms = ms[:len(seeks)]
    sa, sb, res = fit_seek(ms, seeks)
    out["seek"] = {"at": a, "spt": s_z, "m": ms, "seek": seeks, "base_t": base, "a": sa,
                   "b": sb, "max_residual": res}

    # command overhead: b queued behind a (the disk starts it the moment a
    # ends: no host in between), its least time less a sector's transfer;
    # beside it, the least time of a pair less the host path of a flush
    echo("identify: command overhead (reads queued two deep)")
    # up to three times: a held-up request can hide the jump or fake one.
    # A pair's least time holds the overhead, a sector's transfer and the
    # host's path: an overhead above it less a sector is such a fake (seen
    # in CI, 2026-11-29: 8.3 ms on a disk of 162 us; and three times 303 us,
    # a pair's least time itself, on a one-head disk of none, as if b had
    # not been queued), measured again -- a cylinder (one head: a track)
    # further back each time, so that a fault of one place is not repeated
    tries: list = []
    for i in range(3):
        ai = a - i * per_cyl
        prime = ai if heads == 1 else None      # ai + 1 would be the next cylinder
        try:
            overhead, k_star, qseen = queued_overhead(dev, ai, za, budget, prime=prime)
        except IdentifyError as e:
            tries.append(str(e))
            continue
        if overhead <= base - za.sector_time:
            break
        tries.append(f"{overhead * 1e6:.0f} us at sector {ai}, not below a pair's least "
                     f"time {base * 1e6:.0f} us less a sector")
    else:
        raise IdentifyError("overhead: three measurements failed or were not below a pair's "
                            f"least time ({'; '.join(tries)})")
    fl = [dev.flush() for _ in range(9)]
    fl = [x for x in fl if x == x]
    host = min(fl) if fl else 0.0
    out["overhead"] = {"k_jump": k_star, "queued_t": qseen, "least_t": base, "host_t": host,
                       "overhead": overhead, "retries": tries,
                       "host_read_path": max(0.0, base - za.sector_time - host - overhead)}

    out["result"] = {
        "mode": "mechanical", "rotation_s": rot, "heads": heads,
        "cylinders": cyl_total, "zones": zones, "seek_a_s": sa, "seek_b_s": sb,
        "overhead_s": overhead, "read_ahead": bool(hit),
        "mean_seek_s": mean_seek(sa, sb, cyl_total),
        "transfer_mbps": [s * SECTOR / rot / 1e6 for _, s in zones],
    }
    out["reads"] = getattr(dev, "reads", None)
    out["budget_left_s"] = budget.left()
    return out


# -- output -------------------------------------------------------------------------------

def _ns(x: float) -> str:
    return f"{int(round(x * 1e9))}ns"


def disk_options(r: dict) -> dict:
    """The result as ssadisk options (a lab spec's [disk] keys)."""
    d: dict = {"mode": "mechanical", "cylinders": r["cylinders"], "heads": r["heads"]}
    if len(r["zones"]) == 1:
        d["sectors_per_track"] = r["zones"][0][1]
    else:
        d["zones"] = " ".join([str(len(r["zones"]))] +
                              [f"{c} {s}" for c, s in r["zones"]])
    d["rotation"] = _ns(r["rotation_s"])
    d["seek_a"] = _ns(max(0.0, r["seek_a_s"]))
    d["seek_b"] = _ns(max(0.0, r["seek_b_s"]))
    d["overhead"] = _ns(r["overhead_s"])
    return d


def table_args(r: dict) -> list[str]:
    out = []
    for k, v in disk_options(r).items():
        out += [k] + str(v).split()
    return out


def summary_line(r: dict) -> str:
    rates = ", ".join(f"{x:.1f}" for x in r["transfer_mbps"])
    return (f"mechanical disk: {60 / r['rotation_s']:.0f} rpm ({r['rotation_s'] * 1e3:.3f} ms), "
            f"{r['cylinders']} cylinders x {r['heads']} heads, {len(r['zones'])} zone(s) at "
            f"{rates} MB/s, seek {r['seek_a_s'] * 1e3:.2f} + {r['seek_b_s'] * 1e3:.3f} "
            f"sqrt(d) ms (mean {r['mean_seek_s'] * 1e3:.2f} ms), overhead "
            f"{r['overhead_s'] * 1e6:.0f} us, read-ahead {'yes' if r['read_ahead'] else 'no'}")


def disk_block(r: dict) -> str:
    """The [disk] block of a lab spec (Documentation/experiments.rst)."""
    lines = ["[disk]"]
    for k, v in disk_options(r).items():
        lines.append(f"{k} = {v}" if isinstance(v, int) else f'{k} = "{v}"')
    return "\n".join(lines)


def run(path: str, quick: bool = False, budget_s: float = 600.0, out_dir: str | None = None,
        echo=print) -> dict:
    """Measure the device at ``path`` and say what it is; with ``out_dir``,
    write results.json and report.md there."""
    import json
    dev = Device(path)
    try:
        out = measure(dev, quick=quick, budget_s=budget_s, echo=echo)
    finally:
        dev.close()
    r = out["result"]
    out.update(device=path, summary=summary_line(r), table_args=table_args(r),
               disk=disk_options(r))
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "results.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, sort_keys=True, default=float)
        with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as f:
            f.write(report_md(path, out))
    return out


def report_md(path: str, out: dict) -> str:
    r = out["result"]
    lines = [f"# ssa identify: {path}", "", summary_line(r), "",
             "ssadisk table arguments (over a backing device of the same size):", "",
             "    " + " ".join(table_args(r)), "",
             "## Evidence", "",
             "| what | measured | how |", "|---|---|---|",
             f"| sectors per track (middle) | {out['sawtooth']['spt']} | a turn (the backward "
             f"sweep's jumps) over the sector time |",
             f"| sector time | {out['sawtooth']['sector_time'] * 1e6:.2f} us | the sweep's slope "
             f"(least squares, the jumps taken out) |",
             f"| rotation | {r['rotation_s'] * 1e3:.4f} ms | S x sector time |",
             f"| heads | {r['heads']} | period of the cylinder ends in the track scan |",
             f"| zones | {r['zones']} | S at {len(out['zones']['points'])} points, the edges "
             f"between them by the slope of short sweeps |",
             f"| seek a, b | {r['seek_a_s'] * 1e3:.3f} ms, {r['seek_b_s'] * 1e3:.4f} ms | fit over "
             f"{len(out['seek']['m'])} distances, worst residual "
             f"{out['seek']['max_residual'] * 1e6:.0f} us |",
             f"| overhead | {r['overhead_s'] * 1e6:.0f} us | a read queued behind another: its "
             f"wait wraps at k = {out['overhead']['k_jump']} sectors back, o = R - (k + 1/2) "
             f"T_s; "
             f"the host's own path: a flush {out['overhead']['host_t'] * 1e6:.0f} us, a read "
             f"{(out['overhead']['host_t'] + out['overhead']['host_read_path']) * 1e6:.0f} us |",
             f"| read-ahead | {'present' if r['read_ahead'] else 'none'} | the next sector at "
             f"once: {np.median(out['read_ahead']['forward_t']) * 1e3:.3f} ms |",
             "", "Seek curve (cylinders: measured, fitted, ms):", "",
             "| m | measured | fit |", "|---|---|---|"]
    for m, s in zip(out["seek"]["m"], out["seek"]["seek"]):
        lines.append(f"| {m} | {s * 1e3:.3f} | {(r['seek_a_s'] + r['seek_b_s'] * math.sqrt(m)) * 1e3:.3f} |")
    lines += ["", f"{out.get('reads')} reads.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None, prog: str = "python3 -m ssa.identify",
         measure_array=None) -> int:
    """python3 -m ssa.identify DEVICE: the same as tools/ssa identify,
    without the rest of the package (numpy only); python3 -m
    ssa.identify_array DEVICE passes its ``measure_array`` and ``--array``
    (this module does not import that one)."""
    import argparse
    import json
    import sys
    p = argparse.ArgumentParser(prog=prog, description="a disk's parameters, or an "
                                "array's geometry (--array), from read times")
    p.add_argument("device")
    if measure_array:
        p.add_argument("--array", action="store_true")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--budget", type=float, default=600.0)
    p.add_argument("--out", default=None)
    p.add_argument("--json", action="store_true")
    p.add_argument("--seed", type=int, help="--array: the random stream of its probes")
    a = p.parse_args(argv)
    a.array = getattr(a, "array", False)
    echo = lambda m: print(m, file=sys.stderr, flush=True)     # noqa: E731
    echo(READ_ONLY.format(device=a.device))
    try:
        if a.array:
            out = measure_array(a.device, quick=a.quick, budget_s=a.budget, seed=a.seed,
                                echo=echo)
            out["device"] = a.device
        else:
            out = run(a.device, quick=a.quick, budget_s=a.budget, out_dir=a.out, echo=echo)
    except IdentifyError as e:
        print(f"identify: {e}", file=sys.stderr)
        return 2
    if a.json:
        json.dump(out, sys.stdout, indent=1, sort_keys=True, default=float)
        print()
    else:
        print(out["summary"])
        if not a.array:
            print(" ".join(out["table_args"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
