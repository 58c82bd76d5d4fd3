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
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
from scipy import stats

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
                out.append(Record(j["fork_ns"], j["join_ns"], j["op"], j["len"], kids))
        return out
    for row in csv.DictReader(lines):
        kids = tuple(_child(c.split(":")) for c in row["children"].split("|") if c)
        if int(row["status"]) == 0 and kids:
            out.append(Record(int(row["fork_ns"]), int(row["join_ns"]), row["op"],
                              int(row["len"]), kids))
    return out


def load(path: str) -> list[Record]:
    with open(path, encoding="utf-8") as f:
        return parse_records(f)


# -- estimation ----------------------------------------------------------------

def batch_means(x: np.ndarray, batches: int = 20, level: float = 0.95) -> tuple[float, float]:
    """(mean, half-width) of a batch-means confidence interval: the series
    cut into ``batches`` consecutive batches, Student t on their means."""
    x = np.asarray(x, dtype=float)
    if len(x) < 2 * batches:
        raise ValueError(f"need at least {2 * batches} requests for {batches} batches")
    means = np.array([b.mean() for b in np.array_split(x, batches)])
    t = stats.t.ppf(0.5 + level / 2, batches - 1)
    return float(x.mean()), float(t * means.std(ddof=1) / math.sqrt(batches))


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
    arrival_cv2: dict = field(default_factory=dict)  # member -> SCV of child interarrivals

    def as_dict(self) -> dict:
        return {"requests": self.requests, "span_s": self.span, "rate": self.rate,
                "p_read": self.p_read, "mean_sectors": self.mean_sectors,
                "response_s": self.response, "response_ci_s": self.response_ci,
                "read_s": self.read, "write_s": self.write,
                "utilization": {str(k): v for k, v in sorted(self.utilization.items())},
                "arrival_cv2": {str(k): v for k, v in sorted(self.arrival_cv2.items())},
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
    util = {m: busy_time(iv) * 1e-9 / span for m, iv in spans.items()}
    cv2 = {}
    for m in svc:
        ia = np.diff(np.sort([c.queued for r in recs for c in r.children if c.member == m]))
        cv2[m] = float(ia.var() / ia.mean() ** 2) if len(ia) > 1 and ia.mean() > 0 else math.nan
    return Measured(len(recs), span, len(recs) / span,
                    len(reads) / len(rw) if rw else math.nan,
                    float(np.mean([r.sectors for r in recs])), mean, half,
                    float(np.mean(reads)) if reads else math.nan,
                    float(np.mean(writes)) if writes else math.nan, members, util, cv2)


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
    arrival_cv2: float = math.nan

    @property
    def rel_error(self) -> float:
        return (self.predicted - self.measured) / self.measured

    def as_dict(self) -> dict:
        return {"label": self.label, "rate": self.rate, "utilization": self.utilization,
                "measured_s": self.measured, "ci_s": self.ci, "predicted_s": self.predicted,
                "rel_error": self.rel_error, "replay_s": self.replay,
                "arrival_cv2": self.arrival_cv2}


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
