"""The real disk-array model of seed 001 (Varki, Merchant, Xu and Qiu):
a closed network of M synchronous I/O streams, each thinking for CPU_delay
and then issuing one request to the array cache and, on a miss, to the
disks in parallel (fork-join).

Implemented, with the seed's section numbers:

* positioning time as a function of the disk queue: random (1) and
  sequential (2) workloads;
* parallel overhead: the mean of the largest of the request's disk
  positioning times minus the mean positioning time, positioning times
  modelled as beta variables on [0, full rotation + max read seek] (5.2);
* disk access probability (3) and the four combinations of access
  coalescing and mirror load balancing (6.2);
* options for a volume of emulated disks (``overhead``, ``pair_queue``,
  ``min_disk_queue``, ``uncoalesced``; ``fit_positioning``): the parallel
  overhead of rotations alone, a mirrored pair as a two-server station
  under queue-length reducing balance, positioning at a queue of at least
  one, a request's uncoalesced I/Os on a disk served in one pass of its
  track, and the positioning laws, random (1) and sequential (2), fitted
  on a LOOK disk of given geometry the way section 5.1 fitted the Cheetah;
* ``member_latency``: a fixed time added to every disk I/O, for members
  reached over a network (NVMe-oF, a SAN);
* ``destage_queue`` and ``cache_overhead``, for a cache whose destager
  keeps its own number of writes in flight and whose path costs time of
  its own (an ssacache on an emulated CPU): the disk queue the destage
  service time is taken at, and a time (``cache_overhead``, plus the
  request's bytes over ``cache_copy_rate``) added to every request's
  cache service;
* the parallel MVA for reads (A.1), the approximate disk queue for
  CPU_delay > 0 (A.3), the write-back cache as an M/M/1/K chain (4.2, A.2)
  and large writes sent directly to the disks (6.4).

The seed leaves some parameters to a technical report that is not part of
it; the choices made here are listed in Documentation/models.rst and in
the docstrings (``beta_concentration``, the write seek penalty, the
destage queue, the cache thresholds).

Units: seconds, bytes, bytes per second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

MB = 10**6
KB = 1024


@dataclass(frozen=True)
class ArrayConfig:
    """Table 1 of seed 001 (the FC-60 LUN of Cheetah 73 disks) plus the
    constants of section 5.1 and the policies of section 6.2."""
    disks: int = 6                       # stripe_width: disks in the LUN
    stripe_unit: int = 16 * KB
    mirrored: bool = True                # RAID 1/0 (pairs) or plain striping
    pos_a: float = 3.53e-3               # (1): a
    pos_b: float = 8.81e-3               # (1): b
    seq_c: float = -2.73e-3              # (2): c
    seq_d: float = 3.68e-3               # (2): d per queued request
    rotation: float = 60 / 10000         # 10000 rpm
    max_read_seek: float = 14.2e-3
    read_seek: float = 6.05e-3
    write_seek: float = 6.55e-3
    disk_rate: float = 31 * MB
    cache_rate: float = 62 * MB
    coalescing: bool = True
    balance: str = "transfer"            # 'transfer' or 'queue' (6.2)
    beta_concentration: float = 4.0      # alpha + beta of the positioning law
    cache_hit: float = 0.0
    destage_threshold: int = 768         # dirty blocks (stripe units)
    max_dirty_blocks: int = 1024
    # options (the seed's model is the default): see Documentation/models.rst
    overhead: str = "beta"               # 'beta' (5.2) or 'rotation'
    pair_queue: str = "random"           # 'random' (A.1 visit ratios) or 'shortest'
    min_disk_queue: float = 0.0          # positioning at a queue of at least this
    uncoalesced: str = "random"          # 'random' (one positioning an I/O) or 'track'
    member_latency: float = 0.0          # fixed time added to every disk I/O (a network)
    destage_queue: float = 0.0           # disk queue of the destages; 0: the clients' (5.5)
    destage: str = "unit"                # 'unit' (5.5) or 'request': a request's units in one run
    cache_overhead: float = 0.0          # time added to each request's cache service
    cache_copy_rate: float = math.inf    # bytes/s of the cache path's own copy, added too

    def __post_init__(self):
        if self.disks < 1 or (self.mirrored and self.disks % 2):
            raise ValueError("a mirrored array needs an even number of disks")
        if self.balance not in ("transfer", "queue"):
            raise ValueError("balance must be 'transfer' or 'queue'")
        if not 0 <= self.cache_hit < 1:
            raise ValueError("cache_hit must be in [0, 1)")
        if not 0 <= self.destage_threshold < self.max_dirty_blocks:
            raise ValueError("need 0 <= destage_threshold < max_dirty_blocks")
        if self.beta_concentration <= 0:
            raise ValueError("beta_concentration must be positive")
        if self.overhead not in ("beta", "rotation"):
            raise ValueError("overhead must be 'beta' or 'rotation'")
        if self.pair_queue not in ("random", "shortest"):
            raise ValueError("pair_queue must be 'random' or 'shortest'")
        if self.min_disk_queue < 0:
            raise ValueError("min_disk_queue must not be negative")
        if self.uncoalesced not in ("random", "track"):
            raise ValueError("uncoalesced must be 'random' or 'track'")
        if self.member_latency < 0:
            raise ValueError("member_latency must not be negative")
        if self.destage not in ("unit", "request"):
            raise ValueError("destage must be 'unit' or 'request'")
        if self.destage_queue < 0 or self.cache_overhead < 0:
            raise ValueError("destage_queue and cache_overhead must not be negative")
        if not self.cache_copy_rate > 0:
            raise ValueError("cache_copy_rate must be positive")


# -- disk positioning and service time (section 5.1) --------------------------

def position_time(cfg: ArrayConfig, queue: float, sequential: bool = False) -> float:
    """Mean positioning time at a disk with ``queue`` requests: (1)
    a + b / sqrt(1 + queue) for random streams; (2) c + d * queue for
    sequential streams while queue <= 3 (clamped at zero: the seed's line
    is negative below about 0.74 requests)."""
    if queue < 0:
        raise ValueError("queue must not be negative")
    if sequential and queue <= 3:
        return max(0.0, cfg.seq_c + cfg.seq_d * queue)
    return cfg.pos_a + cfg.pos_b / math.sqrt(1 + queue)


@dataclass(frozen=True)
class Split:
    """How one request reaches the disks (sections 5.3 and 6.2)."""
    disks_used: float        # k: disks a request touches
    ios_per_disk: float      # v: disk I/Os each of them serves
    io_bytes: float          # bytes per disk I/O
    extra: float = 0.0       # time a disk's visit spends between its I/Os, s

    @property
    def disk_ios(self) -> float:
        """num_diskIOs_per_request."""
        return self.disks_used * self.ios_per_disk


def split(cfg: ArrayConfig, request_bytes: float) -> Split:
    """Disk I/Os of a request of ``request_bytes``, aligned to the stripe unit.

    n = ceil(size / stripe unit) units.  One copy per unit (queue-length
    reducing balance, or no mirror): the units land on min(n, P) disks, P
    the number of data positions in a row.  Transfer-time reducing balance:
    the units are dealt over disks and mirrors, min(n, W) disks.  With
    coalescing each disk serves one I/O of all its units; without, one I/O
    per unit.  For n >= W this is the seed's num_diskIOs = stripe_width
    (transfer) or stripe_width / 2 (queue).

    With ``uncoalesced = 'track'`` a disk's uncoalesced I/Os of a request
    are one visit instead of v (``track_pass``).
    """
    if request_bytes <= 0:
        raise ValueError("request size must be positive")
    n = math.ceil(request_bytes / cfg.stripe_unit)
    rows = cfg.disks // 2 if cfg.mirrored else cfg.disks
    width = cfg.disks if (cfg.mirrored and cfg.balance == "transfer") else rows
    k = min(n, width)
    per_disk = request_bytes / k
    if cfg.coalescing:
        return Split(k, 1.0, per_disk)
    v = max(1.0, n / k)
    if cfg.uncoalesced == "track":
        return Split(k, 1.0, per_disk, track_pass(cfg, v, width // rows - 1))
    return Split(k, v, per_disk / v)


def track_pass(cfg: ArrayConfig, ios: float, gap_units: int) -> float:
    """Time a disk spends between the first and the last of its ``ios``
    uncoalesced I/Os of one request when it serves them in one pass, as a
    LOOK disk does (they lie on its track in address order, the nearest
    work it has): before each later I/O the platter turns past the
    ``gap_units`` stripe units between it and the previous one (units
    dealt to the other copies of the set), and, when a track boundary falls
    in that gap, the head goes to the next track and waits a turn for its
    start (with no track skew: the gap is already past the head).  The
    chance of a boundary in the gap is the gap's share of a track, whose
    bytes are the disk's rate times a turn."""
    if ios <= 1:
        return 0.0
    gap = gap_units * cfg.stripe_unit
    track = cfg.disk_rate * cfg.rotation
    return (ios - 1) * (gap / cfg.disk_rate + min(1.0, gap / track) * cfg.rotation)


