"""tests/summarize: the summary line, and why a failed test failed."""
import pathlib
import subprocess

SUMMARIZE = pathlib.Path(__file__).resolve().parents[2] / "tests" / "summarize"


def _run(tmp_path, text):
    tap = tmp_path / "kernel-1.tap"
    tap.write_text(text)
    out = subprocess.run([str(SUMMARIZE), str(tap)], capture_output=True, text=True)
    return out.returncode, out.stdout.splitlines()


def test_counts_and_status(tmp_path):
    rc, lines = _run(tmp_path, "1..3\nok 1 a\nok 2 b # SKIP no disk\nok 3 c\n")
    assert rc == 0
    assert lines[-1] == "2 passed, 0 failed, 1 skipped"


def test_missing_results_fail(tmp_path):
    rc, lines = _run(tmp_path, "1..3\nok 1 a\n")
    assert rc == 1
    assert "2 planned tests did not report" in lines[0]
    assert lines[-1] == "1 passed, 2 failed, 0 skipped"


def test_failure_carries_its_diagnostics(tmp_path):
    text = ("1..2\nok 1 a\nnot ok 2 kernel log free of oops\n"
            "# WARNING: CPU: 0 PID: 7 at foo.c:12 bar+0x1\n# second line\n"
            "ok 3 c\n# not a diagnostic of 2\n")
    rc, lines = _run(tmp_path, text)
    assert rc == 1
    at = lines.index("#   not ok: kernel log free of oops")
    assert lines[at + 1] == "#     WARNING: CPU: 0 PID: 7 at foo.c:12 bar+0x1"
    assert lines[at + 2] == "#     second line"
    assert lines[at + 3] == "2 passed, 1 failed, 0 skipped"


def test_failure_reason_comes_before_the_noise(tmp_path):
    # a long log tail: the line that says why is shown even when it comes
    # after more than DIAG_LINES lines of chatter
    noise = "".join(f"# chatter {k}\n" for k in range(20))
    text = ("1..1\nnot ok 1 hidden\n" + noise +
            "# # draw 3: chunk 40 -> chunk 48: WRONG\n# FAIL: not recovered\n")
    rc, lines = _run(tmp_path, text)
    assert rc == 1
    at = lines.index("#   not ok: hidden")
    assert lines[at + 1] == "#     # draw 3: chunk 40 -> chunk 48: WRONG"
    assert lines[at + 2] == "#     FAIL: not recovered"
    assert lines[at + 3] == "#     chatter 0"


def test_libdevmapper_note_is_not_a_diagnostic(tmp_path):
    # a test's Python runs dmsetup itself: libdevmapper's note filled the
    # lines after the reason (CI of f9b3171)
    note = "# Udev is running and DM_DISABLE_UDEV environment variable is set. Bypassing.\n"
    text = "1..1\nnot ok 1 hidden\n# FAIL: wrong\n" + note * 6 + "# the draw\n"
    _, lines = _run(tmp_path, text)
    at = lines.index("#   not ok: hidden")
    assert lines[at + 1:at + 3] == ["#     FAIL: wrong", "#     the draw"]
