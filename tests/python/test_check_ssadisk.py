"""tests/kernel/check_ssadisk.py pk-trace: when the M/G/1 check passes, fails, skips."""
import importlib.util
import pathlib

import numpy as np
import pytest

_path = pathlib.Path(__file__).resolve().parents[2] / "tests" / "kernel" / "check_ssadisk.py"
_spec = importlib.util.spec_from_file_location("check_ssadisk", _path)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

RATE = 76.0          # arrivals/s, as ssadisk_pk
MEAN_S = 6.55e-3     # s; the disk's mean service at time_scale 0.3
CS2 = 0.08           # its squared coefficient of variation


def gaps(rng, n, ca2):
    """n gaps of mean 1/RATE: exponential, or balanced H2 with CV^2 ca2 > 1."""
    m = 1 / RATE
    if ca2 == 1:
        return rng.exponential(m, n)
    p = 0.5 * (1 + np.sqrt((ca2 - 1) / (ca2 + 1)))
    first = rng.random(n) < p
    return np.where(first, rng.exponential(m / (2 * p), n),
                    rng.exponential(m / (2 * (1 - p)), n))


def fifo_record(seed, n=10001, ca2=1.0, slow_every=0, lifo_pair=False):
    """One FIFO server's record in ns, as parse_trace gives its start events."""
    rng = np.random.default_rng(seed)
    arr = np.cumsum(gaps(rng, n, ca2)) * 1e9
    svc = rng.gamma(1 / CS2, MEAN_S * CS2, n) * 1e9
    ev, prev = [], 0
    for i in range(n):
        start = max(int(arr[i]), prev)
        end = start + int(svc[i])
        if slow_every and i % slow_every == 0:
            start += int(2e-3 * 1e9)      # starts late: not work-conserving
            end += int(2e-3 * 1e9)
        ev.append({"id": i, "arrival": int(arr[i]), "start": start, "end": end})
        prev = end
    if lifo_pair:
        # two queued accesses served out of order
        k = next(i for i in range(1, n - 1) if ev[i + 1]["arrival"] < ev[i]["end"])
        ev[k]["start"] += 1
    return ev


@pytest.mark.parametrize("seed", range(3))
def test_poisson_fifo_passes(seed):
    m = check.mg1_numbers(fifo_record(seed))
    assert abs(m["r1"]) < 0.04          # 4 standard deviations of 10^4 gaps
    verdict, lines = check.pk_verdict(m, 0.05)
    assert verdict is True, lines


def test_lag1_correlation_of_clumped_gaps():
    ev = fifo_record(6)
    # arrivals in pairs: a long gap, then a short one, and so on
    for i in range(1, len(ev), 2):
        ev[i]["arrival"] = ev[i - 1]["arrival"] + 1000
    assert check.mg1_numbers(ev)["r1"] < -0.3


def test_slightly_bursty_arrivals_are_judged_not_skipped():
    # CV^2 1.06 lies inside the band for 10^4 gaps; the correction keeps
    # the burstiness from being charged to the disk
    m = check.mg1_numbers(fifo_record(7, ca2=1.06))
    assert 1.03 < m["ca2"] < 1.08
    verdict, lines = check.pk_verdict(m, 0.05)
    assert verdict is True, lines


def test_bursty_arrivals_skip():
    verdict, lines = check.pk_verdict(check.mg1_numbers(fifo_record(1, ca2=1.5)), 0.05)
    assert verdict is None, lines
    assert lines[-1].startswith("SKIP:")


def test_slow_server_fails():
    # every access starts 2 ms after it could: the response is too long
    verdict, lines = check.pk_verdict(
        check.mg1_numbers(fifo_record(2, slow_every=1)), 0.05)
    assert verdict is False
    assert any(line.startswith("FAIL: one FIFO server") for line in lines)


def test_response_too_long_fails():
    # a FIFO record whose services are measured right but whose arrivals
    # are reported 10 % of a mean response earlier than they were
    ev = fifo_record(3)
    shift = int(0.1 * 10e-3 * 1e9)
    m = check.mg1_numbers(ev)
    m["resp"] += shift / 1e9
    verdict, lines = check.pk_verdict(m, 0.05)
    assert verdict is False
    assert lines[-1].startswith("FAIL: mean response"), lines


