"""The launch replay on a real device (skipped without cuda): timed cases are measured by the
replayer, a process that never runs candidate code, from one recorded call of the candidate;
wrappers that cannot be replayed are timed in their own process and say so."""

from __future__ import annotations

import pytest

from evaluator.harness import Harness
from tests.harness import specs
from tests.harness.conftest import SOLUTIONS, read


def _cuda() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


pytestmark = pytest.mark.skipif(not _cuda(), reason="the launch replay needs a cuda device")

KEPT_BUFFER = """
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a + alpha * b).to(out_ptr.dtype.element_ty), mask=mask)


class _Workspace:
    buffers = {}


def add_Tensor(self, other, *, alpha=1):
    a, b = self.contiguous(), other.contiguous()
    key = (a.shape, a.dtype)
    if key not in _Workspace.buffers:
        _Workspace.buffers[key] = torch.empty_like(a)
    out = _Workspace.buffers[key]
    _add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)
    return out.clone()
"""


@pytest.fixture(scope="module")
def harness():
    with Harness(device="cuda") as h:
        yield h


def test_an_honest_add_is_timed_by_the_replayer(harness):
    result = harness.evaluate(specs.ADD, read(SOLUTIONS / "aten__add.py"), tier="perf", timeout_s=300)
    assert result["verdict"] == "correct", result["reason"][:300]
    assert result["timing"]["measured_by"] == "replay", [c["timing"]["note"] for c in result["cases"]]
    for case in result["cases"]:
        assert case["timing"]["measured_by"] == "replay", case["timing"]["note"]
    assert 0.5 < result["timing"]["speedup"] < 1.5


def test_replay_and_the_candidate_process_time_the_same_kernel_alike():
    """The replay leaves out the wrapper's host work, not device work: medians within 10%."""
    medians = {}
    for replay_timing in (True, False):
        with Harness(device="cuda", replay_timing=replay_timing) as h:
            result = h.evaluate(specs.ADD, read(SOLUTIONS / "aten__add.py"), tier="perf", timeout_s=300)
        assert result["verdict"] == "correct", result["reason"][:300]
        medians[replay_timing] = [c["timing"]["candidate_median_us"] for c in result["cases"]]
        expected = "replay" if replay_timing else "candidate_process"
        assert result["timing"]["measured_by"] == expected
    for replayed, own in zip(medians[True], medians[False], strict=True):
        assert abs(replayed / own - 1) < 0.10, (replayed, own)


def test_a_workspace_kept_across_calls_is_replayed_with_a_fresh_buffer():
    """A workspace made in an earlier call is no input and not made by the recorded call: the
    replay gives it a fresh buffer of its size, which the kernel writes before anything reads it."""
    with Harness(device="cuda", static_policy=False) as h:
        result = h.evaluate(specs.ADD, KEPT_BUFFER, tier="perf", timeout_s=300)
    assert result["verdict"] == "correct", result["reason"][:300]
    assert result["timing"]["measured_by"] == "replay", [c["timing"]["note"] for c in result["cases"]]