def write_split(cfg: ArrayConfig, request_bytes: float) -> Split:
    """Disk I/Os of a write sent straight to the disks (6.4): every unit is
    written on its disk and, when mirrored, on the mirror too."""
    n = math.ceil(request_bytes / cfg.stripe_unit)
    rows = cfg.disks // 2 if cfg.mirrored else cfg.disks
    k_rows = min(n, rows)
    copies = 2 if cfg.mirrored else 1
    per_disk = request_bytes / k_rows
    v = 1.0 if cfg.coalescing else max(1.0, n / k_rows)
    return Split(k_rows * copies, v, per_disk / v)


def disk_access_probability(cfg: ArrayConfig, s: Split, miss: float) -> float:
    """(3): cache_miss_probability * num_diskIOs_per_request / stripe_width
    (a visit ratio: above 1 when a disk serves several uncoalesced I/Os)."""
    return miss * s.disk_ios / cfg.disks


def max_position_time(cfg: ArrayConfig, mean: float, n: float) -> float:
    """E[max of n positioning times], each beta on [0, L], L = full rotation
    + max read seek, with the given mean and alpha + beta =
    ``beta_concentration`` (5.2; the seed fixes the law's range, the
    concentration is this package's choice).  n may be fractional: the
    maximum's CDF is F^n."""
    span = cfg.rotation + cfg.max_read_seek
    m = min(max(mean / span, 1e-9), 1 - 1e-9)
    a, b = m * cfg.beta_concentration, (1 - m) * cfg.beta_concentration
    if n <= 1:
        return mean
    # scipy only here: the "rotation" overhead (a volume of emulated disks,
    # identify --policies in a guest) never reads its files
    from scipy.integrate import quad
    from scipy.special import betainc
    val, _ = quad(lambda u: 1 - betainc(a, b, u) ** n, 0, 1, limit=200)
    return span * val


