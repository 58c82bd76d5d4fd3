"""The array model's options for a volume of emulated disks:
rotation-only parallel overhead, a mirrored pair as a two-server station,
the minimum disk queue and the positioning law fitted on a LOOK disk."""
import math
from dataclasses import replace

import numpy as np
import pytest

from ssa import array as A
from ssa import experiment as ex

ROT = 6e-3


def test_defaults_are_the_seeds_model():
    cfg = A.ArrayConfig()
    assert (cfg.overhead, cfg.pair_queue, cfg.min_disk_queue, cfg.uncoalesced) == \
        ("beta", "random", 0.0, "random")
    # the documented example (Documentation/models.rst): queue balance, 96 KB
    r = A.reads(A.with_policy(cfg, True, "queue"), 96 * 1024, 6)
    assert r[0].response * 1e3 == pytest.approx(17.225, abs=1e-3)
    assert r[-1].response * 1e3 == pytest.approx(35.995, abs=1e-3)


@pytest.mark.parametrize("bad", [{"overhead": "x"}, {"pair_queue": "x"},
                                 {"min_disk_queue": -1}, {"uncoalesced": "x"}])
def test_bad_options_are_refused(bad):
    with pytest.raises(ValueError):
        A.ArrayConfig(**bad)


@pytest.mark.parametrize("n", [2, 3, 6])
def test_rotation_overhead_is_the_max_of_uniform_rotations(n):
    rng = np.random.default_rng(7)
    u = rng.random((200000, n)) * ROT
    want = u.max(axis=1).mean() - u.mean()
    assert A.rotation_overhead(ROT, n) == pytest.approx(want, rel=0.01)
    assert A.rotation_overhead(ROT, 1) == 0.0


def test_rotation_overhead_does_not_depend_on_the_mean_position():
    cfg = A.ArrayConfig(overhead="rotation")
    assert A.parallel_overhead(cfg, 9e-3, 6) == A.parallel_overhead(cfg, 5e-3, 6) \
        == pytest.approx(ROT * (6 / 7 - 0.5))
    # the seed's beta over a turn plus 14.2 ms is much wider
    assert A.parallel_overhead(A.ArrayConfig(), 9.76e-3, 6) > 2 * A.rotation_overhead(ROT, 6)


def test_look_positioning_one_stream_is_random_seek_plus_half_a_turn():
    c, sa, sb = 362, 1e-3, 499e-6
    d = np.abs(np.arange(c)[:, None] - np.arange(c)[None, :]).ravel()
    seek = np.where(d > 0, sa + sb * np.sqrt(d), 0.0).mean()
    got = A.look_positioning(1, c, sa, sb, ROT, requests=8000)
    assert got == pytest.approx(seek + ROT / 2, rel=0.03)


def test_look_positioning_falls_with_the_queue():
    t = [A.look_positioning(q, 362, 1e-3, 499e-6, ROT, requests=2000) for q in (1, 4, 12)]
    assert t[0] > t[1] > t[2] > ROT / 2


def test_fit_queue_law_recovers_a_and_b():
    q = np.arange(1, 13)
    a, b = A.fit_queue_law(q, 3e-3 + 8e-3 / np.sqrt(1 + q))
    assert (a, b) == (pytest.approx(3e-3), pytest.approx(8e-3))
    with pytest.raises(ValueError):
        A.fit_queue_law([1], [1.0])


def test_fit_positioning_of_the_lab_cheetah():
    a, b = A.fit_positioning(362, 1e-3, 499e-6, ROT, 16, 2000)
    assert 3.4e-3 < a < 4.0e-3 and 7.2e-3 < b < 8.1e-3
    # one request: about the random seek (6.06 ms) plus half a turn
    assert a + b / math.sqrt(2) == pytest.approx(9.06e-3, rel=0.03)