def test_out_of_order_service_fails():
    verdict, lines = check.pk_verdict(
        check.mg1_numbers(fifo_record(4, lifo_pair=True)), 0.05)
    assert verdict is False, lines


def test_band_narrows_with_n():
    lo, hi = check.poisson_band(10000)
    assert (lo, hi) == pytest.approx((0.92, 1.08))
    assert check.poisson_band(40000)[1] == pytest.approx(1.04)


def test_band_holds_poisson_samples():
    # the band's claim: sample CV^2 of Poisson gaps falls outside it rarely
    rng = np.random.default_rng(11)
    g = rng.exponential(1.0, (2000, 10000))
    cv2 = g.var(axis=1) / g.mean(axis=1) ** 2
    lo, hi = check.poisson_band(10000)
    assert np.mean((cv2 < lo) | (cv2 > hi)) < 0.002


def test_correction_is_pk_for_poisson_and_closer_for_bursty():
    m = check.mg1_numbers(fifo_record(5))
    m["ca2"] = 1.0
    assert check.gg1_response(m) == pytest.approx(m["es"] + m["pk_wait"])
    errs = []
    for seed in range(5):
        m = check.mg1_numbers(fifo_record(20 + seed, ca2=1.4))
        pk = m["es"] + m["pk_wait"]
        errs.append((abs(m["resp"] / check.gg1_response(m) - 1), abs(m["resp"] / pk - 1)))
    corrected, plain = np.mean(errs, axis=0)
    assert plain > 0.05 and corrected < plain / 2, errs


# -- status-trace: the status figures against the record of every access --

def idle_record(seed=8, n=120, gap_ms=50.0, svc_ms=10.0):
    """A FIFO record with the disk idle most of the time: arrivals 50 ms
    apart on average, services of about 10 ms (ns, as parse_trace gives)."""
    rng = np.random.default_rng(seed)
    t0 = 5_000_000_000_000            # the guest's clock at the first arrival
    arr = t0 + np.cumsum(np.r_[0, rng.exponential(gap_ms * 1e6, n - 1)]).astype(int)
    ev, prev = [], 0
    for i, a in enumerate(arr):
        start = max(int(a), prev)
        end = start + int(rng.uniform(0.5, 1.5) * svc_ms * 1e6)
        ev.append({"id": i, "op": "write" if i % 5 == 0 else "read", "arrival": int(a),
                   "start": start, "end": end, "dist_q10": int(rng.integers(0, 1 << 20))})
        prev = end
    return ev


def status_line(ev, first, now):
    """The status ssa-disk.c prints at guest time ``now`` for a window that
    opened at ``first``: its sums and truncations, figure by figure."""
    done = [e for e in ev if e["end"] <= now]
    cur = [e for e in ev if e["start"] <= now < e["end"]]
    if cur:
        horizon = now
    else:
        horizon = max([e["end"] for e in done], default=first)
    el = horizon - first
    busy = sum(e["end"] - max(e["start"], first) for e in done)
    busy += sum(now - max(e["start"], first) for e in cur)
    n = len(done)
    util = min(busy, el) * 10000 // el if el else 0
    sq = sum((e["end"] - e["start"]) ** 2 >> 20 for e in done)

    def ratio(num, den):
        v = num * 1000 // den if den else 0
        return f"{v // 1000}.{v % 1000:03d}"
    return (f"0 131072 ssadisk stochastic fifo {n} "
            f"{sum(e['op'] == 'read' for e in done)} {sum(e['op'] == 'write' for e in done)} "
            f"0 {ratio(el, 10 ** 6)} {util // 10000}.{util % 10000:04d} "
            f"{ratio(sum(e['end'] - e['start'] for e in done), n * 1000)} "
            f"{sq * (1 << 20) // (n * 10 ** 6) if n else 0} "
            f"{ratio(sum(e['end'] - e['arrival'] for e in done), n * 1000)} "
            f"{ratio(sum(e['dist_q10'] for e in done), n * 1024)} 35.000 0 {n} 0.000")


def verdict(ev, line, last):
    return check.status_verdict("t", check.parse_status(line), ev, last)


