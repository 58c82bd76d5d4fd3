"""The disk of seed 002, section 4.1: seek, rotation and service times.

Seek distance D (continuous approximation of seed 002): 0 with probability
p_s, otherwise density (1 - p_s) 2(C - x)/C^2 on (0, C].  Seek time
S = 0 if D = 0, else a + b sqrt(D)  (S_max = a + b sqrt(C)).  Rotational
latency R uniform on [0, R_max].  X = S + R.  Single-block service times:
Y_r = X + T (eq. 5) and Y_w = X + T + R_max + T (eq. 6), T = alpha B.

All times in seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.polynomial import polynomial as P


@dataclass(frozen=True)
class Disk:
    cylinders: int          # C
    seek_a: float           # a: arm acceleration time
    seek_b: float           # b: seek factor (seconds per sqrt(cylinder))
    rmax: float             # R_max: one full rotation
    alpha: float            # transfer time of one block
    p_seq: float            # p_s: probability of a zero-distance seek

    def __post_init__(self):
        if self.cylinders < 2:
            raise ValueError("need at least 2 cylinders")
        if min(self.seek_a, self.seek_b, self.rmax, self.alpha) < 0:
            raise ValueError("times must not be negative")
        if not 0 <= self.p_seq <= 1:
            raise ValueError("p_seq must be a probability")

    @property
    def smax(self) -> float:
        """Maximum seek time a + b sqrt(C)."""
        return self.seek_a + self.seek_b * math.sqrt(self.cylinders)

    # -- distributions ------------------------------------------------------

    def seek_distance_cdf(self, x):
        """F_D(x) = P{D <= x} of the continuous approximation."""
        c, ps = self.cylinders, self.p_seq
        x = np.clip(np.asarray(x, dtype=float), 0, c)
        return ps + (1 - ps) * (2 * x / c - x * x / c / c)

    def seek_time_cdf(self, s):
        """F_S(s), equation (2)."""
        s = np.asarray(s, dtype=float)
        d = np.where(s > self.seek_a, ((s - self.seek_a) / self.seek_b) ** 2, 0.0)
        return np.where(s < 0, 0.0, self.seek_distance_cdf(d))

    def x_pdf(self, x):
        """f_X(x), the density of seek plus rotation (equation (4), both cases).

        With R uniform, f_X(x) = [p_s 1{x <= R_max} + G(hi) - G(lo)] / R_max,
        where G is the continuous part of F_S, hi = min(x, S_max) and
        lo = max(x - R_max, a).
        """
        x = np.asarray(x, dtype=float)
        ps, a = self.p_seq, self.seek_a

        def g(s):                       # continuous part of F_S: 0 up to a
            return np.where(s > a, self.seek_time_cdf(s) - ps, 0.0)

        hi = np.minimum(x, self.smax)
        lo = np.maximum(x - self.rmax, a)
        cont = np.where(hi > lo, g(hi) - g(lo), 0.0)
        atom = np.where((x >= 0) & (x <= self.rmax), ps, 0.0)
        return np.where((x < 0) | (x > self.smax + self.rmax), 0.0,
                        (atom + cont) / self.rmax)

    # -- moments ------------------------------------------------------------

    @cached_property
    def _seek_moments(self) -> tuple[float, ...]:
        """E[S^k], k = 0..4, exactly: with u = sqrt(D) the integrand is a
        polynomial, (a + b u)^k (1 - p_s) 2 (C - u^2)/C^2 2u on [0, sqrt(C)]."""
        c = self.cylinders
        weight = P.polymul([0, 4 * c / c ** 2], [1, 0, -1 / c])   # 4u(C - u^2)/C^2
        out = [1.0]
        for k in range(1, 5):
            poly = P.polymul(P.polypow([self.seek_a, self.seek_b], k), weight)
            integ = P.polyint(poly)
            out.append((1 - self.p_seq) * float(P.polyval(math.sqrt(c), integ)))
        return tuple(out)

    def seek_moment(self, k: int) -> float:
        return self._seek_moments[k]

    def rotation_moment(self, k: int) -> float:
        return self.rmax ** k / (k + 1)

    def x_moment(self, k: int) -> float:
        """E[X^k], X = S + R with S and R independent."""
        return sum(math.comb(k, j) * self.seek_moment(j) * self.rotation_moment(k - j)
                   for j in range(k + 1))

    def _shifted(self, shift: float, k: int) -> float:
        return sum(math.comb(k, j) * self.x_moment(j) * shift ** (k - j)
                   for j in range(k + 1))

    def read_moments(self, blocks: int = 1) -> tuple[float, float, float]:
        """E[Y_r], E[Y_r^2], E[Y_r^3] for Y_r = X + alpha B (equation (5))."""
        t = self.alpha * blocks
        return tuple(self._shifted(t, k) for k in (1, 2, 3))

    def write_moments(self, blocks: int = 1) -> tuple[float, float, float]:
        """Moments of Y_w = X + T + R_max + T (equation (6))."""
        t = self.alpha * blocks
        return tuple(self._shifted(2 * t + self.rmax, k) for k in (1, 2, 3))


def block_time(block_bytes: float, rate_bytes_per_s: float) -> float:
    """alpha: the time to transfer one block."""
    return block_bytes / rate_bytes_per_s


#: The disk of seed 002 (its "ct1992" preset): C = 1200 cylinders, a = 3 ms,
#: b = 0.5 ms, 3600 rpm (R_max = 16.7 ms), a 4 KiB block in 1.3 ms.
def seed002_disk(p_seq: float = 0.0) -> Disk:
    return Disk(cylinders=1200, seek_a=3e-3, seek_b=0.5e-3, rmax=16.7e-3,
                alpha=1.3e-3, p_seq=p_seq)
