"""Non-preemptive priority queue and Coxian fit of seed 002 (eqs. 19-21, 33-34)."""
import collections

import numpy as np
import pytest

from ssa import queues


def exp_moments(mean):
    return (mean, 2 * mean ** 2, 6 * mean ** 3)


def det_moments(d):
    return (d, d ** 2, d ** 3)


# -- limiting cases: one class is an M/G/1 FIFO queue ----------------------

@pytest.mark.parametrize("lam,s", [(0.5, exp_moments(1.0)), (0.8, det_moments(1.0)),
                                   (30.0, exp_moments(0.02))])
def test_low_class_alone_is_pollaczek_khinchine_and_takacs(lam, s):
    mean, second = queues.low_wait_moments(0.0, (0, 0, 0), lam, s)
    rho = lam * s[0]
    pk = lam * s[1] / (2 * (1 - rho))                       # Pollaczek-Khinchine
    takacs = 2 * pk ** 2 + lam * s[2] / (3 * (1 - rho))     # Takacs
    assert mean == pytest.approx(pk)
    assert second == pytest.approx(takacs)


def test_high_class_alone_is_mm1():
    lam, mu = 0.6, 1.0
    mean, second = queues.high_wait_moments(lam, exp_moments(1 / mu), 0.0, (0, 0, 0))
    assert mean == pytest.approx(lam / (mu * (mu - lam)))   # M/M/1 waiting time
    # M/M/1: W is 0 w.p. 1-rho, else exp(mu - lam): E[W^2] = 2 rho / (mu-lam)^2
    assert second == pytest.approx(2 * (lam / mu) / (mu - lam) ** 2)


def test_cobham_textbook_example_and_conservation_law():
    # two classes, exponential service of mean 1: W0 = 0.5, rho1 = .2, rho = .5
    wh, _ = queues.high_wait_moments(0.2, exp_moments(1), 0.3, exp_moments(1))
    wl, _ = queues.low_wait_moments(0.2, exp_moments(1), 0.3, exp_moments(1))
    assert wh == pytest.approx(0.625)
    assert wl == pytest.approx(1.25)
    # Kleinrock's conservation law: sum rho_i W_i = rho * W_FCFS (M/M/1: 1.0)
    assert 0.2 * wh + 0.3 * wl == pytest.approx(0.5 * 1.0)


def test_non_preemptive_high_class_against_preemptive_resume():
    # textbook (Kleinrock vol. 2, 3.6-3.7): under preemptive resume the high
    # class waits as if alone, W = lam_h E[S_h^2] / (2 (1 - rho_h)); without
    # preemption it also waits out the residual of a low customer in
    # service, lam_l E[S_l^2] / (2 (1 - rho_h)) more.
    lam_h, lam_l, sh, sl = 0.3, 0.4, exp_moments(1.0), det_moments(1.2)
    wh, _ = queues.high_wait_moments(lam_h, sh, lam_l, sl)
    preemptive = lam_h * sh[1] / (2 * (1 - lam_h * sh[0]))
    assert wh - preemptive == pytest.approx(lam_l * sl[1] / (2 * (1 - lam_h * sh[0])))
    assert queues.high_wait_moments(lam_h, sh, 0.0, (0, 0, 0))[0] == pytest.approx(preemptive)


def test_unstable_and_bad_moments_rejected():
    with pytest.raises(ValueError):
        queues.low_wait_moments(0.5, exp_moments(1), 0.6, exp_moments(1))
    with pytest.raises(ValueError):
        queues.high_wait_moments(0.1, (1.0, 0.5, 1.0), 0.1, exp_moments(1))


def simulate_np_priority(lam_h, sh, lam_l, sl, n, seed=1):
    """Waiting times of a non-preemptive two-class M/G/1 queue (event loop)."""
    rng = np.random.default_rng(seed)
    lam = lam_h + lam_l
    t = np.cumsum(rng.exponential(1 / lam, n))
    high = rng.random(n) < lam_h / lam
    svc = np.where(high, sh(rng, n), sl(rng, n))
    waits = {True: [], False: []}
    free, i = 0.0, 0
    qh, ql = collections.deque(), collections.deque()
    while i < n or qh or ql:
        if not qh and not ql:
            free = max(free, t[i])
        while i < n and t[i] <= free:
            (qh if high[i] else ql).append(i)
            i += 1
        j = qh.popleft() if qh else ql.popleft()
        waits[bool(high[j])].append(free - t[j])
        free += svc[j]
    return np.array(waits[True]), np.array(waits[False])


def test_moments_against_simulation():
    lam_h, lam_l = 0.25, 0.45                      # rho = 0.7
    sh = lambda rng, n: rng.exponential(1.0, n)    # noqa: E731
    sl = lambda rng, n: np.full(n, 1.0)            # noqa: E731  deterministic
    wh, wl = simulate_np_priority(lam_h, sh, lam_l, sl, 1_500_000)
    mh = queues.high_wait_moments(lam_h, exp_moments(1), lam_l, det_moments(1))
    ml = queues.low_wait_moments(lam_h, exp_moments(1), lam_l, det_moments(1))
    assert wh.mean() == pytest.approx(mh[0], rel=0.03)
    assert (wh ** 2).mean() == pytest.approx(mh[1], rel=0.05)
    assert wl.mean() == pytest.approx(ml[0], rel=0.03)
    assert (wl ** 2).mean() == pytest.approx(ml[1], rel=0.05)


# -- Coxian fit (eq. 21) ------------------------------------------------------

@pytest.mark.parametrize("mean,c2", [(1.0, 3.0), (2.0, 1.0), (0.5, 0.5), (1.0, 0.3),
                                     (3.0, 0.25), (1.0, 0.07), (0.01, 1.7)])
def test_coxian_reproduces_both_moments(mean, c2):
    second = (1 + c2) * mean ** 2
    cx = queues.coxian_fit(mean, second)
    assert 1 / c2 - 1e-9 <= cx.k < 1 / c2 + 1
    assert 0 < cx.q <= 1
    m1, m2 = cx.moments()
    assert m1 == pytest.approx(mean, rel=1e-9)
    assert m2 == pytest.approx(second, rel=1e-9)


def test_coxian_special_cases():
    assert queues.coxian_fit(2.0, 8.0) == queues.Coxian(k=1, q=1.0, mu=0.5)  # exponential
    erl = queues.coxian_fit(1.0, 1.25)                                        # Erlang-4
    assert erl.k == 4 and erl.q == 1.0 and erl.mu == pytest.approx(4.0)
    with pytest.raises(ValueError):
        queues.coxian_fit(1.0, 1.0)                                           # deterministic


def test_coxian_sampling_matches_moments():
    cx = queues.coxian_fit(1.0, 1.6)
    x = cx.sample(np.random.default_rng(7), 400_000)
    assert x.mean() == pytest.approx(1.0, rel=0.01)
    assert (x ** 2).mean() == pytest.approx(1.6, rel=0.02)