def parallel_overhead(cfg: ArrayConfig, mean_position: float, n: float) -> float:
    """parallel_overhead = max_position_time - disk_position_time (5.2);
    with ``overhead = 'rotation'``, ``rotation_overhead`` instead."""
    if cfg.overhead == "rotation":
        return rotation_overhead(cfg.rotation, n)
    return max_position_time(cfg, mean_position, n) - mean_position


def rotation_overhead(rotation: float, n: float) -> float:
    """The parallel overhead when the n disk I/Os of a request seek the
    same distance and only their rotational latencies differ, each uniform
    on [0, rotation] and independent (unsynchronized spindles):
    E[max of n] - E[one] = rotation (n / (n + 1) - 1/2).  This is a RAID
    1/0 or RAID 0 request on identical disks: its pieces lie at the same
    offset on every member, so every arm goes to the same cylinder, and
    (with no queue) from the same cylinder, the previous request's."""
    if n <= 1:
        return 0.0
    return rotation * (n / (n + 1) - 0.5)


# -- the positioning law of an emulated LOOK disk (5.1, fitted as the seed did) --

def look_positioning(queue: int, cylinders: int, seek_a: float, seek_b: float,
                     rotation: float, requests: int = 4000, seed: int = 1) -> float:
    """Mean positioning time (seek + rotational wait) of one disk serving
    ``queue`` closed random streams with no think time under LOOK (the
    nearest cylinder in the sweep's direction, turning round when nothing
    lies ahead), by simulation: cylinders uniform over the disk, seek
    seek_a + seek_b sqrt(distance) (0 for none), the spindle turning
    continuously and each access's first sector at a uniform angle.  This
    is ssadisk's mechanical model (dm-ssastripe/ssa-disk-model.c) with one
    head, no overhead and no read-ahead, measured the way section 5.1
    measured the Cheetah: the disk alone, random streams, a given queue."""
    if queue < 1 or cylinders < 1 or requests < 1:
        raise ValueError("need queue, cylinders and requests >= 1")
    rng = np.random.default_rng(seed)
    cyls = rng.integers(0, cylinders, size=queue + requests).tolist()
    angles = (rng.random(queue + requests) * rotation).tolist()
    pend = [(cyls[i], angles[i]) for i in range(queue)]
    nxt = queue
    arm, up, t, total = int(rng.integers(0, cylinders)), True, 0.0, 0.0
    for _ in range(requests):
        ahead = [j for j, (c, _) in enumerate(pend) if (c >= arm if up else c <= arm)]
        if not ahead:
            up = not up
            ahead = range(len(pend))
        j = min(ahead, key=lambda j: abs(pend[j][0] - arm))
        c, angle = pend.pop(j)
        d = abs(c - arm)
        seek = seek_a + seek_b * math.sqrt(d) if d else 0.0
        t += seek
        wait = (angle - t) % rotation
        t += wait
        total += seek + wait
        arm = c
        pend.append((cyls[nxt], angles[nxt]))
        nxt += 1
    return total / requests


