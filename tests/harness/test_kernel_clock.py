"""The kernel clock: attributing the device's activity records to timed calls, and the harness
option end to end on a fake timed device (host-clock activity records, the Triton interpreter)."""

from __future__ import annotations

import pytest

from evaluator.harness import Harness, backends
from evaluator.harness.evaluate import HarnessError
from evaluator.harness.harness import HarnessConfig
from evaluator.harness.kernel_clock import Activity, spans_between_markers
from evaluator.harness.timing import KERNEL_CLOCK_BATCH, measure
from tests.harness.conftest import SOLUTIONS, read
from tests.harness.fake_backend import FakeBrokenTraceBackend, FakeLostMarkerBackend, FakeTimedBackend
from tests.harness.specs_perf import PERF_TINY

MARK = "at::cuda::(anonymous namespace)::spin_kernel(long)"


def is_marker(name: str) -> bool:
    return "::spin_kernel(" in name


def test_each_call_runs_from_its_opening_marker_to_its_last_work():
    records = [
        Activity(MARK, 0.0, 5.0),
        Activity("_add_kernel", 6.0, 26.0),
        Activity("Memcpy DtoD (Device -> Device)", 26.5, 28.0),
        Activity(MARK, 28.5, 29.5),
        Activity("_copy_bytes_kernel", 30.0, 40.0),  # the harness's restore and flush: between calls
        Activity("_read_kernel", 40.0, 90.0),
        Activity(MARK, 90.0, 95.0),
        Activity("_add_kernel", 96.0, 117.0),
        Activity(MARK, 117.5, 118.0),
    ]
    # the launch (marker end -> kernel start) counts, the harness's work between calls does not
    assert spans_between_markers(records, is_marker, 2) == [23.0, 22.0]


def test_records_out_of_order_and_side_streams_are_covered():
    # a second stream's kernel that ended last bounds the call's span
    records = [
        Activity("_main", 12.0, 20.0),
        Activity(MARK, 20.5, 21.0),
        Activity("_side", 10.5, 30.0),
        Activity(MARK, 0.0, 10.0),
    ]
    assert spans_between_markers(records, is_marker, 1) == [20.0]
    # one that did not wait for the opening marker to end starts the span itself
    early = [Activity(MARK, 0.0, 10.0), Activity("_side", 8.0, 30.0), Activity(MARK, 31.0, 32.0)]
    assert spans_between_markers(early, is_marker, 1) == [22.0]


def test_a_call_that_ran_nothing_on_the_device_takes_zero():
    assert spans_between_markers([Activity(MARK, 0.0, 1.0), Activity(MARK, 2.0, 3.0)], is_marker, 1) == [0.0]


def test_lost_or_extra_markers_attribute_nothing():
    two_calls = [Activity(MARK, float(t), float(t) + 1) for t in (0, 10, 20, 30)]
    assert spans_between_markers(two_calls[:3], is_marker, 2) is None
    # a kernel carrying the marker's name (not something a Triton function can be called) too
    assert spans_between_markers([*two_calls, Activity(MARK, 35.0, 36.0)], is_marker, 2) is None


def test_triton_kernel_names_cannot_pass_for_the_marker():
    assert not is_marker("spin_kernel")
    assert not is_marker("_spin_kernel_0d1d")


@pytest.fixture
def fake_devices():
    backends.register("fake", FakeTimedBackend)
    backends.register("fake-lost", FakeLostMarkerBackend)
    backends.register("fake-broken", FakeBrokenTraceBackend)
    yield
    backends.unregister("fake")
    backends.unregister("fake-lost")
    backends.unregister("fake-broken")


def test_kernel_clock_times_candidate_and_baseline(fake_devices):
    with Harness(device="fake", clock="kernel") as harness:
        result = harness.evaluate(PERF_TINY, read(SOLUTIONS / "aten__add.py"), tier="perf", timeout_s=300)
    assert result["verdict"] == "correct", result["reason"]
    assert result["environment"]["timing_clock"] == "kernel"
    timing = result["timing"]
    assert timing["method"] == "kernel_clock"
    assert timing["samples"] >= KERNEL_CLOCK_BATCH  # traced in whole batches
    case = result["cases"][0]["timing"]
    assert case["baseline_method"] == "kernel_clock"
    assert case["candidate_median_us"] > 0 and case["baseline_median_us"] > 0
    assert case["note"] == ""


@pytest.mark.parametrize("device", ["fake-lost", "fake-broken"])
def test_kernel_clock_falls_back_to_events_when_the_trace_fails(fake_devices, device):
    # records lost, or unreadable: the candidate is timed with events, never blamed
    with Harness(device=device, clock="kernel") as harness:
        result = harness.evaluate(PERF_TINY, read(SOLUTIONS / "aten__add.py"), tier="perf", timeout_s=300)
    assert result["verdict"] == "correct", result["reason"]
    case = result["cases"][0]["timing"]
    assert case["method"] == "events"
    assert case["baseline_method"] == "events"
    assert "two markers per call" in case["note"]


def test_unknown_clock_is_refused():
    with pytest.raises(HarnessError, match="clock must be one of events, kernel"):
        Harness(device="cpu", clock="ncu")
    with pytest.raises(ValueError, match="clock must be one of"):
        measure(lambda i: None, 1, backend=None, device="cpu", l2_bytes=0, restore_pairs=[[]], budget_s=0.1, clock="x")


def test_bundle_records_the_protocol_it_ran(fake_devices):
    from evaluator.harness.bundle import run_bundle

    job = {"job_id": "j1", "operator": "aten::add", "tier": "nope", "solution": {"source": "x = 1\n"}}
    out = run_bundle(
        {"schema": "kgb.jobs/1", "jobs": [job]}, config=HarnessConfig(device="fake"), flush="read", clock="kernel"
    )
    assert (out["environment"]["l2_flush"], out["environment"]["timing_clock"]) == ("read", "kernel")
    assert out["results"][0]["result"]["environment"]["timing_clock"] == "kernel"


def test_bundle_takes_its_protocol_from_the_bundle_unless_asked(fake_devices):
    from evaluator.harness.bundle import BundleError, run_bundle

    job = {"job_id": "j1", "operator": "aten::add", "tier": "nope", "solution": {"source": "x = 1\n"}}
    bundle = {"schema": "kgb.jobs/1", "timing_protocol": "read:kernel", "jobs": [job]}
    out = run_bundle(bundle, config=HarnessConfig(device="fake"))
    assert (out["environment"]["l2_flush"], out["environment"]["timing_clock"]) == ("read", "kernel")
    out = run_bundle(bundle, config=HarnessConfig(device="fake"), clock="events")
    assert (out["environment"]["l2_flush"], out["environment"]["timing_clock"]) == ("read", "events")
    for bad in ("read", "read:cupti", 7):
        with pytest.raises(BundleError, match="timing_protocol"):
            run_bundle({**bundle, "timing_protocol": bad}, config=HarnessConfig(device="fake"))
