"""The seeds' findings as data, and their verdicts as computation.

A spec lists what its seed found, each as a ``[[finding]]`` table::

    [[finding]]
    id = "striping-gain-4mb"
    section = "3.1"
    quote = "At MPL = 4, a 4 MB request size gains a decrease of 17% ..."
    let.gain1 = "1 - read(label='n=4', request_kb=4096, mpl=1) / read(label='n=1', request_kb=4096, mpl=1)"
    check = "near(gain1, 0.65, 0.25)"

``quote`` is the seed's own sentence (``...`` elides; a test holds every
quote against the seed's text), ``section`` where it stands.  ``let``
names quantities (evaluated in order, each may use the ones before) and
``check`` is the test, both small expressions over the experiment's
results: arithmetic, comparisons, ``and``/``or``/``not``, ``x if c else
y``, lists and comprehensions, and the functions of ``FUNCTIONS`` below --
nothing else (no attributes, no imports: the expression is interpreted
here, never handed to Python's eval).

Verdicts, one per finding:

``holds`` / ``does not hold``
    the check's value on the measured results;
``not measured``
    a quantity it needs is not in this run (a quick variant runs a few
    points) or its point did not run;
``configured``
    the finding has ``configured = "..."``: the lab *sets* the mechanism
    the seed *deduced* (an option of the volume or the cache), so
    measuring it reproduces nothing.  The check is still evaluated and
    shown ("present" or "absent"), never counted as reproduced.

A finding that does not hold may carry ``cause = "..."``: the measured
reason, printed beside the verdict.  ``note`` is printed in any case.

Points are chosen by keyword selectors over a result's sweep parameters
(``params``), its ``label`` and the workload keys results.json carries
(``rate``, ``mpl``, ``p_read``, ``think_ms``, ``sizes``, ``skew``,
``layout``).  A lookup that must name one point and names several, a
metric the lab does not measure, a derived table the spec's deriver does
not make, or a selector that no point of the full spec matches is a spec
error (``validate``): the file, the finding and the name are in the
message.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Any, Callable

# what a point of results.json measures (Documentation/experiments.rst,
# results.json), by the names a check uses
TIME_METRICS = ("read", "write", "overall")
METRICS = {"read": "read_s", "write": "write_s", "overall": "overall_s",
           "rate": "rate", "rate_measured": "rate_measured", "max_rate": "max_rate",
           "utilization": "utilization_max",
           "utilization_mean": "utilization_mean", "p_read_measured": "p_read_measured",
           "arrival_cv2": "arrival_cv2", "requests": "requests",
           "read_max": "read_max_s", "write_max": "write_max_s",
           "overall_max": "overall_max_s",
           "generator_read": "generator.read_s", "generator_write": "generator.write_s",
           "generator_all": "generator.all_s",
           # the main model variant's value at each point, for series()
           "model_read": "model_read_s", "model_write": "model_write_s",
           "model_overall": "model_overall_s", "model_rate": "model_rate",
           "model_max_rate": "model_max_rate",
           # an array cache's counters over the point (ssacache status,
           # reset before the warm-up): the requests it absorbed, sent
           # through, held back for dirty room; the blocks it prefetched
           "cache_read_hits": "cache.read_hits", "cache_read_misses": "cache.read_misses",
           "cache_write_hits": "cache.write_hits",
           "cache_write_through": "cache.write_through",
           "cache_throttled": "cache.throttled", "cache_prefetched": "cache.prefetched",
           "cache_prefetch_hits": "cache.prefetch_hits"}
MODEL_METRICS = ("read", "write", "overall", "rate", "max_rate")
SELECT_KEYS = ("label", "layout", "rate", "mpl", "p_read", "think_ms", "sizes", "skew",
               "mean_blocks")

# the tables each deriver leaves in results.json's derived.data, and
# their fields (ssa.derive)
DERIVED_TABLES = {
    "optimal_bsu": {
        "optimal": ("bsu", "bsu_kb", "disks", "mean_s", "fastest_bsu", "think_ms", "mpl",
                    "request", "request_kb", "lee-katz", "lee-katz_nearest",
                    "chen-patterson", "chen-patterson_nearest", "op", "pattern"),
        "responses": ("id", "request", "request_kb", "disks", "bsu", "bsu_kb", "block", "mpl",
                      "think_ms", "mean_s", "ci_s", "source", "label", "op", "pattern"),
    },
    "bandwidth_peaks": {
        "series": ("label", "chunk", "width", "peaks_on_width", "min_bw_above_width",
                   "max_bw_above_width"),
        "points": ("id", "label", "size", "chunk", "members", "width", "shift", "bw",
                   "trace_bw", "imbalance"),
    },
    "throughput": {
        "points": ("id", "label", "x", "group", "members", "throughput", "ci", "fork_rate",
                   "per_member"),
    },
}

VERDICTS = ("holds", "does not hold", "not measured", "configured")
_KEYS = {"id", "section", "quote", "let", "check", "configured", "cause", "note"}


class FindingError(ValueError):
    """A finding that cannot be evaluated on any results (a spec error)."""


class NotMeasured(Exception):
    """A quantity the check needs is not in these results."""


class Q(float):
    """A measured quantity: its value, and its 95 % half-width when it has
    one.  Arithmetic gives plain floats."""

    def __new__(cls, value: float, ci: float = math.nan):
        q = super().__new__(cls, value)
        q.ci = ci
        return q


@dataclass
class Verdict:
    id: str
    section: str
    quote: str
    verdict: str
    value: Any = None                           # the check's value
    lets: dict = field(default_factory=dict)
    evidence: list = field(default_factory=list)
    reason: str = ""                            # why not measured
    cause: str = ""
    note: str = ""
    configured: str = ""

    def as_dict(self) -> dict:
        return {"id": self.id, "section": self.section, "quote": self.quote,
                "verdict": self.verdict, "value": _plain(self.value),
                "lets": {k: _plain(v) for k, v in self.lets.items()},
                "evidence": self.evidence, "reason": self.reason, "cause": self.cause,
                "note": self.note, "configured": self.configured}


def _plain(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        return None if v != v else float(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


# -- the interpreter ------------------------------------------------------------------

_BINOPS: dict[type, Callable] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a ** b}
_CMPOPS: dict[type, Callable] = {
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def parse(text: str, where: str) -> ast.Expression:
    """An expression's tree, refused unless every node is one the
    interpreter knows."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise FindingError(f"{where}: not an expression: {e.msg} in {text!r}") from None
    allowed = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Store, ast.List,
               ast.Tuple, ast.Dict, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not,
               ast.USub, ast.UAdd, ast.BinOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword,
               ast.GeneratorExp, ast.ListComp, ast.comprehension, ast.Subscript,
               *_BINOPS, *_CMPOPS)
    for node in ast.walk(tree):
        if not isinstance(node, allowed):
            raise FindingError(f"{where}: {type(node).__name__} is not allowed in a check "
                               f"({text!r})")
        if isinstance(node, ast.Call) and not isinstance(node.func, ast.Name):
            raise FindingError(f"{where}: only the check functions can be called ({text!r})")
    return tree


