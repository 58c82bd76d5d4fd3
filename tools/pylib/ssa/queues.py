"""Queueing building blocks of seed 002 (Chen and Towsley, RAID 5 vs parity
striping): the non-preemptive two-class priority M/G/1 queue and the
K-stage Coxian two-moment fit.

A disk of seed 002 serves a high-priority class (parity updates, the P
queue) ahead of a low-priority class (reads and writes, the RW queue),
without preemption; both arrive as Poisson streams.  Service times enter
through their first three moments.

Notation: ``lam_h``/``lam_l`` arrival rates; ``h``/``l`` the service-time
moments (E[S], E[S^2], E[S^3]) of the high/low class.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence


def _moments(m: Sequence[float], name: str) -> tuple[float, float, float]:
    if len(m) != 3:
        raise ValueError(f"{name}: need three moments (E[S], E[S^2], E[S^3])")
    m1, m2, m3 = (float(x) for x in m)
    if m1 < 0 or m2 < m1 * m1 - 1e-12 or m3 < 0:
        raise ValueError(f"{name}: moments {m} are not those of a distribution")
    return m1, m2, m3


def _loads(lam_h, h, lam_l, l):
    if lam_h < 0 or lam_l < 0:
        raise ValueError("arrival rates must not be negative")
    rho_h = lam_h * h[0]
    rho = rho_h + lam_l * l[0]
    if rho >= 1:
        raise ValueError(f"unstable: utilization {rho:.3f} >= 1")
    return rho_h, rho


def high_wait_moments(lam_h: float, h: Sequence[float], lam_l: float,
                      l: Sequence[float]) -> tuple[float, float]:
    """E[Q_p], E[Q_p^2]: queueing time of the high-priority class.

    Seed 002, equations (19) and (20), with the high class's service time
    (L_p, or Y_p, in the seed) given by its moments ``h``.
    """
    h, l = _moments(h, "high"), _moments(l, "low")
    rho_h, _ = _loads(lam_h, h, lam_l, l)
    r2 = lam_l * l[1] + lam_h * h[1]          # twice the mean residual work
    r3 = lam_l * l[2] + lam_h * h[2]
    mean = r2 / (2 * (1 - rho_h))                                  # (19)
    second = r3 / (3 * (1 - rho_h)) + r2 * lam_h * h[1] / (2 * (1 - rho_h) ** 2)  # (20)
    return mean, second


def low_wait_moments(lam_h: float, h: Sequence[float], lam_l: float,
                     l: Sequence[float]) -> tuple[float, float]:
    """E[Q_rw], E[Q_rw^2]: queueing time of the low-priority class.

    Seed 002, equations (33) and (34).
    """
    h, l = _moments(h, "high"), _moments(l, "low")
    rho_h, rho = _loads(lam_h, h, lam_l, l)
    r2 = lam_l * l[1] + lam_h * h[1]
    r3 = lam_l * l[2] + lam_h * h[2]
    mean = r2 / (2 * (1 - rho_h) * (1 - rho))                      # (33)
    second = (r3 / (3 * (1 - rho_h) ** 2 * (1 - rho))              # (34)
              + r2 * lam_h * h[1] / (2 * (1 - rho_h) ** 3 * (1 - rho))
              + r2 ** 2 / (2 * (1 - rho_h) ** 2 * (1 - rho) ** 2))
    return mean, second


@dataclass(frozen=True)
class Coxian:
    """K-stage Coxian of seed 002, equation (21): an atom 1 - q at zero, then
    after each of the K exponential stages (rate mu) the next one is entered
    with probability q."""
    k: int
    q: float
    mu: float

    def moments(self) -> tuple[float, float]:
        """(E[xi], E[xi^2]) as given under equation (21)."""
        s1 = sum(self.q ** i for i in range(1, self.k + 1))
        s2 = sum(i * self.q ** i for i in range(1, self.k + 1))
        return s1 / self.mu, 2 * s2 / self.mu ** 2

    def sample(self, rng, n: int):
        """n samples (numpy Generator ``rng``), for simulation checks."""
        import numpy as np
        # stages taken: 0 with prob 1-q, i (1..K-1) with prob q^i (1-q), K with q^K
        probs = [1 - self.q] + [self.q ** i * (1 - self.q) for i in range(1, self.k)] \
            + [self.q ** self.k]
        stages = rng.choice(self.k + 1, size=n, p=np.asarray(probs) / sum(probs))
        return rng.gamma(np.maximum(stages, 1), 1 / self.mu) * (stages > 0)


def coxian_fit(mean: float, second: float) -> Coxian:
    """The Coxian of equation (21) with these first two moments.

    K is the integer with 1/C^2 <= K < 1/C^2 + 1 (C^2 the squared coefficient
    of variation); q and mu then solve the two moment equations.  For
    C^2 >= 1 that is K = 1 and q = 2 / (1 + C^2).
    """
    if mean <= 0 or second <= 0:
        raise ValueError("moments must be positive")
    c2 = second / mean ** 2 - 1
    if c2 <= 0:
        raise ValueError("a Coxian needs a positive coefficient of variation")
    k = max(1, math.ceil(1 / c2 - 1e-12))
    target = second / mean ** 2          # = 2 S2(q) / S1(q)^2, falls with q

    def ratio(q: float) -> float:
        s1 = sum(q ** i for i in range(1, k + 1))
        s2 = sum(i * q ** i for i in range(1, k + 1))
        return 2 * s2 / s1 ** 2

    if ratio(1.0) >= target:             # exactly K equal stages (Erlang-K)
        q = 1.0
    else:
        from scipy.optimize import brentq
        q = brentq(lambda x: ratio(x) - target, 1e-12, 1.0, xtol=1e-15, rtol=1e-15)
    s1 = sum(q ** i for i in range(1, k + 1))
    return Coxian(k=k, q=q, mu=s1 / mean)


# -- distributions of Coxians and of maxima (seed 002, sections 4.2.1, 5.1) --

def coxian_weights(cx: Coxian):
    """Probabilities of taking exactly 0, 1, ..., K stages."""
    w = [1 - cx.q] + [(1 - cx.q) * cx.q ** i for i in range(1, cx.k)] + [cx.q ** cx.k]
    return w


def coxian_cdf(cx: Coxian, t):
    """F(t) of the Coxian of equation (21): the atom 1 - q at zero plus a
    mixture of Erlang-i laws, i = 1..K.

    With the Erlang survival P{E_i > t} = sum_{j<i} e^{-mu t} (mu t)^j / j!,
    1 - F(t) = sum_j e^{-mu t} (mu t)^j / j! * W_j, W_j the probability of
    taking more than j stages; the Poisson terms are formed in logs.
    """
    import numpy as np
    from scipy.special import gammaln
    t = np.maximum(np.asarray(t, dtype=float), 0.0)
    w = np.asarray(coxian_weights(cx))
    more = (w[::-1].cumsum()[::-1])[1:]            # W_j = P{stages > j}, j = 0..K-1
    x = cx.mu * t.reshape(-1)
    j = np.arange(cx.k)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        logx = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -np.inf)
        logterm = -x + np.where(j > 0, j * logx, 0.0) - gammaln(j + 1)
    tail = more @ np.exp(logterm)
    return (1.0 - tail).reshape(t.shape)


def coxian_cont_cdf(cx: Coxian, t):
    """The continuous part of the Coxian CDF (without the atom at zero)."""
    return coxian_cdf(cx, t) - (1 - cx.q)


def _upper_limit(cdfs, counts, eps: float = 1e-12) -> float:
    """A t beyond which 1 - prod F_i(t)^n_i is below eps."""
    import numpy as np
    t = max(sum(c.moments()[0] for c in cdfs), 1e-12) * 1.5 ** np.arange(80)
    tail = sum(n * (1 - coxian_cdf(c, t)) for c, n in zip(cdfs, counts))
    ok = np.nonzero(tail < eps)[0]
    if not len(ok):
        raise ArithmeticError("no finite upper limit for the maximum")  # pragma: no cover
    return float(t[ok[0]])


def max_moments(cdfs: Sequence[Coxian], counts: Sequence[int] | None = None,
                points: int = 4001) -> tuple[float, float]:
    """E[M], E[M^2] of M, the maximum of independent Coxians: ``counts[i]``
    copies of ``cdfs[i]``.  E[M^j] = int_0^inf j t^(j-1) (1 - F_M(t)) dt with
    F_M the product of the CDFs (seed 002, section 5.1: (F_X F_Y)(t) is the
    CDF of the maximum)."""
    import numpy as np
    from scipy.integrate import simpson
    counts = [1] * len(cdfs) if counts is None else list(counts)
    if not cdfs or min(counts) < 0 or sum(counts) == 0:
        raise ValueError("need at least one variable")
    top = _upper_limit(cdfs, counts)
    t = np.linspace(0.0, top, points)
    fm = np.ones_like(t)
    for c, n in zip(cdfs, counts):
        if n:
            fm = fm * coxian_cdf(c, t) ** n
    surv = 1.0 - fm
    return float(simpson(surv, x=t)), float(simpson(2 * t * surv, x=t))


def sum_fit(*parts: tuple[float, float]) -> Coxian:
    """Coxian with the first two moments of a sum of independent variables
    given as (mean, second moment) pairs (the 'approximate by a Coxian with
    the same two moments' step of seed 002, section 5.1)."""
    mean = sum(m for m, _ in parts)
    var = sum(s - m * m for m, s in parts)
    return coxian_fit(mean, var + mean * mean)
