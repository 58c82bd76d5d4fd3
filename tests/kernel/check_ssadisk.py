#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check ssadisk measurements against the models of tools/pylib/ssa.

  check_ssadisk.py moments STATUS --scale S [--p-seq P] [--tol 0.03]
      service-time mean and second moment of random 4 KiB reads in
      stochastic mode against seed 002's E[X + T] and E[(X + T)^2]
  check_ssadisk.py seek STATUS --cylinders C [--tol 0.03]
      mean seek distance of uniformly random accesses against C/3
  check_ssadisk.py pk STATUS [--tol 0.05]
      mean response time against Pollaczek-Khinchine, with the arrival rate
      and the service moments measured from the same run
  check_ssadisk.py pk-trace TRACE [--tol 0.05]
      the same from the ftrace record of every access, the wait scaled for
      the measured variability of the arrivals; also checks that the server
      is a FIFO single server, and skips when the arrivals' gaps could not
      have come from a Poisson stream
  check_ssadisk.py rmw-io DEV --offset BYTES
      read 4 KiB with O_DIRECT, then write it back at once (one process)
  check_ssadisk.py rmw TRACE --rotation NS --xfer NS [--late-ms L]
      a read then write of one block, from the ftrace capture (mono clock)
  check_ssadisk.py status-trace TRACE STATUSES [--min-ios N]
      every `dmsetup status` line in STATUSES (one a line, "run " or
      "idle " before it: taken during the load or after it) against the
      ftrace record of every access: the window is the model's timeline,
      from the first arrival to elapsed_ms later; the accesses ended in it,
      the busy time in it (utilization), and once idle the service-time
      moments, response and seek means of all of them
  check_ssadisk.py ssatrace-disk RECORDS.json [--min-children N]
      `ssatrace record --disk --format json` over a stripe of ssadisks:
      every child has the time its disk began serving it, between its
      dispatch and its completion
  check_ssadisk.py commands TRACE --dev MAJ:MIN --rotation NS --overhead NS
                   --spt S --max-sectors M --len L
      max_transfer: the read of L sectors from sector 0 on a mechanical disk
      of S sectors a track (no seek within it) against the model, command by
      command, the spindle's angle taken from the disk's read of sector 0
      just before it
  check_ssadisk.py channel TRACE --len L --mbps R --overhead NS [--max-sectors M]
      two disks on one channel, a read of L sectors on each at once: the
      later ends (2 L 512 bytes) / R after the first media transfer began
      (one command each), or one command's channel time after the other
      (commands of M sectors); exit 4 when the later arrived too late for
      that (the reads did not share the channel from the start)
  check_ssadisk.py phase TRACE --rotation NS --ref SECTOR SECTOR=SPEC...
      the spindles' angles at the table's load: each target of one table
      (device SECTOR its first) read at its sector 0; SPEC is frac:F or
      seed:N (phase random with that seed), the angle against the target
      at --ref (phase 0, constructed first), short by at most --tol-ns