class Interp:
    """Evaluates a parsed expression with names from ``env`` and calls
    into ``funcs``.  With ``dry`` every operand of and/or/if-else is
    evaluated too, so a validation run sees every lookup."""

    def __init__(self, env: dict, funcs: dict, dry: bool = False):
        self.env, self.funcs, self.dry = env, funcs, dry

    def run(self, tree: ast.Expression):
        return self.ev(tree.body, self.env)

    def ev(self, n, env):
        m = getattr(self, "_" + type(n).__name__)
        return m(n, env)

    def _Constant(self, n, env):
        return n.value

    def _Name(self, n, env):
        if n.id in env:
            return env[n.id]
        consts = {"True": True, "False": False, "None": None, "nan": math.nan,
                  "inf": math.inf}
        if n.id in consts:
            return consts[n.id]
        raise FindingError(f"unknown name {n.id!r}")

    def _List(self, n, env):
        return [self.ev(e, env) for e in n.elts]

    def _Tuple(self, n, env):
        return tuple(self.ev(e, env) for e in n.elts)

    def _Dict(self, n, env):
        return {self.ev(k, env): self.ev(v, env) for k, v in zip(n.keys, n.values)}

    def _BoolOp(self, n, env):
        if self.dry:
            vals = [self.ev(v, env) for v in n.values]
            return all(vals) if isinstance(n.op, ast.And) else any(vals)
        if isinstance(n.op, ast.And):
            v = True
            for e in n.values:
                v = self.ev(e, env)
                if not v:
                    return v
            return v
        v = False
        for e in n.values:
            v = self.ev(e, env)
            if v:
                return v
        return v

    def _UnaryOp(self, n, env):
        v = self.ev(n.operand, env)
        if isinstance(n.op, ast.Not):
            return not v
        return -v if isinstance(n.op, ast.USub) else +v

    def _BinOp(self, n, env):
        a, b = self.ev(n.left, env), self.ev(n.right, env)
        try:
            return _BINOPS[type(n.op)](a, b)
        except ZeroDivisionError:
            return math.nan

    def _Compare(self, n, env):
        left = self.ev(n.left, env)
        for op, right in zip(n.ops, n.comparators):
            r = self.ev(right, env)
            if not _CMPOPS[type(op)](left, r):
                return False
            left = r
        return True

    def _IfExp(self, n, env):
        c = self.ev(n.test, env)
        if self.dry:
            a, b = self.ev(n.body, env), self.ev(n.orelse, env)
            return a if c else b
        return self.ev(n.body, env) if c else self.ev(n.orelse, env)

    def _Subscript(self, n, env):
        return self.ev(n.value, env)[self.ev(n.slice, env)]

    def _Call(self, n, env):
        name = n.func.id
        if name not in self.funcs:
            raise FindingError(f"unknown function {name}(); known: "
                               f"{', '.join(sorted(self.funcs))}")
        args = [self.ev(a, env) for a in n.args]
        kw = {k.arg: self.ev(k.value, env) for k in n.keywords if k.arg}
        return self.funcs[name](*args, **kw)

    def _comp(self, gens, env, elt):
        if not gens:
            yield self.ev(elt, env)
            return
        g, rest = gens[0], gens[1:]
        for item in self.ev(g.iter, env):
            e = dict(env)
            _bind(g.target, item, e)
            if all(self.ev(c, e) for c in g.ifs):
                yield from self._comp(rest, e, elt)

    def _GeneratorExp(self, n, env):
        return list(self._comp(n.generators, env, n.elt))

    _ListComp = _GeneratorExp