def fit_queue_law(queues, times) -> tuple[float, float]:
    """(a, b) of (1), a + b / sqrt(1 + queue), minimizing the root mean
    square error over the given points (section 5.1's fit)."""
    q = np.asarray(queues, dtype=float)
    y = np.asarray(times, dtype=float)
    if len(q) < 2 or len(q) != len(y):
        raise ValueError("need two or more (queue, time) points")
    A = np.c_[np.ones(len(q)), 1 / np.sqrt(1 + q)]
    a, b = np.linalg.lstsq(A, y, rcond=None)[0]
    return float(a), float(b)


@lru_cache(maxsize=32)
def fit_positioning(cylinders: int, seek_a: float, seek_b: float, rotation: float,
                    max_queue: int = 16, requests: int = 4000) -> tuple[float, float]:
    """(a, b) of (1) for a LOOK disk of this geometry: ``look_positioning``
    at queues 1..max_queue, fitted by ``fit_queue_law``."""
    qs = list(range(1, max_queue + 1))
    ts = [look_positioning(q, cylinders, seek_a, seek_b, rotation, requests) for q in qs]
    return fit_queue_law(qs, ts)


def look_sequential_positioning(queue: int, cylinders: int, seek_a: float, seek_b: float,
                                rotation: float, requests: int = 4000,
                                seed: int = 1) -> float:
    """Mean positioning time of one disk serving ``queue`` sequential
    streams, measured as section 5.1 measured the Cheetah's (its second
    graph of Figure 5), on ssadisk's mechanical model with LOOK and no
    read-ahead cache (``look_positioning``'s disk).

    The streams lie evenly over the stroke (ssaload's closed clients start
    i/n of the way into the volume, so on every member too) and each keeps
    to its cylinder (a stream crosses a cylinder in several requests).
    What a stream's next request finds is what it finds in an array: it
    arrives only after the request before it has joined (its other disks,
    the cache), so the disk has served another stream meanwhile when there
    is one, and the platter has turned on by an amount unrelated to where
    the request starts: the rotational wait is uniform over a turn.  With
    one stream that is half a turn and no seek; with more, LOOK sweeps
    across the streams' cylinders."""
    if queue < 1 or cylinders < 1 or requests < 1:
        raise ValueError("need queue, cylinders and requests >= 1")
    rng = np.random.default_rng(seed)
    cyls = [min(cylinders - 1, (i * cylinders) // queue) for i in range(queue)]
    waits = (rng.random(requests) * rotation).tolist()
    arm, up, last, total = cyls[0], True, None, 0.0
    for i in range(requests):
        # the stream just served has not come back yet when another waits
        ready = [j for j in range(queue) if j != last] or [last]
        ahead = [j for j in ready if (cyls[j] >= arm if up else cyls[j] <= arm)]
        if not ahead:
            up = not up
            ahead = ready
        j = min(ahead, key=lambda j: abs(cyls[j] - arm))
        d = abs(cyls[j] - arm)
        total += (seek_a + seek_b * math.sqrt(d) if d else 0.0) + waits[i]
        arm, last = cyls[j], j
    return total / requests


@lru_cache(maxsize=32)
def fit_sequential_positioning(cylinders: int, seek_a: float, seek_b: float,
                               rotation: float, requests: int = 4000) -> tuple[float, float]:
    """(c, d) of (2), c + d * disk_queue for disk_queue <= 3, for a LOOK
    disk of this geometry: ``look_sequential_positioning`` at queues 1, 2
    and 3, fitted by least squares as section 5.1 fitted its line."""
    qs = [1, 2, 3]
    ts = [look_sequential_positioning(q, cylinders, seek_a, seek_b, rotation, requests)
          for q in qs]
    d, c = np.polyfit(qs, ts, 1)
    return float(c), float(d)


# -- the read MVA (A.1) -------------------------------------------------------

@dataclass(frozen=True)
class Inputs:
    """Table 4's read-model inputs at one multiprogramming level."""
    disk_service: float
    parallel_overhead: float
    disk_access: float
    cache_service: float
    miss: float
    disk_queue: float
    servers: int = 1                 # disks that share one queue (a pair: 2)
    station_visit: float | None = None   # visits to such a station; None: disk_access


@dataclass(frozen=True)
class Point:
    mpl: int
    response: float          # array_response_time, s
    throughput: float        # requests per second
    queue: float             # array_queue
    disk_queue: float        # the disk queue the service time was computed at

    def as_dict(self) -> dict:
        return {"mpl": self.mpl, "response_s": self.response,
                "throughput": self.throughput, "queue": self.queue,
                "disk_queue": self.disk_queue}


def mva(inp: Inputs, mpl: int, cpu_delay: float) -> Point:
    """Appendix A.1: the parallel MVA iterated from m = 1 to ``mpl`` with
    the inputs computed for ``mpl``.

    With ``inp.servers`` = c > 1 (a mirrored pair under queue-length
    reducing balance: the two copies share the pair's requests, each going
    to the copy with fewer outstanding), a request waits only for the
    requests beyond the c - 1 others the station can serve at once: the
    queueing term is disk_service / c * max(0, station_visit * disks_queue
    - c + 1).  For c = 1 this is A.1's disk_access * disk_service *
    disks_queue."""
    cache_q = disks_q = 0.0
    resp = thr = 0.0
    c = inp.servers
    visit = inp.disk_access if inp.station_visit is None else inp.station_visit
    for m in range(1, mpl + 1):
        cache_r = inp.cache_service * (1 + cache_q)
        if c == 1:
            wait = visit * inp.disk_service * disks_q
        else:
            wait = inp.disk_service / c * max(0.0, visit * disks_q - c + 1)
        disks_r = inp.miss * (inp.parallel_overhead + inp.disk_service) + wait
        resp = cache_r + disks_r
        thr = m / (cpu_delay + resp)
        disks_q, cache_q = disks_r * thr, cache_r * thr
    return Point(mpl, float(resp), float(thr), float(disks_q + cache_q),
                 float(inp.disk_queue))


def _service(cfg: ArrayConfig, s: Split, queue: float, sequential: bool,
             write: bool) -> tuple[float, float]:
    """(positioning, service per visit): v I/Os of io_bytes each, each
    also paying ``member_latency`` (a member over a network: the request's
    and the reply's transfer and the target's work, in series with the
    disk's own service)."""
    pos = position_time(cfg, queue, sequential)
    if write:
        pos += cfg.write_seek - cfg.read_seek     # Table 1's write seek penalty
    return pos, (s.ios_per_disk * (pos + s.io_bytes / cfg.disk_rate + cfg.member_latency)
                 + s.extra)


def approx_disk_queue(cfg: ArrayConfig, s: Split, mpl: int, cpu_delay: float,
                      miss: float, cache_service: float, sequential: bool,
                      write: bool = False) -> float:
    """The disk queue length the service time is computed at.

    CPU_delay = 0: M * disk_access_probability (5.1).  Otherwise Appendix
    A.3: the worst case puts every job at the disks (queue M * dap, giving
    the service time s0); a request's disk time is then that queue (at
    least its own visit) times s0, the cache time M * cache_service; Little's law gives the
    throughput, and the queue at one disk is its visit ratio times the
    disk time times the throughput.
    """
    dap = disk_access_probability(cfg, s, miss)
    q0 = mpl * dap
    if cpu_delay == 0:
        return q0
    _, s0 = _service(cfg, s, q0, sequential, write)
    disk_r = miss * max(q0, 1.0) * s0
    thr = mpl / (cpu_delay + mpl * cache_service + disk_r)
    return dap * max(q0, 1.0) * s0 * thr


def cache_service_time(cfg: ArrayConfig, request_bytes: float) -> float:
    """A request's time at the array cache: its transfer at the cache rate
    (5.4), plus the cache path's own time (``cache_overhead``) and its copy
    of the request's bytes (``cache_copy_rate``)."""
    return (request_bytes / cfg.cache_rate + cfg.cache_overhead
            + request_bytes / cfg.cache_copy_rate)


def read_inputs(cfg: ArrayConfig, request_bytes: float, mpl: int, cpu_delay: float,
                sequential: bool = False, write: bool = False,
                s: Split | None = None) -> Inputs:
    s = split(cfg, request_bytes) if s is None else s
    miss = 1 - cfg.cache_hit if not write else 1.0
    cache_service = cache_service_time(cfg, request_bytes)
    q = approx_disk_queue(cfg, s, mpl, cpu_delay, miss, cache_service, sequential, write)
    q = max(q, cfg.min_disk_queue)
    pos, svc = _service(cfg, s, q, sequential, write)
    over = parallel_overhead(cfg, pos, s.disks_used) * s.ios_per_disk
    dap = disk_access_probability(cfg, s, miss)
    if (cfg.pair_queue == "shortest" and cfg.mirrored and cfg.balance == "queue"
            and not write):
        rows = cfg.disks // 2
        return Inputs(svc, over, dap, cache_service, miss, q, servers=2,
                      station_visit=miss * s.disk_ios / rows)
    return Inputs(svc, over, dap, cache_service, miss, q)


def reads(cfg: ArrayConfig, request_bytes: float, max_mpl: int, cpu_delay: float = 0.0,
          sequential: bool = False) -> list[Point]:
    """array_response_time, throughput and queue for M = 1..max_mpl, each
    M with its own inputs (the seed's parameters carry the index [M])."""
    if max_mpl < 1 or cpu_delay < 0:
        raise ValueError("need max_mpl >= 1 and cpu_delay >= 0")
    return [mva(read_inputs(cfg, request_bytes, m, cpu_delay, sequential), m, cpu_delay)
            for m in range(1, max_mpl + 1)]


# -- writes (4.2, 5.5, A.2, 6.4) ---------------------------------------------

def mm1k(lam: float, mu: float, states: int) -> np.ndarray:
    """Stationary law of a birth-death chain with constant rates over
    ``states`` states (A.2's M/M/1/K over destage_threshold..max_dirty).
    The seed writes K = max - threshold + 1 for the number of states and
    normalizes with rho^(K+1); the distribution here sums to one."""
    if lam <= 0 or mu <= 0 or states < 1:
        raise ValueError("need positive rates and at least one state")
    logw = np.arange(states) * (math.log(lam) - math.log(mu))   # log rho^i
    w = np.exp(logw - logw.max())                               # no overflow for rho > 1
    return w / w.sum()


def write_back(cfg: ArrayConfig, request_bytes: float, mpl: int, cpu_delay: float,
               sequential: bool = False) -> Point:
    """A small write through the write-back cache (4.2, 5.5, A.2).

    lambda: max_array_throughput (the MVA with an infinite cache, i.e. the
    cache server alone) times the dirty blocks per request; mu =
    stripe_width / (2 disk_service_time), the destage service time taken
    for one stripe unit at the disk queue the same stream of reads would
    give (or at ``destage_queue`` when set).  With ``destage = "request"``
    the units of a request are destaged together, as one write on each of
    the k = min(units, rows) pairs it covers: mu = units * rows / (k *
    disk_service_time of units / k units), which is the seed's mu for one
    unit.
    """
    blocks = math.ceil(request_bytes / cfg.stripe_unit)
    cache_service = cache_service_time(cfg, request_bytes)
    inf = mva(Inputs(0.0, 0.0, 0.0, cache_service, 0.0, 0.0), mpl, cpu_delay)
    lam = inf.throughput * blocks
    unit = Split(1, 1.0, cfg.stripe_unit)
    s = split(cfg, request_bytes)
    q = cfg.destage_queue or approx_disk_queue(cfg, s, mpl, cpu_delay, 1.0, cache_service,
                                               sequential, True)
    if cfg.destage == "request":
        # a request's dirty units go out together: one write a pair (a
        # disk without mirrors) of its units there, the pieces in parallel
        copies = 2 if cfg.mirrored else 1
        rows = cfg.disks // copies
        k = min(blocks, rows)
        piece = Split(1, 1.0, blocks / k * cfg.stripe_unit)
        _, svc_piece = _service(cfg, piece, q, sequential, True)
        mu = blocks * rows / (k * svc_piece)
    else:
        _, svc = _service(cfg, unit, q, sequential, True)
        mu = cfg.disks / (2 * svc)
    states = cfg.max_dirty_blocks - cfg.destage_threshold + 1
    p = mm1k(lam, mu, states)
    thr = lam * (1 - p[-1]) / blocks
    resp = mpl / thr - cpu_delay
    return Point(mpl, float(resp), float(thr), float(thr * resp), float(q))


def direct_write(cfg: ArrayConfig, request_bytes: float, mpl: int, cpu_delay: float,
                 sequential: bool = False) -> Point:
    """A large write sent straight to the disks (6.4): the read MVA with
    every unit written on its disk and its mirror, no cache hits."""
    s = write_split(cfg, request_bytes)
    inp = read_inputs(cfg, request_bytes, mpl, cpu_delay, sequential, write=True, s=s)
    return mva(inp, mpl, cpu_delay)


def writes(cfg: ArrayConfig, request_bytes: float, max_mpl: int, cpu_delay: float = 0.0,
           sequential: bool = False) -> list[Point]:
    """Writes of at most two stripes go through the write-back cache; larger
    ones go directly to the disks (6.4)."""
    rows = cfg.disks // 2 if cfg.mirrored else cfg.disks
    direct = request_bytes > 2 * rows * cfg.stripe_unit
    fn = direct_write if direct else write_back
    return [fn(cfg, request_bytes, m, cpu_delay, sequential) for m in range(1, max_mpl + 1)]


def with_policy(cfg: ArrayConfig, coalescing: bool, balance: str) -> ArrayConfig:
    return replace(cfg, coalescing=coalescing, balance=balance)
