"""RAID 5 and parity striping models of seed 002 (sections 4, 5, Appendix)."""
import math

import numpy as np
import pytest

from ssa import disk, queues, raid5, sim

D = disk.seed002_disk(p_seq=0.3)


def arr(p_read=0.25, n=16, **kw):
    return raid5.Array(D, n, p_read, **kw)


# -- service times --------------------------------------------------------------

def test_appendix_moments_are_the_shifted_x_moments():
    x = [D.x_moment(k) for k in range(4)]
    a, r = D.alpha, D.rmax
    y = raid5.y_rw_moments(D, 0.25)
    assert y[0] == pytest.approx(0.25 * (x[1] + a) + 0.75 * (x[1] + 2 * a + r))   # (12)
    assert y[1] == pytest.approx(D.read_moments()[1] * 0.25 + D.write_moments()[1] * 0.75)
    assert y[2] == pytest.approx(D.read_moments()[2] * 0.25 + D.write_moments()[2] * 0.75)
    assert raid5.lp_moments(D)[0] == pytest.approx(x[1] + 2 * a + r)                # (9)


def test_upper_bound_moments_match_the_appendix_algebra_and_bound_lp():
    up, app, lp = raid5.up_moments(D), raid5.up_moments_appendix(D), raid5.lp_moments(D)
    for u, v, w in zip(up, app, lp):
        assert u == pytest.approx(v, rel=1e-4)
        assert u > w
    # E[U_p] - E[L_p] = R_max P{X' >= X + R_max}: check that probability by sampling
    rng = np.random.default_rng(3)
    x, x2 = sim.sample_x(D, rng, 400_000), sim.sample_x(D, rng, 400_000)
    p = np.mean(x2 >= x + D.rmax)
    assert (up[0] - lp[0]) / D.rmax == pytest.approx(p, abs=0.002)


def test_max_formula_against_sampling():
    cx = queues.coxian_fit(0.01, 3e-4)
    rng = np.random.default_rng(5)
    n = 400_000
    x, x2 = sim.sample_x(D, rng, n), sim.sample_x(D, rng, n)
    q = cx.sample(rng, n)
    mc = np.maximum(x2, q + x).mean()
    assert raid5.e_max_x_v(D, cx) == pytest.approx(mc, rel=0.003)
    assert raid5.e_max_x_v(D, None) == pytest.approx(np.maximum(x, x2).mean(), rel=0.003)


# -- request sizes --------------------------------------------------------------

def test_size_distributions():
    assert raid5.sizes_uniform(15).sum() == pytest.approx(1)
    q = raid5.sizes_qgeo(15, 0.7, 0.7)
    assert q.sum() == pytest.approx(1) and q[0] == 0.7
    assert q[2] / q[1] == pytest.approx(0.3)
    with pytest.raises(ValueError):
        raid5.parse_sizes("qgeo:2:0.5", 15)
    with pytest.raises(ValueError):
        raid5.parse_sizes("zipf", 15)


def test_q1_q2_and_arrival_rates_eq_29_31():
    a = arr(sizes=raid5.sizes_uniform(15))
    q1, q2, rw, p = raid5.raid5_rates(a)
    # uniform on 1..15: mean 8; q1 = (15 - 8 + 1)/15 by direct counting too
    count = sum((15 - k + 1) for k in range(1, 16)) / 15 / 15
    assert q1 == pytest.approx(count) and q2 == pytest.approx(1 - count)
    assert rw == pytest.approx(8 / 16) and p == pytest.approx(0.75 * (q1 + 2 * q2) / 16)


# -- single block models --------------------------------------------------------

@pytest.mark.parametrize("p_read", [0.25, 0.75])
def test_bounds_order_and_read_time(p_read):
    a = arr(p_read)
    lam = 0.6 * raid5.maxrate_raid5(a)
    lb, ub = raid5.raid5(a, lam, "bs", "lb"), raid5.raid5(a, lam, "bs", "ub")
    simple, as_ = raid5.raid5(a, lam, "bs", "simple"), raid5.raid5(a, lam, "as")
    assert lb.overall < ub.overall
    assert simple.write < lb.write < as_.write         # max{X', V} >= V; AS waits longer
    assert as_.read == pytest.approx(lb.read)          # reads equal under both (Fig. 4)
    # (17): the read is the RW wait plus X + alpha, with (33) for the wait
    ylow, yp = raid5.y_rw_moments(D, p_read), raid5.lp_moments(D)
    qrw, _ = queues.low_wait_moments(a.p_write * lam / 16, yp, lam / 16, ylow)
    assert lb.read == pytest.approx(qrw + D.x_moment(1) + D.alpha)


def test_maxrate_is_where_utilization_reaches_one():
    for p_read in (0.25, 0.75):
        a = arr(p_read)
        m = raid5.maxrate_raid5(a)
        assert raid5.raid5(a, 0.999 * m).utilization == pytest.approx(0.999, rel=1e-6)
        assert math.isnan(raid5.raid5(a, 1.01 * m).overall)


def test_seed002_footnote_two_extra_rotations_are_negligible():
    # footnote 2: P{X' >= Q_p + X + 2 R_max} < 0.00015; Q_p = 0 is the worst case
    p2 = raid5.late_probability(D, 2)
    assert 0 < p2 < 0.00015
    assert raid5.late_probability(D, 1) == pytest.approx(
        (raid5.up_moments(D)[0] - raid5.lp_moments(D)[0]) / D.rmax, rel=1e-3)


