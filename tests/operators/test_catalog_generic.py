"""Checks every spec in the catalog, whichever source and module it comes from.

- the spec validates and its smoke cases build inputs on cpu and run the reference;
- no problem is degenerate: zeros, NaN-filled ("empty"), constant and input-copy answers are each
  rejected by the spec's own comparison on at least one smoke case;
- ids are unique, and the ATen set is exactly upstream's 110 operators, all in the MC set;
- the CLI lists the catalog and every spec renders a prompt for every chip family.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import torch

from operators import __main__ as cli
from operators import registry
from operators.prompts import CHIP_FAMILIES, render_prompt
from operators.spec import Case, Comparison, Inputs, OperatorSpec, Rng
from operators.tolerance import compare_outputs

# research/upstream_kgb.md §1.1
UPSTREAM_ATEN_IDS = sorted(
    f"aten::{name}"
    for name in """
_index_put_impl_ _local_scalar_dense _softmax _to_copy acosh add add_ affine_grid_generator amin arange argmax
as_strided asin bernoulli binary_cross_entropy_with_logits bitwise_not bmm cat clone contiguous copy_ cos cosh
cumsum diff div div_ embedding empty_strided eq erfc expand expand_as exponential_ fill_ floor floor_divide fmax
full gather gt hardsigmoid heaviside huber_loss i0 im2col index index_put_ index_select item le linear log10
log_sigmoid_backward logaddexp2 logit margin_ranking_loss masked_fill_ matmul mean mish mish_backward mm mul
narrow neg new_empty_strided new_ones ones_like pairwise_distance poisson polygamma pow prelu
reflection_pad1d_backward renorm reshape resolve_conj resolve_neg rot90 rrelu_with_noise rrelu_with_noise_backward
rsqrt rsub scalar_tensor scatter select select_backward sgn silu sin smooth_l1_loss_backward soft_margin_loss
softmax softplus_backward sort special_entr square stack sub sum t to unsafe_split unsafe_split_with_sizes unsqueeze
upsample_nearest2d_backward zero_ zeros zeros_like
""".split()
)

# Operators whose result IS a copy of their first tensor input: an input copy is the right answer
# there, and the harness's aliasing and anti-cheat checks (not this test) catch lazy solutions.
COPY_OPERATORS = {
    "aten::clone",
    "aten::contiguous",
    "aten::resolve_conj",
    "aten::resolve_neg",
    "cublas::cublasScopy_v2",
    "cublas::cublasDcopy_v2",
    "cublas::cublasCcopy_v2",
    "cublas::cublasZcopy_v2",
}

SPECS = registry.all_specs()
SPEC_IDS = [s.id for s in SPECS]


def _compare(spec: OperatorSpec, out: Any, ref: Any, case: Case, inputs: Inputs) -> Comparison:
    if spec.compare is not None:
        return spec.compare(out, ref, case, inputs)
    reduce_dim = spec.reduce_dim(case) if spec.reduce_dim is not None else 1
    return compare_outputs(out, ref, exact=spec.exact, reduce_dim=reduce_dim)


def _map_tensors(value: Any, fn: Callable[[torch.Tensor], Any]) -> Any:
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_map_tensors(v, fn) for v in value)
    return value


def _first_tensor(value: Any) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (list, tuple)):
        for v in value:
            found = _first_tensor(v)
            if found is not None:
                return found
    return None


def _zeros(ref: Any) -> Any:
    if isinstance(ref, (bool, int, float)) and not isinstance(ref, torch.Tensor):
        return type(ref)(0)
    return _map_tensors(ref, torch.zeros_like)


def _empty(ref: Any) -> Any:
    """What stale `torch.empty` memory looks like after the harness poisons it."""

    def fill(t: torch.Tensor) -> torch.Tensor:
        if t.dtype.is_floating_point or t.dtype.is_complex:
            return torch.full_like(t, float("nan"))
        if t.dtype == torch.bool:
            return torch.ones_like(t)
        return torch.full_like(t, torch.iinfo(t.dtype).min)

    if isinstance(ref, float):
        return float("nan")
    return _map_tensors(ref, fill)


def _constant(ref: Any) -> Any:
    """Every element set to the reference's mean (its majority value for bool/int), or None when
    that cannot differ from the reference (a single element)."""

    def fill(t: torch.Tensor) -> torch.Tensor:
        finite = t.detach().to("cpu", torch.complex128 if t.is_complex() else torch.float64)
        finite = finite[torch.isfinite(finite)] if not t.is_complex() else finite
        mean = finite.mean().item() if finite.numel() else 0.0
        if t.dtype == torch.bool:
            return torch.full_like(t, mean >= 0.5)
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            return torch.full_like(t, round(mean))
        return torch.full_like(t, mean)

    first = _first_tensor(ref)
    if first is None or first.numel() <= 1:
        return None
    return _map_tensors(ref, fill)


def _input_copy(inputs: Inputs, ref: Any) -> Any:
    first_out = _first_tensor(ref)
    first_in = _first_tensor(list(inputs.values()))
    if first_out is None or first_in is None:
        return None
    if first_in.shape != first_out.shape or first_in.dtype != first_out.dtype:
        return None
    if isinstance(ref, torch.Tensor):
        return first_in.clone()
    return _map_tensors(
        ref, lambda t: first_in.clone() if t.shape == first_in.shape and t.dtype == first_in.dtype else t
    )


FAKES: dict[str, Callable[[Inputs, Any], Any]] = {
    "zeros": lambda inputs, ref: _zeros(ref),
    "empty": lambda inputs, ref: _empty(ref),
    "constant": lambda inputs, ref: _constant(ref),
    "input_copy": _input_copy,
}


def _smoke_runs(spec: OperatorSpec) -> list[tuple[Case, Inputs, Any]]:
    """(case, pristine inputs, reference output) per smoke case; inputs are rebuilt from the seed
    because in-place references mutate theirs."""
    runs = []
    for case in spec.tier("smoke"):
        ref = spec.run_reference(spec.make_inputs(case, Rng(1234)))
        runs.append((case, spec.make_inputs(case, Rng(1234)), ref))
    return runs


def test_ids_unique() -> None:
    assert len(SPEC_IDS) == len(set(SPEC_IDS))


def test_aten_set_is_upstreams_110_all_multichip() -> None:
    aten = registry.all_specs("aten")
    assert sorted(s.id for s in aten) == UPSTREAM_ATEN_IDS
    assert len(UPSTREAM_ATEN_IDS) == 110
    assert [s.id for s in aten if not s.mc] == []


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_spec_validates_and_smoke_reference_runs(spec: OperatorSpec) -> None:
    spec.validate()
    assert spec.tier("smoke"), "no smoke cases"
    for case, inputs, ref in _smoke_runs(spec):
        assert ref is not None or spec.mutates, f"{case}: reference returned None"
        assert all(not isinstance(v, torch.Tensor) or v.device.type == "cpu" for v in inputs.values())


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_degenerate_answers_are_rejected(spec: OperatorSpec) -> None:
    if spec.constant_output_ok:
        pytest.skip(f"constant output legitimately correct: {spec.constant_output_ok}")
    runs = _smoke_runs(spec)
    accepted_everywhere = []
    for fake_name, make_fake in FAKES.items():
        if fake_name == "input_copy" and spec.id in COPY_OPERATORS:
            continue
        applicable = rejected = 0
        for case, inputs, ref in runs:
            fake = make_fake(inputs, ref)
            if fake is None:
                continue
            applicable += 1
            if not _compare(spec, fake, ref, case, inputs).passed:
                rejected += 1
        if applicable and not rejected:
            accepted_everywhere.append(fake_name)
    assert accepted_everywhere == [], f"{spec.id}: {accepted_everywhere} answers pass every smoke case"


def test_cli_list_json_matches_registry(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list", "--source", "aten", "--mc", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    expected = registry.all_specs("aten", mc_only=True)
    assert [r["id"] for r in rows] == [s.id for s in expected]
    for row, spec in zip(rows, expected, strict=True):
        assert row["source"] == "aten" and row["mc"] is True
        assert row["tiers"]["smoke"] == len(spec.tier("smoke"))
        assert row["has_reference_solution"] == (registry.reference_solution_path(spec) is not None)


def test_cli_prompt_unknown_id_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["prompt", "aten::no_such_op"]) == 2


@pytest.mark.parametrize("family", sorted(CHIP_FAMILIES))
def test_every_spec_renders_a_prompt(family: str) -> None:
    device = CHIP_FAMILIES[family].device
    for spec in SPECS:
        text = render_prompt(spec, family)
        assert spec.file_name in text
        assert f"'{device}'" in text
        for name in spec.entrypoints:
            assert f"`{name}`" in text, f"{spec.id}: entrypoint {name} missing from the prompt"
        assert "```python" in text
