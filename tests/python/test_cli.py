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