def _bind(target, value, env) -> None:
    if isinstance(target, ast.Name):
        env[target.id] = value
    elif isinstance(target, ast.Tuple):
        for t, v in zip(target.elts, value):
            _bind(t, v, env)
    else:
        raise FindingError("a comprehension binds names or tuples of names")


# -- the functions a check calls ------------------------------------------------------

def _selector_value(r: dict, key: str):
    if key in r.get("params", {}):
        return r["params"][key]
    return r.get(key)


def _matches(r: dict, sel: dict) -> bool:
    for k, v in sel.items():
        got = _selector_value(r, k)
        if isinstance(v, float) or isinstance(got, float):
            try:
                if got is None or not math.isclose(float(got), float(v), rel_tol=1e-9):
                    return False
            except (TypeError, ValueError):
                return False
        elif got != v:
            return False
    return True


def _describe(sel: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sel.items())


def _fmt(key: str, v) -> str:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return repr(v)
    if v != v:
        return "nan"
    ci = getattr(v, "ci", math.nan)
    if key.endswith("_s"):
        s = f"{v * 1e3:.2f}"
        return s + (f" ± {ci * 1e3:.2f} ms" if ci == ci else " ms")
    s = f"{v:.4g}"
    return s + (f" ± {ci:.2g}" if ci == ci else "")