STATUS is the text of `dmsetup status` for one ssadisk target.  Exit status
0 when the check passes, 1 when it fails, 4 when it cannot be made (pk-trace:
arrivals too far from Poisson; channel: reads too far apart); the numbers
are printed either way.
"""
import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "pylib"))
from ssa.disk import Disk  # noqa: E402

SKIP = 4         # kselftest's skip: the check could not be made here

FIELDS = ("start", "len", "target", "mode", "sched", "ios", "reads", "writes",
          "queued", "elapsed_ms", "util", "svc_mean_us", "svc_m2_us2",
          "resp_mean_us", "seek_mean", "late_mean_us", "hits",
          # ssadisk 1.4.0
          "commands", "chan_wait_mean_us")
FIELDS_1_3 = 17     # the fields before 1.4.0's; status fields are only appended


def parse_status(text: str) -> dict:
    """The fields this script knows of an ssadisk status line (those of a
    later version, appended at the end, are left out)."""
    f = text.split()
    if len(f) < FIELDS_1_3 or f[2] != "ssadisk":
        raise SystemExit(f"not an ssadisk status line: {text!r}")
    out = dict(zip(FIELDS, f))
    for k in FIELDS[5:]:
        if k in out:
            out[k] = float(out[k])
    return out


def report(name: str, got: float, want: float, tol: float) -> bool:
    err = got / want - 1
    ok = abs(err) <= tol
    print(f"{'ok' if ok else 'FAIL'}: {name} measured {got:.6g}, model {want:.6g}, "
          f"error {100 * err:+.2f} % (tolerance {100 * tol:.0f} %)")
    return ok


def cmd_moments(a) -> bool:
    st = parse_status(a.status)
    s = a.scale
    # the ct1992 preset; 4 KiB = one block
    d = Disk(cylinders=1200, seek_a=3e-3 * s, seek_b=0.5e-3 * s,
             rmax=60 / 3600 * s, alpha=1.3e-3 * s, p_seq=a.p_seq)
    m1, m2, _ = d.read_moments()
    print(f"# {st['ios']:.0f} I/Os")
    ok = st["ios"] >= a.min_ios or print(f"FAIL: fewer than {a.min_ios} I/Os")
    ok = report("E[S] (us)", st["svc_mean_us"], m1 * 1e6, a.tol) and ok
    ok = report("E[S^2] (us^2)", st["svc_m2_us2"], m2 * 1e12, a.tol) and ok
    return bool(ok)


def cmd_seek(a) -> bool:
    st = parse_status(a.status)
    print(f"# {st['ios']:.0f} I/Os")
    return report("mean seek distance (cylinders)", st["seek_mean"],
                  a.cylinders / 3, a.tol)


def cmd_pk(a) -> bool:
    st = parse_status(a.status)
    lam = st["ios"] / (st["elapsed_ms"] / 1e3)
    es = st["svc_mean_us"] / 1e6
    es2 = st["svc_m2_us2"] / 1e12
    rho = lam * es
    pk = es + lam * es2 / (2 * (1 - rho))
    print(f"# {st['ios']:.0f} I/Os, lambda {lam:.2f}/s, E[S] {es * 1e3:.4f} ms, "
          f"rho {rho:.3f} (status utilization {st['util']:.3f})")
    ok = 0.4 <= rho <= 0.6 or print("FAIL: utilization not near 0.5")
    return report("mean response time (ms)", st["resp_mean_us"] / 1e3, pk * 1e3,
                  a.tol) and bool(ok)


def mg1_numbers(ev: list) -> dict:
    """Arrival and service statistics of a single-server record.

    ev: the accesses in arrival order, each with arrival, start and end in ns.
    """
    arr = [e["arrival"] for e in ev]
    gaps = [b - x for x, b in zip(arr, arr[1:])]
    n = len(gaps)
    mg = sum(gaps) / n
    svc = [e["end"] - e["start"] for e in ev]
    es = sum(svc) / len(svc) / 1e9
    es2 = sum(x * x for x in svc) / len(svc) / 1e18
    lam = 1e9 / mg
    var = sum(g * g for g in gaps) / n - mg * mg
    return {
        "n": len(ev), "lam": lam, "es": es, "rho": lam * es,
        "ca2": var / (mg * mg),
        # lag-1 autocorrelation of the gaps: 0 for a Poisson stream
        "r1": sum((x - mg) * (y - mg) for x, y in zip(gaps, gaps[1:])) / ((n - 1) * var),
        "cs2": es2 / (es * es) - 1,
        "resp": sum(e["end"] - e["arrival"] for e in ev) / len(ev) / 1e9,
        # Pollaczek-Khinchine: the mean wait of M/G/1
        "pk_wait": lam * es2 / (2 * (1 - lam * es)),
        "fifo": all(e["start"] == max(e["arrival"], p["end"]) for p, e in zip(ev, ev[1:])),
    }


def poisson_band(n: int) -> tuple:
    """Where the sample CV^2 of n gaps of a Poisson stream falls, bar 1 in 10^4.

    The estimate of the squared coefficient of variation of n exponential
    gaps has a standard deviation of 2 / sqrt(n) (delta method; the moments
    of the exponential distribution); four of them either side.
    """
    half = 4 * 2 / n ** 0.5
    return 1 - half, 1 + half


def gg1_response(m: dict) -> float:
    """Mean response of the record's server by Pollaczek-Khinchine, its wait
    scaled by (ca2 + cs2) / (1 + cs2): the Allen-Cunneen correction for the
    arrivals' measured variability, which is 1 for Poisson ones."""
    return m["es"] + m["pk_wait"] * (m["ca2"] + m["cs2"]) / (1 + m["cs2"])


