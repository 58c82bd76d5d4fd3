"""An event simulation of single-block RAID 5 under the BS policy (seed 002,
sections 3 and 4.2), to check the analytic approximations.

Requests arrive as a Poisson stream and go to a uniformly chosen disk.  A
read is served in X + alpha.  A write's data task (RW queue, low priority)
reads the old block, waits a full rotation and writes: X' + 2 alpha +
R_max.  When it starts service, its parity task joins the P queue (high
priority, non-preemptive, FIFO) of a uniformly chosen other disk; the
parity task reads the old parity (X + alpha), waits a rotation, and writes
once the old data has been read, adding whole rotations until it has
(equation 7 without the seed's cap at one extra rotation).  A write
completes when both tasks have.  The seed's simulation differs only in its
random numbers.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from .disk import Disk


@dataclass(frozen=True)
class SimResult:
    read: float
    write: float
    overall: float
    overall_ci: float           # half-width of a 95 % batch-means interval
    utilization: float          # mean over disks
    requests: int


def sample_x(d: Disk, rng: np.random.Generator, n: int) -> np.ndarray:
    """n samples of X = S + R (seed 002, section 4.1, continuous D)."""
    u = rng.random(n)
    dist = d.cylinders * (1 - np.sqrt(1 - rng.random(n)))       # density 2(C-x)/C^2
    seek = np.where(u < d.p_seq, 0.0, d.seek_a + d.seek_b * np.sqrt(dist))
    return seek + rng.random(n) * d.rmax


def simulate_raid5_bs(d: Disk, disks: int, p_read: float, rate: float,
                      requests: int = 100_000, warmup: int = 5_000,
                      seed: int = 1, batches: int = 20) -> SimResult:
    """Mean read, write and overall response times (seconds) of ``requests``
    requests after ``warmup`` discarded ones."""
    rng = np.random.default_rng(seed)
    total = requests + warmup
    arrivals = np.cumsum(rng.exponential(1 / rate, total))
    target = rng.integers(0, disks, total)
    is_read = rng.random(total) < p_read
    pdisk = (target + 1 + rng.integers(0, disks - 1, total)) % disks
    xs = iter(sample_x(d, rng, 2 * total + 16).tolist())
    a, r = d.alpha, d.rmax

    busy = [False] * disks
    busy_time = [0.0] * disks
    rwq: list[deque] = [deque() for _ in range(disks)]
    pq: list[deque] = [deque() for _ in range(disks)]
    done_at: dict[int, float] = {}          # write id -> completion of its first task
    resp = np.full(total, np.nan)
    events: list = []                       # (time, seq, disk)
    seq = 0

    def start(k: int, now: float) -> None:
        nonlocal seq
        if pq[k]:
            rid, xd, data_start, _ = pq[k].popleft()
            x = next(xs)
            # parity ready to write at now + x + a + r (+ whole rotations);
            # the old data is read at data_start + xd + a
            lag = (data_start + xd + a) - (now + x + a + r)
            extra = max(0, math.ceil(lag / r)) if lag > 0 else 0
            svc = x + 2 * a + r + extra * r
            job = ("p", rid)
        else:
            rid = rwq[k].popleft()
            x = next(xs)
            if is_read[rid]:
                svc = x + a
            else:
                svc = x + 2 * a + r
                pq[pdisk[rid]].append((rid, x, now, None))
                if not busy[pdisk[rid]]:
                    start(pdisk[rid], now)
            job = ("r" if is_read[rid] else "d", rid)
        busy[k] = True
        busy_time[k] += svc
        seq += 1
        heapq.heappush(events, (now + svc, seq, k, job))

    def finish(job, now: float) -> None:
        kind, rid = job
        if kind == "r":
            resp[rid] = now - arrivals[rid]
        elif rid in done_at:
            del done_at[rid]
            resp[rid] = now - arrivals[rid]
        else:
            done_at[rid] = now

    i = 0
    while i < total or events:
        if i < total and (not events or arrivals[i] <= events[0][0]):
            now, k = arrivals[i], target[i]
            rwq[k].append(i)
            i += 1
            if not busy[k]:
                start(k, now)
        else:
            now, _, k, job = heapq.heappop(events)
            busy[k] = False
            finish(job, now)
            if pq[k] or rwq[k]:
                start(k, now)

    keep = slice(warmup, total)
    z, rd = resp[keep], is_read[keep]
    bm = np.array([b.mean() for b in np.array_split(z, batches)])
    half = 2.093 * bm.std(ddof=1) / math.sqrt(batches)     # t(0.975, 19)
    return SimResult(read=float(z[rd].mean()) if rd.any() else math.nan,
                     write=float(z[~rd].mean()) if (~rd).any() else math.nan,
                     overall=float(z.mean()), overall_ci=float(half),
                     utilization=float(np.mean(busy_time) / arrivals[-1]),
                     requests=requests)