class Lookups:
    """The functions of a check over one experiment's results.  ``full``
    holds every point the full spec has (params and label), so that a
    point a quick run left out reads "not measured", not "missing"."""

    def __init__(self, results: dict, full: list[dict], kind: str | None, dry: bool,
                 spec: dict | None = None):
        self.points = results.get("points", [])
        self.full = full
        self.spec = spec or {}
        self._plan: dict | None = None
        self.tables = (results.get("derived") or {}).get("data", {})
        self.kind = kind
        self.dry = dry
        self.evidence: list[str] = []

    # selection
    def _select(self, sel: dict, one: bool, what: str) -> list[dict]:
        for k in sel:
            if k not in SELECT_KEYS and not any(k in p.get("params", {}) for p in self.full):
                raise FindingError(f"{what}: {k!r} is not a parameter of any point "
                                   f"(known: {', '.join(self._known_keys())})")
        full = [p for p in self.full if _matches(p, sel)]
        if not full:
            raise FindingError(f"{what}: no point of the spec has {_describe(sel)}")
        if one and len(full) > 1:
            raise FindingError(f"{what}: {_describe(sel)} names {len(full)} points "
                               f"({', '.join(p['id'] for p in full[:6])}); add a selector")
        if self.dry:
            return full
        got = [p for p in self.points if _matches(p, sel)]
        if len(got) < len(full) and one:
            raise NotMeasured(f"{_describe(sel)}: not in this run")
        if not got:
            raise NotMeasured(f"{_describe(sel)}: not in this run")
        bad = [p for p in got if p.get("status") != "ok"]
        if bad and one:
            raise NotMeasured(f"{bad[0]['id']} ({_describe(sel)}): status {bad[0].get('status')}")
        return [p for p in got if p.get("status") == "ok"]

    def _known_keys(self) -> list[str]:
        return sorted(set(SELECT_KEYS) | {k for p in self.full for k in p.get("params", {})})

    def _value(self, r: dict, key: str, label: str) -> Q:
        if self.dry:
            return Q(1.0, 0.1)
        if "." in key:
            a, b = key.split(".", 1)
            v = (r.get(a) or {}).get(b)
            ci = math.nan
        else:
            v = r.get(key)
            ci = r.get(key[:-2] + "_ci_s", math.nan) if key.endswith("_s") else math.nan
        if v is None or (isinstance(v, float) and v != v):
            raise NotMeasured(f"{label}: no value at {r['id']}")
        q = Q(float(v), math.nan if ci is None else float(ci))
        self.evidence.append(f"{label} = {_fmt(key, q)}")
        return q

    def _metric(self, metric: str, what: str, table=METRICS) -> str:
        if metric not in table:
            raise FindingError(f"{what}: {metric!r} is not a quantity the lab measures "
                               f"(known: {', '.join(table)})")
        return table[metric] if isinstance(table, dict) else metric

    def mean(self, metric: str, **sel) -> Q:
        what = f"mean({metric!r}, {_describe(sel)})"
        key = self._metric(metric, what)
        r = self._select(sel, True, what)[0]
        return self._value(r, key, f"{metric}[{_describe(sel)}]")

    def read(self, **sel) -> Q:
        return self.mean("read", **sel)

    def write(self, **sel) -> Q:
        return self.mean("write", **sel)

    def overall(self, **sel) -> Q:
        return self.mean("overall", **sel)

    def model(self, metric: str, variant: str | None = None, **sel) -> Q:
        """The main model variant's value (results' model_KEY), or the
        named variant's (lb, ub, simple, as, model)."""
        what = f"model({metric!r}, {_describe(sel)})"
        self._metric(metric, what, MODEL_METRICS)
        r = self._select(sel, True, what)[0]
        key = f"{metric}_s" if metric in TIME_METRICS else metric
        if variant is None:
            return self._value(r, f"model_{key}", f"model {metric}[{_describe(sel)}]")
        if variant not in ("lb", "ub", "simple", "as", "model"):
            raise FindingError(f"{what}: variant {variant!r} is not one of lb, ub, simple, "
                               "as, model")
        if self.dry:
            return Q(1.0)
        v = (r.get("model") or {}).get(variant, {}).get(key)
        if v is None:
            raise NotMeasured(f"{what}: the model has no variant {variant!r} there")
        self.evidence.append(f"model {variant} {metric}[{_describe(sel)}] = {_fmt(key, v)}")
        return Q(float(v))

    def error(self, metric: str, **sel) -> Q:
        what = f"error({metric!r}, {_describe(sel)})"
        self._metric(metric, what, MODEL_METRICS)
        r = self._select(sel, True, what)[0]
        return self._value(r, f"error_{metric}", f"error {metric}[{_describe(sel)}]")

    def series(self, metric: str, over: str, **sel) -> list:
        """[(x, value), ...] of the points that match, sorted by x; the
        points of this run only (a quick run's series is shorter)."""
        what = f"series({metric!r}, {over!r}, {_describe(sel)})"
        key = self._metric(metric, what)
        pts = self._select(sel, False, what)
        if not any(_selector_value(p, over) is not None for p in self.full):
            raise FindingError(f"{what}: {over!r} is not a parameter of any point")
        out = []
        for r in pts:
            x = _selector_value(r, over)
            if x is None:
                continue
            if self.dry:
                out.append((x, Q(1.0, 0.1)))
                continue
            try:
                out.append((x, self._value(r, key, f"{metric}[{_describe(sel)}, {over}={x}]")))
            except NotMeasured:
                continue
        if not out and not self.dry:
            raise NotMeasured(f"{what}: no measured point")
        return sorted(out, key=lambda t: t[0])

    def derived(self, table: str, fld: str, **sel):
        what = f"derived({table!r}, {fld!r}, {_describe(sel)})"
        tables = DERIVED_TABLES.get(self.kind or "", {})
        if table not in tables:
            raise FindingError(f"{what}: the spec's deriver ({self.kind or 'none'}) makes no "
                               f"table {table!r} (it makes: {', '.join(tables) or 'none'})")
        fields = tables[table]
        for k in [fld, *sel]:
            if k not in fields:
                raise FindingError(f"{what}: table {table!r} has no field {k!r} "
                                   f"(fields: {', '.join(fields)})")
        if self.dry:
            return Q(1.0, 0.1)
        rows = [r for r in self.tables.get(table, []) if _matches(r, sel)]
        if not rows:
            raise NotMeasured(f"{what}: no such row in this run")
        if len(rows) > 1:
            raise FindingError(f"{what}: {len(rows)} rows match; add a selector")
        v = rows[0].get(fld)
        if v is None or (isinstance(v, float) and v != v):
            raise NotMeasured(f"{what}: no value")
        self.evidence.append(f"{table}.{fld}[{_describe(sel)}] = {_fmt(fld, v)}")
        return v

    # seed 001's method: model versions fitted to the measurements
    def _fits(self, metric: str, sel: dict, what: str, names: list | None = None) -> list:
        from . import identify_policy
        if metric not in ("read", "write", "rate"):
            raise FindingError(f"{what}: a fit is of read, write or rate, not {metric!r}")
        var = self.spec.get("variants") or {}
        if not var:
            raise FindingError(f"{what}: the spec has no [variants] to fit")
        for n in names or []:
            if n not in var:
                raise FindingError(f"{what}: {n!r} is not one of the spec's [variants] "
                                   f"({', '.join(var)})")
        use = {n: var[n] for n in (names or var)}
        pts = self._select(sel, False, what)
        if self.dry:
            return [identify_policy.Fit(n, 0.1, 0.1, 1) for n in use]
        if self._plan is None:
            from .plan import expand
            self._plan = {p["id"]: p for p in expand(self.spec, False)}
        key = metric if metric == "rate" else f"{metric}_s"
        pairs = [(self._plan[r["id"]], float(r[key])) for r in pts
                 if r.get(key) is not None and r[key] == r[key] and r["id"] in self._plan]
        if not pairs:
            raise NotMeasured(f"{what}: no measured point")
        fits = identify_policy.fit(pairs, metric, use, base=self.spec.get("model"))
        for f in fits:
            self.evidence.append(f"fit {metric}[{_describe(sel)}] {f.variant}: mean error "
                                 f"{100 * f.mean_error:.1f} %, largest "
                                 f"{100 * f.max_error:.1f} % over {f.points} points")
        return fits

    def fit_error(self, metric: str, variant: str, **sel) -> float:
        """The mean |measured / model - 1| of one [variants] version over
        the points that match."""
        what = f"fit_error({metric!r}, {variant!r}, {_describe(sel)})"
        return self._fits(metric, sel, what, [variant])[0].mean_error

    def deduced(self, metric: str, **sel) -> str:
        """The [variants] version that explains the matching points best
        (seed 001's elimination; the points' own settings are not read)."""
        from . import identify_policy
        what = f"deduced({metric!r}, {_describe(sel)})"
        return identify_policy.decide(self._fits(metric, sel, what))[0]

    def deduced_clearly(self, metric: str, **sel) -> bool:
        """Whether the best version's mean error is at most 0.8 of the
        runner-up's."""
        from . import identify_policy
        what = f"deduced_clearly({metric!r}, {_describe(sel)})"
        return identify_policy.decide(self._fits(metric, sel, what))[1]

    def functions(self) -> dict:
        return {"mean": self.mean, "read": self.read, "write": self.write,
                "overall": self.overall, "model": self.model, "error": self.error,
                "series": self.series, "derived": self.derived,
                "fit_error": self.fit_error, "deduced": self.deduced,
                "deduced_clearly": self.deduced_clearly, **PURE}


