"""Seed 001's elimination (ssa.identify_policy): model versions fitted to
measurements, the best one named only when the measurements say so, and
the findings that use it (deduced, deduced_clearly, fit_error) on specs
whose [variants] the lab validates."""

import copy
import math
import random

import pytest

from ssa import experiment as ex
from ssa import findings as fd
from ssa import identify_policy as ip
from ssa import spec as lab_spec
from ssa.plan import expand

READS = ip.SEED001_READ_VARIANTS


@pytest.fixture(scope="module")
def fig7():
    return lab_spec.catalogue()["seed001-fig7"]


def synthetic(spec, truth, label, noise=0.03, seed=1):
    """(point, value) pairs of one series measured as the ``truth``
    version's model with up to ``noise`` of seeded scatter."""
    rng = random.Random(seed)
    pts = [p for p in expand(spec, False) if p["label"] == label]
    return [(p, ip.model_value(p, "read", READS[truth], spec["model"]) *
             (1 + rng.uniform(-noise, noise))) for p in pts]


@pytest.mark.parametrize("truth", sorted(READS))
def test_each_version_is_recovered_from_its_own_curves(fig7, truth):
    pairs = synthetic(fig7, truth, "transfer-time reducing")
    fits = ip.fit(pairs, "read", READS, base=fig7["model"])
    best, clear = ip.decide(fits)
    assert best == truth and clear
    assert fits[0].mean_error <= 0.03 and fits[0].points == 24
    assert [f.mean_error for f in fits] == sorted(f.mean_error for f in fits)


def test_the_series_own_settings_are_not_read(fig7):
    """The two series of fig7 differ only in their model settings: with
    the same measurements they get the same fits."""
    a = synthetic(fig7, "coalescing, queue-length", "transfer-time reducing")
    b = synthetic(fig7, "coalescing, queue-length", "queue-length reducing")
    fa = ip.fit(a, "read", READS, base=fig7["model"])
    fb = ip.fit(b, "read", READS, base=fig7["model"])
    assert [(f.variant, round(f.mean_error, 9)) for f in fa] == \
        [(f.variant, round(f.mean_error, 9)) for f in fb]


def test_a_near_tie_is_not_clear():
    fits = [ip.Fit("a", 0.050, 0.1, 4), ip.Fit("b", 0.055, 0.1, 4)]
    assert ip.decide(fits) == ("a", False)
    assert ip.decide(fits, margin=0.95) == ("a", True)
    assert ip.decide([ip.Fit("only", 0.3, 0.4, 2)]) == ("only", True)


def test_nothing_fitted_is_an_error():
    with pytest.raises(ValueError):
        ip.decide([])
    with pytest.raises(ValueError):
        ip.decide([ip.Fit("a", math.inf, math.inf, 0)])


def test_a_version_without_a_value_ranks_last(fig7):
    pairs = synthetic(fig7, "coalescing, transfer-time", "transfer-time reducing")
    pairs[3] = (pairs[3][0], math.nan)
    fits = ip.fit(pairs, "read", READS, base=fig7["model"])
    assert all(not math.isfinite(f.mean_error) for f in fits)
    with pytest.raises(ValueError):
        ip.decide(fits)


def test_table_lists_every_version():
    md = ip.table_md([ip.Fit("a", 0.043, 0.073, 24), ip.Fit("b", 0.5, 0.7, 24)])
    assert "| a | 4.3 % | 7.3 % | 24 |" in md and "| b | 50.0 % |" in md


# -- the findings -------------------------------------------------------------------

def results_of(spec, truths: dict) -> dict:
    """A results.json for every point of ``spec``, each series measured
    as the model version ``truths[label]``."""
    pts = []
    for p in expand(spec, False):
        v = ip.model_value(p, "read", READS[truths[p["label"]]], spec["model"])
        pts.append({"id": p["id"], "label": p["label"], "params": p["params"],
                    "status": "ok", "read_s": v, "mpl": p["workload"]["mpl"],
                    "sizes": p["workload"]["sizes"]})
    return {"points": pts}


def verdict(spec, results, fid):
    return next(v for v in fd.evaluate(spec, results) if v.id == fid)