def test_status_window_passes_idle_and_in_service():
    ev = idle_record()
    first = ev[0]["arrival"]
    # once idle: the window ends at the last end, however late the read
    ok, lines = verdict(ev, status_line(ev, first, ev[-1]["end"] + 10 ** 9), True)
    assert ok, lines
    # during the load, in service and between services
    for e in ev[10:100:7]:
        for now in (e["start"] + (e["end"] - e["start"]) // 3, e["end"] + 1000):
            ok, lines = verdict(ev, status_line(ev, first, now), False)
            assert ok, lines


def test_status_from_the_reset_fails():
    # the old status: elapsed from the reset (a second before the first
    # arrival) to the read (a second after the last end)
    ev = idle_record()
    first = ev[0]["arrival"] - 10 ** 9
    line = status_line(ev, first, ev[-1]["end"] + 10 ** 9).split()
    span = ev[-1]["end"] + 10 ** 9 - first
    busy = sum(e["end"] - e["start"] for e in ev)
    line[9] = f"{span / 1e6:.3f}"
    line[10] = f"{busy / span:.4f}"
    ok, lines = verdict(ev, " ".join(line), True)
    assert not ok
    assert any(x.startswith("FAIL: t utilization: busy") for x in lines), lines
    assert any(x.startswith("FAIL: t elapsed_ms") for x in lines), lines


def test_status_without_the_service_in_progress_fails():
    # busy time of the ended services only, over a window that runs to now
    ev = idle_record(svc_ms=30.0)
    first = ev[0]["arrival"]
    e = ev[60]
    now = e["start"] + (e["end"] - e["start"]) * 9 // 10
    line = status_line(ev, first, now).split()
    busy = sum(x["end"] - x["start"] for x in ev if x["end"] <= now)
    line[10] = f"{busy / (now - first):.4f}"
    ok, lines = verdict(ev, " ".join(line), False)
    assert not ok, lines


def test_status_miscounted_fails():
    ev = idle_record()
    line = status_line(ev, ev[0]["arrival"], ev[-1]["end"]).split()
    line[5] = str(int(line[5]) - 1)
    ok, lines = verdict(ev, " ".join(line), True)
    assert not ok
    assert lines[1].startswith("FAIL: t accesses ended"), lines


# -- ssadisk 1.4.0: the status's appended fields, max_transfer, phase, channel

def test_status_of_1_3_parses_without_the_appended_fields():
    ev = idle_record()
    line = status_line(ev, ev[0]["arrival"], ev[-1]["end"]).split()
    st = check.parse_status(" ".join(line[:17]))
    assert "commands" not in st
    ok, lines = check.status_verdict("t", st, ev, True)
    assert ok, lines


def test_status_commands_and_channel_wait_against_the_record():
    ev = idle_record()
    for i, e in enumerate(ev):
        e["commands"], e["chan"] = 1 + i % 3, 1000 * (i % 5)
    line = status_line(ev, ev[0]["arrival"], ev[-1]["end"]).split()
    cmds = sum(e["commands"] for e in ev)
    line[17] = str(cmds)
    v = sum(e["chan"] for e in ev) * 1000 // (cmds * 1000)
    line[18] = f"{v // 1000}.{v % 1000:03d}"
    ok, lines = check.status_verdict("t", check.parse_status(" ".join(line)), ev, True)
    assert ok, lines
    line[17] = str(cmds - 1)
    ok, lines = check.status_verdict("t", check.parse_status(" ".join(line)), ev, True)
    assert not ok and any("FAIL: t commands" in x for x in lines), lines


def test_commands_model_matches_the_unit_test():
    # tests/unit/test_disk.c: 256 sectors a track, 8 ms a turn, 0.5 ms a
    # command, sector 0 under the head at t = 0: 4 commands of 16 ms
    m = check.expect_commands(0, 0, 8_000_000, 500_000, 256, 256, 1024)
    assert m == {"commands": 4, "rot": 4 * 7_500_000, "xfer": 32_000_000, "end": 64_000_000}
    m = check.expect_commands(0, 0, 8_000_000, 500_000, 256, 0, 1024)
    assert m == {"commands": 1, "rot": 7_500_000, "xfer": 32_000_000, "end": 40_000_000}


def test_drawn_phase_is_the_kernels():
    # ssad_spindle_init()'s draws as tests/unit/test_disk.c prints them
    assert [check.drawn_phase(s, 10_000_000) for s in (1, 2, 3)] == [5665615, 5911897, 1134503]


def start_event(dev, start, end, seek, rot, xfer, chan=0, commands=1, length=2048, sector=0):
    return (f"  dd-1 [000] d..1. 1.000000: ssadisk_service_start: dev {dev} id 1 read "
            f"sector {sector} len {length} arrival {start} start {start} end {end} seek {seek} "
            f"rot {rot} xfer {xfer} dist_q10 0 commands {commands} chan {chan}\n")


def run_check(tmp_path, lines, *args):
    f = tmp_path / "t.trace"
    f.write_text("".join(lines))
    ap = check.argparse.Namespace(trace=str(f), **dict(args))
    return {"channel": check.cmd_channel, "phase": check.cmd_phase}[ap.cmd](ap)


def test_channel_sum_of_bytes(tmp_path):
    # the kernel's numbers: 1 MiB each at 2 MB/s, 0.5 ms overhead
    good = [start_event("254:2", 79663694420, 80194992660, 0, 6510240, 65536000, 458752000),
            start_event("254:1", 79710337840, 80719280660, 0, 4736140, 65536000, 938170680)]
    opts = [("cmd", "channel"), ("len", 2048), ("mbps", 2), ("overhead", 500000),
            ("max_sectors", 0), ("rotation_bound", 10 ** 9)]
    assert run_check(tmp_path, good, *opts) is True
    # a channel that served the later read as if it were alone
    bad = [good[0], start_event("254:1", 79710337840, 80719280660 - 524288000, 0, 4736140,
                                65536000, 938170680 - 524288000)]
    assert run_check(tmp_path, bad, *opts) is False
    # a later read that came when the first had crossed: no check
    late = [good[0], start_event("254:1", 80710337840, 81719280660, 0, 4736140, 65536000,
                                 938170680)]
    assert run_check(tmp_path, late, *opts) is None


def commands_event(dev, start, end, k=8, overhead=500000, rot=30_000_000, xfer=65_536_000):
    chan = end - start - k * overhead - rot - xfer
    return start_event(dev, start, end, 0, rot, xfer, chan, commands=k)


def test_channel_commands_alternate(tmp_path):
    # 1 MiB each at 1 MB/s in commands of 128 KiB (131.072 ms a command on
    # the channel); the first's media transfer begins at 2.5 ms
    cmd, m1 = 131_072_000, 2_500_000
    opts = [("cmd", "channel"), ("len", 2048), ("mbps", 1), ("overhead", 500000),
            ("max_sectors", 256), ("rotation_bound", 10_000_000)]
    good = [commands_event("254:0", 0, m1 + 15 * cmd),
            commands_event("254:1", 10_000_000, m1 + 16 * cmd)]
    assert run_check(tmp_path, good, *opts) is True
    # the later one served after the first, not between its commands
    bad = [good[0], commands_event("254:1", 10_000_000, m1 + 23 * cmd)]
    assert run_check(tmp_path, bad, *opts) is False
    # too far apart for them to alternate from the start: no check
    late = [good[0], commands_event("254:1", cmd, m1 + 16 * cmd)]
    assert run_check(tmp_path, late, *opts) is None


def test_phase_one_sided(tmp_path, capsys):
    R = 10 ** 9
    ev = [start_event("254:0", 100 * R, 100 * R + 10, 0, 0, 10, length=8, sector=0)]
    # target at 64000 with phase 0.25, constructed 3 ms after the reference
    rot = (-(R // 4 - 3_000_000)) % R
    ev.append(start_event("254:0", 100 * R, 100 * R + rot + 10, 0, rot, 10, length=8,
                          sector=64000))
    opts = [("cmd", "phase"), ("rotation", R), ("overhead", 0), ("ref", 0),
            ("tol_ns", 100 * 10 ** 6), ("targets", ["64000=frac:0.25"])]
    assert run_check(tmp_path, ev, *opts)
    # constructed "before" the reference: impossible, refused
    rot = (-(R // 4 + 3_000_000)) % R
    ev[1] = start_event("254:0", 100 * R, 100 * R + rot + 10, 0, rot, 10, length=8,
                        sector=64000)
    assert not run_check(tmp_path, ev, *opts)