def test_seed002_rmax_and_alpha():
    assert D.rmax == pytest.approx(60 / 3600, rel=0.01)       # 3600 rpm: 16.7 ms
    assert D.alpha == pytest.approx(4096 / (3 * 2 ** 20), rel=0.01)


@pytest.mark.parametrize("p_read,u", [(0.25, 0.3), (0.25, 0.6), (0.25, 0.8),
                                      (0.75, 0.3), (0.75, 0.6), (0.75, 0.8)])
def test_monte_carlo_agrees_with_lb_within_3_percent(p_read, u):
    a = arr(p_read)
    lam = u * raid5.maxrate_raid5(a)
    n = 400_000 if u >= 0.8 else 150_000
    s = sim.simulate_raid5_bs(D, 16, p_read, lam, requests=n, seed=11)
    lb = raid5.raid5(a, lam, "bs", "lb")
    assert s.utilization == pytest.approx(lb.utilization, rel=0.02)
    assert lb.overall == pytest.approx(s.overall, rel=0.03)


# -- parity striping -------------------------------------------------------------

def test_pstripe_without_skew_equals_raid5_for_single_blocks():
    a = arr(0.5)
    for bound in ("lb", "ub", "simple"):
        r, p = raid5.raid5(a, 150, "bs", bound), raid5.pstripe(a, 150, "bs", bound)
        assert p.overall == pytest.approx(r.overall, rel=1e-9)
    # and the multi-block formula at B = 1 agrees with the simplified (25)
    multi = raid5.Array(D, 16, 0.5, sizes=raid5.sizes_single(15))
    assert raid5.pstripe(multi, 150, "bs", "simple").write == \
        pytest.approx(raid5.raid5(a, 150, "bs", "simple").write, rel=1e-9)


def test_skew_rates_eq_26_27():
    a = arr(0.5, n=4, skew=2)
    p = a.disk_probabilities()
    assert p == pytest.approx(np.array([1, 4, 9, 16]) / 30)
    r0 = raid5.pstripe(arr(0.5, n=4), 40)
    r2 = raid5.pstripe(a, 40)
    assert r2.overall > r0.overall and r2.utilization > r0.utilization
    # the busiest disk limits the throughput (section 5.3)
    m = raid5.maxrate_pstripe(a)
    assert raid5.pstripe(a, 0.999 * m).utilization == pytest.approx(0.999, rel=1e-6)


def test_pstripe_multi_block_moments_eq_36_37():
    sizes = raid5.sizes_uniform(3)
    a = raid5.Array(D, 4, 0.25, sizes=sizes, blocks_per_track=12)
    (y1, y2), (p1, p2), eta = raid5.pstripe_service(a)
    assert eta == pytest.approx(np.mean([0, 1, 2]) / 12)
    x1, al, r = D.x_moment(1), D.alpha, D.rmax
    assert p1 == pytest.approx(x1 + 2 * al * 2 + (1 - eta) * r)
    assert y1 == pytest.approx(x1 + 1.75 * al * 2 + 0.75 * (1 - eta) * r)
    assert y2 > y1 * y1 and p2 > p1 * p1


# -- multiple blocks in RAID 5 -----------------------------------------------------

def test_raid5_multi_block_reduces_to_single_block_simplified():
    a1 = arr(0.5)
    am = arr(0.5, sizes=(1.0,) + (0.0,) * 14)
    assert am.single
    qg = arr(0.5, sizes=raid5.sizes_qgeo(15, 1.0, 0.5))     # sigma = 1: all single
    r1 = raid5.raid5(a1, 120, "bs", "simple")
    rq = raid5.raid5(qg, 120, "bs", "simple")
    assert rq.overall == pytest.approx(r1.overall, rel=1e-9)


def test_raid5_multi_block_is_slower_than_single_and_rejects_lb():
    qg = arr(0.75, sizes=raid5.sizes_qgeo(15, 0.7, 0.7))
    r = raid5.raid5(qg, 150, "bs", "simple")
    s = raid5.raid5(arr(0.75), 150, "bs", "simple")
    assert r.overall > s.overall
    with pytest.raises(ValueError, match="simplified"):
        raid5.raid5(qg, 150, "bs", "lb")
    with pytest.raises(ValueError):
        raid5.raid5(arr(0.5), 100, "as", "ub")


def test_max_of_k_coxians_against_order_statistics():
    cx = queues.coxian_fit(1.0, 2.0)                 # exponential, mean 1
    for k in (1, 2, 5):
        m1, m2 = queues.max_moments([cx], [k])
        h = sum(1 / i for i in range(1, k + 1))
        h2 = sum(1 / i ** 2 for i in range(1, k + 1))
        assert m1 == pytest.approx(h, rel=1e-5)              # E[max] = H_k
        assert m2 - m1 ** 2 == pytest.approx(h2, rel=1e-4)   # Var = sum 1/i^2


def test_bad_arrays():
    with pytest.raises(ValueError):
        raid5.Array(D, 2, 0.5)
    with pytest.raises(ValueError):
        raid5.Array(D, 4, 1.5)
    with pytest.raises(ValueError):
        raid5.Array(D, 4, 0.5, sizes=(0.5, 0.5))
    with pytest.raises(ValueError):
        raid5.raid5(arr(), -1)