def test_the_fig7_deduction_holds_on_the_fc60_and_fails_otherwise(fig7):
    right = results_of(fig7, {"transfer-time reducing": "coalescing, transfer-time",
                              "queue-length reducing": "coalescing, queue-length"})
    v = verdict(fig7, right, "transfer-balancing-deduced")
    assert v.verdict == "holds", v.reason
    assert any("coalescing, transfer-time: mean error 0.0 %" in e for e in v.evidence)
    # a volume that balanced by queue length must not be called the FC-60's
    wrong = results_of(fig7, {"transfer-time reducing": "coalescing, queue-length",
                              "queue-length reducing": "coalescing, queue-length"})
    assert verdict(fig7, wrong, "transfer-balancing-deduced").verdict == "does not hold"
    # nor may a method that names every volume the same pass its control
    same = results_of(fig7, {"transfer-time reducing": "coalescing, transfer-time",
                             "queue-length reducing": "coalescing, transfer-time"})
    assert verdict(fig7, same, "transfer-balancing-deduced").verdict == "does not hold"


def _with_finding(spec, check, variants=True):
    s = copy.deepcopy(spec)
    if not variants:
        s.pop("variants", None)
    s["finding"] = [{"id": "f", "section": "6.2", "quote": "q", "check": check}]
    return s


def test_a_fit_without_variants_or_of_an_unknown_one_is_a_spec_error(fig7):
    with pytest.raises(fd.FindingError, match="no \\[variants\\]"):
        fd.validate(_with_finding(fig7, "deduced('read', label='queue-length reducing')",
                                  variants=False), "s.toml")
    with pytest.raises(fd.FindingError, match="not one of the spec's"):
        fd.validate(_with_finding(fig7, "fit_error('read', 'nearest', "
                                        "label='queue-length reducing') < 1"), "s.toml")
    with pytest.raises(fd.FindingError, match="read, write or rate"):
        fd.validate(_with_finding(fig7, "deduced('overall', label='queue-length reducing')"),
                    "s.toml")


def test_fit_error_is_the_mean_relative_error(fig7):
    res = results_of(fig7, {"transfer-time reducing": "coalescing, transfer-time",
                            "queue-length reducing": "coalescing, queue-length"})
    s = _with_finding(fig7, "fit_error('read', 'coalescing, transfer-time', "
                            "label='transfer-time reducing') < 1e-9 and "
                            "fit_error('read', 'coalescing, queue-length', "
                            "label='transfer-time reducing') > 0.2")
    assert fd.evaluate(s, res)[0].verdict == "holds"


@pytest.mark.parametrize("variants, msg", [
    ({"a": {"nonsense": 1}}, "cannot be set by a variant"),
    ({"a": {"kind": "raid5"}}, "cannot be set by a variant"),
    ({"a": {}}, "non-empty table"),
    ({"a": "on"}, "non-empty table"),
])
def test_bad_variants_are_refused(variants, msg):
    spec = ex.load_spec("experiments/seed001-fig7.toml")
    spec["variants"] = variants
    spec["finding"] = []
    with pytest.raises(lab_spec.SpecError, match=msg):
        lab_spec.validate(spec, "s.toml")


# -- on a device (identify --policies), with the device's measurement faked ----------

from ssa.specdef import MECHANICAL_PRESETS  # noqa: E402


def fig7_disk() -> dict:
    """identify's result for a member of seed001-fig7's volume (cheetah73,
    one head, 362 cylinders, seek_b 499 us), as identify reports it."""
    g = MECHANICAL_PRESETS["cheetah73"]
    rot = g["rotation"]
    return {"rotation_s": rot, "cylinders": 362, "heads": 1,
            "zones": [[362, g["sectors_per_track"]]], "seek_a_s": g["seek_a"],
            "seek_b_s": 499e-6,
            "transfer_mbps": [g["sectors_per_track"] * 512 / rot / 1e6], "overhead_s": 0.0}


FIG7_GEOMETRY = {"layout": "mirror", "mirrored": True, "copies": 2, "chunk_bytes": 16384,
                 "width": 3, "members": 6}


def test_the_device_model_is_the_labs(fig7):
    """Built from identify's results, the model gives what the lab's model
    gives for the same volume (seed001-fig7's points) within 1 %."""
    cfg = ip.array_config(fig7_disk(), FIG7_GEOMETRY)
    for p in expand(fig7, False)[:24:5]:
        units = int(p["workload"]["sizes"].split(":")[1])
        over = READS[["coalescing, transfer-time", "coalescing, queue-length"]
                     [p["label"] == "queue-length reducing"]]
        lab = ip.model_value(p, "read", over, fig7["model"])
        dev = ip.model_read(cfg, units, p["workload"]["mpl"], over)
        assert dev == pytest.approx(lab, rel=0.01)