def pk_verdict(m: dict, tol: float):
    """True, False or None (cannot be judged), with the lines to print.

    Inside the band the arrivals cannot be told from Poisson, and the
    measured response is compared with gg1_response(): what a sample CV^2
    of 1.06 adds to the wait is then not charged to the disk.
    """
    lines = [f"# {m['n']} accesses, lambda {m['lam']:.2f}/s, inter-arrival CV^2 "
             f"{m['ca2']:.3f} (lag-1 correlation {m['r1']:+.3f}), "
             f"E[S] {m['es'] * 1e3:.4f} ms, CV^2 of S {m['cs2']:.3f}, rho {m['rho']:.3f}"]
    ok = True
    for name, good in (("one FIFO server: start = max(arrival, previous end)", m["fifo"]),
                       ("utilization near 0.5", 0.4 <= m["rho"] <= 0.6)):
        lines.append(f"{'ok' if good else 'FAIL'}: {name}")
        ok = ok and good
    pk = m["es"] + m["pk_wait"]
    corr = gg1_response(m)
    lines.append(f"# Pollaczek-Khinchine {pk * 1e3:.4f} ms, corrected for the arrivals' "
                 f"CV^2 {corr * 1e3:.4f} ms, measured {m['resp'] * 1e3:.4f} ms")
    lo, hi = poisson_band(m["n"] - 1)
    err = m["resp"] / corr - 1
    if not lo <= m["ca2"] <= hi:
        # burstier (or smoother) than any Poisson stream of this length:
        # the comparison would say nothing about the disk
        lines.append(f"SKIP: the arrivals were not Poisson (CV^2 of the gaps "
                     f"{m['ca2']:.3f}, outside {lo:.3f}-{hi:.3f} for {m['n'] - 1} gaps); "
                     f"the response is {100 * err:+.2f} % off the corrected value")
        return (None if ok else False), lines
    good = abs(err) <= tol
    lines.append(f"{'ok' if good else 'FAIL'}: mean response time (ms) measured "
                 f"{m['resp'] * 1e3:.6g}, model {corr * 1e3:.6g}, error {100 * err:+.2f} % "
                 f"(tolerance {100 * tol:.0f} %)")
    return ok and good, lines


def cmd_pk_trace(a):
    """M/G/1 from the per-access record: arrivals, starts and ends."""
    ev = sorted((e for e in parse_trace(a.trace) if e["ev"] == "start"),
                key=lambda e: e["id"])
    if len(ev) < 1000:
        print(f"FAIL: only {len(ev)} accesses traced")
        return False
    verdict, lines = pk_verdict(mg1_numbers(ev), a.tol)
    print("\n".join(lines))
    return verdict


EV = re.compile(r"^\s*\S+\s+\[\d+\].*?\s([\d.]+): ssadisk_service_(start|end): (.*)$")


def parse_trace(path: str) -> list:
    events = []
    for line in Path(path).read_text().splitlines():
        m = EV.match(line)
        if not m:
            continue
        kv = m.group(3).split()
        fields = {"ts": round(float(m.group(1)) * 1e9), "ev": m.group(2)}
        fields["op"] = kv[4]
        fields["dev"] = kv[1]
        for i in range(5, len(kv) - 1, 2):
            fields[kv[i]] = int(kv[i + 1])
        fields["id"] = int(kv[3])
        events.append(fields)
    return events


