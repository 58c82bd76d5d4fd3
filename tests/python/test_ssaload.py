"""tools/ssaload: the workload generator, run against a regular file.

The binary is build/ssaload/ssaload (``make ssaload``; ``make check``
builds it before these tests run); without it every test here skips.
The file lives under pytest's tmp_path, which must take O_DIRECT (ext4
does); if it does not, the tests skip with that reason.
"""
import collections
import csv
import json
import math
import os
import pathlib
import signal
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "ssaload" / "ssaload"
DEV_BYTES = 64 << 20
BLOCK = 4096

pytestmark = pytest.mark.skipif(
    not BIN.exists(), reason=f"{BIN} is not built (make ssaload)")


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    """A 64 MiB file of 0x01 bytes, on disk (a DIO read of dirty pages
    would wait for their writeback), that takes O_DIRECT."""
    path = tmp_path_factory.mktemp("ssaload") / "dev.img"
    with open(path, "wb") as f:
        chunk = b"\x01" * (1 << 20)
        for _ in range(DEV_BYTES >> 20):
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_DIRECT))
    except OSError as e:
        pytest.skip(f"{path.parent} does not take O_DIRECT: {e}")
    return path


def run(dev, *args, expect=0, timeout=60):
    """Run ssaload on dev; return (process, records, summary)."""
    out = pathlib.Path(dev).parent
    n = len(list(out.glob("rec-*.csv")))
    rec, summ = out / f"rec-{n}.csv", out / f"sum-{n}.json"
    argv = [str(BIN), *map(str, args), "--records", str(rec), "--summary", str(summ), str(dev)]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == expect, (argv, p.returncode, p.stdout, p.stderr)
    with open(rec, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("id", "client", "offset", "len", "arrival_ns", "submit_ns",
                  "complete_ns", "status"):
            r[k] = int(r[k])
    with open(summ) as f:
        s = json.load(f)
    return p, rows, s


def printed(ns):
    """A time in ns as the summary prints it: seconds to 9 significant
    digits (``%.9g``).  Below 1 s that keeps every nanosecond; past it
    (a response on a loaded host) the last digits are rounded away, so an
    exact comparison with ns / 1e9 would fail.  The C side divides the
    same integer by 1e9 and both printfs round correctly, so this is
    exact, and one nanosecond off still fails under 1 s."""
    return float(f"{ns / 1e9:.9g}")


def cv2(times):
    t = sorted(times)
    g = [b - a for a, b in zip(t, t[1:])]
    m = sum(g) / len(g)
    return sum((x - m) ** 2 for x in g) / (len(g) - 1) / m ** 2


def check_times(rows):
    for r in rows:
        assert r["complete_ns"] >= r["submit_ns"] >= r["arrival_ns"] > 0, r
        assert r["status"] == 0, r


def max_in_flight(rows):
    ev = []
    for r in rows:
        ev.append((r["submit_ns"], 1))
        ev.append((r["complete_ns"], -1))
    ev.sort(key=lambda e: (e[0], e[1]))     # a completion before a submit at one time
    cur = top = 0
    for _, d in ev:
        cur += d
        top = max(top, cur)
    return top


def test_help_names_every_option():
    p = subprocess.run([str(BIN), "--help"], capture_output=True, text=True)
    assert p.returncode == 0
    for opt in ("--open", "--arrivals", "--closed", "--think", "--think-dist",
                "--requests", "--warmup", "--duration", "--read-frac", "--block",
                "--sizes", "--pattern", "--align", "--offset-shift", "--range",
                "--zones", "--seed", "--max-outstanding", "--records", "--summary"):
        assert opt in p.stdout, opt


def test_open_poisson(dev):
    _, rows, s = run(dev, "--open", 2000, "--requests", 4000)
    assert len(rows) == 4000 == s["requests"] == s["reads"]
    assert [r["id"] for r in rows] == list(range(4000))
    check_times(rows)
    assert {r["client"] for r in rows} == {0}
    c = cv2([r["arrival_ns"] for r in rows])
    assert 0.85 <= c <= 1.15
    assert s["arrival_cv2"] == pytest.approx(c, rel=1e-6)
    # the arrivals are the generator's own (seeded) draws; the achieved
    # rate also holds the last completion, which a loaded host may delay
    assert abs(s["arrival_rate"] / 2000 - 1) < 0.05, s["arrival_rate"]
    assert s["offered_rate"] == 2000 and s["mode"] == "open" and s["outrun"] is False
    # arrivals are scheduled in order; the summary is the records' summary
    arr = [r["arrival_ns"] for r in rows]
    assert arr == sorted(arr)
    span = (max(r["complete_ns"] for r in rows) - arr[0]) / 1e9
    assert s["span_s"] == pytest.approx(span, rel=1e-6)
    assert s["rate"] == pytest.approx(4000 / span, rel=1e-6)
    assert s["rate"] <= s["arrival_rate"] * 4000 / 3999
    resp = sorted(r["complete_ns"] - r["arrival_ns"] for r in rows)
    assert s["response"]["all"]["mean_s"] == pytest.approx(sum(resp) / len(resp) / 1e9, rel=1e-6)
    assert s["response"]["all"]["p50_s"] == printed(resp[1999])
    assert s["response"]["all"]["p99_s"] == printed(resp[3959])
    assert s["response"]["write"]["n"] == 0 and s["response"]["write"]["mean_s"] is None
    late = [r["submit_ns"] - r["arrival_ns"] for r in rows]
    assert s["lateness_max_s"] == printed(max(late))


def test_printed_keeps_the_precision_it_can():
    """The helper the exact comparisons above use: every nanosecond
    below 1 s, 9 significant digits past it, and never equal to a
    neighbour's value where the print can tell them apart."""
    assert printed(999_999_999) == 999_999_999 / 1e9
    assert printed(1_234_567_891) == 1.23456789 != 1_234_567_891 / 1e9
    assert printed(1_234_567_891) == printed(1_234_567_894)
    assert printed(1_234_567_891) != printed(1_234_567_901)
    assert printed(12_345_678) != printed(12_345_679)


def test_open_const(dev):
    _, rows, s = run(dev, "--open", 2000, "--arrivals", "const", "--requests", 1000)
    arr = [r["arrival_ns"] for r in rows]
    assert all(b - a in (499999, 500000, 500001) for a, b in zip(arr, arr[1:]))
    assert s["arrival_cv2"] < 1e-6
    assert s["arrival_rate"] == pytest.approx(2000, rel=1e-5)


def test_open_duration(dev):
    _, rows, s = run(dev, "--open", 1000, "--duration", 0.5, "--warmup", 20)
    arr = [r["arrival_ns"] for r in rows]
    assert 380 <= len(rows) <= 620
    assert arr[-1] - arr[0] < 0.5e9
    assert s["requests"] == len(rows) and s["params"]["requests"] is None


def test_warmup_is_not_recorded(dev):
    _, rows, s = run(dev, "--closed", 2, "--requests", 100, "--warmup", 50)
    assert [r["id"] for r in sorted(rows, key=lambda r: r["id"])] == list(range(100))
    assert s["requests"] == 100 and s["params"]["warmup"] == 50


def test_closed_think_and_population(dev):
    _, rows, s = run(dev, "--closed", 4, "--think", 2, "--think-dist", "const",
                     "--requests", 800)
    assert len(rows) == 800 and len({r["id"] for r in rows}) == 800
    check_times(rows)
    by = collections.defaultdict(list)
    for r in rows:
        by[r["client"]].append(r)
    assert sorted(by) == [0, 1, 2, 3]
    for reqs in by.values():
        reqs.sort(key=lambda r: r["arrival_ns"])
        for a, b in zip(reqs, reqs[1:]):
            assert abs(b["arrival_ns"] - a["complete_ns"] - 2_000_000) <= 1_000_000
            assert b["submit_ns"] >= a["complete_ns"]
    assert max_in_flight(rows) <= 4
    assert s["max_outstanding_seen"] <= 4
    assert s["mode"] == "closed" and s["offered_rate"] is None
    assert s["params"]["mpl"] == 4 and s["params"]["think_ms"] == 2


def test_closed_exp_think(dev):
    """Exponential think times of mean 1 ms: their cv2 is near 1."""
    _, rows, _ = run(dev, "--closed", 2, "--think", 1, "--requests", 2000)
    think = []
    by = collections.defaultdict(list)
    for r in rows:
        by[r["client"]].append(r)
    for reqs in by.values():
        reqs.sort(key=lambda r: r["arrival_ns"])
        think += [b["arrival_ns"] - a["complete_ns"] for a, b in zip(reqs, reqs[1:])]
    m = sum(think) / len(think)
    v = sum((x - m) ** 2 for x in think) / (len(think) - 1)
    assert 0.9e6 < m < 1.1e6
    assert 0.85 < v / m ** 2 < 1.15


def test_read_frac(dev):
    _, rows, s = run(dev, "--closed", 2, "--requests", 4000, "--read-frac", 0.25)
    reads = sum(r["op"] == "read" for r in rows)
    assert set(r["op"] for r in rows) == {"read", "write"}
    assert abs(reads / 4000 - 0.25) < 0.03
    assert s["reads"] == reads and s["writes"] == 4000 - reads


def test_writes_write_the_pattern(dev, tmp_path):
    path = tmp_path / "w.img"
    with open(path, "wb") as f:
        f.write(bytes(1 << 20))
        os.fsync(f.fileno())
    _, rows, s = run(path, "--closed", 1, "--requests", 20, "--read-frac", 0,
                     "--sizes", "uniform:3")
    assert s["writes"] == 20
    data = path.read_bytes()
    written = bytearray(len(data))
    for r in rows:
        assert data[r["offset"]:r["offset"] + r["len"]] == b"\x5a" * r["len"]
        written[r["offset"]:r["offset"] + r["len"]] = b"\x01" * r["len"]
    assert all(d == 0 for d, w in zip(data, written) if not w)


def qgeo_pmf(sigma, p, k):
    q = 1 - p
    return [sigma] + [(1 - sigma) * p * q ** (i - 1) / (q - q ** k) for i in range(2, k + 1)]


@pytest.mark.parametrize("spec,pmf", [
    ("fixed:3", [0, 0, 1]),
    ("uniform:8", [1 / 8] * 8),
    ("qgeo:0.4:0.3:8", qgeo_pmf(0.4, 0.3, 8)),
    ("qgeo:0:0.5:4", qgeo_pmf(0, 0.5, 4)),
])
def test_sizes(dev, spec, pmf):
    n = 4000
    _, rows, _ = run(dev, "--closed", 2, "--requests", n, "--sizes", spec)
    assert abs(sum(pmf) - 1) < 1e-12
    count = collections.Counter()
    for r in rows:
        assert r["len"] % BLOCK == 0
        count[r["len"] // BLOCK] += 1
    assert set(count) <= set(range(1, len(pmf) + 1))
    chi2 = 0.0
    for i, p in enumerate(pmf, 1):
        assert abs(count[i] / n - p) < 0.03, (i, count[i] / n, p)
        if p > 0:
            chi2 += (count[i] - n * p) ** 2 / (n * p)
        else:
            assert count[i] == 0
    df = sum(p > 0 for p in pmf) - 1
    if df:
        # 0.1 % upper point of chi-square: df + 3.1 sqrt(2 df) + 4 is above it
        assert chi2 < df + 3.1 * math.sqrt(2 * df) + 4, chi2


def test_zones_skew(dev):
    _, rows, s = run(dev, "--closed", 2, "--requests", 4000, "--zones", "1,3",
                     "--sizes", "uniform:16")
    half = DEV_BYTES // 2
    second = 0
    for r in rows:
        inside_first = r["offset"] + r["len"] <= half
        inside_second = r["offset"] >= half
        assert inside_first or inside_second, r      # a request stays in its zone
        second += inside_second
    assert abs(second / 4000 - 0.75) < 0.03
    assert s["params"]["zones"] == [1, 3]


def test_zones_of_weight_zero_are_never_chosen(dev):
    _, rows, _ = run(dev, "--open", 5000, "--requests", 500, "--zones", "0,1,0,0",
                     "--range", "8M:32M")
    assert all(16 << 20 <= r["offset"] and r["offset"] + r["len"] <= 24 << 20 for r in rows)


def test_align_shift_range(dev):
    lo, ln = 1 << 20, 8 << 20
    _, rows, s = run(dev, "--closed", 2, "--requests", 2000, "--align", "64K",
                     "--offset-shift", 512, "--sizes", "uniform:4", "--range", f"1M:{ln}")
    starts = set()
    for r in rows:
        assert r["offset"] % 65536 == 512
        assert lo <= r["offset"] and r["offset"] + r["len"] <= lo + ln
        starts.add(r["offset"])
    # starts 1M + 512 + m 64K for m = 0..127: the next would end past 9M
    assert min(starts) == lo + 512 and max(starts) == lo + 127 * 65536 + 512
    assert len(starts) == 128
    assert s["params"]["align"] == 65536 and s["params"]["offset_shift"] == 512


def test_seq_pattern(dev):
    # how the requests split between the clients is timing's: with no
    # think time one client took all 400 on a loaded CI host (the other
    # thread was not run before they were gone); 2 ms of constant think
    # time paces each client, so a run lasts ~0.4 s and both take part
    ln = 256 << 10
    _, rows, _ = run(dev, "--closed", 2, "--requests", 400, "--pattern", "seq",
                     "--sizes", "uniform:4", "--range", f"0:{ln}",
                     "--think", 2, "--think-dist", "const")
    by = collections.defaultdict(list)
    for r in rows:
        by[r["client"]].append(r)
    assert sorted(by) == [0, 1]
    wraps = 0
    for c, reqs in by.items():
        reqs.sort(key=lambda r: r["arrival_ns"])
        if c == 1:
            assert reqs[0]["offset"] == ln // 2     # client i of n starts i/n in
        else:
            assert reqs[0]["offset"] == 0
        for a, b in zip(reqs, reqs[1:]):
            assert b["offset"] + b["len"] <= ln
            if b["offset"] != a["offset"] + a["len"]:
                assert b["offset"] == 0 and a["offset"] + a["len"] + b["len"] > ln
                wraps += 1
    assert wraps >= 4


def seq_of(rows):
    return [(r["op"], r["offset"], r["len"]) for r in sorted(rows, key=lambda r: r["id"])]


def test_same_seed_same_requests(dev):
    args = ["--open", 5000, "--arrivals", "const", "--requests", 500, "--read-frac", 0.5,
            "--sizes", "qgeo:0.3:0.2:8", "--zones", "2,1,1"]
    _, a, _ = run(dev, *args, "--seed", 7)
    _, b, _ = run(dev, *args, "--seed", 7)
    _, c, _ = run(dev, *args, "--seed", 8)
    assert seq_of(a) == seq_of(b)
    assert seq_of(a) != seq_of(c)
    # open-loop arrival times (relative to the first) are part of the sequence
    _, e1, _ = run(dev, "--open", 3000, "--requests", 300, "--seed", 7)
    _, e2, _ = run(dev, "--open", 3000, "--requests", 300, "--seed", 7)
    rel = [[r["arrival_ns"] - x[0]["arrival_ns"] for r in x] for x in (e1, e2)]
    assert all(abs(u - v) <= 1 for u, v in zip(*rel))
    assert seq_of(e1) == seq_of(e2)


def test_same_seed_closed_clients(dev):
    """Closed loop: each client's own sequence repeats (the interleaving of
    the clients is timing's)."""
    args = ["--closed", 3, "--requests", 300, "--read-frac", 0.5, "--sizes", "uniform:4",
            "--think", 5]
    runs = []
    for _ in range(2):
        _, rows, _ = run(dev, *args, "--seed", 11)
        by = collections.defaultdict(list)
        for r in sorted(rows, key=lambda r: r["arrival_ns"]):
            by[r["client"]].append((r["op"], r["offset"], r["len"]))
        runs.append(by)
    for c in range(3):
        x, y = runs[0][c], runs[1][c]
        n = min(len(x), len(y))
        # how the 300 requests split between clients is timing's: with
        # 0.2 ms think one client got 2 of them on a loaded CI host; 5 ms
        # (a run of ~0.5 s) leaves each client ~100, and 20 are enough
        assert n >= 20 and x[:n] == y[:n]
    assert runs[0][0][:20] != runs[0][1][:20]    # clients have streams of their own


def test_overrun(dev):
    """One request in flight at most, arrivals every 100 ns: the second
    arrival is due long before any O_DIRECT read on a disk can complete."""
    p, rows, s = run(dev, "--open", 1e7, "--max-outstanding", 1, "--requests", 1000,
                     expect=3)
    assert "OUTRUN" in p.stderr and "cannot keep up" in p.stderr
    assert "OUTRUN" in p.stdout
    assert s["outrun"] is True
    assert 1 <= len(rows) < 1000 and s["requests"] == len(rows)
    check_times(rows)


def _catches(pid: int, sig: int) -> bool:
    """Whether process pid has a handler for sig (SigCgt of its status)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


def test_signal_stops_and_writes(dev):
    out = pathlib.Path(dev).parent
    rec, summ = out / "sig.csv", out / "sig.json"
    argv = [BIN, "--closed", 2, "--think", 1, "--duration", 30, "--records", rec,
            "--summary", summ, dev]
    p = subprocess.Popen([str(a) for a in argv],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # a state, not a time: the signal only once ssaload catches it (a busy
    # host can start it late), then time for more than ten requests
    deadline = time.monotonic() + 20
    while not _catches(p.pid, signal.SIGINT) and time.monotonic() < deadline:
        assert p.poll() is None, p.communicate()[1]
        time.sleep(0.01)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 128 + signal.SIGINT, err
    assert "stopped by signal" in err
    s = json.loads(summ.read_text())
    assert s["interrupted"] is True and s["requests"] > 10
    with open(rec, newline="") as f:
        assert len(list(csv.DictReader(f))) == s["requests"]


BAD = [
    (["--open", "abc", "--requests", "1"], "--open: 'abc' is not a finite number"),
    (["--open", "-5", "--requests", "1"], "rate must be > 0"),
    (["--open", "0", "--requests", "1"], "rate must be > 0"),
    (["--open", "1e-9", "--requests", "1"], "below the least rate"),
    (["--open", "1e999", "--requests", "1"], "'1e999' is not a finite number"),
    (["--open", "100x", "--requests", "1"], "'100x' is not a finite number"),
    (["--open", "inf", "--requests", "1"], "'inf' is not a finite number"),
    (["--open", "10", "--requests", "-3"], "--requests: '-3' is not a non-negative integer"),
    (["--open", "10", "--requests", "18446744073709551616"], "--requests: '18446744073709551616'"),
    (["--open", "10", "--requests", " 5"], "--requests: ' 5'"),
    (["--open", "10", "--requests", "0"], "--requests: must be at least 1"),
    (["--open", "10", "--requests", "5", "--read-frac", "1.5"], "--read-frac: 1.5 is not in [0, 1]"),
    (["--open", "10", "--requests", "5", "--read-frac", "-0.1"], "--read-frac: -0.1 is not in [0, 1]"),
    (["--open", "10", "--closed", "2", "--requests", "5"], "--open and --closed exclude each other"),
    (["--requests", "5"], "give a mode"),
    (["--open", "10"], "say how long to run"),
    (["--open", "10", "--requests", "5", "--sizes", "fixed:99999"], "do not fit the range"),
    (["--open", "10", "--requests", "5", "--sizes", "uniform:0"], "K must be an integer >= 1"),
    (["--open", "10", "--requests", "5", "--sizes", "qgeo:1.2:0.3:8"], "SIGMA must be"),
    (["--open", "10", "--requests", "5", "--sizes", "qgeo:0.5:1:8"], "P must be"),
    (["--open", "10", "--requests", "5", "--sizes", "qgeo:0.5:0.3"], "qgeo takes three fields"),
    (["--open", "10", "--requests", "5", "--sizes", "zipf:3"], "is not fixed:K, uniform:K or qgeo"),
    (["--open", "10", "--requests", "5", "--zones", "1,,2"], "weight 2 is empty"),
    (["--open", "10", "--requests", "5", "--zones", "0,0"], "positive, finite sum"),
    (["--open", "10", "--requests", "5", "--zones", "1,-1"], "is not a number >= 0"),
    (["--open", "10", "--requests", "5", "--zones", ",".join(["1"] * 64), "--sizes",
      "fixed:257"], "do not fit zone 1"),
    (["--open", "10", "--requests", "5", "--offset-shift", "100"], "--offset-shift 100 is not a multiple"),
    (["--open", "10", "--requests", "5", "--block", "1000"], "--block 1000 is not a multiple"),
    (["--open", "10", "--requests", "5", "--align", "0"], "--align: must be at least 1"),
    (["--open", "10", "--requests", "5", "--range", "0:128M"], "ends past the end"),
    (["--open", "10", "--requests", "5", "--range", "64M:0"], "START 67108864 is not inside"),
    (["--open", "10", "--requests", "5", "--range", "1M"], "is not START:LEN"),
    (["--open", "10", "--requests", "5", "--range", "0:1Q"], "LEN '1Q'"),
    (["--open", "10", "--requests", "5", "--pattern", "zigzag"], "neither random nor seq"),
    (["--open", "10", "--requests", "5", "--arrivals", "pareto"], "neither exp nor const"),
    (["--open", "10", "--requests", "5", "--max-outstanding", "0"], "--max-outstanding: must be"),
    (["--open", "10", "--requests", "5", "--think", "3"], "are for --closed"),
    (["--closed", "2", "--requests", "5", "--arrivals", "const"], "are for --open"),
    (["--closed", "0", "--requests", "5"], "--closed: MPL must be"),
    (["--closed", "2", "--requests", "5", "--think", "-1"], "--think: the mean think time"),
    (["--closed", "2", "--duration", "0"], "--duration: must be > 0"),
    (["--closed", "2", "--requests", "5", "--seed", "x"], "--seed: 'x'"),
    (["--closed", "2", "--requests", "5", "--bogus"], "unknown option '--bogus'"),
]


@pytest.mark.parametrize("args,msg", BAD, ids=[" ".join(a)[:60] for a, _ in BAD])
def test_bad_input(dev, args, msg):
    p = subprocess.run([str(BIN), *args, str(dev)], capture_output=True, text=True)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert msg in p.stderr
    assert p.stdout == ""


@pytest.mark.parametrize("device,msg", [
    ("/nonexistent/dev", "cannot open /nonexistent/dev"),
    ("/proc/version", "with O_DIRECT"),
    ("/", "is not a block device or a regular file"),
])
def test_bad_device(device, msg):
    p = subprocess.run([str(BIN), "--open", "10", "--requests", "1", device],
                       capture_output=True, text=True)
    assert p.returncode == 2 and msg in p.stderr, p.stderr


def test_bad_usage_shape(dev, tmp_path):
    for argv in ([], ["--open", "1", "--requests", "1"],
                 ["--open", "1", "--requests", "1", str(dev), str(dev)],
                 ["--open", "1", "--requests", "1", "--records", str(tmp_path / "no" / "r"),
                  str(dev)],
                 ["--open"]):
        p = subprocess.run([str(BIN), *argv], capture_output=True, text=True)
        assert p.returncode == 2 and "ssaload:" in p.stderr, (argv, p.stderr)
