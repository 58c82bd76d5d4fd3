"""The disk-array model of seed 001 (sections 4-6, Appendix A)."""
import numpy as np
import pytest

from ssa import array as A

CFG = A.ArrayConfig()


def repairman(n, think, s):
    """Exact M/M/1//N (machine repairman): response time and throughput."""
    w = [1.0]
    for k in range(1, n + 1):
        w.append(w[-1] * (n - k + 1) * s / think)
    p0 = 1 / sum(w)
    x = (1 - p0) / s
    return n / x - think, x


@pytest.mark.parametrize("n,think,s", [(1, 0.05, 0.01), (5, 0.05, 0.01), (12, 0.02, 0.01),
                                       (8, 0.001, 0.004)])
def test_mva_single_queue_is_the_exact_machine_repairman(n, think, s):
    inp = A.Inputs(disk_service=s, parallel_overhead=0.0, disk_access=1.0,
                   cache_service=0.0, miss=1.0, disk_queue=0.0)
    p = A.mva(inp, n, think)
    r, x = repairman(n, think, s)
    assert p.response == pytest.approx(r, rel=1e-9)
    assert p.throughput == pytest.approx(x, rel=1e-9)
    assert p.queue == pytest.approx(x * r, rel=1e-9)     # Little


def test_mva_zero_think_time_is_m_times_service():
    inp = A.Inputs(0.01, 0.0, 1.0, 0.0, 1.0, 0.0)
    assert A.mva(inp, 7, 0.0).response == pytest.approx(0.07)


def test_seed001_positioning_constants():
    assert A.position_time(CFG, 0) == pytest.approx(3.53e-3 + 8.81e-3)       # (1)
    assert A.position_time(CFG, 3) == pytest.approx(3.53e-3 + 8.81e-3 / 2)
    assert A.position_time(CFG, 2, sequential=True) == pytest.approx(-2.73e-3 + 2 * 3.68e-3)
    assert A.position_time(CFG, 0.5, sequential=True) == 0.0                 # clamped
    assert A.position_time(CFG, 5, sequential=True) == A.position_time(CFG, 5)


def test_split_and_access_probability_for_the_four_policies():
    big = 96 * 1024                   # stripe_width * stripe unit: seed's example
    want = {(True, "transfer"): (6, 1), (True, "queue"): (3, 1),
            (False, "transfer"): (6, 1), (False, "queue"): (3, 2)}
    for (coal, bal), (k, v) in want.items():
        s = A.split(A.with_policy(CFG, coal, bal), big)
        assert (s.disks_used, s.ios_per_disk) == (k, v)
    # (3): num_diskIOs = stripe_width (transfer) or stripe_width / 2 (queue)
    s = A.split(CFG, 256 * 1024)
    assert A.disk_access_probability(CFG, s, 1.0) == 1.0
    s = A.split(A.with_policy(CFG, True, "queue"), 256 * 1024)
    assert A.disk_access_probability(CFG, s, 0.5) == pytest.approx(0.5 * 3 / 6)
    assert A.split(CFG, 4096).disks_used == 1


def test_parallel_overhead_against_sampled_beta_maxima():
    mean = 8e-3
    span = CFG.rotation + CFG.max_read_seek
    m = mean / span
    rng = np.random.default_rng(2)
    x = rng.beta(4 * m, 4 * (1 - m), size=(200_000, 4)) * span
    assert A.max_position_time(CFG, mean, 4) == pytest.approx(x.max(axis=1).mean(), rel=0.005)
    assert A.parallel_overhead(CFG, mean, 1) == 0.0
    assert 0 < A.parallel_overhead(CFG, mean, 2) < A.parallel_overhead(CFG, mean, 6)


def test_approximate_disk_queue():
    s = A.split(CFG, 64 * 1024)
    dap = A.disk_access_probability(CFG, s, 1.0)
    assert A.approx_disk_queue(CFG, s, 6, 0.0, 1.0, 0.001, False) == pytest.approx(6 * dap)
    q = [A.approx_disk_queue(CFG, s, 6, z, 1.0, 0.001, False) for z in (0.01, 0.03, 0.1)]
    assert 6 * dap > q[0] > q[1] > q[2] > 0


def test_read_curves_and_the_load_balancing_finding():
    pts = A.reads(CFG, 16 * 1024, 12)
    r = [p.response for p in pts]
    x = [p.throughput for p in pts]
    assert all(b > a for a, b in zip(r, r[1:])) and all(b > a for a, b in zip(x, x[1:]))
    # Fig. 7: with equal-sized large requests, transfer-time reducing balance
    # loses to queue-length reducing balance as the MPL grows
    tr = A.reads(A.with_policy(CFG, True, "transfer"), 96 * 1024, 12)
    qu = A.reads(A.with_policy(CFG, True, "queue"), 96 * 1024, 12)
    assert tr[-1].response > qu[-1].response
    # a cache hit costs only the cache
    hit = A.reads(A.ArrayConfig(cache_hit=0.9), 16 * 1024, 4)
    assert hit[-1].response < pts[3].response


def test_mm1k():
    p = A.mm1k(1.0, 2.0, 3)
    assert p == pytest.approx(np.array([4, 2, 1]) / 7)
    assert A.mm1k(5.0, 5.0, 4) == pytest.approx([0.25] * 4)
    assert A.mm1k(1e3, 1.0, 300).sum() == pytest.approx(1.0)      # no overflow


def test_write_back_and_direct_writes():
    small = A.writes(CFG, 16 * 1024, 8)
    for p in small:
        assert p.response > 0
        assert p.throughput * p.response == pytest.approx(p.queue)
    # disks far faster than the stream: the cache is never full and a write
    # costs its transfer into the cache only
    fast = A.ArrayConfig(pos_a=0.0, pos_b=0.0, disk_rate=1e15)
    one = A.write_back(fast, 16 * 1024, 1, 0.01)
    assert one.response == pytest.approx(16 * 1024 / fast.cache_rate, rel=1e-6)
    # a slow destage fills it: throughput falls to mu / blocks
    slow = A.write_back(CFG, 16 * 1024, 8, 0.0)
    svc = A.position_time(CFG, slow.disk_queue) + CFG.write_seek - CFG.read_seek \
        + 16 * 1024 / CFG.disk_rate
    assert slow.throughput == pytest.approx(CFG.disks / (2 * svc), rel=1e-3)
    # larger than two stripes: direct to the disks, slower than reads
    big = A.writes(CFG, 256 * 1024, 4)
    rd = A.reads(CFG, 256 * 1024, 4)
    assert big[-1].response > rd[-1].response


def test_bad_configs():
    with pytest.raises(ValueError):
        A.ArrayConfig(disks=5)
    with pytest.raises(ValueError):
        A.ArrayConfig(balance="random")
    with pytest.raises(ValueError):
        A.ArrayConfig(destage_threshold=10, max_dirty_blocks=10)
    with pytest.raises(ValueError):
        A.reads(CFG, 4096, 0)
    with pytest.raises(ValueError):
        A.split(CFG, 0)
