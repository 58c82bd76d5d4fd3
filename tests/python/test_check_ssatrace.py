"""tests/kernel/check_ssatrace.py: summing ssatrace hist output."""
import importlib.util
import pathlib

_path = pathlib.Path(__file__).resolve().parents[2] / "tests" / "kernel" / "check_ssatrace.py"
_spec = importlib.util.spec_from_file_location("check_ssatrace", _path)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

HIST = """\
device 254:0 read: response time (fork to join)
               usecs : count    |distribution                            |
        64 -> 127     : 12       |****************************************|
       128 -> 255     : 3        |**********                              |

device 254:0 member 1 low: queueing time
               usecs : count    |distribution                            |
         0 -> 0       : 7        |****************************************|

device 254:0 member 1 high: service time
               usecs : count    |distribution                            |
         2 -> 3       : 2        |****************************************|

device 254:0 write: response time (fork to join)
               usecs : count    |distribution                            |
       256 -> 511     : 4        |****************************************|
device 254:0 member 1 low: queueing time
               usecs : count    |distribution                            |
         1 -> 1       : 1        |****************************************|
"""


def test_sums_over_prints_and_ops():
    sums = check.hist_sums(HIST.splitlines())
    assert sums["response"] == 12 + 3 + 4      # read and write, every print
    assert sums["m1.low.queueing"] == 7 + 1    # two prints of one histogram
    assert sums["m1.high.service"] == 2
    assert sums["high"] == 2


def test_rows_before_any_title_are_ignored():
    assert check.hist_sums(["        64 -> 127     : 12       |***|"]) == {}


def _rec(**kw):
    """A well-formed two-child record; keyword arguments replace fields."""
    kids = [
        {"member": 0, "class": "low", "queued_ns": 110, "dispatched_ns": 120,
         "completed_ns": 300, "msector": 0, "len": 8},
        {"member": 1, "class": "low", "queued_ns": 115, "dispatched_ns": 115,
         "completed_ns": 250, "msector": 0, "len": 8},
    ]
    r = {"dev": "254:0", "id": 7, "op": "read", "comm": "fio", "fork_ns": 100,
         "join_ns": 310, "sector": 0, "len": 16, "status": 0, "nr_children": 2,
         "truncated": False, "resp_ns": 210, "max_wait_ns": 10,
         "max_service_ns": 180, "skew_ns": 50, "children": kids}
    r.update(kw)
    return r


def test_a_good_record_passes():
    assert check.check([_rec()]) == []
    assert check.summarize([_rec()])["children"] == 2


def test_a_child_outside_fork_join_fails():
    r = _rec()
    r["children"][0]["completed_ns"] = 320      # after the join
    r["max_service_ns"], r["skew_ns"] = 200, 70
    assert any("out of order" in e for e in check.check([r]))


def test_missing_children_need_the_truncated_mark():
    r = _rec(nr_children=5)
    assert check.check([r])
    assert check.check([_rec(nr_children=5, truncated=True)]) == []
    assert check.check([_rec(truncated=True)])  # marked, but all are there


def test_derived_times_must_follow_from_the_children():
    assert check.check([_rec(skew_ns=49)])
    assert check.check([_rec(max_wait_ns=0)])


def test_a_request_recorded_twice_fails():
    assert any("twice" in e for e in check.check([_rec(), _rec()]))
