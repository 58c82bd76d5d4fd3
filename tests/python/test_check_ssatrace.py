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
