"""RAID 5 and parity striping under the BS and AS policies: seed 002,
sections 4 and 5 and its Appendix (Chen and Towsley).

Every disk is a non-preemptive two-class M/G/1 queue: the RW queue (reads
and the data part of writes, low priority) and the P queue (parity
updates, high priority).  A write completes when data and parity are both
written.  What is computed, with the seed's equation numbers:

* single-block requests (section 4): the lower-bound (LB, eqs. 8-21 and
  the max formula under (21)) and upper-bound (UB, eqs. 22-23)
  approximations of the BS policy, the AS policy (24) and the simplified
  solution (25); parity striping with s-degree skew (26-28);
* multiple-block requests (section 5, simplified model, BS): RAID 5 with
  eqs. (29)-(35), parity striping with (36)-(37); request sizes uniform
  or quasi-geometric (section 6.2);
* the maximum throughput of section 5.3.

Times in seconds, rates in requests per second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy.signal import fftconvolve

from . import queues
from .disk import Disk

GRID = 8192          # cells of the grid on which X's law is tabulated


# -- request sizes (section 6.2) --------------------------------------------

def sizes_single(ws: int) -> np.ndarray:
    """P{B = k}, k = 1..W_s: every request is one block."""
    p = np.zeros(ws)
    p[0] = 1.0
    return p


def sizes_uniform(ws: int) -> np.ndarray:
    """P{B = k} = 1 / W_s, k = 1..W_s (section 6.2)."""
    return np.full(ws, 1.0 / ws)


def sizes_qgeo(ws: int, sigma: float, p: float) -> np.ndarray:
    """The quasi-geometric sizes of section 6.2: P{B = 1} = sigma and
    P{B = i} = (1 - sigma) p (1-p)^(i-1) / ((1-p) - (1-p)^W_s), i = 2..W_s."""
    if not 0 <= sigma <= 1 or not 0 < p < 1:
        raise ValueError("qgeo needs 0 <= sigma <= 1 and 0 < p < 1")
    out = np.zeros(ws)
    out[0] = sigma
    if ws > 1:
        norm = (1 - p) - (1 - p) ** ws
        i = np.arange(2, ws + 1)
        out[1:] = (1 - sigma) * p * (1 - p) ** (i - 1) / norm
    else:
        out[0] = 1.0
    return out


def parse_sizes(spec: str, ws: int) -> np.ndarray:
    """'single', 'uniform' or 'qgeo:SIGMA:P' as a size distribution."""
    if spec == "single":
        return sizes_single(ws)
    if spec == "uniform":
        return sizes_uniform(ws)
    if spec.startswith("qgeo:"):
        try:
            _, sigma, p = spec.split(":")
            return sizes_qgeo(ws, float(sigma), float(p))
        except ValueError as e:
            raise ValueError(f"bad size distribution {spec!r}: {e}") from None
    raise ValueError(f"unknown size distribution {spec!r} "
                     "(single, uniform or qgeo:SIGMA:P)")


# -- the workload -----------------------------------------------------------

@dataclass(frozen=True)
class Array:
    """A parity array of ``disks`` identical ``disk``s (W_s = N - 1)."""
    disk: Disk
    disks: int
    p_read: float
    sizes: tuple = field(default=None)       # P{B = k}, k = 1..W_s; None: single
    skew: float = 0.0                        # s, parity striping only (26)
    blocks_per_track: int | None = None      # N_b, parity striping only

    def __post_init__(self):
        if self.disks < 3:
            raise ValueError("a parity array needs at least 3 disks")
        if not 0 <= self.p_read <= 1:
            raise ValueError("p_read must be a probability")
        ws = self.disks - 1
        s = sizes_single(ws) if self.sizes is None else np.asarray(self.sizes, float)
        if len(s) != ws or np.any(s < 0) or abs(s.sum() - 1) > 1e-9:
            raise ValueError(f"sizes must be a distribution over 1..{ws} blocks")
        object.__setattr__(self, "sizes", tuple(float(x) for x in s))
        if self.skew < 0:
            raise ValueError("skew must not be negative")
        if self.blocks_per_track is not None and self.blocks_per_track < 1:
            raise ValueError("blocks_per_track must be positive")

    @property
    def ws(self) -> int:
        return self.disks - 1

    @property
    def p_write(self) -> float:
        return 1 - self.p_read

    @property
    def pmf(self) -> np.ndarray:
        return np.asarray(self.sizes)

    @property
    def single(self) -> bool:
        return self.sizes[0] == 1.0

    @property
    def mean_blocks(self) -> float:
        return float(np.dot(np.arange(1, self.ws + 1), self.pmf))

    @property
    def nb(self) -> int:
        """N_b; by default the whole blocks one rotation transfers."""
        if self.blocks_per_track is not None:
            return self.blocks_per_track
        return max(1, int(self.disk.rmax / self.disk.alpha + 1e-9))

    def disk_probabilities(self) -> np.ndarray:
        """p_i of equation (26), i = 1..N (uniform when s = 0)."""
        w = np.arange(1, self.disks + 1, dtype=float) ** self.skew
        return w / w.sum()


# -- the law of X = S + R on a grid -----------------------------------------

@dataclass(frozen=True)
class XLaw:
    t: np.ndarray       # grid on [0, S_max + R_max]
    pdf: np.ndarray
    cdf: np.ndarray

    @property
    def h(self) -> float:
        return float(self.t[1] - self.t[0])

    def cdf_at(self, x):
        return np.interp(x, self.t, self.cdf, left=0.0, right=1.0)


@lru_cache(maxsize=32)
def x_law(d: Disk, cells: int = GRID) -> XLaw:
    """f_X (equation 4, closed form in Disk.x_pdf) and F_X by the
    trapezoidal rule on a grid of ``cells`` cells."""
    t = np.linspace(0.0, d.smax + d.rmax, cells + 1)
    pdf = d.x_pdf(t)
    h = t[1] - t[0]
    cdf = np.concatenate(([0.0], np.cumsum((pdf[1:] + pdf[:-1]) * h / 2)))
    cdf /= cdf[-1]
    return XLaw(t, pdf, cdf)


def e_max_x_v(d: Disk, q: queues.Coxian | None) -> float:
    """E[max{X', Q + X}] with Q the Coxian ``q`` (None: Q = 0), X and X'
    independent copies of X (the formula under equation (21)):

        E[X'] + E[Q + X] - int_0^{R_max+S_max} (1 - F_X'(x)) (1 - F_V(x)) dx,

    V = Q + X.  F_V is the atom part (1-q) F_X plus the convolution of f_X
    with the Coxian's continuous CDF.
    """
    law = x_law(d)
    ex = d.x_moment(1)
    if q is None:
        fv, eq = law.cdf, 0.0
    else:
        fc = queues.coxian_cont_cdf(q, law.t)
        conv = fftconvolve(fc, law.pdf)[: len(law.t)] * law.h
        conv -= 0.5 * law.h * fc * law.pdf[0]          # trapezoid end correction
        fv = (1 - q.q) * law.cdf + conv
        eq = q.moments()[0]
    surv = (1 - law.cdf) * (1 - fv)
    integral = float(np.sum((surv[1:] + surv[:-1]) * law.h / 2))
    return ex + eq + ex - integral


# -- service-time moments (Appendix, section 5.2) ---------------------------

def _shift(d: Disk, c: float) -> tuple[float, float, float]:
    """E[(X + c)^k], k = 1..3."""
    x = [d.x_moment(k) for k in range(4)]
    return (x[1] + c,
            x[2] + 2 * c * x[1] + c * c,
            x[3] + 3 * c * x[2] + 3 * c * c * x[1] + c ** 3)


def y_rw_moments(d: Disk, p_read: float) -> tuple[float, float, float]:
    """E[Y_rw^k], k = 1..3 (Appendix; the mean is equation 12)."""
    r, w = _shift(d, d.alpha), _shift(d, 2 * d.alpha + d.rmax)
    return tuple(p_read * a + (1 - p_read) * b for a, b in zip(r, w))


def lp_moments(d: Disk) -> tuple[float, float, float]:
    """E[L_p^k], k = 1..3: L_p = X + 2 alpha + R_max (eqs. 8-9, Appendix)."""
    return _shift(d, 2 * d.alpha + d.rmax)


def up_moments(d: Disk) -> tuple[float, float, float]:
    """E[U_p^k], k = 1..3, U_p = X + 2 alpha + R_max + 1(X' >= X + R_max) R_max
    (eq. 22): E[g(X)] with g(x) = (x + c)^k F_X'(x + R) + (x + c + R)^k
    (1 - F_X'(x + R)), integrated on the grid of f_X."""
    law = x_law(d)
    c, r = 2 * d.alpha + d.rmax, d.rmax
    f_next = law.cdf_at(law.t + r)
    out = []
    for k in (1, 2, 3):
        g = (law.t + c) ** k * f_next + (law.t + c + r) ** k * (1 - f_next)
        v = g * law.pdf
        out.append(float(np.sum((v[1:] + v[:-1]) * law.h / 2)))
    return tuple(out)


def late_probability(d: Disk, rotations: int = 1) -> float:
    """P{X' >= X + m R_max}: with no P-queue wait, the chance that the old
    data is still unread after the parity disk has positioned, read and
    turned m times (seed 002, eq. 7 and its footnote 2 for m = 2)."""
    law = x_law(d)
    v = law.pdf * (1 - law.cdf_at(law.t + rotations * d.rmax))
    return float(np.sum((v[1:] + v[:-1]) * law.h / 2))


def up_moments_appendix(d: Disk) -> tuple[float, float, float]:
    """The Appendix's closed expressions for E[U_p^k] (kept to check
    up_moments against the seed's own algebra)."""
    law = x_law(d)
    a, r = d.alpha, d.rmax
    t, f = law.t, law.pdf
    m = t <= d.smax
    fn = law.cdf_at(t + r)

    def integ(v):
        v = np.where(m, v, 0.0)
        return float(np.sum((v[1:] + v[:-1]) * law.h / 2))

    fsmax = float(law.cdf_at(d.smax))
    lp = lp_moments(d)
    c1, c2 = 2 * a + r, 2 * a + 2 * r
    u1 = lp[0] + r * integ(f * (1 - fn))
    u2 = (lp[1] + 2 * r * integ(t * f) + (4 * a * r + 3 * r * r) * fsmax
          - 2 * r * integ(t * f * fn) - (c2 ** 2 - c1 ** 2) * integ(f * fn))
    u3 = (lp[2] + 3 * r * integ(t * t * f) + 3 * (4 * a * r + 3 * r * r) * integ(t * f)
          + (c2 ** 3 - c1 ** 3) * fsmax - 3 * r * integ(t * t * f * fn)
          - 3 * r * (4 * a + 3 * r) * integ(t * f * fn) - (c2 ** 3 - c1 ** 3) * integ(f * fn))
    return u1, u2, u3


def pstripe_service(arr: Array) -> tuple[tuple[float, float], tuple[float, float], float]:
    """Parity striping, multiple blocks (eqs. 36-37): ((E[Y_rw], E[Y_rw^2]),
    (E[Y_p], E[Y_p^2]), eta), as the seed writes them.

    eta = E[((B-1) mod N_b) / N_b], the fraction of a rotation the read of
    the old blocks covers.
    """
    d, nb = arr.disk, arr.nb
    k = np.arange(1, arr.ws + 1)
    pmf = arr.pmf
    rem = (k - 1) % nb
    eta = float(np.dot(pmf, rem / nb))
    e_rem2 = float(np.dot(pmf, rem.astype(float) ** 2))
    e_w2 = nb * nb - 2 * nb * nb * eta + e_rem2          # E[(N_b - (B-1) mod N_b)^2]
    b1 = float(np.dot(pmf, k))
    b2 = float(np.dot(pmf, k.astype(float) ** 2))
    x1, x2 = d.x_moment(1), d.x_moment(2)
    a, r, pw = d.alpha, d.rmax, arr.p_write
    yp1 = x1 + 2 * a * b1 + (1 - eta) * r                                     # (37)
    yp2 = (x2 + 4 * a * a * b2 + (r / nb) ** 2 * e_w2 + 4 * x1 * a * b1
           + (2 * x1 + 4 * a * b1) * (1 - eta) * r)
    yrw1 = x1 + (1 + pw) * a * b1 + pw * (1 - eta) * r                        # (36)
    yrw2 = pw * yp2 + arr.p_read * (x2 + 2 * x1 * a * b1 + a * a * b2)
    return (yrw1, yrw2), (yp1, yp2), eta


# -- one disk's queue --------------------------------------------------------

@dataclass(frozen=True)
class DiskQueue:
    """Waiting-time moments of one disk: E[Q_rw], E[Q_rw^2], E[Q_p], E[Q_p^2]
    and the utilization rho."""
    q_rw: float
    q_rw2: float
    q_p: float
    q_p2: float
    rho: float


def disk_queue(lam_rw: float, y_rw: Sequence[float], lam_p: float,
               y_p: Sequence[float]) -> DiskQueue:
    """Equations (19)-(20) for the P queue and (33)-(34) for the RW queue
    (the moments of (15) and (16) at s = 0).  With two service moments
    only, the second moments of the waits are NaN."""
    y_rw, y_p = _three(y_rw), _three(y_p)
    qp, qp2 = queues.high_wait_moments(lam_p, y_p, lam_rw, y_rw)
    qrw, qrw2 = queues.low_wait_moments(lam_p, y_p, lam_rw, y_rw)
    rho = lam_p * y_p[0] + lam_rw * y_rw[0]
    return DiskQueue(qrw, qrw2, qp, qp2, rho)


def _three(m: Sequence[float]) -> tuple[float, float, float]:
    m = tuple(float(x) for x in m)
    if len(m) == 2:                     # (36)-(37) give two moments only
        return m[0], m[1], math.nan
    return m


# -- results ------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    rate: float
    utilization: float          # the busiest disk's
    read: float                 # mean read response time, s
    write: float
    overall: float

    def as_dict(self) -> dict:
        return {"rate": self.rate, "utilization": self.utilization,
                "read_s": self.read, "write_s": self.write, "overall_s": self.overall}


def _unstable(rate: float, rho: float) -> Result:
    nan = math.nan
    return Result(rate, rho, nan, nan, nan)


def _service_p(arr: Array, bound: str, sync: str):
    if sync == "as" or bound in ("lb", "simple"):
        return lp_moments(arr.disk)
    return up_moments(arr.disk)


def _check_policy(sync: str, bound: str) -> None:
    if sync not in ("bs", "as"):
        raise ValueError("sync must be bs or as")
    if bound not in ("lb", "ub", "simple"):
        raise ValueError("bound must be lb, ub or simple")
    if sync == "as" and bound != "lb":
        raise ValueError("under AS the parity service time is exactly L_p (section 4.2.2): "
                         "--bound does not apply, leave it at lb")


def _write_tail(d: Disk, dq: DiskQueue, sync: str, bound: str) -> float:
    """The part of a single-block write's response after its RW wait:
    (18) with LB or UB, (25) simplified, (24) under AS (all less Q_rw)."""
    ex, a, r = d.x_moment(1), d.alpha, d.rmax
    if sync == "as":
        return ex + dq.q_p + ex + r + 3 * a                                   # (24)
    if bound == "simple":
        return dq.q_p + ex + 2 * a + r                                        # (25)
    cx = queues.coxian_fit(dq.q_p, dq.q_p2) if dq.q_p > 0 else None        # (21)
    return e_max_x_v(d, cx) + 2 * a + r                                       # (18)


# -- RAID 5 -------------------------------------------------------------------

def raid5(arr: Array, rate: float, sync: str = "bs", bound: str = "lb") -> Result:
    """Mean response times of RAID 5 at arrival rate ``rate``.

    Single-block sizes: section 4.2 (LB/UB/simple for BS, (24) for AS).
    Other sizes: section 5.1, the simplified model under BS (the only one
    the seed gives for multiple blocks).
    """
    _check_policy(sync, bound)
    if rate <= 0:
        raise ValueError("rate must be positive")
    d, n = arr.disk, arr.disks
    if arr.single:
        lam_rw, lam_p = rate / n, arr.p_write * rate / n
        y_rw, y_p = y_rw_moments(d, arr.p_read), _service_p(arr, bound, sync)
        rho = lam_rw * y_rw[0] + lam_p * y_p[0]
        if rho >= 1:
            return _unstable(rate, rho)
        dq = disk_queue(lam_rw, y_rw, lam_p, y_p)
        zr = dq.q_rw + d.x_moment(1) + d.alpha                                # (17)
        zw = dq.q_rw + _write_tail(d, dq, sync, bound)
        return Result(rate, rho, zr, zw, arr.p_read * zr + arr.p_write * zw)
    if sync != "bs" or bound != "simple":
        raise ValueError("multiple-block requests use the simplified model under BS "
                         "(seed 002, section 5): give --sync bs --bound simple")
    return _raid5_multi(arr, rate)


def raid5_rates(arr: Array) -> tuple[float, float, float, float]:
    """(q1, q2, RW arrivals per request per disk, P arrivals per request per
    disk): equations (29)-(31)."""
    ws, bbar = arr.ws, arr.mean_blocks
    q1 = (ws - bbar + 1) / ws
    q2 = 1 - q1
    return q1, q2, bbar / arr.disks, arr.p_write * (q1 + 2 * q2) / arr.disks


def _raid5_multi(arr: Array, rate: float) -> Result:
    d, ws = arr.disk, arr.ws
    a, r = d.alpha, d.rmax
    _, _, per_rw, per_p = raid5_rates(arr)
    lam_rw, lam_p = rate * per_rw, rate * per_p                               # (29)-(30)
    y_rw, y_p = y_rw_moments(d, arr.p_read), lp_moments(d)
    rho = lam_rw * y_rw[0] + lam_p * y_p[0]
    if rho >= 1:
        return _unstable(rate, rho)
    dq = disk_queue(lam_rw, y_rw, lam_p, y_p)                                 # (33)-(34)
    x1, x2 = d.x_moment(1), d.x_moment(2)
    xi = queues.sum_fit((dq.q_rw, dq.q_rw2), (x1, x2))                        # Q_rw + X
    qrw = queues.coxian_fit(dq.q_rw, dq.q_rw2)                                # ~F_Qrw
    qp = (dq.q_p, dq.q_p2)
    pmf = arr.pmf

    max_xi = {k: queues.max_moments([xi], [k]) for k in range(1, ws + 1)}
    max_q = {k: queues.max_moments([qrw], [k]) for k in range(1, ws + 1)}

    zr = sum(pmf[k - 1] * (max_xi[k][0] + a) for k in range(1, ws + 1))      # (32)

    zw = 0.0                                                                  # (35)
    for k in range(1, ws + 1):
        if pmf[k - 1] == 0:
            continue
        for i in range(1, ws + 1):
            if k == ws and i == 1:                      # case 1: full strip
                z = max_xi[ws][0] + a
            elif i <= ws - k + 1:                       # case 2: one partial strip
                z = max_q[k][0] + dq.q_p + x1 + 2 * a + r
            else:                                       # case 3: two partial strips
                n1, n2 = ws - i + 1, k - (ws - i + 1)
                ca = queues.sum_fit(max_q[n1], qp, (x1, x2))
                cb = queues.sum_fit(max_q[n2], qp, (x1, x2))
                z = queues.max_moments([ca, cb])[0] + 2 * a + r
            zw += pmf[k - 1] / ws * z
    return Result(rate, rho, zr, zw, arr.p_read * zr + arr.p_write * zw)


# -- parity striping ---------------------------------------------------------

def pstripe(arr: Array, rate: float, sync: str = "bs", bound: str = "lb") -> Result:
    """Mean response times of parity striping with s-degree skew.

    Single-block sizes: section 4.3 (26)-(28), with each disk's P-queue
    wait through the LB/UB machinery of section 4.2.1, the simplified
    (25) or AS (24).  Other sizes: section 5.2, simplified BS, (36)-(37).
    """
    _check_policy(sync, bound)
    if rate <= 0:
        raise ValueError("rate must be positive")
    d, n = arr.disk, arr.disks
    p = arr.disk_probabilities()
    lam_rw = p * rate                                                          # (27)
    lam_p = arr.p_write * (1 - p) * rate / (n - 1)
    multi = not arr.single
    if multi and (sync != "bs" or bound != "simple"):
        raise ValueError("multiple-block requests use the simplified model under BS "
                         "(seed 002, section 5): give --sync bs --bound simple")
    if multi:
        y_rw, y_p, eta = pstripe_service(arr)
    else:
        y_rw, y_p, eta = y_rw_moments(d, arr.p_read), _service_p(arr, bound, sync), 0.0
    rhos = lam_rw * y_rw[0] + lam_p * y_p[0]
    if rhos.max() >= 1:
        return _unstable(rate, float(rhos.max()))
    dqs = [disk_queue(lam_rw[i], y_rw, lam_p[i], y_p) for i in range(n)]
    a, r, x1, bbar = d.alpha, d.rmax, d.x_moment(1), arr.mean_blocks
    if multi:
        # section 5.2: the parity disk j is any other disk, 1/(N-1) each
        tails = np.array([dq.q_p for dq in dqs])
        zr_i = np.array([dq.q_rw for dq in dqs]) + x1 + a * bbar
        # the seed prints alpha*B here; the parity write takes Y_p, whose
        # transfer part is 2 alpha B (37): see Documentation/models.rst
        fixed = x1 + 2 * a * bbar + (1 - eta) * r
    else:
        tails = np.array([_write_tail(d, dq, sync, bound) for dq in dqs])
        zr_i = np.array([dq.q_rw for dq in dqs]) + x1 + a                    # (17)
        fixed = 0.0
    other = (tails.sum() - tails) / (n - 1)
    zw_i = np.array([dq.q_rw for dq in dqs]) + other + fixed
    zr, zw = float(np.dot(p, zr_i)), float(np.dot(p, zw_i))                  # (28)
    return Result(rate, float(rhos.max()), zr, zw, arr.p_read * zr + arr.p_write * zw)


# -- maximum throughput (section 5.3) -----------------------------------------

def maxrate_raid5(arr: Array) -> float:
    """lambda_max = N / (B Y_rw + p_w (q1 + 2 q2) Y_p), eqs. (9), (12), (31)."""
    d = arr.disk
    q1, q2, _, _ = raid5_rates(arr)
    y_rw, y_p = y_rw_moments(d, arr.p_read)[0], lp_moments(d)[0]
    return arr.disks / (arr.mean_blocks * y_rw + arr.p_write * (q1 + 2 * q2) * y_p)


def maxrate_pstripe(arr: Array) -> float:
    """lambda_max = 1 / (p_N Y_rw + p_w (1 - p_N) / (N - 1) Y_p), (26), (36)-(37)."""
    (y_rw, _), (y_p, _), _ = pstripe_service(arr)
    p_n = float(arr.disk_probabilities().max())
    return 1 / (p_n * y_rw + arr.p_write * (1 - p_n) / (arr.disks - 1) * y_p)


def table(model: str, arr: Array, rates: Sequence[float], sync: str = "bs",
          bound: str = "lb") -> list[Result]:
    """One Result per rate for ``model`` 'raid5' or 'pstripe'."""
    fn = {"raid5": raid5, "pstripe": pstripe}.get(model)
    if fn is None:
        raise ValueError(f"unknown model {model!r}")
    return [fn(arr, r, sync, bound) for r in rates]