def window_numbers(ev: list, elapsed_ns: float) -> dict:
    """What the status should say for a window of ``elapsed_ns`` from the
    first arrival, from the record of every access (arrival, start, end in
    ns, op, dist_q10): the accesses ended in it and their figures, and the
    busy time inside it (the part of a service in progress included).  The
    status prints elapsed_ms truncated to the microsecond: its window ends
    up to 999 ns after what it says."""
    t0 = min(e["arrival"] for e in ev)
    t1 = t0 + round(elapsed_ns) + 999
    done = [e for e in ev if e["end"] <= t1]
    busy = sum(max(0, min(e["end"], t1) - max(e["start"], t0)) for e in ev)
    n = len(done)
    svc = [e["end"] - e["start"] for e in done]
    return {
        "ios": n,
        "reads": sum(e["op"] == "read" for e in done),
        "writes": sum(e["op"] == "write" for e in done),
        "util": busy / elapsed_ns if elapsed_ns else 0.0,
        "busy_now": any(e["start"] < t1 < e["end"] for e in ev),
        "svc_mean_us": sum(svc) / n / 1e3 if n else 0.0,
        "svc_m2_us2": sum(x * x for x in svc) / n / 1e6 if n else 0.0,
        "resp_mean_us": sum(e["end"] - e["arrival"] for e in done) / n / 1e3 if n else 0.0,
        "seek_mean": sum(e["dist_q10"] for e in done) / 1024 / n if n else 0.0,
        # ssadisk 1.4.0: a record without the fields is of one command each
        "commands": sum(e.get("commands", 1) for e in done),
        "chan_wait_mean_us": (sum(e.get("chan", 0) for e in done) / 1e3 /
                              sum(e.get("commands", 1) for e in done) if n else 0.0),
    }


def status_verdict(tag: str, st: dict, ev: list, last: bool) -> tuple:
    """(ok, lines) for one status line against the record.

    The status truncates: utilization to 1e-4, elapsed and the means to
    1e-3 of their unit, the second moment to an integer.  ``last``: the
    status taken once the disk had served every access of the record, whose
    window ends at the last end.  During the load the window's end is
    known from elapsed_ms only: what ended by then, and the busy time up to
    it, are checked against it.
    """
    w = window_numbers(ev, st["elapsed_ms"] * 1e6)
    checks = [("accesses ended in the window", st["ios"], w["ios"], 0)]
    if not last:
        checks.append(("utilization in the window", st["util"], w["util"], 1.5e-4))
    else:
        t0, t1 = min(e["arrival"] for e in ev), max(e["end"] for e in ev)
        busy = sum(e["end"] - e["start"] for e in ev)
        checks += [("utilization: busy / (last end - first arrival)", st["util"],
                    busy / (t1 - t0), 1.5e-4),
                   ("elapsed_ms: first arrival to last end", st["elapsed_ms"],
                    (t1 - t0) / 1e6, 1.5e-3),
                   ("reads", st["reads"], w["reads"], 0),
                   ("writes", st["writes"], w["writes"], 0),
                   ("svc_mean_us", st["svc_mean_us"], w["svc_mean_us"], 1.5e-3),
                   ("svc_m2_us2", st["svc_m2_us2"], w["svc_m2_us2"],
                    2.5 + 1e-6 * w["svc_m2_us2"]),
                   ("resp_mean_us", st["resp_mean_us"], w["resp_mean_us"], 1.5e-3),
                   ("seek_mean_cyl", st["seek_mean"], w["seek_mean"], 1.5e-3)]
        if "commands" in st:
            checks += [("commands", st["commands"], w["commands"], 0),
                       ("chan_wait_mean_us", st["chan_wait_mean_us"],
                        w["chan_wait_mean_us"], 1.5e-3)]
    ok = True
    lines = [f"# {tag} status: elapsed {st['elapsed_ms']:.3f} ms, "
             f"{'in service' if w['busy_now'] else 'idle'} at its end"]
    for name, got, want, tol in checks:
        good = abs(got - want) <= tol
        ok = ok and good
        lines.append(f"{'ok' if good else 'FAIL'}: {tag} {name}: status {got:.10g}, "
                     f"record {want:.10g} (tolerance {tol:.3g})")
    return ok, lines


