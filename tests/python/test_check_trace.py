"""tests/kernel/check_trace.py: the request event's place in a request's life."""
import importlib.util
import pathlib

_path = pathlib.Path(__file__).resolve().parents[2] / "tests" / "kernel" / "check_trace.py"
_spec = importlib.util.spec_from_file_location("check_trace", _path)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


def request(rid, record=True):
    """The ftrace lines of a one-child read, with or without its request event."""
    pre = "fio-311 [001] ..... "
    child = f"254:0 id={rid} child=0 member=1 low read msector=0 len=8"
    lines = [
        f"{pre}1.{rid}01: ssastripe_fork: 254:0 id={rid} read sector=0 len=8 children=1",
        f"{pre}1.{rid}02: ssastripe_child_queue: {child} qlen=0 status=0",
        f"{pre}1.{rid}03: ssastripe_child_dispatch: {child} qlen=0 status=0",
        f"{pre}1.{rid}04: ssastripe_child_complete: {child} qlen=0 status=0",
        f"{pre}1.{rid}05: ssastripe_join: 254:0 id={rid} status=0",
    ]
    if record:
        lines.append(f"{pre}1.{rid}06: ssastripe_request: 254:0 id={rid} read sector=0 "
                     "len=8 children=1/1 status=0 resp_ns=5 max_wait_ns=0 "
                     "max_service_ns=2 skew_ns=0 last=1")
    return lines


def errors(lines):
    events, _ = check.parse("\n".join(lines))
    return check.check_lifecycle(events)[0]


def test_every_request_has_its_event():
    assert errors(request(1) + request(2)) == []


def test_a_request_forked_before_the_event_was_on_may_lack_it():
    assert errors(request(1, record=False) + request(2)) == []


def test_a_missing_request_event_is_an_error():
    errs = errors(request(1) + request(2, record=False))
    assert errs == ["request ('254:0', 2) joined without a request event"]


def test_a_request_event_before_its_join_is_an_error():
    lines = request(1)
    lines[4], lines[5] = lines[5], lines[4]
    assert any("not once after its join" in e for e in errors(lines))


def test_more_children_recorded_than_completed_is_an_error():
    lines = request(1)
    lines[5] = lines[5].replace("children=1/1", "children=2/2")
    assert any("2 children recorded, 1 completed" in e for e in errors(lines))


def placed(rid, at=2, bsector=64, dispatched=64):
    """A one-child srarray read whose place event sits at line @at."""
    pre = "fio-311 [001] ..... "
    lines = request(rid, record=False)
    lines[2] += f" mdev=254:1 bsector={dispatched}"
    lines.insert(at, f"{pre}1.{rid}025: ssastripe_place: 254:0 id={rid} child=0 member=1 "
                 f"replica=1 predicted len=8 mdev=254:1 bsector={bsector} "
                 "free_ns=100 end_ns=200 exact=1")
    return lines


def test_a_place_between_queue_and_dispatch_to_its_sector():
    assert errors(placed(1)) == []


def test_a_dispatch_elsewhere_than_the_place_is_an_error():
    assert any("not where it was placed" in e for e in errors(placed(1, dispatched=0)))


def test_a_place_before_the_queue_is_an_error():
    assert any("placed at stage" in e for e in errors(placed(1, at=1)))
