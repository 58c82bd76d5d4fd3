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
    ({**FIG7_GEOMETRY, "layout": "raid5"}, "raid5 volume"),
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


# -- the write-back limit (--destructive) ---------------------------------------------

def _writes(limit_kb, fast=0.3, slow=1.05):
    cfg = ip.array_config(fig7_disk(), FIG7_GEOMETRY)
    return lambda u, m: ip.model_direct_write(cfg, u, m) * (fast if u * 16 <= limit_kb
                                                            else slow)


def test_write_back_limit_found():
    w = ip.identify_write_limit("/dev/fake", fig7_disk(), FIG7_GEOMETRY,
                                measure=_writes(96), cache={"present": False},
                                echo=lambda s: None)
    assert [p["bytes"] // 1024 for p in w["points"]] == [16, 48, 96, 144]
    assert [p["verdict"] for p in w["points"]] == ["absorbed"] * 3 + ["direct"]
    assert w["cache"] and w["clear"] and w["limit_bytes"] == 96 * 1024
    assert w["above_bytes"] == 144 * 1024
    assert "write-back up to 96 KiB, 144 KiB and more written through" in w["summary"]


def test_no_write_back_cache():
    w = ip.identify_write_limit("/dev/fake", fig7_disk(), FIG7_GEOMETRY,
                                measure=_writes(0), cache={"present": False},
                                echo=lambda s: None)
    assert not w["cache"] and w["clear"] and w["limit_bytes"] is None
    assert "no write-back cache" in w["summary"]


def test_sizes_that_are_not_a_limit_are_not_one():
    pts = [{"units": u, "bytes": u * 16384, "verdict": v}
           for u, v in [(1, "absorbed"), (3, "direct"), (6, "absorbed")]]
    assert ip.write_limit(pts)["clear"] is False
    pts[1]["verdict"] = "unexplained"
    assert ip.write_limit(pts[:2])["clear"] is False
    assert ip.classify_write(0.5, 1.0) == "absorbed"
    assert ip.classify_write(1.14, 1.0) == "direct"
    assert ip.classify_write(1.24, 1.0) == "direct"
    assert ip.classify_write(1.3, 1.0) == "unexplained"
    assert ip.classify_write(0.8, 1.0) == "unexplained"
    assert ip.classify_write(0.75, 1.0) == "absorbed"


def test_writes_need_destructive_and_it_is_said_first(tmp_path, monkeypatch):
    import json
    disk = tmp_path / "disk.json"
    disk.write_text(json.dumps({"result": fig7_disk()}))
    geo = tmp_path / "geo.json"
    geo.write_text(json.dumps({"result": FIG7_GEOMETRY}))
    with pytest.raises(ip.PolicyError, match="needs --destructive"):
        ip.run("/dev/fake", str(disk), str(geo), write_units=[1, 3])
    said = []
    cfg = ip.array_config(fig7_disk(), FIG7_GEOMETRY)
    monkeypatch.setattr(ip, "closed_reads", lambda dev, u, c, m, r, w: ip.model_read(
        cfg, u, m, READS["coalescing, transfer-time"]))
    monkeypatch.setattr(ip, "closed_writes", lambda dev, u, c, m, r, w: ip.model_direct_write(
        cfg, u, m))
    monkeypatch.setattr(ip, "measure_cache", lambda dev, cfg: {"present": False})
    out = ip.run("/dev/fake", str(disk), str(geo), mpls=[1, 4], destructive=True,
                 out_dir=str(tmp_path / "o"), echo=said.append)
    assert "--destructive" in said[0] and "data on it is lost" in said[0]
    assert not any("--destructive" in s for s in said[1:])
    assert out["writes"]["cache"] is False
    assert "Writes beside the direct-write model" in (tmp_path / "o" / "report.md").read_text()
    out = ip.run("/dev/fake", str(disk), str(geo), mpls=[1], echo=said.append)
    assert out["writes"] is None


def test_the_array_cache_from_re_reads():
    # 16 KiB in 0.5 ms, 32 KiB in 0.76 ms: 63 MB/s and 0.24 ms a request
    c = ip.hits_to_cache(0.5e-3, 0.5e-3 + 16384 / 63e6, 16384, 32768, 10e-3)
    assert c["present"] and c["rate"] == pytest.approx(63e6)
    assert c["overhead_s"] == pytest.approx(0.5e-3 - 16384 / 63e6)
    assert not ip.hits_to_cache(6e-3, 6.5e-3, 16384, 32768, 10e-3)["present"]
    cfg = ip.array_config(fig7_disk(), FIG7_GEOMETRY)
    got = ip.measure_cache("/dev/fake", cfg, measure=lambda u: 0.3e-3 + u * 16384 / 62e6)
    assert got["rate"] == pytest.approx(62e6) and got["overhead_s"] == pytest.approx(0.3e-3)
    # the cache's service is in every direct write the model computes
    plain = ip.model_direct_write(cfg, 18, 1)
    assert ip.model_direct_write(cfg, 18, 1, got) == pytest.approx(
        plain + 0.3e-3 + 18 * 16384 / 62e6, rel=0.02)
