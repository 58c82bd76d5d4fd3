"""Measured against predicted: read ``ssatrace record`` files, estimate the
inputs of a model from them, run the model and report both with
confidence intervals (Documentation/models.rst, "ssa compare").

Each record file is one load level (one fio run).  From it:

* arrival rate: requests / (last fork - first fork);
* read fraction and request sizes (sectors);
* per member and class (high/low): child arrival rate and the first three
  moments of the child service time (dispatched -> completed);
* per member utilization: the time at least one child was in service,
  over the span;
* measured mean response time (fork -> join) with a 95 % batch-means
  confidence interval.

Models:

* ``forkjoin``: every member a non-preemptive two-class M/G/1 queue fed
  with the measured rates and service moments (seed 002, eqs. 19-20 and
  33-34); a request's response is the largest of its children's waits
  plus services, each child's law replaced by a Coxian with the same two
  moments and the children taken as independent (seed 002, section 5.1).
  The requests' own child sets are used, so any layout works.
* ``raid5`` / ``pstripe``: seed 002's model (ssa.raid5) with the disk
  given on the command line and the workload (rate, read fraction, block
  counts = ceil(size / chunk)) taken from the trace.

Which model, and with what array and disk, can come from the volume the
trace was taken on: ``parse_tables`` reads the output of ``dmsetup table``
and ``dmsetup ls``, ``find_volume`` picks the ssastripe volume and its
members' ssadisk tables, and ``choose_model`` resolves ``--model auto``
and every parameter (option > tables > default).  ``select`` keeps the
workload's requests (one comm, a time window) and says what it dropped.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
from scipy.special import stdtrit

from . import disk as disk_mod
from . import queues

HIGH, LOW = "high", "low"


@dataclass(frozen=True)
class Child:
    member: int
    cls: str
    queued: int
    dispatched: int
    completed: int


@dataclass(frozen=True)
class Record:
    fork: int
    join: int
    op: str
    sectors: int
    children: tuple[Child, ...]
    comm: str = ""                      # the submitting task (ssatrace's comm)
    dev: str = ""                       # the volume, major:minor

    @property
    def response(self) -> float:
        return (self.join - self.fork) * 1e-9


def _child(fields: Sequence[str]) -> Child:
    return Child(int(fields[0]), fields[1], int(fields[2]), int(fields[3]), int(fields[4]))


def parse_records(lines: Iterable[str]) -> list[Record]:
    """Records of an ssatrace CSV (with its header) or JSON-lines file.
    Requests that failed (status != 0) or have no children are skipped."""
    lines = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
    out: list[Record] = []
    if not lines:
        return out
    if lines[0].lstrip().startswith("{"):
        for ln in lines:
            j = json.loads(ln)
            kids = tuple(Child(c["member"], c["class"], c["queued_ns"], c["dispatched_ns"],
                               c["completed_ns"]) for c in j["children"])
            if j.get("status", 0) == 0 and kids:
                out.append(Record(j["fork_ns"], j["join_ns"], j["op"], j["len"], kids,
                                  j.get("comm", ""), str(j.get("dev", ""))))
        return out
    for row in csv.DictReader(lines):
        kids = tuple(_child(c.split(":")) for c in row["children"].split("|") if c)
        if int(row["status"]) == 0 and kids:
            out.append(Record(int(row["fork_ns"]), int(row["join_ns"]), row["op"],
                              int(row["len"]), kids, row.get("comm") or "",
                              row.get("dev") or ""))
    return out


def load(path: str) -> list[Record]:
    with open(path, encoding="utf-8") as f:
        return parse_records(f)


# -- which requests: the workload's ---------------------------------------------

ALL = "all"


@dataclass(frozen=True)
class Selection:
    """The requests ``select`` kept, and what it dropped."""
    records: list
    comm: str                     # the comm kept, or "all"
    dominant: bool                # chosen as the comm with most requests
    total: int                    # requests before selection
    dropped_comm: dict            # comm -> requests of it dropped
    window: tuple | None          # (start, end) s from the first fork; None: all
    dropped_window: int           # requests outside the window

    @property
    def dropped(self) -> int:
        return self.dropped_window + sum(self.dropped_comm.values())

    def describe(self) -> str:
        how = " (the most requests)" if self.dominant else ""
        what = "every comm" if self.comm == ALL else f"comm {self.comm or '(none)'}{how}"
        text = f"kept {len(self.records)} of {self.total} requests: {what}"
        if self.window is not None:
            a, b = self.window
            text += f", forks {a:g}..{b:g} s after the first"
        parts = [f"{c or '(none)'} {n}" for c, n in
                 sorted(self.dropped_comm.items(), key=lambda kv: (-kv[1], kv[0]))]
        if self.window is not None:
            parts.append(f"outside the window {self.dropped_window}")
        return text + "; dropped " + (", ".join(parts) if parts else "none")

    def as_dict(self) -> dict:
        return {"comm": self.comm, "dominant": self.dominant, "total": self.total,
                "kept": len(self.records), "dropped_comm": dict(self.dropped_comm),
                "window_s": list(self.window) if self.window is not None else None,
                "dropped_window": self.dropped_window}


def parse_window(text: str) -> tuple[float, float]:
    """``START:END`` in seconds; either side may be empty (0, no end)."""
    a, sep, b = text.partition(":")
    try:
        if not sep:
            raise ValueError
        start = float(a) if a.strip() else 0.0
        end = float(b) if b.strip() else math.inf
    except ValueError:
        raise ValueError(f"--window wants START:END in seconds, got {text!r}") from None
    if start < 0 or end <= start:
        raise ValueError(f"--window {text}: want 0 <= START < END")
    return start, end


def select(recs: Sequence[Record], comm: str | None = None,
           window: tuple[float, float] | None = None) -> Selection:
    """The workload's requests.  ``window`` (seconds after the first
    request's fork) first; then ``comm``: a name keeps that comm's
    requests, ``"all"`` keeps every one, None keeps the comm that
    submitted the most (udev's probes after a run, say, are dropped)."""
    recs = list(recs)
    kept, out_window = recs, 0
    if window is not None and recs:
        t0 = min(r.fork for r in recs)
        a, b = window
        kept = [r for r in recs if a <= (r.fork - t0) * 1e-9 < b]
        out_window = len(recs) - len(kept)
    counts = Counter(r.comm for r in kept)
    dominant = False
    if comm == ALL:
        chosen = ALL
    elif comm is None:
        chosen = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else ""
        dominant = True
    else:
        if comm not in counts:
            have = ", ".join(f"{c or '(none)'} {n}" for c, n in counts.most_common()) or "none"
            raise ValueError(f"no requests of comm {comm!r} (the trace has: {have})")
        chosen = comm
    if chosen != ALL:
        dropped = {c: n for c, n in counts.items() if c != chosen}
        kept = [r for r in kept if r.comm == chosen]
    else:
        dropped = {}
    return Selection(kept, chosen, dominant, len(recs), dropped,
                     window, out_window)


def request_cv2(recs: Sequence[Record]) -> float:
    """Squared coefficient of variation of the requests' interarrival times
    (forks): 1 for a Poisson source.  Children are not counted: a parity
    write's two I/Os at one member arrive back to back whatever the source."""
    ia = np.diff(np.sort(np.array([r.fork for r in recs], dtype=float)))
    return float(ia.var() / ia.mean() ** 2) if len(ia) > 1 and ia.mean() > 0 else math.nan


def parity_requests(recs: Sequence[Record]) -> int:
    """Requests with a high-class child: parity work (raid5, pstripe)."""
    return sum(any(c.cls == HIGH for c in r.children) for r in recs)


# -- estimation ----------------------------------------------------------------

def batch_means(x: np.ndarray, batches: int = 20, level: float = 0.95) -> tuple[float, float]:
    """(mean, half-width) of a batch-means confidence interval: the series
    cut into ``batches`` consecutive batches, Student t on their means."""
    x = np.asarray(x, dtype=float)
    if len(x) < 2 * batches:
        raise ValueError(f"need at least {2 * batches} requests for {batches} batches")
    means = np.array([b.mean() for b in np.array_split(x, batches)])
    t = stdtrit(batches - 1, 0.5 + level / 2)   # Student t quantile
    return float(x.mean()), float(t * means.std(ddof=1) / math.sqrt(batches))


def batch_rho1(x, batches: int = 20) -> float:
    """The lag-1 autocorrelation of the series' batch means (nan when
    there are too few values or no variation)."""
    x = np.asarray(x, dtype=float)
    if len(x) < 2 * batches:
        return math.nan
    m = np.array([b.mean() for b in np.array_split(x, batches)])
    d = m - m.mean()
    den = float(np.dot(d, d))
    return float(np.dot(d[:-1], d[1:]) / den) if den > 0 else math.nan


def busy_time(intervals: list[tuple[int, int]]) -> int:
    """Length of the union of [start, end) intervals (ns)."""
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


@dataclass(frozen=True)
class ClassStats:
    rate: float                                  # children per second
    service: tuple[float, float, float]          # E[S], E[S^2], E[S^3], seconds


@dataclass
class Measured:
    requests: int
    span: float                                  # seconds
    rate: float
    p_read: float
    mean_sectors: float
    response: float
    response_ci: float
    read: float
    write: float
    members: dict = field(default_factory=dict)  # member -> {cls: ClassStats}
    utilization: dict = field(default_factory=dict)
    # member -> SCV of its children's interarrival times (not the request
    # stream's: an update's two I/Os at a member arrive back to back)
    arrival_cv2: dict = field(default_factory=dict)
    request_cv2: float = math.nan                # SCV of the forks' interarrival times
    read_ci: float = math.nan                    # batch-means half-widths, s
    write_ci: float = math.nan
    reads: int = 0
    writes: int = 0

    def as_dict(self) -> dict:
        return {"requests": self.requests, "span_s": self.span, "rate": self.rate,
                "p_read": self.p_read, "mean_sectors": self.mean_sectors,
                "response_s": self.response, "response_ci_s": self.response_ci,
                "read_s": self.read, "write_s": self.write,
                "read_ci_s": self.read_ci, "write_ci_s": self.write_ci,
                "reads": self.reads, "writes": self.writes,
                "request_cv2": self.request_cv2,
                "utilization": {str(k): v for k, v in sorted(self.utilization.items())},
                "member_child_cv2": {str(k): v for k, v in sorted(self.arrival_cv2.items())},
                "members": {str(m): {c: {"rate": s.rate, "service_s": list(s.service)}
                                     for c, s in cl.items()}
                            for m, cl in sorted(self.members.items())}}


def estimate(recs: list[Record], batches: int = 20) -> Measured:
    """The measurable model inputs and the measured response times."""
    if len(recs) < 2:
        raise ValueError("need at least two requests")
    recs = sorted(recs, key=lambda r: r.fork)
    span = (recs[-1].fork - recs[0].fork) * 1e-9
    if span <= 0:
        raise ValueError("all requests forked at the same instant")
    rw = [r for r in recs if r.op in ("read", "write")]
    reads = [r.response for r in rw if r.op == "read"]
    writes = [r.response for r in rw if r.op == "write"]
    z = np.array([r.response for r in recs])
    mean, half = batch_means(z, batches)
    svc: dict = defaultdict(lambda: defaultdict(list))
    spans: dict = defaultdict(list)
    for r in recs:
        for c in r.children:
            svc[c.member][c.cls].append((c.completed - c.dispatched) * 1e-9)
            spans[c.member].append((c.dispatched, c.completed))
    members = {}
    for m, cl in svc.items():
        members[m] = {}
        for cls, v in cl.items():
            a = np.array(v)
            members[m][cls] = ClassStats(len(a) / span, (float(a.mean()), float((a ** 2).mean()),
                                                         float((a ** 3).mean())))
    # busy time within the span (first to last fork) only: the last
    # requests' children go on after the last fork, and counting them over
    # the span would put a member above 1 (seen: 1.03 with 60 requests)
    t0, t1 = recs[0].fork, recs[-1].fork
    util = {m: busy_time([(max(s, t0), min(e, t1)) for s, e in iv if e > t0 and s < t1])
            * 1e-9 / span for m, iv in spans.items()}
    cv2 = {}
    for m in svc:
        ia = np.diff(np.sort([c.queued for r in recs for c in r.children if c.member == m]))
        cv2[m] = float(ia.var() / ia.mean() ** 2) if len(ia) > 1 and ia.mean() > 0 else math.nan
    return Measured(len(recs), span, len(recs) / span,
                    len(reads) / len(rw) if rw else math.nan,
                    float(np.mean([r.sectors for r in recs])), mean, half,
                    float(np.mean(reads)) if reads else math.nan,
                    float(np.mean(writes)) if writes else math.nan, members, util, cv2,
                    request_cv2(recs), _half_width(reads, batches),
                    _half_width(writes, batches), len(reads), len(writes))


def _half_width(z: list, batches: int) -> float:
    """Batch-means half-width of one op's responses (in fork order), or NaN
    when there are too few of them for the batches."""
    if len(z) < 2 * batches:
        return math.nan
    return batch_means(np.array(z), batches)[1]


# -- trace-driven replay ----------------------------------------------------------

def replay_waits(children: Sequence[Child]) -> dict:
    """Waits of one member's children through an ideal single server: the
    measured arrival (queued) and service (dispatched -> completed) times,
    high class first, FIFO within a class, no preemption and no gap between
    a completion and the next dispatch.  Returns {child: wait in ns}."""
    import heapq
    order = sorted(children, key=lambda c: c.queued)
    waits: dict = {}
    ready: list = []                                # (class rank, queued, seq, child)
    free, i, seq = 0, 0, 0
    while i < len(order) or ready:
        if not ready and order[i].queued > free:
            free = order[i].queued
        while i < len(order) and order[i].queued <= free:
            c = order[i]
            heapq.heappush(ready, (0 if c.cls == HIGH else 1, c.queued, seq, c))
            seq += 1
            i += 1
        _, _, _, c = heapq.heappop(ready)
        waits[c] = free - c.queued
        free += c.completed - c.dispatched
    return waits


def replay_prediction(recs: list[Record]) -> float:
    """Mean response time if every member were the ideal server of
    replay_waits, fed the trace's own arrivals and services: the model's
    assumptions minus the Poisson arrivals.  Set beside the analytic model
    it tells an error of the arrival assumption from an error of the model
    or of the system (dispatch gaps, device queueing)."""
    by_member: dict = defaultdict(list)
    for r in recs:
        for c in r.children:
            by_member[c.member].append(c)
    waits: dict = {}
    for kids in by_member.values():
        waits.update(replay_waits(kids))
    z = [max((c.queued - r.fork) + waits[c] + (c.completed - c.dispatched)
             for c in r.children) for r in recs]
    return float(np.mean(z)) * 1e-9


# -- the fork-join model on measured inputs -------------------------------------

def _child_law(meas: Measured, member: int, cls: str, cache: dict) -> queues.Coxian:
    key = (member, cls)
    if key not in cache:
        cl = meas.members[member]
        zero = ClassStats(0.0, (0.0, 0.0, 0.0))
        hi, lo = cl.get(HIGH, zero), cl.get(LOW, zero)
        if cls == HIGH:
            w, w2 = queues.high_wait_moments(hi.rate, hi.service, lo.rate, lo.service)
            s = hi.service
        else:
            w, w2 = queues.low_wait_moments(hi.rate, hi.service, lo.rate, lo.service)
            s = lo.service
        mean = w + s[0]
        second = w2 + 2 * w * s[0] + s[1]
        if second <= mean * mean * (1 + 1e-9):      # (near) deterministic: tiny spread
            second = mean * mean * (1 + 1e-6)
        cache[key] = queues.coxian_fit(mean, second)
    return cache[key]


def forkjoin_prediction(recs: list[Record], meas: Measured) -> dict:
    """Predicted mean response (overall, read, write) of the forkjoin model."""
    cache: dict = {}
    sig_value: dict = {}
    preds = {"read": [], "write": [], "all": []}
    for r in recs:
        sig = tuple(sorted(Counter((c.member, c.cls) for c in r.children).items()))
        if sig not in sig_value:
            laws = [_child_law(meas, m, cls, cache) for (m, cls), _ in sig]
            counts = [n for _, n in sig]
            sig_value[sig] = laws[0].moments()[0] if len(sig) == 1 and counts[0] == 1 \
                else queues.max_moments(laws, counts)[0]
        v = sig_value[sig]
        preds["all"].append(v)
        if r.op in preds:
            preds[r.op].append(v)
    return {k: float(np.mean(v)) if v else math.nan for k, v in preds.items()}


def block_sizes(recs: list[Record], chunk_sectors: int, ws: int) -> np.ndarray:
    """P{B = k}, k = 1..ws, with B = ceil(sectors / chunk) capped at ws."""
    b = np.minimum(np.ceil(np.array([r.sectors for r in recs]) / chunk_sectors), ws)
    b = np.maximum(b, 1).astype(int)
    return np.bincount(b, minlength=ws + 1)[1:] / len(b)


@dataclass(frozen=True)
class Row:
    label: str
    rate: float
    utilization: float
    measured: float
    ci: float
    predicted: float
    replay: float = math.nan
    arrival_cv2: float = math.nan       # of the requests' interarrivals (forks)
    measured_read: float = math.nan
    read_ci: float = math.nan
    predicted_read: float = math.nan
    measured_write: float = math.nan
    write_ci: float = math.nan
    predicted_write: float = math.nan

    @property
    def rel_error(self) -> float:
        return (self.predicted - self.measured) / self.measured

    @property
    def read_rel_error(self) -> float:
        return (self.predicted_read - self.measured_read) / self.measured_read

    @property
    def write_rel_error(self) -> float:
        return (self.predicted_write - self.measured_write) / self.measured_write

    def as_dict(self) -> dict:
        return {"label": self.label, "rate": self.rate, "utilization": self.utilization,
                "measured_s": self.measured, "ci_s": self.ci, "predicted_s": self.predicted,
                "rel_error": self.rel_error, "replay_s": self.replay,
                "arrival_cv2": self.arrival_cv2,
                "measured_read_s": self.measured_read, "read_ci_s": self.read_ci,
                "predicted_read_s": self.predicted_read,
                "read_rel_error": self.read_rel_error,
                "measured_write_s": self.measured_write, "write_ci_s": self.write_ci,
                "predicted_write_s": self.predicted_write,
                "write_rel_error": self.write_rel_error}


def plot(rows: Sequence[Row], path: str, title: str) -> None:
    """Measured means with their intervals against the prediction, by rate."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = sorted(rows, key=lambda r: r.rate)
    x = [r.rate for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.errorbar(x, [r.measured * 1e3 for r in rows], yerr=[r.ci * 1e3 for r in rows],
                fmt="o", capsize=4, label="measured (95 % CI)")
    ax.plot(x, [r.predicted * 1e3 for r in rows], "s--", label="model")
    if any(r.replay == r.replay for r in rows):
        ax.plot(x, [r.replay * 1e3 for r in rows], "x:", label="trace-driven replay")
    for r in rows:
        ax.annotate(f"{r.rel_error:+.0%}", (r.rate, r.predicted * 1e3),
                    textcoords="offset points", xytext=(4, 6), fontsize=8)
    ax.set_xlabel("arrival rate (requests/s)")
    ax.set_ylabel("mean response time (ms)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- the volume the trace came from: dmsetup's tables ------------------------------
#
# The file is what
#
#     { dmsetup table; dmsetup ls; } > vol.tables
#
# prints: one "NAME: START LEN TARGET ARGS..." line per target of every
# device, and one "NAME (MAJOR:MINOR)" (older dmsetup: "(MAJOR, MINOR)")
# line per device, which is how a member that the table names by
# major:minor is found.  Blank lines and lines starting with '#' are
# ignored, and so is dmsetup's "No devices found".

_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_TABLE_LINE = re.compile(r"^(\S+):\s+(\d+)\s+(\d+)\s+(\S+)\s*(.*)$")
_LS_LINE = re.compile(r"^(\S+)\s+\((\d+)(?::|,\s*)(\d+)\)\s*$")
PARITY_LAYOUTS = ("raid5", "pstripe")


def parse_time(text: str) -> float:
    """An ssadisk time (``16666667ns``, ``500us``, ``3ms``, ``1.5s``) in seconds."""
    m = re.fullmatch(r"([0-9]*\.?[0-9]+)(ns|us|ms|s)", text.strip())
    if not m:
        raise ValueError(f"not a time: {text!r} (want a number and ns, us, ms or s)")
    return float(m.group(1)) * _TIME_UNITS[m.group(2)]


@dataclass(frozen=True)
class Tables:
    """Parsed ``dmsetup table`` and ``dmsetup ls`` output."""
    targets: dict          # name -> [(start, length, target, [args...]), ...]
    devnos: dict           # name -> "major:minor"


def parse_tables(text: str) -> Tables:
    targets: dict = {}
    devnos: dict = {}
    for n, line in enumerate(text.splitlines(), 1):
        ln = line.strip()
        if not ln or ln.startswith("#") or ln == "No devices found":
            continue
        m = _TABLE_LINE.match(ln)
        if m:
            targets.setdefault(m.group(1), []).append(
                (int(m.group(2)), int(m.group(3)), m.group(4), m.group(5).split()))
            continue
        m = _LS_LINE.match(ln)
        if m:
            devnos[m.group(1)] = f"{m.group(2)}:{m.group(3)}"
            continue
        if re.match(r"^\S+:\s*$", ln):             # a device with no table
            continue
        raise ValueError(f"tables line {n}: neither 'NAME: START LEN TARGET ARGS' "
                         f"(dmsetup table) nor 'NAME (MAJOR:MINOR)' (dmsetup ls): {ln!r}")
    return Tables(targets, devnos)


# ct1992, ssadisk's default (Documentation/ssadisk.rst, Presets): what a
# table that does not print a parameter (a hand-written one) gets.
_SSADISK_DEFAULTS = {"mode": "stochastic", "cylinders": "1200", "seek_a": "3ms",
                     "seek_b": "500us", "rotation": "16666667ns", "block_time": "1300us",
                     "block_size": "4096", "p_seq": "0", "time_scale": "1", "overhead": "0ns"}


@dataclass(frozen=True)
class DiskTable:
    """The parameters of one ssadisk table that seed 002's disk takes
    (times in seconds, unscaled: ``time_scale`` is kept apart, as ssadisk
    prints it)."""
    name: str
    mode: str
    cylinders: int
    seek_a: float
    seek_b: float
    rotation: float               # R_max
    block_time: float             # per block_size bytes
    block_size: int
    p_seq: float
    time_scale: float
    overhead: float = 0.0

    def model_key(self) -> tuple:
        return (self.mode, self.cylinders, self.seek_a, self.seek_b, self.rotation,
                self.block_time, self.block_size, self.p_seq, self.time_scale, self.overhead)


def parse_ssadisk(args: Sequence[str], name: str = "") -> DiskTable:
    """The ARGS of an ssadisk table line: ``DEV OFFSET [N WORDS...]``."""
    if len(args) < 2:
        raise ValueError(f"ssadisk {name}: want DEV OFFSET [N ARGS...]")
    words = list(args[3:]) if len(args) > 2 else []
    p = dict(_SSADISK_DEFAULTS)
    i = 0
    while i < len(words):
        w = words[i].lower()
        if w == "spread":
            i += 1
        elif w == "zones":
            nz = int(words[i + 1])
            i += 2 + 2 * nz
        elif w == "preset":
            if words[i + 1].lower() != "ct1992":
                p["mode"] = f"preset {words[i + 1]}"      # not expanded: not ours to guess
            i += 2
        else:
            if i + 1 >= len(words):
                raise ValueError(f"ssadisk {name}: {words[i]} has no value")
            p[w] = words[i + 1]
            i += 2
    try:
        return DiskTable(name, p["mode"], int(p["cylinders"]), parse_time(p["seek_a"]),
                         parse_time(p["seek_b"]), parse_time(p["rotation"]),
                         parse_time(p["block_time"]), int(p["block_size"]),
                         float(p["p_seq"]), float(p["time_scale"]), parse_time(p["overhead"]))
    except ValueError as e:
        raise ValueError(f"ssadisk {name}: {e}") from None


@dataclass(frozen=True)
class Volume:
    """An ssastripe volume of the tables, with its members' ssadisks."""
    name: str
    layout: str
    chunk_sectors: int
    members: tuple                # as the table gives them (major:minor or a path)
    options: dict                 # option -> value, as given (defaults not filled in)
    member_names: tuple           # the device each member is, None if not found
    member_disks: tuple           # DiskTable of each member that is an ssadisk, else None

    @property
    def parity(self) -> bool:
        return self.layout in PARITY_LAYOUTS

    @property
    def sync(self) -> str:
        return self.options.get("sync", "before_service").lower()

    @property
    def queue_depth(self) -> int:
        return int(self.options.get("queue_depth", 0))

    @property
    def priority(self) -> str:
        return self.options.get("priority", "on").lower()

    @property
    def write_method(self) -> str:
        return self.options.get("write_method", "auto").lower()

    def describe(self) -> str:
        opts = " ".join(f"{k} {v}" for k, v in self.options.items())
        return (f"{self.name}: ssastripe {self.layout}, {len(self.members)} members, "
                f"chunk {self.chunk_sectors} sectors" + (f", {opts}" if opts else ""))


def parse_ssastripe(name: str, args: Sequence[str]) -> tuple[str, int, tuple, dict]:
    """(layout, chunk_sectors, members, options) of an ssastripe table's ARGS."""
    try:
        layout, chunk, n = args[0].lower(), int(args[1]), int(args[2])
        members = tuple(args[3 + 2 * k] for k in range(n))
        rest = list(args[3 + 2 * n:])
        if len(members) != n or len(args) < 3 + 2 * n:
            raise IndexError
    except (IndexError, ValueError):
        raise ValueError(f"ssastripe {name}: want LAYOUT CHUNK N DEV OFFSET ... "
                         "[#OPTS OPTS...]") from None
    opts: dict = {}
    if rest:
        words = rest[1:1 + int(rest[0])]
        for k in range(0, len(words) - 1, 2):
            key = words[k].lower()
            opts[key] = words[k + 1] if key not in opts else f"{opts[key]},{words[k + 1]}"
    return layout, chunk, members, opts


def _member_device(member: str, tables: Tables) -> str | None:
    """The name of the device a member is, from a path or major:minor."""
    if member.startswith("/dev/mapper/"):
        return member[len("/dev/mapper/"):]
    by_devno = {v: k for k, v in tables.devnos.items()}
    if member in by_devno:
        return by_devno[member]
    m = re.fullmatch(r"/dev/dm-(\d+)", member)
    if m:
        hits = [k for k, v in tables.devnos.items() if v.split(":")[1] == m.group(1)]
        return hits[0] if len(hits) == 1 else None
    if member in tables.targets:                      # a bare name (hand-written)
        return member
    return None


def find_volume(tables: Tables, name: str | None = None, devs: Sequence[str] = ()) -> Volume:
    """The ssastripe volume: ``name`` if given, else the only one, else the
    one whose major:minor is the trace's (``devs``: the dev column)."""
    vols = [n for n, t in tables.targets.items() if any(x[2] == "ssastripe" for x in t)]
    if name is not None:
        if name not in tables.targets:
            raise ValueError(f"no device {name!r} in the tables (have: "
                             f"{', '.join(sorted(tables.targets)) or 'none'})")
        if name not in vols:
            raise ValueError(f"{name} is not an ssastripe volume")
    elif len(vols) == 1:
        name = vols[0]
    elif not vols:
        raise ValueError("no ssastripe volume in the tables")
    else:
        by_devno = {v: k for k, v in tables.devnos.items()}
        hits = {by_devno[d] for d in devs if by_devno.get(d) in vols}
        if len(hits) != 1:
            raise ValueError(f"several ssastripe volumes in the tables "
                             f"({', '.join(sorted(vols))}): give --volume NAME")
        name = hits.pop()
    lines = [x for x in tables.targets[name] if x[2] == "ssastripe"]
    layout, chunk, members, opts = parse_ssastripe(name, lines[0][3])
    names, disks = [], []
    for mem in members:
        dev = _member_device(mem, tables)
        names.append(dev)
        t = tables.targets.get(dev) if dev is not None else None
        if t and len(t) == 1 and t[0][2] == "ssadisk":
            disks.append(parse_ssadisk(t[0][3], dev))
        else:
            disks.append(None)
    return Volume(name, layout, chunk, members, opts, tuple(names), tuple(disks))


# -- which model, with what ----------------------------------------------------------

# The command line's defaults without tables: seed 002's disk (ms), 4 members.
DEFAULTS = {"disks": 4, "chunk_kb": None, "sync": "bs", "cylinders": 1200, "seek_a": 3.0,
            "seek_b": 0.5, "rmax": 16.7, "block_ms": 1.3, "p_seq": 0.0, "time_scale": 1.0}
_SYNCS = {"before_service": "bs", "after_service": "as"}


@dataclass(frozen=True)
class ModelSetup:
    """What ``choose_model`` decided: the model, its array and disk, where
    each value came from (option, tables or default), and warnings."""
    model: str                    # forkjoin, raid5 or pstripe
    reason: str
    params: dict                  # the DEFAULTS keys (times in ms, chunk in KB)
    sources: dict                 # key -> "option" | "tables" | "default"
    warnings: tuple = ()
    volume: Volume | None = None

    @property
    def parity(self) -> bool:
        return self.model in PARITY_LAYOUTS

    def disk(self) -> disk_mod.Disk:
        """Seed 002's disk with these parameters, times scaled."""
        p, f = self.params, self.params["time_scale"]
        return disk_mod.Disk(cylinders=int(p["cylinders"]), seek_a=p["seek_a"] / 1e3 * f,
                             seek_b=p["seek_b"] / 1e3 * f, rmax=p["rmax"] / 1e3 * f,
                             alpha=p["block_ms"] / 1e3 * f, p_seq=p["p_seq"])

    def describe(self) -> list[str]:
        """The header lines: the model, why, and every parameter's source."""
        out = [f"model {self.model}: {self.reason}"]
        if self.parity:
            src = lambda k: self.sources[k]                        # noqa: E731
            p = self.params
            out.append(
                f"  array: {p['disks']} disks ({src('disks')}), chunk {p['chunk_kb']:g} KB "
                f"({src('chunk_kb')}), sync {p['sync']} ({src('sync')})")
            out.append(
                f"  disk: C {p['cylinders']:g} ({src('cylinders')}), a {p['seek_a']:g} ms "
                f"({src('seek_a')}), b {p['seek_b']:g} ms ({src('seek_b')}), R_max "
                f"{p['rmax']:g} ms ({src('rmax')}), alpha {p['block_ms']:g} ms per chunk "
                f"({src('block_ms')}), p_seq {p['p_seq']:g} ({src('p_seq')}), "
                f"time scale {p['time_scale']:g} ({src('time_scale')})")
        return out

    def as_dict(self) -> dict:
        return {"model": self.model, "reason": self.reason, "params": dict(self.params),
                "sources": dict(self.sources), "warnings": list(self.warnings),
                "volume": None if self.volume is None else {
                    "name": self.volume.name, "layout": self.volume.layout,
                    "members": len(self.volume.members),
                    "chunk_sectors": self.volume.chunk_sectors,
                    "options": dict(self.volume.options)}}


def _tables_params(vol: Volume, warnings: list) -> dict:
    """The parameters the volume's table and its members' ssadisks give."""
    got: dict = {"disks": len(vol.members), "chunk_kb": vol.chunk_sectors / 2}
    if vol.parity:
        if vol.sync not in _SYNCS:
            raise ValueError(f"{vol.name}: unknown sync {vol.sync!r}")
        got["sync"] = _SYNCS[vol.sync]
    disks = [d for d in vol.member_disks if d is not None]
    if not disks:
        unmapped = [m for m, n in zip(vol.members, vol.member_names) if n is None]
        if unmapped:
            warnings.append(f"members {', '.join(unmapped)} of {vol.name} not found in the "
                            "tables (add `dmsetup ls` to the file): the disk parameters "
                            "are the options' or the defaults")
        else:
            warnings.append(f"the members of {vol.name} are not ssadisks: the disk "
                            "parameters are the options' or the defaults")
        return got
    if len(disks) < len(vol.members):
        warnings.append(f"only {len(disks)} of the {len(vol.members)} members of "
                        f"{vol.name} are ssadisks found in the tables: their disk is used")
    d = disks[0]
    if any(x.model_key() != d.model_key() for x in disks[1:]):
        warnings.append(f"the members' ssadisks differ: {d.name}'s parameters are used")
    if d.mode != "stochastic":
        warnings.append(f"{d.name} is a {d.mode} ssadisk: seed 002's disk is the stochastic "
                        "one, so the disk parameters are the options' or the defaults")
        return got
    if d.overhead > 0:
        warnings.append(f"{d.name} adds an overhead of {d.overhead * 1e3:g} ms per command, "
                        "which seed 002's disk does not have")
    got.update(cylinders=d.cylinders, seek_a=d.seek_a * 1e3, seek_b=d.seek_b * 1e3,
               rmax=d.rotation * 1e3,
               block_ms=d.block_time * 1e3 * (vol.chunk_sectors * 512) / d.block_size,
               p_seq=d.p_seq, time_scale=d.time_scale)
    return got


def choose_model(requested: str, given: dict, volume: Volume | None = None,
                 parity_seen: int = 0, tables_name: str = "the tables") -> ModelSetup:
    """Resolve ``--model`` (auto, forkjoin, raid5, pstripe) and the model's
    parameters.  ``given`` holds the command line's values of the DEFAULTS
    keys (None: not given; times in ms, the chunk in KB); an option beats
    the tables, which beat the defaults.  ``parity_seen``: requests of the
    trace with a high-class child (``parity_requests``)."""
    warnings: list = []
    from_tables = _tables_params(volume, warnings) if volume is not None else {}
    if requested == "auto":
        if volume is not None:
            model = volume.layout if volume.parity else "forkjoin"
            reason = (f"--model auto: {volume.name} in {tables_name} is "
                      f"ssastripe {volume.layout}")
        else:
            model = "forkjoin"
            reason = "--model auto without --tables"
            if parity_seen:
                warnings.append(
                    f"{parity_seen} requests have high-class (parity) children: the trace "
                    "looks like a raid5/pstripe volume's, for which forkjoin is low "
                    "(27-36 % on a measured raid5: it takes an update's read and write as "
                    "parallel); give --tables (see --help) or --model raid5|pstripe")
    elif requested in ("forkjoin",) + PARITY_LAYOUTS:
        model, reason = requested, f"--model {requested}"
        if volume is not None and model != (volume.layout if volume.parity else "forkjoin"):
            warnings.append(f"--model {model} on {volume.name}, an ssastripe "
                            f"{volume.layout} volume")
    else:
        raise ValueError(f"unknown model {requested!r}")
    params, sources = {}, {}
    for k, default in DEFAULTS.items():
        if given.get(k) is not None:
            params[k], sources[k] = given[k], "option"
        elif k in from_tables:
            params[k], sources[k] = from_tables[k], "tables"
        else:
            params[k], sources[k] = default, "default"
    if model in PARITY_LAYOUTS:
        if params["chunk_kb"] is None:
            raise ValueError(f"--model {model} needs --chunk-kb (or --tables)")
        if params["disks"] < 3:
            raise ValueError("a parity array needs --disks 3 or more")
        if sources["block_ms"] == "tables" and sources["chunk_kb"] == "option":
            # alpha is per chunk: rescale the ssadisk's block time to the given chunk
            params["block_ms"] *= params["chunk_kb"] / from_tables["chunk_kb"]
    if volume is not None:
        if volume.queue_depth != 1:
            warnings.append(f"{volume.name} has queue_depth {volume.queue_depth}: the "
                            "queueing models assume 1 (each member a single server)")
        if volume.priority == "off" and model in PARITY_LAYOUTS:
            warnings.append(f"{volume.name} has priority off: seed 002's model gives the "
                            "parity class priority")
        if volume.parity and volume.write_method == "rcw" and model in PARITY_LAYOUTS:
            warnings.append(f"{volume.name} has write_method rcw: seed 002's model is "
                            "read-modify-write")
        elif (volume.parity and volume.write_method == "auto" and len(volume.members) <= 4
              and model in PARITY_LAYOUTS):
            # auto takes rcw where it reads no more than rmw (target 1.17.0 on)
            warnings.append(f"{volume.name} has write_method auto on {len(volume.members)} "
                            "members: a write within one chunk is reconstruct-write; seed "
                            "002's model is read-modify-write (say write_method rmw)")
    return ModelSetup(model, reason, params, sources, tuple(warnings), volume)
