"""Stripe-unit formulas of seed 000, section 3.4."""
import math

import pytest

from ssa import bsu

# Seed 000, Table 1 (SSA disk): average seek 8.8 ms, average rotational
# latency 4.17 ms, transfer rate 7.9 MB/s (MB = 10**6 bytes).
SSA_POSITIONING_S = (8.8 + 4.17) / 1e3
SSA_TRANSFER_BPS = 7.9e6


def test_lee_katz_hand_value():
    # sqrt(0.01297 s * 7.9e6 B/s * (2 - 1) * 1 MiB / 4 disks), by hand:
    # 0.01297 * 7.9e6 = 102463; * 1048576 / 4 = 2.68600e10; sqrt = 163890.39
    got = bsu.lee_katz_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 2, 1 << 20, 4)
    assert got == pytest.approx(163890.39, rel=1e-6)


def test_lee_katz_scaling():
    base = bsu.lee_katz_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 2, 64 * 1024, 4)
    # sqrt in request size, in (MPL - 1), and inverse sqrt in disks
    assert bsu.lee_katz_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 2, 4 * 64 * 1024, 4) \
        == pytest.approx(2 * base)
    assert bsu.lee_katz_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 5, 64 * 1024, 4) \
        == pytest.approx(2 * base)
    assert bsu.lee_katz_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 2, 64 * 1024, 16) \
        == pytest.approx(base / 2)


def test_lee_katz_mpl_one_stripes_over_all_disks():
    assert bsu.lee_katz_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 1, 1 << 20, 4) == 0


@pytest.mark.parametrize("mpl", [2, 4])
def test_lee_katz_seed_table3_grid_is_monotone(mpl):
    # The grid of seed 000 Table 3 (values withheld from our copy): the
    # formula grows with request size from 8 KB to 4 MB at MPL 2 and 4.
    sizes = [8 << 10, 32 << 10, 128 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20]
    values = [bsu.lee_katz_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, mpl, q, 4)
              for q in sizes]
    assert values == sorted(values)
    assert values[-1] / values[0] == pytest.approx(math.sqrt(sizes[-1] / sizes[0]))


def test_chen_patterson_hand_value():
    # 0.25 * 0.01297 * 7.9e6 * (4 - 1) + 512 = 76847.25 + 512
    got = bsu.chen_patterson_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 4, 0.25)
    assert got == pytest.approx(77359.25)


def test_chen_patterson_linear_and_sector_floor():
    one = bsu.chen_patterson_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 1, 0.25)
    assert one == bsu.SECTOR_BYTES
    a = bsu.chen_patterson_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 2, 0.25) - 512
    b = bsu.chen_patterson_bsu(SSA_POSITIONING_S, SSA_TRANSFER_BPS, 3, 0.25) - 512
    assert b == pytest.approx(2 * a)


@pytest.mark.parametrize("kwargs", [
    dict(positioning_s=0), dict(transfer_bps=-1), dict(mpl=0.5),
    dict(request_bytes=0), dict(disks=0), dict(disks=2.5),
])
def test_lee_katz_rejects_bad_input(kwargs):
    args = dict(positioning_s=0.01, transfer_bps=1e6, mpl=2, request_bytes=4096, disks=4)
    args.update(kwargs)
    with pytest.raises(ValueError):
        bsu.lee_katz_bsu(**args)


def test_chen_patterson_rejects_bad_input():
    with pytest.raises(ValueError):
        bsu.chen_patterson_bsu(0.01, 1e6, 2, slope=-0.1)
    with pytest.raises(ValueError):
        bsu.chen_patterson_bsu(0.01, 0, 2)