@pytest.mark.parametrize("truth", sorted(READS))
def test_policies_recovered_from_a_device(truth):
    rng = random.Random(7)
    cfg = ip.array_config(fig7_disk(), FIG7_GEOMETRY)
    out = ip.identify_policies(
        "/dev/fake", fig7_disk(), FIG7_GEOMETRY, mpls=[1, 2, 4, 8],
        measure=lambda u, m: ip.model_read(cfg, u, m, READS[truth]) * (1 + rng.uniform(-.04, .04)),
        echo=lambda s: None)
    assert out["balance"] == READS[truth]["balance"]
    if READS[truth]["balance"] == "transfer":
        assert out["deduced"] == truth and out["clear"]
        assert out["coalescing"] == (READS[truth]["coalescing"] == "on")
    else:
        # under queue-length balance a disk's units lie back to back and one
        # pass of the track serves them as one I/O would: no telling
        assert out["deduced"].endswith("queue-length") and not out["clear"]
        assert out["coalescing"] is None
        assert "coalescing: cannot tell" in out["summary"]
    assert [p["units"] for p in out["points"][::4]] == [6, 12, 24]
    md = ip.policy_report_md(out)
    assert truth in md and "| 6 | 1 |" in md


def test_striping_fits_coalescing_only():
    geo = {"layout": "stripe", "mirrored": False, "copies": 1, "chunk_bytes": 16384,
           "width": 4, "members": 4}
    cfg = ip.array_config(fig7_disk(), geo)
    assert set(ip.device_variants(cfg)) == {"coalescing, transfer-time",
                                            "no coalescing, transfer-time"}
    out = ip.identify_policies("/dev/fake", fig7_disk(), geo, echo=lambda s: None,
                               measure=lambda u, m: ip.model_read(
                                   cfg, u, m, READS["no coalescing, transfer-time"]))
    # raid 0's units of a request lie back to back on each disk, and the
    # model reads them in one pass whether coalesced or not: no telling
    assert out["balance"] is None and out["coalescing"] is None
    assert out["summary"].startswith("policies: coalescing: cannot tell (")


@pytest.mark.parametrize("geo, msg", [
    ({**FIG7_GEOMETRY, "layout": "rotating"}, "rotating volume"),
    ({**FIG7_GEOMETRY, "layout": "single", "chunk_bytes": None, "width": 1}, "single volume"),
    ({**FIG7_GEOMETRY, "copies": 3}, "3 copies"),
    ({"layout": "mirror", "chunk_bytes": 16384}, "geometry lacks"),
])
def test_volumes_the_model_cannot_describe_are_refused(geo, msg):
    with pytest.raises(ip.PolicyError, match=msg):
        ip.array_config(fig7_disk(), geo)


def test_disk_results_without_the_disk_are_refused():
    with pytest.raises(ip.PolicyError, match="lack rotation_s"):
        ip.array_config({"cylinders": 10}, FIG7_GEOMETRY)


def test_cli_errors(tmp_path, capsys):
    import json
    disk = tmp_path / "disk.json"
    disk.write_text(json.dumps({"result": fig7_disk()}))
    geo = tmp_path / "geo.json"
    geo.write_text(json.dumps({"result": {**FIG7_GEOMETRY, "layout": "rotating"}}))
    assert ip.main(["/dev/null", "--disk", str(disk), "--geometry", str(geo)]) == 2
    assert "rotating volume" in capsys.readouterr().err
    geo.write_text(json.dumps({"result": FIG7_GEOMETRY}))
    assert ip.main(["/dev/null", "--disk", str(disk), "--geometry", str(geo),
                    "--requests", "5"]) == 2
    assert "at least 20" in capsys.readouterr().err
    assert ip.main(["/dev/null", "--disk", str(tmp_path / "none.json"),
                    "--geometry", str(geo)]) == 2
    assert "none.json" in capsys.readouterr().err
    assert ip.main(["/dev/null", "--disk", str(disk), "--geometry", str(geo),
                    "--units", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err