def near(x: float, target: float, rel: float) -> bool:
    """|x - target| <= rel * |target|."""
    return abs(x - target) <= rel * abs(target) * (1 + 1e-9)


def within(x: float, lo: float, hi: float) -> bool:
    return lo * (1 - 1e-9 * (lo > 0)) <= x <= hi * (1 + 1e-9 * (hi > 0))


def gain(new: float, old: float) -> float:
    """The fraction by which ``new`` is below ``old``: 1 - new / old."""
    return 1 - new / old if old else math.nan


def clearly_less(a: float, b: float) -> bool:
    """a < b with their 95 % intervals apart (a's top below b's bottom)."""
    ca = getattr(a, "ci", math.nan)
    cb = getattr(b, "ci", math.nan)
    ca = 0.0 if ca != ca else ca
    cb = 0.0 if cb != cb else cb
    return a + ca < b - cb


def same(a: float, b: float) -> bool:
    """The 95 % intervals of a and b overlap."""
    return not clearly_less(a, b) and not clearly_less(b, a)


def ci(x: float) -> float:
    """A measured quantity's 95 % half-width (nan when it has none)."""
    return getattr(x, "ci", math.nan)


def covers(measured: float, value: float) -> bool:
    """``value`` lies inside the measured quantity's 95 % interval."""
    h = ci(measured)
    return h == h and abs(measured - value) <= h


