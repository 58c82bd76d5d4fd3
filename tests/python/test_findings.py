"""The seeds' findings as data (ssa.findings): the check language, the
verdicts on results, the spec errors a finding can make, and every quote
in the catalogue held against its seed's text."""

import glob
import math
import os
import re

import pytest

from ssa import experiment as ex
from ssa import findings as fd

SPEC = """
title = "t"
seed = "002"
figure = "Table 1"

[volume]
layout = "raid5"
members = 4
chunk_kb = 4
member_mb = 1

[disk]
preset = "ct1992"

[workload]
mode = "open"
p_read = 0.25
requests = 1000

[sweep]
rate = [10, 20, 30]

[[series]]
label = "raid5"

[[series]]
label = "pstripe"
"volume.layout" = "pstripe"

[quick]
rate = [10]

[model]
kind = "none"

[plot]
x = "rate"
"""


def spec_with(tmp_path, findings_toml):
    p = tmp_path / "s.toml"
    p.write_text(SPEC + findings_toml)
    return ex.load_spec(str(p))


def point(pid, label, rate, read, ci=0.001, status="ok", **extra):
    return {"id": pid, "label": label, "params": {"rate": rate}, "rate": rate,
            "status": status, "read_s": read, "read_ci_s": ci, "layout": "raid5", **extra}


def results(*pts, derived=None):
    r = {"points": list(pts)}
    if derived:
        r["derived"] = {"data": derived}
    return r


FULL = [point("p00", "raid5", 10, 0.020), point("p01", "raid5", 20, 0.025),
        point("p02", "raid5", 30, 0.040), point("p03", "pstripe", 10, 0.019),
        point("p04", "pstripe", 20, 0.030), point("p05", "pstripe", 30, 0.060)]


def verdict(spec, res):
    (v,) = fd.evaluate(spec, res)
    return v


def test_holds_and_does_not_hold(tmp_path):
    s = spec_with(tmp_path, """
[[finding]]
id = "grows"
section = "5"
quote = "the response grows with the rate"
check = "increasing(series('read', 'rate', label='raid5'))"
""")
    v = verdict(s, results(*FULL))
    assert v.verdict == "holds"
    assert any("read[label=raid5, rate=30]" in e for e in v.evidence)
    s["finding"][0]["check"] = "decreasing(series('read', 'rate', label='raid5'))"
    assert verdict(s, results(*FULL)).verdict == "does not hold"


def test_lets_are_evaluated_in_order_and_shown(tmp_path):
    s = spec_with(tmp_path, """
[[finding]]
id = "ratio"
section = "5"
quote = "q"
let.a = "read(label='pstripe', rate=30)"
let.b = "read(label='raid5', rate=30)"
let.r = "a / b"
check = "within(r, 1.4, 1.6)"
""")
    v = verdict(s, results(*FULL))
    assert v.verdict == "holds"
    assert v.lets["r"] == pytest.approx(1.5)
    line = fd.numbers(v.as_dict())
    assert line.startswith("a = 0.06; b = 0.04; r = 1.5")


def test_a_point_not_in_the_run_is_not_measured(tmp_path):
    s = spec_with(tmp_path, """
[[finding]]
id = "f"
section = "5"
quote = "q"
check = "read(label='raid5', rate=30) > read(label='raid5', rate=10)"
""")
    v = verdict(s, results(FULL[0]))                   # a quick run: rate 10 only
    assert v.verdict == "not measured"
    assert "label=raid5, rate=30: not in this run" in v.reason


def test_a_failed_point_is_not_measured(tmp_path):
    s = spec_with(tmp_path, """
[[finding]]
id = "f"
section = "5"
quote = "q"
check = "read(label='raid5', rate=30) > 0"
""")
    pts = [p if p["id"] != "p02" else dict(p, status="failed") for p in FULL]
    v = verdict(s, results(*pts))
    assert v.verdict == "not measured" and "p02" in v.reason and "failed" in v.reason
    pts = [p if p["id"] != "p02" else dict(p, read_s=None) for p in FULL]
    assert verdict(s, results(*pts)).verdict == "not measured"