def cmd_status_trace(a) -> bool:
    """The status figures against the record of every access."""
    ev = sorted((e for e in parse_trace(a.trace) if e["ev"] == "start"),
                key=lambda e: e["id"])
    if len(ev) < a.min_ios:
        print(f"FAIL: only {len(ev)} accesses traced (want >= {a.min_ios})")
        return False
    lines = [ln.split(None, 1) for ln in Path(a.statuses).read_text().splitlines()
             if ln.strip()]
    if not any(t == "idle" for t, _ in lines):
        print("FAIL: no status taken after the load")
        return False
    span = max(e["end"] for e in ev) - min(e["arrival"] for e in ev)
    busy = sum(e["end"] - e["start"] for e in ev)
    gaps = [y["arrival"] - x["arrival"] for x, y in zip(ev, ev[1:])]
    es = busy / len(ev)
    print(f"# {len(ev)} accesses over {span / 1e6:.3f} ms of the model's timeline: busy "
          f"{busy / 1e6:.3f} ms, utilization {busy / span:.4f}; arrival rate x E[S] "
          f"{es / (sum(gaps) / len(gaps)):.4f}")
    ok = True
    for tag, text in lines:
        good, out = status_verdict(tag, parse_status(text), ev, tag == "idle")
        print("\n".join(out))
        ok = ok and good
    return ok