def test_two_server_station_does_not_queue_the_second_request():
    inp = A.Inputs(disk_service=0.01, parallel_overhead=0.001, disk_access=0.5,
                   cache_service=0.0, miss=1.0, disk_queue=1.0, servers=2, station_visit=1.0)
    assert A.mva(inp, 1, 0.0).response == pytest.approx(0.011)
    assert A.mva(inp, 2, 0.0).response == pytest.approx(0.011)
    # saturated: M requests at two servers, each request visiting the station
    r12 = A.mva(inp, 12, 0.0).response
    assert r12 == pytest.approx(0.001 + 0.01 + 0.005 * (11 - 1), rel=0.02)
    # one server: A.1's term, dap * service * queue
    one = A.Inputs(0.01, 0.001, 1.0, 0.0, 1.0, 1.0)
    assert A.mva(one, 2, 0.0).response == pytest.approx(0.011 + 0.01 * 1.0)


def test_pair_queue_applies_to_queue_balance_reads_only():
    cfg = A.ArrayConfig(pair_queue="shortest", min_disk_queue=1)
    q = A.read_inputs(A.with_policy(cfg, True, "queue"), 96 * 1024, 1, 0.0)
    assert (q.servers, q.station_visit) == (2, pytest.approx(1.0))
    assert q.disk_queue == 1.0                     # M dap = 0.5, at least its own I/O
    t = A.read_inputs(A.with_policy(cfg, True, "transfer"), 96 * 1024, 1, 0.0)
    assert t.servers == 1 and t.station_visit is None


def _fig6_point(mpl, **model):
    spec = ex.catalogue()["seed001-fig6"]
    p = next(p for p in ex.expand(spec) if p["workload"]["mpl"] == mpl
             and p["workload"]["sizes"] == "fixed:6")
    p["model"] = {"kind": "array", "coalescing": "on", "balance": "transfer", **model}
    return p


def test_emulated_positioning_from_the_spec_disk():
    a, b, rot = ex.emulated_positioning(_fig6_point(1))
    assert rot == pytest.approx(ROT)
    assert 3.4e-3 < a < 4.0e-3 and 7.2e-3 < b < 8.1e-3


def test_model_point_with_the_options():
    seed = ex.model_point(_fig6_point(1))["model"]["read_s"]
    opts = ex.model_point(_fig6_point(1, positioning="emulated", overhead="rotation",
                                      cache_mbps=0, min_disk_queue=1))["model"]["read_s"]
    assert seed == pytest.approx(17.61e-3, rel=0.01)
    # one request: random seek + half a turn + 16 KB + the max of six rotations
    want = 9.06e-3 + 16384 / 31e6 + A.rotation_overhead(ROT, 6)
    assert opts == pytest.approx(want, rel=0.03)
    with pytest.raises(ValueError):
        ex.model_point(_fig6_point(1, positioning="measured"))


def test_track_pass_charges_each_later_io_its_gap_and_the_turn_a_boundary_costs():
    cfg = A.ArrayConfig(uncoalesced="track")
    gap = cfg.stripe_unit / cfg.disk_rate          # one 16 KB unit, 0.53 ms
    track = cfg.disk_rate * cfg.rotation           # 186 KB a turn
    # a boundary falls in a one-unit gap with chance 16 / 186 and then costs a turn
    want = gap + cfg.stripe_unit / track * cfg.rotation
    assert A.track_pass(cfg, 3, 1) == pytest.approx(2 * want)
    assert want == pytest.approx(2 * gap)
    assert A.track_pass(cfg, 1, 1) == 0.0
    assert A.track_pass(cfg, 4, 0) == 0.0           # contiguous units: no gap, no boundary


def test_track_split_is_one_visit_a_disk():
    seed = A.ArrayConfig(coalescing=False)
    track = replace(seed, uncoalesced="track")
    s0, s1 = A.split(seed, 256 * 1024), A.split(track, 256 * 1024)
    assert (s0.disks_used, s1.disks_used) == (6, 6)
    assert s0.ios_per_disk == pytest.approx(16 / 6) and s1.ios_per_disk == 1.0
    assert s1.io_bytes == pytest.approx(256 * 1024 / 6)
    # transfer balance deals a set's units over both copies: one unit between
    assert s1.extra == pytest.approx(A.track_pass(track, 16 / 6, 1))
    # queue balance keeps a set's units on one copy: contiguous, nothing between
    q = replace(track, balance="queue")
    assert A.split(q, 256 * 1024).extra == 0.0
    # coalescing ignores the option
    assert A.split(replace(track, coalescing=True), 256 * 1024) == A.split(
        replace(seed, coalescing=True), 256 * 1024)