def test_configured_never_counts_as_reproduced(tmp_path):
    s = spec_with(tmp_path, """
[[finding]]
id = "f"
section = "5"
quote = "q"
configured = "the lab sets it (volume.options)"
check = "read(label='raid5', rate=10) < 1"
""")
    v = verdict(s, results(*FULL)).as_dict()
    assert v["verdict"] == "configured" and v["value"] is True
    assert "configured behaviour is present" in fd.numbers(v)
    assert fd.counts([v])["holds"] == 0


def test_cache_counters_are_metrics(tmp_path):
    """An array cache's counters (results' ``cache``) are quantities a
    check can use; a point without a cache has none of them."""
    s = spec_with(tmp_path, """
[[finding]]
id = "f"
section = "5"
quote = "q"
let.waited = "mean('cache_throttled', label='raid5', rate=10) / mean('cache_write_hits', label='raid5', rate=10)"
check = "waited >= 0.5"
""")
    cached = [dict(p, cache={"throttled": 30, "write_hits": 40}) if p["id"] == "p00" else p
              for p in FULL]
    v = verdict(s, results(*cached))
    assert v.verdict == "holds" and v.lets["waited"] == pytest.approx(0.75)
    assert any("cache_throttled[label=raid5, rate=10] = 30" in e for e in v.evidence)
    assert verdict(s, results(*FULL)).verdict == "not measured"


def test_crossover_argmin_and_intervals():
    a = [(0, 1.0), (1, 2.0), (2, 3.0)]
    b = [(0, 2.0), (1, 2.5), (2, 2.0)]
    assert fd.crossover(a, b) == pytest.approx(1 + 0.5 / 1.5)
    assert math.isnan(fd.crossover(a, [(0, 5.0), (2, 6.0)]))
    with pytest.raises(fd.NotMeasured):
        fd.crossover(a, [(1, 5.0)])
    assert fd.argmin(b) == 0 and fd.argmax(b) == 1
    x, y = fd.Q(1.0, 0.1), fd.Q(1.15, 0.1)
    assert not fd.clearly_less(x, y) and fd.same(x, y)
    assert fd.clearly_less(fd.Q(1.0, 0.05), fd.Q(1.2, 0.05))
    assert fd.near(1.05, 1.0, 0.05) and not fd.near(1.06, 1.0, 0.05)
    assert fd.gain(35.0, 100.0) == pytest.approx(0.65)


def test_comprehensions_and_derived_tables(tmp_path):
    s = spec_with(tmp_path, """
[derive]
kind = "throughput"

[[finding]]
id = "f"
section = "5"
quote = "q"
let.t = "[derived('points', 'throughput', label=l, x=10) for l in ['raid5', 'pstripe']]"
check = "t[0] < t[1]"
""")
    der = {"points": [{"label": "raid5", "x": 10, "throughput": 100.0},
                      {"label": "pstripe", "x": 10, "throughput": 120.0}]}
    v = verdict(s, results(*FULL, derived=der))
    assert v.verdict == "holds" and v.lets["t"] == [100.0, 120.0]


@pytest.mark.parametrize("check,message", [
    ("read(label='raid6', rate=10) > 0", "no point of the spec has label=raid6"),
    ("read(rate=10) > 0", "names 2 points"),
    ("read(colour='red') > 0", "'colour' is not a parameter of any point"),
    ("mean('latency', rate=10, label='raid5') > 0", "'latency' is not a quantity"),
    ("model('utilization', rate=10, label='raid5') > 0", "'utilization' is not a quantity"),
    ("derived('optimal', 'bsu', mpl=2) > 0", "makes no table 'optimal'"),
    ("open('/etc/passwd')", "unknown function open()"),
    ("read.__class__", "Attribute is not allowed"),
    ("(lambda: 1)()", "only the check functions can be called"),
    ("[x for x in (lambda: [1])]", "Lambda is not allowed"),
    ("undefined_name > 1", "unknown name 'undefined_name'"),
    ("read(label='raid5', rate=10) >", "not an expression"),
])
def test_a_finding_naming_a_missing_quantity_is_a_spec_error(tmp_path, check, message):
    with pytest.raises(ex.SpecError) as e:
        spec_with(tmp_path, f"""
[[finding]]
id = "bad"
section = "5"
quote = "q"
check = "{check}"
""")
    assert "s.toml: [[finding]] bad" in str(e.value)
    assert message in str(e.value)


