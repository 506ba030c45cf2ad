"""Pluggable backends and the timing protocol, through fake devices on the CPU interpreter."""

from __future__ import annotations

import pytest

from evaluator.harness import Harness, backends
from evaluator.harness.backends.generic import VENDOR_BACKENDS
from tests.harness.conftest import SOLUTIONS, read
from tests.harness.fake_backend import FakeImpossibleBackend, FakeTimedBackend
from tests.harness.specs_perf import PERF_TINY, SAXPY_PERF_TINY


@pytest.fixture
def fake_devices():
    backends.register("fake", FakeTimedBackend)
    backends.register("fake-impossible", FakeImpossibleBackend)
    yield
    backends.unregister("fake")
    backends.unregister("fake-impossible")


def test_vendor_backends_are_registered_and_unavailable_here():
    for vendor in VENDOR_BACKENDS:
        backend = backends.get_backend(vendor.device_type)
        assert backend.device_type in ("npu", "musa", "xpu", "mlu")
        assert backend.available() is False
        assert backend.dispatch_key and backend.autograd_key


def test_default_device_is_cpu_without_accelerator():
    assert backends.default_device_type() == "cpu"


def test_fake_backend_api_whitelist_reaches_policy(fake_devices):
    from evaluator.harness.policy import check_source

    source = (
        "import torch\nimport triton\n\ndef add_Tensor(a, b, *, alpha=1):\n    torch.fake.synchronize()\n    return a\n"
    )
    assert check_source(source, "aten") == []


def test_timed_tier_reports_timing_and_verifies_timed_outputs(fake_devices):
    with Harness(device="fake") as harness:
        result = harness.evaluate(PERF_TINY, read(SOLUTIONS / "aten__add.py"), tier="perf", timeout_s=300)
    assert result["verdict"] == "correct", result["reason"]
    timing = result["timing"]
    assert timing["method"] == "events"
    assert timing["samples"] >= 15
    assert timing["candidate_median_us"] > 0 and timing["baseline_median_us"] > 0
    assert timing["baseline_kind"] == "torch"
    assert timing["speedup"] == pytest.approx(timing["baseline_median_us"] / timing["candidate_median_us"])
    case_timing = result["cases"][0]["timing"]
    assert case_timing["input_sets"] >= 2
    assert result["sol_pct"] is not None


def test_in_place_op_is_restored_between_timed_calls(fake_devices):
    # saxpy writes y: every timed call must start from the pristine y, or the verified outputs drift
    with Harness(device="fake") as harness:
        result = harness.evaluate(
            SAXPY_PERF_TINY, read(SOLUTIONS / "cublas__cublasSaxpy_v2.py"), tier="perf", timeout_s=300
        )
    assert result["verdict"] == "correct", result["reason"]
    assert result["timing"]["baseline_kind"] == "reference"


def test_caching_only_while_timed_is_caught(fake_devices):
    # correct on the checked calls; during timing it replays the answer for the first input set
    source = read(SOLUTIONS / "aten__add.py").replace(
        "def add_Tensor(self, other, *, alpha=1):",
        "def add_Tensor(self, other, *, alpha=1):\n"
        "    box = add_Tensor.__defaults__\n"
        "    if add_Tensor.calls > 3:\n        return add_Tensor.last\n"
        "    add_Tensor.calls += 1\n    add_Tensor.last = _real(self, other, alpha=alpha)\n    return add_Tensor.last\n\n\n"
        "def _real(self, other, *, alpha=1):",
    )
    source += "\nadd_Tensor.calls = 0\n"
    with Harness(device="fake", static_policy=False) as harness:
        result = harness.evaluate(PERF_TINY, source, tier="perf", timeout_s=300)
    assert result["verdict"] == "incorrect", result["reason"]
    assert "timed call" in result["reason"]


def test_faster_than_physics_is_cheat(fake_devices):
    with Harness(device="fake-impossible") as harness:
        result = harness.evaluate(PERF_TINY, read(SOLUTIONS / "aten__add.py"), tier="perf", timeout_s=300)
    assert result["verdict"] == "cheat_detected"
    assert result["findings"][0]["layer"] == "physics"