def test_track_sits_between_coalesced_and_the_seeds_random_positioning():
    seed = A.ArrayConfig(coalescing=False)
    for kb in (128, 256):
        rand = A.reads(seed, kb * 1024, 4)
        track = A.reads(replace(seed, uncoalesced="track"), kb * 1024, 4)
        co = A.reads(replace(seed, coalescing=True), kb * 1024, 4)
        for r, t, c in zip(rand, track, co):
            assert c.response < t.response < r.response


def test_member_latency_adds_to_every_disk_io():
    """A fixed time per disk I/O (members over a network): at one stream and
    no think time the disk time of a request grows by it once per visit, and
    uncoalesced I/Os pay it each."""
    base = A.ArrayConfig(coalescing=True)
    net = replace(base, member_latency=0.5e-3)
    s = A.split(base, 96 * 1024)
    _, svc0 = A._service(base, s, 1.0, False, False)
    _, svc1 = A._service(net, s, 1.0, False, False)
    assert svc1 - svc0 == pytest.approx(s.ios_per_disk * 0.5e-3)
    un = replace(base, coalescing=False)
    su = A.split(un, 256 * 1024)
    _, u0 = A._service(un, su, 1.0, False, False)
    _, u1 = A._service(replace(un, member_latency=0.5e-3), su, 1.0, False, False)
    assert su.ios_per_disk > 1
    assert u1 - u0 == pytest.approx(su.ios_per_disk * 0.5e-3)
    # and the response time at M = 1 grows, by at least that
    r0 = A.reads(base, 96 * 1024, 1)[0].response
    r1 = A.reads(net, 96 * 1024, 1)[0].response
    assert r1 - r0 >= 0.5e-3 - 1e-12
    with pytest.raises(ValueError):
        A.ArrayConfig(member_latency=-1e-3)


def test_destage_queue_and_cache_overhead():
    """destage_queue fixes the queue the destage service time is taken at,
    whatever the clients' stream; cache_overhead adds to every request's
    cache service (reads and writes)."""
    cfg = A.ArrayConfig(destage_threshold=96, max_dirty_blocks=128)
    kb16 = 16 * 1024
    # saturated write-back: response = M * units / mu, mu = W / (2 svc(q))
    for q in (1.0, 2.4, 6.0):
        c = replace(cfg, destage_queue=q)
        _, svc = A._service(c, A.Split(1, 1.0, c.stripe_unit), q, False, True)
        mu = c.disks / (2 * svc)
        for m in (1, 12):
            p = A.write_back(c, kb16, m, 0.0)
            assert p.response == pytest.approx(m / mu, rel=1e-3)
    # a longer destage queue is a shorter service (LOOK): faster destaging
    slow = A.write_back(replace(cfg, destage_queue=1.0), kb16, 4, 0.0).response
    fast = A.write_back(replace(cfg, destage_queue=6.0), kb16, 4, 0.0).response
    assert fast < slow
    # never full (long think): the response is the cache service, plus the overhead
    idle = A.write_back(cfg, kb16, 1, 1.0).response
    over = A.write_back(replace(cfg, cache_overhead=0.26e-3), kb16, 1, 1.0).response
    assert idle == pytest.approx(kb16 / cfg.cache_rate, rel=1e-3)
    assert over - idle == pytest.approx(0.26e-3, rel=1e-2)
    r0 = A.reads(cfg, 96 * 1024, 1)[0].response
    r1 = A.reads(replace(cfg, cache_overhead=1e-3), 96 * 1024, 1)[0].response
    assert r1 - r0 == pytest.approx(1e-3, rel=1e-3)
    with pytest.raises(ValueError):
        A.ArrayConfig(destage_queue=-1)