def test_a_missing_quantity_inside_an_unevaluated_branch_is_still_caught(tmp_path):
    with pytest.raises(ex.SpecError, match="label=raid6"):
        spec_with(tmp_path, """
[[finding]]
id = "bad"
section = "5"
quote = "q"
check = "True or read(label='raid6', rate=10) > 0"
""")


@pytest.mark.parametrize("body,message", [
    ('section = "5"\nquote = "q"\ncheck = "True"', "needs id"),
    ('id = "x"\nquote = "q"\ncheck = "True"', "needs section"),
    ('id = "x"\nsection = "5"\ncheck = "True"', "needs quote"),
    ('id = "x"\nsection = "5"\nquote = "q"', "needs check"),
    ('id = "x"\nsection = "5"\nquote = "q"\ncheck = "True"\nverdict = "holds"',
     "unknown key(s) verdict"),
])
def test_malformed_findings(tmp_path, body, message):
    with pytest.raises(ex.SpecError, match=re.escape(message)):
        spec_with(tmp_path, f"\n[[finding]]\n{body}\n")


def test_report_has_the_verdict_table(tmp_path):
    s = spec_with(tmp_path, """
[[finding]]
id = "grows"
section = "5.1"
quote = "the response | grows"
cause = "never"
check = "decreasing(series('read', 'rate', label='raid5'))"
""")
    res = {"title": "t", "experiment": "s", "seed": "002", "figure": "T", "quick": False,
           "clock": "icount", "status": "complete", "points": FULL, "x": "rate"}
    res["findings"] = ex.verdicts(s, res)
    md = ex.report_md(res)
    assert "## The seed's findings" in md
    assert "0 hold, 1 do not hold, 0 not measured, 0 configured" in md
    row = next(ln for ln in md.splitlines() if ln.startswith("| grows"))
    assert "\\|" in row and "**does not hold**" in row and "Cause: never" in row


# -- the catalogue's findings -------------------------------------------------------

def _seeds_dir():
    env = os.environ.get("SSA_SEEDS")
    if env:
        return env
    top = os.path.dirname(ex.spec_dir())
    return os.path.normpath(os.path.join(top, "..", "shared", "seeds"))


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# specs whose findings are still being written (issue #50); must end empty
PENDING: set = set()


def test_every_spec_has_findings():
    bare = {n for n, s in ex.catalogue().items() if not s.get("finding")}
    assert bare <= PENDING, f"specs without [[finding]]: {', '.join(sorted(bare - PENDING))}"
    done = PENDING - bare
    assert not done, f"remove from PENDING, they have findings now: {', '.join(sorted(done))}"


def test_every_quote_is_the_seeds_own_words():
    seeds = _seeds_dir()
    if not os.path.isdir(seeds):
        pytest.skip(f"the seeds' text is not here ({seeds}; set SSA_SEEDS)")
    texts = {}
    for fn in glob.glob(os.path.join(seeds, "*.txt")):
        texts[os.path.basename(fn)[:3]] = _normal(open(fn, encoding="utf-8").read())
    bad = []
    for name, spec in ex.catalogue().items():
        text = texts.get(str(spec["seed"]))
        for f in spec.get("finding", []):
            if text is None:
                bad.append(f"{name}/{f['id']}: no text for seed {spec['seed']}")
                continue
            pos = 0
            for part in _normal(f["quote"]).split("..."):
                part = part.strip()
                if not part:
                    continue
                i = text.find(part, pos)
                if i < 0:
                    bad.append(f"{name}/{f['id']}: not in seed {spec['seed']}: {part[:60]!r}")
                    break
                pos = i + len(part)
    assert not bad, "\n".join(bad)
