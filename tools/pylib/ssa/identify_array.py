"""ssa identify --array: the geometry of a disk array, from the times of reads.

Given only a block device, deduce whether reads of one block are served
by several copies (a mirror), and whether the device is striped: the
stripe unit (chunk) and the width (the members, or mirror sets, that the
chunks go round).  Reads only, with O_DIRECT; the device is never
written.  Nothing is assumed of the members but that each serves its
requests one at a time, first come first served, and takes a turn of its
platter to read a sector again (a rotating disk without a cache that
keeps what it read: an ``ssadisk``, or a real disk behind md with its
cache off).

Every probe is a *batch* of reads submitted at one instant with Linux's
native AIO (one ``io_submit``, in a chosen order) and the order in which
they complete (one ``io_getevents`` at a time, each completion timed).

* **Copies** (``copies_from_burst``): twelve reads of one sector at once.
  One server reads it once a turn: the completions are spaced by a turn
  D.  K copies serve 12 / K each, in parallel, each a turn apart, and
  keep their order from round to round: in the sorted completion times
  t[i + K] - t[i] = D for every i, and K is the least divisor of twelve
  for which it holds.  Copies whose phases lie 1/j of a turn apart look
  like one server with a round of D / j: the turn itself (the spread of
  single reads that arrive at random phases) tells them apart.
* **Same member** (``same_from_ranks``): ``m`` anchor reads per copy on
  a range known to lie on one member (descending sectors, so that each
  waits about a turn behind the one before), then one probe read.  On
  the anchors' member (or mirror set) the probe waits behind its copy's
  m anchors: it completes after at least m of them.  On another member
  it completes within one service, while each anchor copy completes at
  most two: before the (2K + 1)-th.  With m = 2K + 2 the probe's rank
  among the completions decides, with a round to spare, whatever the
  spindles' phases (two disks turning at the same speed keep their
  phases: a single pair of reads, timed, can look serialized when it is
  not; a queue of four cannot).
* **Chunk**: chunk 0 starts at sector 0.  Gallop: is sector 2L - 1 on
  the member of [0, L)?  L doubles until it is not; then a binary search
  finds the first sector C off chunk 0's member: the chunk.  The next
  chunk is checked to end at 2C (a volume that does not start at a
  chunk's start would show a shorter first chunk).
* **Width**: chunk m against chunk 0, m = 2, 3, ...: the first on the
  same member is the width W (data members, or mirror sets); chunks k
  and k + W, k = 1.., are checked to share a member (raid 0's rotation).

* **Parity** (``parity_from_gaps``): a layout that passes raid 0's member
  check may still be md's raid5 left-symmetric over W members, which puts
  data chunk k on member k mod W (as raid 0 does) but at row k // (W - 1)
  of it: every W-th row of a member holds parity.  Reads never touch the
  parity, but they can see the hole it leaves: two reads queued on one
  member in one batch (a, then b), the second's service starts when the
  first ends, and its time is fixed by the angle from a to b.  The last
  block of chunk j, then the first of chunk j + W: adjacent on the member
  under raid 0 (as the last two blocks of chunk j are), a chunk apart when
  a parity row lies between.  Each transition's time less that of the
  pair inside chunk j is near 0 (adjacent) or near the time of a pair a
  chunk and a block apart (measured on chunks 0 and W, adjacent under both
  layouts); the layout whose predicted holes match the most transitions
  is kept, both counts printed.
* **Read policy** (mirrors): the copies bursts say whether concurrent
  reads of one block spread over the copies; a batch of consecutive
  blocks says whether a sequential run stays on one copy: on one server
  each next block has just passed under the head and takes a turn, so
  the run spans n - 1 turns; spread over c copies it spans (n - 1) / c.

The analysis functions are pure (``copies_from_burst``,
``same_from_ranks``, ``anchors``, ``parity_from_gaps``,
``servers_from_span``); ``measure_array`` drives a device (or a model of
one in the tests: anything with ``sectors``, ``unit`` and ``batch``).
"""

from __future__ import annotations

import ctypes
import math
import os
import platform
import random
import sys
import time
from collections import Counter

from .identify import SECTOR, Budget, Device, IdentifyError