def _ys(s) -> list:
    return [y for _, y in s]


def increasing(s: list, slack: float = 0.0) -> bool:
    """Each value of a series at least the one before, less ``slack``
    (a fraction of it)."""
    ys = _ys(s)
    return all(b >= a * (1 - slack) for a, b in zip(ys, ys[1:]))


def decreasing(s: list, slack: float = 0.0) -> bool:
    ys = _ys(s)
    return all(b <= a * (1 + slack) for a, b in zip(ys, ys[1:]))


def crossover(a: list, b: list) -> float:
    """The x at which series a - b changes sign (linear interpolation
    between the two points around it; over the x both series have),
    nan if it never does."""
    ya = dict(a)
    pairs = [(x, ya[x] - y) for x, y in b if x in ya]
    if len(pairs) < 2:
        raise NotMeasured("a crossover needs two x that both series have (a quick run "
                          "has one)")
    for (x0, d0), (x1, d1) in zip(pairs, pairs[1:]):
        if d0 == 0:
            return x0
        if (d0 < 0) != (d1 < 0):
            return x0 + (x1 - x0) * d0 / (d0 - d1)
    return math.nan


def at(s: list, x: float) -> float:
    """A series' value at x, linear between the two points around it; nan
    outside the series' range."""
    for (x0, y0), (x1, y1) in zip(s, s[1:]):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    if s and s[-1][0] == x:
        return s[-1][1]
    return math.nan