def test_destage_request_runs():
    """destage = "request": one unit is the seed's mu; a request of several
    units destaged together (one write a pair) drains faster than unit by
    unit, and the saturated response is M * units / mu."""
    cfg = A.ArrayConfig(destage_threshold=96, max_dirty_blocks=128, destage_queue=2.4)
    req = replace(cfg, destage="request")
    kb = 16 * 1024
    assert A.write_back(req, kb, 4, 0.0).response == \
        pytest.approx(A.write_back(cfg, kb, 4, 0.0).response)
    for n in (4, 6):
        assert A.write_back(req, n * kb, 8, 0.0).response < \
            A.write_back(cfg, n * kb, 8, 0.0).response
    # 6 units over 3 pairs: three writes of 2 units, mu = 6 * 3 / (3 * svc(2 units))
    _, svc2 = A._service(req, A.Split(1, 1.0, 2 * kb), 2.4, False, True)
    assert A.write_back(req, 6 * kb, 12, 0.0).response == pytest.approx(12 * 6 / (6 / svc2),
                                                                        rel=1e-3)
    with pytest.raises(ValueError):
        A.ArrayConfig(destage="block")


def test_sequential_positioning_one_stream_is_half_a_turn():
    """One sequential stream: no seek, and the request, back after its
    siblings and the cache, finds the platter anywhere: half a turn."""
    got = A.look_sequential_positioning(1, 362, 1e-3, 499e-6, ROT, requests=8000)
    assert got == pytest.approx(ROT / 2, rel=0.03)


def test_sequential_positioning_sweeps_across_the_streams():
    """Two streams half a stroke apart: LOOK goes from one to the other
    every time; three: a third of the stroke each time."""
    for q in (2, 3):
        seek = 1e-3 + 499e-6 * math.sqrt(362 // q)
        got = A.look_sequential_positioning(q, 362, 1e-3, 499e-6, ROT, requests=8000)
        assert got == pytest.approx(seek + ROT / 2, rel=0.03)
    with pytest.raises(ValueError):
        A.look_sequential_positioning(0, 362, 1e-3, 499e-6, ROT)


def test_fit_sequential_positioning_is_the_least_squares_line():
    c, d = A.fit_sequential_positioning(362, 1e-3, 499e-6, ROT, 2000)
    t = [A.look_sequential_positioning(q, 362, 1e-3, 499e-6, ROT, 2000) for q in (1, 2, 3)]
    # a least-squares line through three equally spaced points passes
    # through their mean at the middle one, with the end points' slope
    assert c + 2 * d == pytest.approx(sum(t) / 3, rel=1e-9)
    assert d == pytest.approx((t[2] - t[0]) / 2, rel=1e-9)


def test_emulated_positioning_fits_the_sequential_law_for_seq_streams():
    p = _fig6_point(1, positioning="emulated", overhead="rotation", cache_mbps=0,
                    min_disk_queue=1)
    c, d = ex.emulated_positioning(p, sequential=True)
    assert (c, d) == A.fit_sequential_positioning(362, 1e-3, 499e-6, ROT)
    rnd = ex.model_point(p)["model"]["read_s"]
    p["workload"]["pattern"] = "seq"
    seq = ex.model_point(p)["model"]["read_s"]
    # one stream, disk queue 1: (2) at 1 instead of (1) at 1
    a, b, _ = ex.emulated_positioning(p)
    assert rnd - seq == pytest.approx(a + b / math.sqrt(2) - (c + d), rel=1e-6)


def test_cache_copy_rate_adds_the_bytes_copied():
    cfg = A.ArrayConfig(destage_threshold=96, max_dirty_blocks=128)
    assert cfg.cache_copy_rate == math.inf
    fast = replace(cfg, cache_overhead=0.06e-3)
    slow = replace(fast, cache_copy_rate=82e6)
    for kb in (16, 256):
        b = kb * 1024
        assert A.cache_service_time(slow, b) - A.cache_service_time(fast, b) == \
            pytest.approx(b / 82e6)
        r0 = A.reads(fast, b, 1)[0].response
        r1 = A.reads(slow, b, 1)[0].response
        assert r1 - r0 == pytest.approx(b / 82e6, rel=1e-6)
    # the write-back path too: never full, the response is the cache service
    w = A.write_back(slow, 16384, 1, 1.0).response
    assert w == pytest.approx(A.cache_service_time(slow, 16384), rel=1e-3)
    with pytest.raises(ValueError):
        A.ArrayConfig(cache_copy_rate=0)
