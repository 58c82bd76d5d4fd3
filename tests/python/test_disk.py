"""The disk of seed 002, section 4.1 (equations 2-6)."""
import math

import numpy as np
import pytest
from scipy import integrate

from ssa import disk

D = disk.seed002_disk(p_seq=0.2)


def test_seed002_numbers():
    assert D.smax == pytest.approx(3e-3 + 0.5e-3 * math.sqrt(1200))   # 20.32 ms
    # 4096-byte block at 3 Mb/s (Mb = 2^20 bytes) is the seed's 1.3 ms
    assert disk.block_time(4096, 3 * 2 ** 20) == pytest.approx(1.3e-3, abs=0.01e-3)
    # the seed's parameters fall in case 1 of equation (4): R_max <= b sqrt(C)
    assert D.rmax <= D.seek_b * math.sqrt(D.cylinders)


@pytest.mark.parametrize("ps", [0.0, 1 / 1200, 0.2, 0.7])
def test_x_pdf_is_a_density_with_the_moment_mean(ps):
    d = disk.seed002_disk(ps)
    top = d.smax + d.rmax
    pts = [d.seek_a, d.rmax, d.rmax + d.seek_a, d.smax]
    mass = integrate.quad(d.x_pdf, 0, top, points=pts, limit=200)[0]
    mean = integrate.quad(lambda x: x * d.x_pdf(x), 0, top, points=pts, limit=200)[0]
    second = integrate.quad(lambda x: x * x * d.x_pdf(x), 0, top, points=pts, limit=200)[0]
    assert mass == pytest.approx(1.0, abs=1e-9)
    assert mean == pytest.approx(d.x_moment(1), rel=1e-7)
    assert second == pytest.approx(d.x_moment(2), rel=1e-7)


def test_x_pdf_case2_small_disk():
    # R_max > b sqrt(C): case 2 of equation (4)
    d = disk.Disk(cylinders=100, seek_a=2e-3, seek_b=0.5e-3, rmax=16.7e-3,
                  alpha=1e-3, p_seq=0.1)
    assert d.rmax > d.seek_b * math.sqrt(d.cylinders)
    mass = integrate.quad(d.x_pdf, 0, d.smax + d.rmax, limit=200,
                          points=[d.seek_a, d.smax, d.rmax])[0]
    assert mass == pytest.approx(1.0, abs=1e-9)


def test_pdf_discontinuity_at_rmax_grows_with_p_seq():
    # seed 002, Figure 2: the jump at R_max is the zero-seek mass / R_max
    for ps in (0.1, 0.5):
        d = disk.seed002_disk(ps)
        jump = d.x_pdf(d.rmax - 1e-9) - d.x_pdf(d.rmax + 1e-9)
        assert jump == pytest.approx(ps / d.rmax, rel=1e-5)


def test_seek_moments_against_the_discrete_distance():
    # the seed's discrete D: P{D=i} = (1-p_s) 2(C-i)/(C(C-1)), i = 1..C-1
    d = D
    i = np.arange(1, d.cylinders)
    p = (1 - d.p_seq) * 2 * (d.cylinders - i) / (d.cylinders * (d.cylinders - 1))
    s = d.seek_a + d.seek_b * np.sqrt(i)
    assert p.sum() + d.p_seq == pytest.approx(1.0)
    assert d.seek_moment(1) == pytest.approx((p * s).sum(), rel=0.01)
    assert d.seek_moment(2) == pytest.approx((p * s * s).sum(), rel=0.01)


def test_service_moments_against_monte_carlo():
    rng = np.random.default_rng(3)
    n = 1_000_000
    c = D.cylinders
    moving = rng.random(n) >= D.p_seq
    dist = c * (1 - np.sqrt(1 - rng.random(n)))          # inverse of 2x/C - x^2/C^2
    s = np.where(moving, D.seek_a + D.seek_b * np.sqrt(dist), 0.0)
    x = s + rng.uniform(0, D.rmax, n)
    yr = x + D.alpha
    yw = x + 2 * D.alpha + D.rmax
    for sample, moments in ((yr, D.read_moments()), (yw, D.write_moments())):
        for k in (1, 2, 3):
            assert (sample ** k).mean() == pytest.approx(moments[k - 1], rel=0.005)


def test_write_is_read_plus_rotation_and_transfer():
    r, w = D.read_moments(), D.write_moments()
    assert w[0] - r[0] == pytest.approx(D.rmax + D.alpha)
    # multiple blocks: T = alpha B
    assert D.read_moments(4)[0] - D.read_moments(1)[0] == pytest.approx(3 * D.alpha)


def test_bad_disk_rejected():
    with pytest.raises(ValueError):
        disk.Disk(cylinders=1, seek_a=0, seek_b=0, rmax=1, alpha=1, p_seq=0)
    with pytest.raises(ValueError):
        disk.seed002_disk(p_seq=1.5)


def test_mean_seek_closed_form():
    # p_s = 0: E[sqrt(D)] = (8/15) sqrt(C) for the triangular density
    d = disk.seed002_disk(0.0)
    assert d.seek_moment(1) == pytest.approx(
        d.seek_a + d.seek_b * 8 / 15 * math.sqrt(d.cylinders), rel=1e-12)