def argmin(s: list) -> Any:
    """The x of a series' smallest value."""
    return min(s, key=lambda t: t[1])[0] if s else math.nan


def argmax(s: list) -> Any:
    return max(s, key=lambda t: t[1])[0] if s else math.nan


def xs(s: list) -> list:
    return [x for x, _ in s]


def ys(s: list) -> list:
    return _ys(s)


def mean_of(values: list) -> float:
    v = list(values)
    return sum(v) / len(v) if v else math.nan


PURE = {"near": near, "within": within, "gain": gain, "clearly_less": clearly_less,
        "ci": ci, "covers": covers,
        "same": same, "increasing": increasing, "decreasing": decreasing,
        "crossover": crossover, "at": at, "argmin": argmin, "argmax": argmax, "xs": xs, "ys": ys,
        "mean_of": mean_of, "abs": abs, "min": min, "max": max, "all": all, "any": any,
        "sum": sum, "len": len, "round": round, "sorted": sorted, "list": list,
        "zip": lambda *a: list(zip(*a)), "range": lambda *a: list(range(*a)),
        "set_of": lambda v: sorted(set(v))}


# -- findings of a spec ---------------------------------------------------------------

def spec_findings(spec: dict) -> list[dict]:
    return list(spec.get("finding", []))


def _full_points(spec: dict) -> list[dict]:
    from . import pointmodel
    from .plan import expand
    out = []
    for p in expand(spec, False):
        r = {"id": p["id"], "label": p["label"], "params": dict(p["params"]),
             "layout": p["volume"]["layout"]}
        for k in ("rate", "mpl", "p_read", "think_ms", "sizes", "skew"):
            if k in p["workload"] and k not in r["params"]:
                r[k] = p["workload"][k]
        try:                                    # as pointmodel.point_result has it
            sz = str(p["workload"].get("sizes", "fixed:1"))
            pmf = pointmodel._sizes_pmf(sz, pointmodel._sizes_max(sz))
            r["mean_blocks"] = sum((i + 1) * x for i, x in enumerate(pmf))
        except (ValueError, IndexError):
            pass
        out.append(r)
    return out


def _kind(spec: dict) -> str | None:
    return (spec.get("derive") or {}).get("kind")


def validate(spec: dict, path: str) -> None:
    """Raise FindingError naming the file and finding when a finding is
    malformed or names a quantity no point of the spec could give."""
    seen = set()
    full = None
    for i, f in enumerate(spec_findings(spec)):
        fid = f.get("id", f"number {i + 1}")
        where = f"{path}: [[finding]] {fid}"
        extra = sorted(set(f) - _KEYS)
        if extra:
            raise FindingError(f"{where}: unknown key(s) {', '.join(extra)}; known: "
                               f"{', '.join(sorted(_KEYS))}")
        for k in ("id", "section", "quote", "check"):
            if not isinstance(f.get(k), str) or not f[k].strip():
                raise FindingError(f"{where}: needs {k} = \"...\"")
        if fid in seen:
            raise FindingError(f"{where}: the id is used twice")
        seen.add(fid)
        if not isinstance(f.get("let", {}), dict):
            raise FindingError(f"{where}: let must be a table of name = \"expression\"")
        if full is None:
            full = _full_points(spec)
        try:
            _evaluate(f, {"points": []}, full, _kind(spec), dry=True, spec=spec)
        except FindingError as e:
            raise FindingError(f"{where}: {e}") from None
        except NotMeasured as e:                # cannot happen in a dry run
            raise FindingError(f"{where}: {e}") from None


