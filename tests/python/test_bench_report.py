"""bench/report.py: the per-program cost table of ssatrace."""
import importlib.util
import pathlib

_path = pathlib.Path(__file__).resolve().parents[2] / "bench" / "report.py"
_spec = importlib.util.spec_from_file_location("bench_report", _path)
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)


def prog(name, cnt, ns):
    return {"name": name, "type": "raw_tracepoint", "run_cnt": cnt, "run_time_ns": ns}


def test_per_run_and_per_request():
    """Requests are the runs of handle_request; --disk adds per-child programs."""
    progs = [prog("handle_request", 100, 100_000), prog("handle_dispatch", 200, 50_000),
             prog("handle_complete", 200, 40_000), prog("other_prog", 5, 5)]
    rows = report.prog_cost_table(progs)
    assert rows[2] == "| handle_complete | 200 | 200 | 400 |"
    assert rows[3] == "| handle_dispatch | 200 | 250 | 500 |"
    assert rows[4] == "| handle_request | 100 | 1000 | 1000 |"
    assert rows[-1] == "| **all** | | | **1900** |"
    assert not any("other_prog" in r for r in rows)


def test_no_statistics():
    """Programs loaded without kernel.bpf_stats_enabled have no run counts."""
    rows = report.prog_cost_table([{"name": "handle_request", "type": "raw_tracepoint"}])
    assert rows == rows[:2]