BURST = 12                  # reads of one sector at once, for the copies
MIN_SECTORS = 8192          # 4 MiB


# -- the probe: a batch of reads submitted at once (Linux native AIO) ---------------------

_NR = {"x86_64": (206, 207, 208, 209), "aarch64": (0, 1, 4, 2),
       "riscv64": (0, 1, 4, 2)}          # io_setup, io_destroy, io_getevents, io_submit


class _Iocb(ctypes.Structure):
    _fields_ = [("aio_data", ctypes.c_uint64), ("aio_key", ctypes.c_uint32),
                ("aio_rw_flags", ctypes.c_int32), ("aio_lio_opcode", ctypes.c_uint16),
                ("aio_reqprio", ctypes.c_int16), ("aio_fildes", ctypes.c_uint32),
                ("aio_buf", ctypes.c_uint64), ("aio_nbytes", ctypes.c_uint64),
                ("aio_offset", ctypes.c_int64), ("aio_reserved2", ctypes.c_uint64),
                ("aio_flags", ctypes.c_uint32), ("aio_resfd", ctypes.c_uint32)]


class _Event(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("obj", ctypes.c_uint64),
                ("res", ctypes.c_int64), ("res2", ctypes.c_int64)]


class BatchDevice:
    """A block device (ssa.identify.Device, opened read-only with O_DIRECT)
    that also reads a batch of blocks submitted at one instant.
    ``batch(sectors)`` returns ``[(index, t), ...]`` in the order the
    reads completed, t in seconds from the submission."""

    SLOT = 4096
    MAXN = 320          # 12 copies x 26 anchors + a probe

    def __init__(self, path: str):
        self.dev = Device(path, max_sectors=self.MAXN * self.SLOT // SECTOR)
        self.path, self.sectors, self.unit = path, self.dev.sectors, self.dev.unit
        self.reads = 0
        self.wfd = None             # open_for_writes (ssa.identify_write) only
        nr = _NR.get(platform.machine())
        if nr is None:
            self.dev.close()
            raise IdentifyError(f"array geometry needs Linux native AIO; no syscall numbers "
                                f"for {platform.machine()}")
        self._setup, self._destroy, self._getevents, self._submit = nr
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.ctx = ctypes.c_ulong(0)
        if self.libc.syscall(ctypes.c_long(self._setup), ctypes.c_long(self.MAXN),
                             ctypes.byref(self.ctx)) != 0:
            e = ctypes.get_errno()
            self.dev.close()
            raise IdentifyError(f"io_setup failed: {os.strerror(e)}")
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.dev.buf))
        self.iocbs = (_Iocb * self.MAXN)()
        self.ptrs = (ctypes.POINTER(_Iocb) * self.MAXN)()
        self.events = (_Event * self.MAXN)()

    def open_for_writes(self) -> None:
        """A second descriptor, read-write: only ssa.identify_write
        (--destructive) calls this, after saying so."""
        try:
            self.wfd = os.open(self.path, os.O_RDWR | os.O_DIRECT)
        except OSError as e:
            raise IdentifyError(f"{self.path}: cannot open for direct writes: "
                                f"{e.strerror}") from e

    def slot(self, i: int) -> memoryview:
        """The buffer of batch entry ``i`` (a write's data goes there)."""
        return self.dev.view[i * self.SLOT:(i + 1) * self.SLOT]

    def batch(self, sectors: list[int], writes: dict[int, int] | None = None
              ) -> list[tuple[int, float]]:
        """``writes``: {entry: bytes} that are writes of that many bytes
        from the entry's slot instead of reads of one block (only after
        ``open_for_writes``)."""
        n = len(sectors)
        if n > self.MAXN:
            raise IdentifyError(f"a batch of {n} reads: at most {self.MAXN}")
        writes = writes or {}
        if writes and self.wfd is None:
            raise IdentifyError("a write in a batch of a device opened read-only")
        for i, s in enumerate(sectors):
            size = writes.get(i, self.unit * SECTOR)
            if s < 0 or s * SECTOR + size > self.sectors * SECTOR or size > self.SLOT:
                raise IdentifyError(f"sector {s} is outside the device")
            cb = self.iocbs[i]
            ctypes.memset(ctypes.byref(cb), 0, ctypes.sizeof(cb))
            # IOCB_CMD_PREAD 0, IOCB_CMD_PWRITE 1
            cb.aio_data, cb.aio_lio_opcode = i, 1 if i in writes else 0
            cb.aio_fildes = self.wfd if i in writes else self.dev.fd
            cb.aio_buf = self.base + i * self.SLOT
            cb.aio_nbytes, cb.aio_offset = size, s * SECTOR
            self.ptrs[i] = ctypes.pointer(cb)
        sc = self.libc.syscall
        t0 = time.perf_counter_ns()
        got = sc(ctypes.c_long(self._submit), self.ctx, ctypes.c_long(n), self.ptrs)
        if got != n:
            e = ctypes.get_errno()
            raise IdentifyError(f"{self.path}: io_submit of {n} reads: "
                                f"{os.strerror(e) if got < 0 else f'{got} submitted'}")
        out: list[tuple[int, float]] = []
        while len(out) < n:
            k = sc(ctypes.c_long(self._getevents), self.ctx, ctypes.c_long(1),
                   ctypes.c_long(n - len(out)), self.events, None)
            t = (time.perf_counter_ns() - t0) * 1e-9
            if k < 0:
                e = ctypes.get_errno()
                if e == 4:          # EINTR
                    continue
                raise IdentifyError(f"{self.path}: io_getevents: {os.strerror(e)}")
            for j in range(k):
                ev = self.events[j]
                i = int(ev.data)
                if ev.res != writes.get(i, self.unit * SECTOR):
                    what = "write" if i in writes else "read"
                    raise IdentifyError(f"{self.path}: {what} of sector {sectors[i]} "
                                        f"failed: {os.strerror(-ev.res) if ev.res < 0 else 'short'}"
                                        "; a device that returns errors cannot be measured"
                                        + ("" if writes else " (nothing was written)"))
                out.append((i, t))
        self.reads += n
        return out

    def close(self) -> None:
        self.libc.syscall(ctypes.c_long(self._destroy), self.ctx)
        if self.wfd is not None:
            os.close(self.wfd)
            self.wfd = None
        self.dev.close()


