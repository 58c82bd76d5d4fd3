"""tools/ssa command line: units at the edge, --json, errors."""
import json
import os
import subprocess
import sys

import pytest

from ssa import cli

SSA = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "ssa")


def test_lee_katz_json(capsys):
    assert cli.main(["bsu", "lee-katz", "--positioning-ms", "12.97", "--transfer-mbps",
                     "7.9", "--mpl", "2", "--request-kb", "1024", "--disks", "4",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["formula"] == "lee-katz"
    assert out["bsu_bytes"] == pytest.approx(163890.39, rel=1e-6)
    assert out["bsu_kb"] == pytest.approx(163890.39 / 1024, rel=1e-6)


def test_chen_patterson_human(capsys):
    assert cli.main(["bsu", "chen-patterson", "--positioning-ms", "12.97",
                     "--transfer-mbps", "7.9", "--mpl", "4", "--slope", "0.25"]) == 0
    assert capsys.readouterr().out.strip() == \
        "chen-patterson BSU: 75.55 KB (77359 bytes)"


def test_bad_value_exits_2(capsys):
    assert cli.main(["bsu", "lee-katz", "--positioning-ms", "-1", "--transfer-mbps",
                     "7.9", "--mpl", "2", "--request-kb", "64", "--disks", "4"]) == 2
    assert "positioning_s must be positive" in capsys.readouterr().err


def test_help_states_units():
    out = subprocess.run([sys.executable, SSA, "bsu", "lee-katz", "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert "10^6 bytes" in out and "1024 bytes" in out


def test_script_runs():
    out = subprocess.run([sys.executable, SSA, "bsu", "lee-katz", "--positioning-ms",
                          "12.97", "--transfer-mbps", "7.9", "--mpl", "2",
                          "--request-kb", "1024", "--disks", "4"],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("lee-katz BSU: 160.05 KB")


def test_disk_json(capsys):
    assert cli.main(["disk", "--p-seq", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seek_ms"][0] == pytest.approx(3 + 0.5 * 8 / 15 * 1200 ** 0.5)
    assert out["write_ms"][0] - out["read_ms"][0] == pytest.approx(16.7 + 1.3)


# -- model commands -------------------------------------------------------------

def test_model_raid5_json_rows(capsys):
    assert cli.main(["model", "raid5", "--disks", "16", "--p-read", "0.25", "--p-seq", "0.3",
                     "--rate", "50,100,400", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bound"] == "lb" and out["sync"] == "bs"
    rows = out["rows"]
    assert [r["rate"] for r in rows] == [50, 100, 400]
    assert rows[0]["overall_s"] < rows[1]["overall_s"]
    assert rows[2]["overall_s"] is None and rows[2]["utilization"] >= 1   # unstable: null


def test_model_raid5_table_marks_unstable(capsys):
    assert cli.main(["model", "raid5", "--disks", "16", "--p-read", "0.25",
                     "--rate", "100,1000", "--bound", "ub"]) == 0
    out = capsys.readouterr().out
    assert "raid5 (BS, ub)" in out and "unstable" in out


def test_model_multi_block_defaults_to_simplified(capsys):
    assert cli.main(["model", "pstripe", "--disks", "8", "--p-read", "0.75", "--rate", "100",
                     "--sizes", "qgeo:0.7:0.7", "--skew", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bound"] == "simple"
    assert cli.main(["model", "raid5", "--disks", "8", "--p-read", "0.75", "--rate", "100",
                     "--sizes", "uniform", "--bound", "lb"]) == 2
    assert "simplified" in capsys.readouterr().err


def test_model_maxrate(capsys):
    assert cli.main(["model", "maxrate", "raid5", "--disks", "16", "--p-read", "0.25",
                     "--p-seq", "0.3", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["max_rate"]
    assert 200 < m < 400
    assert cli.main(["model", "maxrate", "pstripe", "--disks", "16", "--p-read", "0.75",
                     "--skew", "2"]) == 0
    assert "requests/s" in capsys.readouterr().out


def test_model_array(capsys):
    assert cli.main(["model", "array", "--mpl", "4", "--request-kb", "96", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["mpl"] for r in out["rows"]] == [1, 2, 3, 4]
    assert out["split"]["disks"] == 6
    assert cli.main(["model", "array", "--mpl", "3", "--request-kb", "8", "--op", "write",
                     "--cpu-delay-ms", "10"]) == 0
    assert "MPL" in capsys.readouterr().out
    assert cli.main(["model", "array", "--mpl", "3", "--request-kb", "8", "--disks", "5"]) == 2


def test_every_command_has_json():
    for argv in (["model", "raid5"], ["model", "pstripe"], ["model", "maxrate"],
                 ["model", "array"], ["compare"], ["disk"], ["bsu", "lee-katz"],
                 ["bsu", "chen-patterson"]):
        out = subprocess.run([sys.executable, SSA, *argv, "--help"], capture_output=True,
                             text=True, check=True).stdout
        assert "--json" in out, argv


@pytest.mark.parametrize("mb, kb", [(None, "160.05"), ("1000000", "160.05"),
                                    ("1048576", "163.89")])
def test_lee_katz_megabyte_option(capsys, mb, kb):
    argv = ["bsu", "lee-katz", "--positioning-ms", "12.97", "--transfer-mbps", "7.9",
            "--mpl", "2", "--request-kb", "1024", "--disks", "4"]
    assert cli.main(argv + (["--mb", mb] if mb else [])) == 0
    assert capsys.readouterr().out.startswith(f"lee-katz BSU: {kb} KB")


def test_megabyte_option_json_and_choices(capsys):
    argv = ["bsu", "chen-patterson", "--positioning-ms", "12.97", "--transfer-mbps", "7.9",
            "--mpl", "4", "--slope", "0.25", "--json"]
    assert cli.main(argv + ["--mb", "1048576"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["inputs"]["mb_bytes"] == 1048576
    assert out["bsu_bytes"] == pytest.approx(0.25 * 0.01297 * 7.9 * 2 ** 20 * 3 + 512)
    with pytest.raises(SystemExit):
        cli.main(argv + ["--mb", "1024"])
