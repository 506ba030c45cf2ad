"""The vLLM KV-cache write specs (reshape_and_cache, reshape_and_cache_flash, concat_and_cache_mla) against
the harness layers that judge in-place writers: every case must tell a call that writes nothing (the
ghost replay, with Triton launches off) or one that clears the cache from a correct call; the cost must
count the slots written, not the cache's capacity (the physics floor); and a timed perf call's outputs
must fit the candidate process's reply."""

from __future__ import annotations

from typing import Any

import pytest
from torch._subclasses.fake_tensor import FakeTensorMode

from evaluator.harness.judging import clone_exact
from evaluator.harness.timed import SETS_MIN, timed_reply_budget
from evaluator.harness.timing import KEPT_EVENT_OUTPUTS
from operators import registry
from operators.spec import OperatorSpec, Rng

CACHE_WRITES = ("vllm13::reshape_and_cache", "vllm13::reshape_and_cache_flash", "vllm13::concat_and_cache_mla")


def _checked_cases() -> list[Any]:
    """Every smoke and edge case; of `full` (one grid) its smallest and its largest case, the one the
    ghost replay picks."""
    params = []
    for operator in CACHE_WRITES:
        spec = registry.get(operator)
        full_last = len(spec.tier("full")) - 1
        chosen = [(tier, i) for tier in ("smoke", "edge") for i in range(len(spec.tier(tier)))]
        for tier, index in [*chosen, ("full", 0), ("full", full_last)]:
            params.append(pytest.param(operator, tier, index, id=f"{operator.removeprefix('vllm13::')}-{tier}-{index}"))
    return params


def _case_inputs_and_reference(operator: str, tier: str, index: int) -> tuple[OperatorSpec, dict, dict, Any]:
    spec = registry.get(operator)
    case = spec.tier(tier)[index]
    inputs = spec.make_inputs(case, Rng(index))
    return spec, case, inputs, spec.run_reference(clone_exact(inputs))


@pytest.mark.parametrize(("operator", "tier", "index"), _checked_cases())
def test_a_call_that_writes_nothing_is_wrong(operator: str, tier: str, index: int) -> None:
    spec, case, inputs, ref = _case_inputs_and_reference(operator, tier, index)
    untouched = spec.invoke(lambda *args: None, clone_exact(inputs))
    assert not spec.compare(untouched, ref, case, inputs).passed


@pytest.mark.parametrize(("operator", "tier", "index"), _checked_cases())
def test_a_call_that_clears_the_cache_before_writing_is_wrong(operator: str, tier: str, index: int) -> None:
    spec, case, inputs, ref = _case_inputs_and_reference(operator, tier, index)
    cleared = clone_exact(inputs)
    for name in spec.mutates:
        cleared[name].zero_()
    assert not spec.compare(spec.invoke(spec.reference_impl, cleared), ref, case, inputs).passed


# (operator, case, bytes of one written token: its source row read plus its cache entry written)
COST_CASES = [
    ("vllm13::reshape_and_cache", {"shape": [7, 2, 16, 4, 4], "dtype": "float16", "padded": 2}, 2 * 2 * 16 * (2 + 2)),
    (
        "vllm13::reshape_and_cache",
        {"shape": [7, 2, 16, 4, 4], "dtype": "bfloat16", "kv_cache_dtype": "fp8"},
        2 * 2 * 16 * (2 + 1),
    ),
    ("vllm13::reshape_and_cache_flash", {"shape": [7, 2, 16, 4, 4], "dtype": "float32", "padded": 3}, 2 * 2 * 16 * 8),
    ("vllm13::concat_and_cache_mla", {"shape": [7, 32, 16, 4, 4], "dtype": "float16", "padded": 1}, 48 * (2 + 2)),
]


@pytest.mark.parametrize(("operator", "case", "token_bytes"), COST_CASES)
def test_cost_counts_the_written_slots_not_the_cache_capacity(
    operator: str, case: dict[str, Any], token_bytes: int
) -> None:
    spec = registry.get(operator)
    tokens, written = case["shape"][0], case["shape"][0] - case.get("padded", 0)
    larger_cache = {**case, "shape": [*case["shape"][:3], case["shape"][3] * 16, case["shape"][4]]}
    for each in (case, larger_cache):
        cost = spec.cost(each, spec.make_inputs(each, Rng(0)))
        assert cost.bytes == tokens * 8 + written * token_bytes  # int64 slot_mapping read whole


@pytest.mark.parametrize("operator", CACHE_WRITES)
def test_timed_perf_outputs_fit_the_candidate_reply(operator: str) -> None:
    """Timing sends back each kept call's outputs (the mutated caches, whole): they must fit what the
    parent accepts from a timed reply with the fewest input sets."""
    spec = registry.get(operator)
    for case in spec.tier("perf"):
        with FakeTensorMode():  # shapes only: no perf-sized cache is filled
            inputs = spec.make_inputs(case, Rng(0))
            output_bytes = sum(inputs[name].untyped_storage().nbytes() for name in spec.mutates)
        assert KEPT_EVENT_OUTPUTS * output_bytes < timed_reply_budget(SETS_MIN, [output_bytes]), case