def _evaluate(f: dict, results: dict, full: list[dict], kind: str | None,
              dry: bool = False, spec: dict | None = None) -> tuple[Any, dict, list]:
    look = Lookups(results, full, kind, dry, spec)
    funcs = look.functions()
    env: dict = {}
    lets = {}
    for name, text in (f.get("let") or {}).items():
        if not name.isidentifier() or name in funcs:
            raise FindingError(f"let {name}: not a usable name")
        if not isinstance(text, str):
            raise FindingError(f"let {name}: the value must be an expression in a string")
        try:
            v = Interp(env, funcs, dry).run(parse(text, f"let {name}"))
        except TypeError as e:
            raise FindingError(f"let {name}: {e}") from None
        env[name] = v
        lets[name] = v
    try:
        value = Interp(env, funcs, dry).run(parse(f["check"], "check"))
    except TypeError as e:
        raise FindingError(f"check: {e}") from None
    return value, lets, look.evidence


def evaluate(spec: dict, results: dict) -> list[Verdict]:
    """Each finding's verdict on ``results`` (results.json's content)."""
    full = _full_points(spec)
    out = []
    for f in spec_findings(spec):
        v = Verdict(id=f["id"], section=f["section"], quote=" ".join(f["quote"].split()),
                    verdict="not measured", cause=f.get("cause", "").strip(),
                    note=f.get("note", "").strip(), configured=f.get("configured", "").strip())
        try:
            value, lets, ev = _evaluate(f, results, full, _kind(spec), spec=spec)
        except NotMeasured as e:
            v.reason = str(e)
        except (FindingError, TypeError, ValueError, KeyError, IndexError) as e:
            v.reason = f"the check failed: {e}"
        else:
            v.value, v.lets, v.evidence = value, lets, ev
            if v.configured:
                v.verdict = "configured"
            else:
                v.verdict = "holds" if value else "does not hold"
        out.append(v)
    return out


def counts(verdicts: list) -> dict:
    out = {k: 0 for k in VERDICTS}
    for v in verdicts:
        out[v["verdict"] if isinstance(v, dict) else v.verdict] += 1
    return out


# -- presentation ---------------------------------------------------------------------

def _short(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v != v:
            return "nan"
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_short(x) for x in v[:8])
        return f"[{inner}{', ...' if len(v) > 8 else ''}]"
    return str(v)


def numbers(v: dict, limit: int = 6) -> str:
    """The numbers that decided a verdict, on one line: the lets, then the
    first lookups."""
    parts = [f"{k} = {_short(x)}" for k, x in v.get("lets", {}).items()]
    ev = v.get("evidence", [])
    parts += ev[:limit]
    if len(ev) > limit:
        parts.append(f"... {len(ev) - limit} more lookups")
    if v["verdict"] == "configured":
        parts.append("the configured behaviour is " + ("present" if v.get("value") else "absent"))
    if v["verdict"] == "not measured":
        parts = [v.get("reason", "")]
    return "; ".join(p for p in parts if p)


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def verdict_table_md(verdicts: list[dict]) -> str:
    """report.md's verdict table."""
    if not verdicts:
        return "The spec lists no finding of its seed."
    c = counts(verdicts)
    lines = [f"{c['holds']} hold, {c['does not hold']} do not hold, {c['not measured']} "
             f"not measured, {c['configured']} configured (set by the lab, so not "
             "reproduced).", "",
             "| finding | the seed says (section) | verdict | the numbers that decided it |",
             "|---|---|---|---|"]
    for v in verdicts:
        extra = ""
        if v["verdict"] == "configured":
            extra = f" Configured: {v['configured']}"
        elif v["verdict"] == "does not hold" and v.get("cause"):
            extra = f" Cause: {v['cause']}"
        if v.get("note"):
            extra += f" Note: {v['note']}"
        lines.append(f"| {v['id']} | \"{_md_cell(v['quote'])}\" ({v['section']}) | "
                     f"**{v['verdict']}** | {_md_cell(numbers(v) + extra)} |")
    return "\n".join(lines)