def cmd_rmw(a) -> bool:
    ev = parse_trace(a.trace)
    starts = [e for e in ev if e["ev"] == "start"]
    ends = {e["id"]: e for e in ev if e["ev"] == "end"}
    ok = True
    # the write, and the access served just before it: the read
    wi = [i for i, e in enumerate(starts) if e["op"] == "write"]
    if not wi or wi[-1] == 0:
        print(f"FAIL: no write after a read among {len(starts)} service starts")
        return False
    r, w = starts[wi[-1] - 1], starts[wi[-1]]
    print(f"# read  {r}\n# write {w}")
    if not (r["op"] == "read" and w["op"] == "write" and r["sector"] == w["sector"]):
        print("FAIL: the last two accesses are not a read and a write of one block")
        return False
    R, T = a.rotation, a.xfer
    if w["arrival"] >= r["end"] + R:
        # The guest was slow to send the write (another task ran between
        # the read's completion and the write): the block went past.  The
        # disk must still wait for its next pass, without a seek; the
        # caller tries again for a write that comes in time.
        k = -(-(w["arrival"] - r["end"]) // R)
        late = (w["arrival"] - r["end"]) / 1e6
        good = (w["seek"] == 0 and w["dist_q10"] == 0 and w["xfer"] == T and
                abs(w["start"] + w["rot"] - (r["end"] + k * R)) <= 1000)
        print(f"{'ok' if good else 'FAIL'}: a write {late:.1f} ms after the read's end "
              f"waits for pass {k} of the block, without a seek")
        return None if good else False
    checks = [
        ("the write does not seek", w["seek"] == 0 and w["dist_q10"] == 0),
        ("the write's wait ends one rotation after the read's transfer",
         w["start"] + w["rot"] == r["end"] + R),
        ("each transfers T", r["xfer"] == T and w["xfer"] == T),
        ("read start to write end is X + T + R_max + T",
         w["end"] - r["start"] == r["seek"] + r["rot"] + T + R + T),
    ]
    for name, good in checks:
        print(f"{'ok' if good else 'FAIL'}: {name}")
        ok = ok and good
    # the events themselves fire at the model's times, give or take the
    # lateness of the timer
    for e in (r, w):
        end = ends.get(e["id"])
        if not end:
            print(f"FAIL: no service end for id {e['id']}")
            return False
        late = (end["ts"] - e["end"]) / 1e6
        good = -0.05 <= late <= a.late_ms
        print(f"{'ok' if good else 'FAIL'}: {e['op']} end delivered {late:.3f} ms after the model "
              f"(allowed {a.late_ms} ms)")
        ok = ok and good
    return ok


def cmd_rmw_io(a) -> bool:
    """Read a block and write it straight back, as one process would."""
    import mmap
    import os
    buf = mmap.mmap(-1, 4096)
    fd = os.open(a.dev, os.O_RDWR | os.O_DIRECT)
    try:
        got = os.preadv(fd, [buf], a.offset)
        put = os.pwritev(fd, [buf], a.offset)
    finally:
        os.close(fd)
    return got == put == 4096


def cmd_ssatrace_disk(a) -> bool:
    import json
    kids = [c for line in Path(a.records).read_text().splitlines() if line.strip()
            for c in json.loads(line)["children"]]
    missing = [c for c in kids if not c.get("disk_start_ns")]
    bad = [c for c in kids if c.get("disk_start_ns") and not
           c["dispatched_ns"] <= c["disk_start_ns"] <= c["completed_ns"]]
    ok = len(kids) >= a.min_children and not missing and not bad
    if kids and not missing:
        q = sum(c["disk_start_ns"] - c["dispatched_ns"] for c in kids) / len(kids)
        s = sum(c["completed_ns"] - c["disk_start_ns"] for c in kids) / len(kids)
        print(f"# {len(kids)} children: mean wait at the disk {q / 1e3:.1f} us, "
              f"disk start to completion {s / 1e3:.1f} us")
    print(f"{'ok' if ok else 'FAIL'}: {len(kids)} children (want >= {a.min_children}), "
          f"{len(missing)} without disk_start_ns, {len(bad)} out of order")
    for c in (missing + bad)[:3]:
        print(f"# {c}")
    return ok


def starts_of(path: str) -> list:
    return sorted((e for e in parse_trace(path) if e["ev"] == "start"),
                  key=lambda e: (e["start"], e["id"]))


def parts_add_up(e: dict, overhead: int) -> bool:
    """end - start = commands x overhead + seek + rot + xfer + chan"""
    return (e["end"] - e["start"] == e.get("commands", 1) * overhead + e["seek"] +
            e["rot"] + e["xfer"] + e.get("chan", 0))


def expect_commands(start: int, pass0: int, rotation: int, overhead: int,
                    spt: int, max_sectors: int, length: int) -> dict:
    """ssa-disk-model.c for a read of ``length`` sectors from sector 0 that
    starts at ``start`` on a one-zone mechanical disk whose sector 0 passes
    the head at ``pass0`` + k x rotation, all of it on the arm's cylinder:
    command by command, in the model's integer nanoseconds."""
    out = {"commands": 0, "rot": 0, "xfer": 0}
    done, t = 0, start
    while done < length:
        n = min(length - done, max_sectors or length)
        target = rotation * (done % spt) // spt
        phase = (t + overhead - pass0) % rotation
        rot = target - phase if target >= phase else target + rotation - phase
        xfer = rotation * n // spt
        out["commands"] += 1
        out["rot"] += rot
        out["xfer"] += xfer
        t += overhead + rot + xfer
        done += n
    out["end"] = t
    return out


def cmd_commands(a) -> bool:
    ev = [e for e in starts_of(a.trace) if e["dev"] == a.dev]
    probe = [e for e in ev if e["sector"] == 0 and e["len"] < a.len]
    big = [e for e in ev if e["sector"] == 0 and e["len"] == a.len]
    if not probe or len(big) != 1:
        print(f"FAIL: want a short read of sector 0 and then one read of {a.len} "
              f"sectors on {a.dev}; the trace has {[(e['sector'], e['len']) for e in ev]}")
        return False
    p, e = probe[-1], big[0]
    pass0 = p["start"] + a.overhead + p["seek"] + p["rot"]
    want = expect_commands(e["start"], pass0, a.rotation, a.overhead, a.spt,
                           a.max_sectors, a.len)
    print(f"# {a.dev}: {e}")
    print(f"# model: {want}, service {(want['end'] - e['start']) / 1e6:.6f} ms")
    checks = [("one event for the read (one bio)", len(big), 1),
              ("commands", e["commands"], want["commands"]),
              ("seek", e["seek"], 0),
              ("rot (sum over the commands)", e["rot"], want["rot"]),
              ("xfer (sum)", e["xfer"], want["xfer"]),
              ("end", e["end"], want["end"]),
              ("end - start = commands x overhead + seek + rot + xfer + chan",
               parts_add_up(e, a.overhead), True)]
    ok = True
    for name, got, wanted in checks:
        good = got == wanted
        ok = ok and good
        print(f"{'ok' if good else 'FAIL'}: {name}: {got}, model {wanted}")
    return ok


def cmd_channel(a):
    ev = [e for e in starts_of(a.trace) if e["len"] == a.len]
    if len(ev) != 2 or ev[0]["dev"] == ev[1]["dev"]:
        print(f"FAIL: want one read of {a.len} sectors on each of two disks, have "
              f"{[(e['dev'], e['len']) for e in ev]}")
        return False
    first, later = ev
    for e in ev:
        print(f"# {e}")
    per = a.len * 512 * 1000 // a.mbps             # one read's channel time, ns
    media = first["start"] + a.overhead + first["seek"] + first["rot"]
    gap = later["start"] - first["start"]
    ok = True
    checks = [(f"{e['dev']}: end - start = commands x overhead + seek + rot + xfer + chan",
               parts_add_up(e, a.overhead)) for e in ev]
    checks.append(("the later read waited for the channel", later["chan"] > 0))
    if not a.max_sectors:
        # the check needs the later read's data ready before the first's
        # has crossed the channel
        if later["start"] + a.overhead + later["seek"] + later["rot"] >= media + per:
            print(f"# the later read came {gap / 1e6:.3f} ms after the first, too late to "
                  f"share the channel with it: no check")
            return None
        got = later["end"] - media
        print(f"# the later read ended {got / 1e6:.6f} ms after the first media transfer "
              f"began; (2 x {a.len * 512} bytes) / {a.mbps} MB/s = {2 * per / 1e6:.6f} ms")
        checks += [("one command each", first["commands"] == later["commands"] == 1),
                   ("the first read ends when its data has crossed the channel",
                    first["end"] == max(media + per, first["end"] - first["chan"])),
                   ("the later read ends (sum of bytes) / R after the first began", got == 2 * per)]
    else:
        cmd = a.max_sectors * 512 * 1000 // a.mbps
        k = -(-a.len // a.max_sectors)
        # the check needs the later read's first command on the channel
        # before the first read's first command has left it
        if gap >= cmd - a.rotation_bound:
            print(f"# the later read came {gap / 1e6:.3f} ms after the first, too late for "
                  f"their commands to alternate from the start: no check")
            return None
        got = later["end"] - first["end"]
        print(f"# {k} commands each, {gap / 1e6:.3f} ms apart; the later read ended "
              f"{got / 1e6:.6f} ms after the first, one command's channel time is "
              f"{cmd / 1e6:.6f} ms")
        checks += [(f"{k} commands each", first["commands"] == later["commands"] == k),
                   ("the commands alternate on the channel: the later ends one "
                    "command's channel time after the first", got == cmd),
                   ("the channel was busy from the first's media start to the end",
                    0 <= later["end"] - 2 * per - first["start"] - a.overhead < a.rotation_bound)]
    for name, good in checks:
        ok = ok and good
        print(f"{'ok' if good else 'FAIL'}: {name}")
    return ok


M64 = (1 << 64) - 1


def drawn_phase(seed: int, rotation: int) -> int:
    """ssad_spindle_init(): the first splitmix64 draw of the seed, as the
    fraction of a turn (ns) that phase random gives."""
    z = (seed + 0x9e3779b97f4a7c15) & M64
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    z ^= z >> 31
    return (rotation * (z >> 32)) >> 32


def expected_phase(spec: str, rotation: int) -> int:
    kind, _, v = spec.partition(":")
    if kind == "frac":
        return rotation * round(float(v) * 1e6) // 10 ** 6
    if kind == "seed":
        return drawn_phase(int(v), rotation)
    raise SystemExit(f"phase SPEC is frac:F or seed:N, not {spec!r}")


def cmd_phase(a) -> bool:
    ev = starts_of(a.trace)
    first = {}
    for e in ev:
        first.setdefault(e["sector"], e)
    want = dict((int(k), expected_phase(v, a.rotation))
                for k, v in (x.split("=", 1) for x in a.targets))
    missing = [s for s in [a.ref, *want] if s not in first]
    if missing:
        print(f"FAIL: no read of device sector(s) {missing} in the trace")
        return False

    def passes(e):      # when the target's sector 0 passes the head
        return e["start"] + a.overhead + e["seek"] + e["rot"]
    # A target constructed after the reference (a later line of the table)
    # had its load, and its angle, that much later: its angle against the
    # reference's comes out short by the time between the two
    # constructions, never long.
    ref = passes(first[a.ref])
    ok = True
    for sector, phase in want.items():
        got = (ref - passes(first[sector])) % a.rotation
        diff = (got - phase + a.rotation // 2) % a.rotation - a.rotation // 2
        good = -a.tol_ns <= diff <= 0
        ok = ok and good
        print(f"{'ok' if good else 'FAIL'}: target at {sector}: angle at load "
              f"{got / a.rotation:.6f} turn, want {phase / a.rotation:.6f} "
              f"less the time between the constructions: {-diff / 1e6:.3f} ms "
              f"(allowed 0 to {a.tol_ns / 1e6:.3f} ms)")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("moments")
    p.add_argument("status")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--p-seq", type=float, default=0.0)
    p.add_argument("--tol", type=float, default=0.03)
    p.add_argument("--min-ios", type=int, default=5000)
    p = sub.add_parser("seek")
    p.add_argument("status")
    p.add_argument("--cylinders", type=int, required=True)
    p.add_argument("--tol", type=float, default=0.03)
    p = sub.add_parser("pk")
    p.add_argument("status")
    p.add_argument("--tol", type=float, default=0.05)
    p = sub.add_parser("pk-trace")
    p.add_argument("trace")
    p.add_argument("--tol", type=float, default=0.05)
    p = sub.add_parser("rmw")
    p.add_argument("trace")
    p.add_argument("--rotation", type=int, required=True)
    p.add_argument("--xfer", type=int, required=True)
    p.add_argument("--late-ms", type=float, default=5.0)
    p = sub.add_parser("status-trace")
    p.add_argument("trace")
    p.add_argument("statuses")
    p.add_argument("--min-ios", type=int, default=50)
    p = sub.add_parser("ssatrace-disk")
    p.add_argument("records")
    p.add_argument("--min-children", type=int, default=100)
    p = sub.add_parser("rmw-io")
    p.add_argument("dev")
    p.add_argument("--offset", type=int, default=0)
    p = sub.add_parser("commands")
    p.add_argument("trace")
    p.add_argument("--dev", required=True)
    p.add_argument("--rotation", type=int, required=True)
    p.add_argument("--overhead", type=int, default=0)
    p.add_argument("--spt", type=int, required=True)
    p.add_argument("--max-sectors", type=int, default=0)
    p.add_argument("--len", type=int, required=True)
    p = sub.add_parser("channel")
    p.add_argument("trace")
    p.add_argument("--len", type=int, required=True)
    p.add_argument("--mbps", type=int, required=True)
    p.add_argument("--overhead", type=int, default=0)
    p.add_argument("--max-sectors", type=int, default=0)
    p.add_argument("--rotation-bound", type=int, default=10 ** 9,
                   help="bound of the first command's seek and rotation, ns")
    p = sub.add_parser("phase")
    p.add_argument("trace")
    p.add_argument("--rotation", type=int, required=True)
    p.add_argument("--overhead", type=int, default=0)
    p.add_argument("--ref", type=int, default=0)
    p.add_argument("--tol-ns", type=int, default=100 * 10 ** 6,
                   help="the longest time between two targets' constructions")
    p.add_argument("targets", nargs="+")
    a = ap.parse_args()
    res = {"moments": cmd_moments, "seek": cmd_seek, "pk": cmd_pk,
           "pk-trace": cmd_pk_trace, "rmw": cmd_rmw, "rmw-io": cmd_rmw_io,
           "status-trace": cmd_status_trace,
           "ssatrace-disk": cmd_ssatrace_disk, "commands": cmd_commands,
           "channel": cmd_channel, "phase": cmd_phase}[a.cmd](a)
    return SKIP if res is None else 0 if res else 1


if __name__ == "__main__":
    sys.exit(main())
