"""Published results and the generated Results section (ssa.publish)."""

import json
import os

import pytest

from ssa import experiment as ex
from ssa import publish as pb

SPEC = """
title = "A tiny table"
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
rate = [10, 20]

[model]
kind = "raid5"

[plot]
x = "rate"

[[finding]]
id = "grows"
section = "4.2.1"
quote = "the response grows"
check = "read(rate=20) > read(rate=10)"

[[finding]]
id = "close"
section = "4.2.1"
quote = "the model is close"
cause = "the disk is slow"
check = "abs(error('read', rate=20)) <= 0.05"
"""


def results(quick=False):
    pts = [{"id": "p00", "label": "", "params": {"rate": 10}, "rate": 10, "status": "ok",
            "read_s": 0.020, "read_ci_s": 0.001, "model_read_s": 0.0198,
            "error_read": 0.0101, "requests": 1000, "generator": {"x": 1}},
           {"id": "p01", "label": "", "params": {"rate": 20}, "rate": 20, "status": "ok",
            "read_s": 0.030, "read_ci_s": 0.002, "model_read_s": 0.025, "error_read": 0.2,
            "requests": 1000, "dropped": {"udev": 3}}]
    return {"experiment": "tiny", "title": "A tiny table", "seed": "002", "figure": "Table 1",
            "quick": quick, "clock": "icount", "status": "complete", "points": pts,
            "failures": ["plot: no display"], "figures": ["/x/tiny-read.png"], "x": "rate",
            "guest_s": 120.0, "wall_s": 30.0}


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tiny.toml").write_text(SPEC)
    run = tmp_path / "run"
    (run / "p00").mkdir(parents=True)
    (run / "p00" / "point.json").write_text("{}")
    (run / "results.json").write_text(json.dumps(results()))
    doc = tmp_path / "experiments.rst"
    doc.write_text("Results\n=======\n\n.. results-begin\n\nold text\n\n.. results-end\n\nLimits\n")
    cat = {"tiny": ex.load_spec(str(tmp_path / "experiments" / "tiny.toml"))}
    return tmp_path, run, doc, cat


def test_publish_keeps_the_numbers_and_recomputes_the_verdicts(tree):
    top, run, _, cat = tree
    path = pb.publish(str(run), cat, str(top / "results"))
    pub = json.load(open(path))
    assert pub["points"][1]["read_s"] == 0.030 and pub["points"][0]["generator"] == {"x": 1}
    assert "dropped" not in pub["points"][1] and "figures" not in pub
    assert pub["failures"] == [] and pub["run_date"]
    assert [v["verdict"] for v in pub["findings"]] == ["holds", "does not hold"]


def test_a_quick_run_is_not_published(tree):
    top, run, _, cat = tree
    (run / "results.json").write_text(json.dumps(results(quick=True)))
    with pytest.raises(ex.SpecError, match="--quick run is not published"):
        pb.publish(str(run), cat, str(top / "results"))


def test_the_section_is_made_from_the_published_results(tree):
    top, run, doc, cat = tree
    pb.publish(str(run), cat, str(top / "results"))
    assert pb.write_rst(cat, str(doc), str(top / "results"), check=True) is False
    assert pb.write_rst(cat, str(doc), str(top / "results"))
    text = doc.read_text()
    assert "old text" not in text and text.endswith(".. results-end\n\nLimits\n")
    assert "In all: 1 findings hold, 1 do not hold, 0 are not measured" in text
    assert "tiny: A tiny table" in text
    assert "Cause: the disk is slow" in text
    assert "20.0% (rate 20)" in text                      # the largest read error
    assert pb.write_rst(cat, str(doc), str(top / "results"), check=True)


def test_a_finding_edited_changes_the_section_without_a_rerun(tree):
    top, run, doc, cat = tree
    pb.publish(str(run), cat, str(top / "results"))
    pb.write_rst(cat, str(doc), str(top / "results"))
    cat["tiny"]["finding"][1]["check"] = "abs(error('read', rate=20)) <= 0.25"
    assert pb.write_rst(cat, str(doc), str(top / "results"), check=True) is False
    pb.write_rst(cat, str(doc), str(top / "results"))
    assert "In all: 2 findings hold, 0 do not hold" in doc.read_text()


def test_cells_are_escaped_for_rst():
    t = pb.list_table(["a", "b"], [["x|y", "*bold* `code` a_ b"]])
    assert "x\\|y" in t and "\\*bold* \\`code\\` a\\_ b" in t


def test_markdown_tables_are_read():
    md = "intro\n\n| a | b |\n|---|---|\n| **1** | x \\| y |\n\ntail"
    assert pb._md_tables(md) == [(["a", "b"], [["1", "x | y"]])]


def test_the_section_is_valid_rst(tree):
    core = pytest.importorskip("docutils.core")
    import io
    top, run, doc, cat = tree
    pb.publish(str(run), cat, str(top / "results"))
    text = pb.results_rst(cat, pb.published(cat, str(top / "results")))
    err = io.StringIO()
    core.publish_doctree("Results\n=======\n\n" + text, settings_overrides={
        "report_level": 2, "halt_level": 5, "warning_stream": err})
    assert err.getvalue() == "", err.getvalue()


def test_a_run_of_other_points_is_stale(tree):
    top, run, doc, cat = tree
    pb.publish(str(run), cat, str(top / "results"))
    cat["tiny"]["sweep"]["rate"] = [10, 20, 40]             # the spec gained a point
    with pytest.raises(ex.SpecError, match=r"points are not the run's \(p02\)"):
        pb.publish(str(run), cat, str(top / "results"))
    pb.write_rst(cat, str(doc), str(top / "results"))
    text = doc.read_text()
    assert "Not current: the spec's points are not the run's (p02): run it again." in text
    assert "In all: 0 findings hold" in text


def test_the_documented_results_are_current():
    """Documentation/experiments.rst's Results section is the one the
    published results (experiments/results/) make with the specs as they
    are: a finding edited, a result published or the section touched by
    hand without the other fails here (tools/ssa experiment publish)."""
    assert pb.write_rst(check=True), (
        "the Results section is not the one experiments/results/ makes: run "
        "tools/ssa experiment publish")