# -- analysis (pure) ----------------------------------------------------------------------

def copies_from_burst(times: list[float], q: int = BURST) -> tuple[int, float]:
    """``q`` reads of one sector at once completed at ``times``: how many
    servers shared them (the copies K) and the round D (a turn).  Each
    copy completes its reads a round apart, and the copies keep their
    order from round to round (their spindles' phases are fixed), so in
    the sorted times t[i + K] - t[i] = D for every i; for fewer than K
    the steps alternate.  K is the least divisor of q whose steps agree
    (three in four within 3 % + 100 us of their median)."""
    t = sorted(times)
    if len(t) != q or q < 4:
        raise IdentifyError("copies: too few completions")
    for k in [k for k in range(1, q // 2 + 1) if q % k == 0]:
        steps = sorted(t[i + k] - t[i] for i in range(q - k))
        d = steps[len(steps) // 2]
        tol = 0.03 * d + 100e-6
        if d < 8 * tol:
            continue
        if sum(1 for x in steps if abs(x - d) <= tol) >= 0.75 * len(steps):
            return k, d
    raise IdentifyError("copies: the burst's completions do not come in rounds (not a "
                        "server that reads a sector once a turn)")


def same_from_ranks(order: list[int], probe: int, m: int) -> bool:
    """``order``: the read indices in completion order; ``probe`` the
    probe's index.  The probe shares the anchors' member iff it waited
    behind m anchors: its rank (1-based) is above m."""
    return order.index(probe) + 1 > m


def anchors(lo: int, hi: int, count: int, unit: int, rng: random.Random) -> list[int]:
    """``count`` anchor sectors in [lo, hi), descending (each read after
    the one before it waits about a turn), distinct when the range holds
    them two blocks apart, else one apart, else repeated."""
    nb = max(1, (hi - lo) // unit)
    step = 2 if nb >= 2 * count else 1
    span = step * (count - 1) + 1
    if nb >= span:
        top = rng.randrange(span - 1, nb)
        return [lo + (top - step * i) * unit for i in range(count)]
    return [lo + ((nb - 1 - i) % nb) * unit for i in range(count)]


def circ(x: float, turn: float) -> float:
    """``x`` folded into [-turn / 2, turn / 2): two waits that differ by a
    whole turn (a request just missed its sector) are the same angle."""
    return (x + turn / 2) % turn - turn / 2


def raid5_hole(j: int, width: int) -> bool:
    """md raid5 left-symmetric over ``width`` members: does a parity row
    lie between data chunk j and chunk j + width on their member?  Chunk k
    sits at row k // (width - 1) of member k mod width."""
    return (j + width) // (width - 1) - j // (width - 1) == 2


def parity_from_gaps(diffs: list[float], d_gap: float, width: int, turn: float,
                     first: int = 0, noise: float = 0.0) -> dict:
    """``diffs[i]``: transition j = first + i's time (last block of chunk
    j, then the first of chunk j + W, queued) less that of the pair inside
    chunk j; ``d_gap``: the same for a pair a chunk and a block apart.
    Each transition is called a hole when nearer d_gap than 0; the layouts
    raid 0 (no holes) and raid5 left-symmetric (holes where a parity row
    lies between) are scored by how many calls they predict.  Undecided
    when d_gap is within four times the ``noise`` (the spread of the
    adjacent pairs' times), 40 us or half a percent of a turn of 0: a
    chunk that is a whole number of tracks, to within the jitter."""
    tol = max(4 * noise, 40e-6, 0.005 * turn)
    calls = [abs(circ(d - d_gap, turn)) < abs(circ(d, turn)) for d in diffs]
    js = list(range(first, first + len(diffs)))
    pred = {"raid0": [False] * len(js), "raid5-left-symmetric": [raid5_hole(j, width) for j in js]}
    score = {k: sum(a == b for a, b in zip(calls, v)) for k, v in pred.items()}
    rows = [{"j": j, "diff_s": d, "hole": c, "raid0": False, "raid5": h}
            for j, d, c, h in zip(js, diffs, calls, pred["raid5-left-symmetric"])]
    if abs(circ(d_gap, turn)) < tol:
        return {"layout": None, "tolerance_s": tol, "score": score, "n": len(js), "rows": rows, "d_gap_s": d_gap,
                "why": "a chunk and a block apart reads like adjacent blocks (the chunk is "
                       "a whole number of tracks?): reads cannot see a parity row"}
    best = max(score, key=score.get)
    if score["raid0"] == score["raid5-left-symmetric"]:
        best = None
    return {"layout": best, "score": score, "n": len(js), "rows": rows, "d_gap_s": d_gap,
            "tolerance_s": tol}


def servers_from_span(times: list[float], turn: float) -> float:
    """A batch of n consecutive blocks: on one server each waits about a
    turn behind the one before (the next block has just passed), so the
    completions span n - 1 turns; spread over c servers, (n - 1) / c."""
    t = sorted(times)
    span = t[-1] - t[0]
    return (len(t) - 1) * turn / span if span > 0 else float("inf")


# -- measuring ----------------------------------------------------------------------------

class Probe:
    """The decisions measure_array makes, each from several batches; the
    evidence of each kept."""

    def __init__(self, dev, copies: int, reps: int, budget: Budget, rng: random.Random):
        self.dev, self.k, self.reps, self.budget, self.rng = dev, copies, reps, budget, rng
        self.m = 2 * copies + 2
        self.evidence: list[dict] = []

    def same(self, a_lo: int, a_hi: int, b_lo: int, b_hi: int, what: str) -> bool:
        """Is [b_lo, b_hi) (a probe sector drawn from it) on the member of
        [a_lo, a_hi) (known to be one member's)?  ``reps`` batches that
        agree, else up to 2 reps + 3 more and the majority."""
        u = self.dev.unit
        votes, ranks = [], []
        limit = self.reps
        while len(votes) < limit:
            self.budget.check(what)
            an = anchors(a_lo, a_hi, self.m, u, self.rng)
            # each copy takes every K-th anchor: repeat each sector K times in turn
            sec = [s for s in an for _ in range(self.k)]
            nb = max(1, (b_hi - b_lo) // u)
            sec.append(b_lo + self.rng.randrange(nb) * u)
            done = self.dev.batch(sec)
            order = [i for i, _ in done]
            probe = len(sec) - 1
            ranks.append(order.index(probe) + 1)
            votes.append(same_from_ranks(order, probe, self.m))
            if len(votes) == self.reps and len(set(votes)) > 1:
                limit = self.reps + 2 * self.reps + 1
        c = Counter(votes)
        verdict = c[True] > c[False]
        self.evidence.append({"what": what, "anchors": [a_lo, a_hi], "probe": [b_lo, b_hi],
                              "ranks": ranks, "threshold": self.m + 1, "same": verdict,
                              "agree": max(c.values()) / len(votes)})
        return verdict


def measure_copies(dev, places: int, budget: Budget, rng: random.Random) -> tuple[int, dict]:
    """Bursts of BURST reads of one sector at ``places`` random sectors:
    the copies K (the most frequent answer) and the round D."""
    ks, ds, spans = [], [], []
    u = dev.unit
    for _ in range(places):
        budget.check("the copies bursts")
        s = rng.randrange(dev.sectors // u) * u
        dev.batch([s] * BURST)          # every copy's arm to the sector's cylinder
        done = dev.batch([s] * BURST)
        t = [x for _, x in done]
        try:
            k, d = copies_from_burst(t)
        except IdentifyError:
            continue
        ks.append(k)
        ds.append(d)
        spans.append(max(t) - min(t))
    if not ks:
        raise IdentifyError("copies: no burst of reads of one sector came back in rounds "
                            "(not a rotating disk, or a cache serves repeated reads)")
    c = Counter(ks)
    k = c.most_common(1)[0][0]
    d = sorted(ds)[len(ds) // 2]
    # K copies whose phases lie 1/j of a turn apart complete a burst as
    # one server with a round of D / j would: the turn itself, from the
    # spread of single reads that arrive at random phases, says which
    turn = measure_turn(dev, 16 if places <= 3 else 24, budget, rng)
    j = max(1, round(turn / d)) if turn > 1.35 * d else 1
    if j > 1 and BURST % (k * j) == 0:
        k *= j
        ds = [x * j for x in ds]        # each copy's own round is j of the bursts'
    else:
        j = 1
    return k, {"burst": BURST, "copies_each": ks, "round_s": ds, "span_s": spans,
               "turn_s": turn, "copies": k, "agree": c[k // j] / len(ks)}


def idle(dev, seconds: float) -> None:
    if hasattr(dev, "idle"):
        dev.idle(seconds)
    else:
        time.sleep(seconds)


def measure_turn(dev, n: int, budget: Budget, rng: random.Random) -> float:
    """The turn, from the spread of ``n`` single reads of one sector,
    each after a random pause of up to 25 ms (so that it arrives at a
    random phase of the spindle): the spread of n uniform waits is a
    turn times (n - 1) / (n + 1)."""
    u = dev.unit
    s = rng.randrange(dev.sectors // u) * u
    dev.batch([s] * BURST)          # every copy's arm to its cylinder first
    ts = []
    for _ in range(n):
        budget.check("the turn")
        idle(dev, rng.uniform(0, 0.025))
        ts.append(dev.batch([s])[0][1])
    return (max(ts) - min(ts)) * (n + 1) / (n - 1)


def chunk_end(pr: Probe, start: int, limit: int, lo0: int) -> int | None:
    """The first sector after ``start`` off the member of [start, start +
    lo0): gallop, then binary search.  None: none before ``limit``."""
    lo = lo0
    while True:
        hi = 2 * lo
        if start + hi > limit:
            return None
        if pr.same(start, start + lo, start + hi - pr.dev.unit, start + hi,
                   f"gallop: sector {start + hi - 1} on the member of [{start}, {start + lo})"):
            lo = hi
        else:
            break
    # [start, start + lo) is on the member, sector start + top - u is not:
    # the first sector off it is at an offset in [lo, top - u]
    top = hi
    u = pr.dev.unit
    while top - u > lo:
        mid = lo + ((top - u - lo) // u // 2) * u
        if pr.same(start, start + lo, start + mid, start + mid + u,
                   f"edge: sector {start + mid} on the member of [{start}, {start + lo})"):
            lo = mid + u
        else:
            top = mid + u
    return start + lo


def queued_gap(dev, a: int, b: int, reps: int, budget: Budget, what: str) -> float:
    """Reads of ``a`` and ``b`` in one batch (queued on one member, a
    first): the median time from a's completion to b's, over ``reps``
    batches in which they completed in that order (nan if none did)."""
    vals = []
    for _ in range(reps):
        budget.check(what)
        done = dev.batch([a, b])
        if [i for i, _ in done] == [0, 1]:
            vals.append(done[1][1] - done[0][1])
    return float(sorted(vals)[len(vals) // 2]) if vals else math.nan


def measure_parity(dev, chunk: int, width: int, turn: float, quick: bool,
                   budget: Budget) -> dict:
    """The parity test (``parity_from_gaps``) on transitions j -> j + W,
    j = 0 .. W (W - 1) - 1 (one whole turn of the parity's rotation; at
    most 24), within the device."""
    u = dev.unit
    reps = 3
    what = "the parity test"
    g1 = queued_gap(dev, chunk - 2 * u, chunk - u, reps, budget, what)
    gc = queued_gap(dev, 0, width * chunk + u, reps, budget, what)
    d_gap = gc - g1
    diffs, inside, across = [], [], []
    n = min(width * (width - 1), 24)
    for j in range(n):
        end = (j + 1) * chunk
        if (j + width + 1) * chunk > dev.sectors:
            break
        gi = queued_gap(dev, end - 2 * u, end - u, reps, budget, what)
        gb = queued_gap(dev, end - u, (j + width) * chunk, reps, budget, what)
        inside.append(gi)
        across.append(gb)
        diffs.append(gb - gi if gb == gb and gi == gi else 0.0)
    ok = [g for g in inside if g == g]
    mid = sorted(ok)[len(ok) // 2] if ok else 0.0
    dev_ = sorted(abs(circ(g - mid, turn)) for g in ok)
    noise = dev_[len(dev_) // 2] if dev_ else 0.0
    out = parity_from_gaps(diffs, d_gap, width, turn, noise=noise)
    out["noise_s"] = noise
    out.update(g_adjacent_s=g1, g_chunk_apart_s=gc, inside_s=inside, across_s=across)
    return out


def parity_table(par: dict) -> list[str]:
    """The parity test's evidence, one line a transition."""
    lines = [f"identify: parity: a pair a chunk and a block apart reads "
             f"{par['d_gap_s'] * 1e3:+.3f} ms from an adjacent pair",
             "identify:   j -> j+W   across - inside   call    raid0  raid5-ls"]
    for r in par["rows"]:
        lines.append(f"identify:  {r['j']:2d}           {r['diff_s'] * 1e3:+8.3f} ms   "
                     f"{'hole' if r['hole'] else 'adj.':6s}  {'adj.':5s}  "
                     f"{'hole' if r['raid5'] else 'adj.'}")
    sc = par["score"]
    lines.append(f"identify: parity: raid0 explains {sc['raid0']} of {par['n']}, raid5 "
                 f"left-symmetric {sc['raid5-left-symmetric']} of {par['n']}: "
                 f"{par['layout'] or 'undecided'}")
    return lines


def measure_policy(dev, copies: int, turn: float, quick: bool, budget: Budget,
                   rng: random.Random) -> dict:
    """How a mirror spreads a sequential run: batches of BURST consecutive
    blocks at random places, the copies each used (``servers_from_span``,
    the median, at most ``copies``)."""
    u = dev.unit
    est = []
    for _ in range(3 if quick else 5):
        budget.check("the read policy")
        s = rng.randrange(dev.sectors // u - BURST) * u
        done = dev.batch([s + i * u for i in range(BURST)])
        est.append(servers_from_span([t for _, t in done], turn))
    med = sorted(est)[len(est) // 2]
    # a batch that completed all at once (merged on its way, or answered
    # from a cache) spans nothing: as many copies as there are, not a crash
    seq = copies if not math.isfinite(med) else min(copies, max(1, round(med)))
    return {"sequential_estimates": [e if math.isfinite(e) else None for e in est],
            "sequential_copies": seq}


def sequential_line(pol: dict, burst_copies: int) -> str:
    """The read-policy probe's progress line (a batch that completed all
    at once has no estimate: "at once")."""
    est = ", ".join("at once" if x is None else f"{x:.2f}"
                    for x in pol["sequential_estimates"])
    return (f"identify: a sequential run of {BURST} blocks: {est} copies busy (n - 1 "
            f"turns over its span); bursts of one block: {burst_copies}")


def policy_words(burst_copies: int, seq_copies: int, copies: int) -> str:
    one = ("concurrent reads of one block go to every copy (the copy with the fewest "
           "outstanding, or in turn)" if burst_copies == copies else
           "concurrent reads of one block stay on one copy")
    run = ("a sequential run stays on one copy" if seq_copies == 1 else
           f"a sequential run is spread over {seq_copies} copies")
    return f"{one}; {run}"


def measure_array(dev_path, quick: bool = False, budget_s: float = 600.0, echo=print,
                  seed: int | None = None, max_width: int = 64) -> dict:
    """Measure the device at ``dev_path`` (a path, or an object with
    ``sectors``, ``unit`` and ``batch``) and deduce its geometry."""
    own = isinstance(dev_path, str)
    dev = BatchDevice(dev_path) if own else dev_path
    try:
        return _measure(dev, quick, budget_s, echo, seed, max_width)
    finally:
        if own:
            dev.close()


def _measure(dev, quick, budget_s, echo, seed, max_width) -> dict:
    budget = Budget(budget_s)
    n, u = dev.sectors, dev.unit
    if n < MIN_SECTORS:
        raise IdentifyError(f"the device has {n} sectors: at least {MIN_SECTORS} (4 MiB) "
                            "are needed to see its chunks and members")
    rng = random.Random(seed if seed is not None else time.time_ns())
    out: dict = {"sectors": n, "unit_sectors": u, "quick": quick}
    t0 = time.monotonic()

    echo(f"identify: copies ({3 if quick else 5} bursts of {BURST} reads of one sector)")
    k, ev = measure_copies(dev, 3 if quick else 5, budget, rng)
    out["copies"] = ev
    pr = Probe(dev, k, 2 if quick else 3, budget, rng)
    out["anchors_per_copy"] = pr.m

    # the chunk: gallop from 2 blocks to at most a quarter of the device
    limit = min(n // 4, 1 << 16) if not quick else min(n // 4, 1 << 14)
    echo(f"identify: chunk (gallop and binary search from sector 0, copies {k})")
    e1 = chunk_end(pr, 0, limit, 2 * u)
    chunk = width = None
    checks: list[dict] = []
    if e1 is not None:
        # the second chunk [e1, e1 + C) should end where the first's size says
        e2 = None
        if (pr.same(e1, e1 + max(u, e1 // 2), 2 * e1 - u, 2 * e1,
                    f"chunk 1 holds sector {2 * e1 - 1}")
                and not pr.same(e1, 2 * e1, 2 * e1, 2 * e1 + u,
                                f"chunk 1 ends before sector {2 * e1}")):
            e2 = 2 * e1
        else:
            e2 = chunk_end(pr, e1, limit + e1, max(u, 2 * u))
        if e2 is None:
            raise IdentifyError(f"chunk: the first chunk ends at sector {e1}, the second "
                                f"not before {limit + e1}")
        chunk = e2 - e1
        if chunk != e1:
            checks.append({"check": "the volume starts at a chunk's start", "ok": False,
                           "first_chunk": e1, "second_chunk": chunk})
        echo(f"identify: width (chunk m against chunk 0, chunk {chunk} sectors)")
        a_lo, a_hi = (0, e1)                # chunk 0 (or what of it the volume holds)
        for m in range(2, max_width + 1):
            s = e1 + (m - 1) * chunk
            if s + chunk > n:
                break
            if pr.same(a_lo, a_hi, s, s + chunk, f"chunk {m} on chunk 0's member"):
                width = m
                break
        if width is None:
            raise IdentifyError(f"width: no chunk up to {max_width} (or the device's end) "
                                "shares chunk 0's member (a mirror that sends a read to an "
                                "idle copy looks so: md raid1/raid10 over members that say "
                                "they are rotational)")
        # raid 0's rotation: chunk j and chunk j + W share a member
        for j in range(1, min(width, 4)):
            s = e1 + (j - 1) * chunk
            t = s + width * chunk
            if t + chunk > n:
                break
            ok = pr.same(s, s + chunk, t, t + chunk, f"chunk {j + width} on chunk {j}'s member")
            checks.append({"check": f"chunks {j} and {j + width} share a member", "ok": ok})
    else:
        width = 1

    mirrored = k >= 2
    if width == 1:
        layout = "mirror" if mirrored else "single"
    else:
        layout = "mirror" if mirrored else "stripe"
    rotating = any(not c["ok"] for c in checks if "share" in c["check"])
    if rotating:
        layout = "rotating"         # not raid 0's order (a parity rotation?)
    members = width * k
    data = width
    parity_name = None
    turn = sorted(ev["round_s"])[len(ev["round_s"]) // 2]     # each copy's round: a turn
    if layout == "stripe" and width >= 3 and chunk == e1:
        echo(f"identify: parity (the hole a parity row leaves: queued pairs across "
             f"chunks j and j + {width})")
        par = measure_parity(dev, chunk, width, turn, quick, budget)
        out["parity"] = par
        for line in parity_table(par):
            echo(line)
        if par["layout"] == "raid5-left-symmetric":
            layout, parity_name, data = "raid5", "left-symmetric", width - 1
        elif par["layout"] is None:
            checks.append({"check": "raid 0 or raid 5 (parity test)", "ok": False,
                           "why": par.get("why", "the two layouts scored the same")})
    policy = None
    if mirrored:
        echo("identify: read policy (batches of consecutive blocks)")
        pol = measure_policy(dev, k, turn, quick, budget, rng)
        pol["burst_copies"] = k
        pol["words"] = policy_words(k, pol["sequential_copies"], k)
        out["read_policy"] = pol
        echo(sequential_line(pol, k))
        policy = pol["words"]
    ev_all = pr.evidence
    agree = min([e["agree"] for e in ev_all] + [ev["agree"]])
    confidence = "high" if agree == 1.0 and all(c["ok"] for c in checks) else (
        "medium" if agree >= 0.6 else "low")
    if "parity" in out and out["parity"]["layout"]:
        sc = out["parity"]["score"]
        if max(sc.values()) < out["parity"]["n"]:       # a call neither layout explains
            confidence = "medium" if confidence == "high" else confidence
    out["decisions"] = ev_all
    out["checks"] = checks
    out["result"] = {
        "layout": layout, "mirrored": mirrored, "copies": k,
        "chunk_sectors": chunk, "chunk_bytes": chunk * SECTOR if chunk else None,
        "width": data, "members": members, "parity": parity_name, "read_policy": policy,
        "round_s": sorted(ev["round_s"])[len(ev["round_s"]) // 2], "turn_s": ev["turn_s"],
        "confidence": confidence, "agreement": agree,
    }
    out["reads"] = getattr(dev, "reads", None)
    out["elapsed_s"] = time.monotonic() - t0
    out["summary"] = summary_line(out["result"])
    return out


def summary_line(r: dict) -> str:
    if r["layout"] == "single":
        what = "one server (no striping up to the largest chunk tried, no copies)"
    else:
        chunk = (f"chunk {r['chunk_sectors']} sectors ({r['chunk_bytes'] // 1024} KiB), "
                 if r["chunk_sectors"] else "")
        if r["mirrored"]:
            what = (f"mirror: {r['copies']} copies, {chunk}{r['width']} set(s), "
                    f"{r['members']} members")
            if r.get("read_policy"):
                what += f"; reads: {r['read_policy']}"
        elif r["layout"] == "raid5":
            what = (f"raid5 ({r['parity']}, parity rotating): {chunk}{r['members']} members, "
                    f"{r['width']} data chunks a stripe")
        else:
            what = f"{r['layout']}: {chunk}width {r['width']}"
    return (f"array: {what}; a turn {r['round_s'] * 1e3:.3f} ms; confidence "
            f"{r['confidence']}")


def main(argv=None) -> int:
    """python3 -m ssa.identify_array DEVICE: ssa.identify's --array."""
    from .identify import main as identify_main
    return identify_main(["--array"] + list(sys.argv[1:] if argv is None else argv),
                         prog="python3 -m ssa.identify_array", measure_array=measure_array)


if __name__ == "__main__":
    sys.exit(main())
