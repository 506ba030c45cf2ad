"""Spec comparisons judge outputs where they live: no comparison asks for the host (`.cpu()`, `.numpy()`,
`.to("cpu")`, a `.tolist()` of more than a handful of values) or builds a helper tensor on the default
device (on a GPU that is the host: the comparison would fail on mixed devices or copy the outputs over).
Here the tensors are on the CPU, so the default device is switched to "meta" while comparing: a tensor
made without `device=` then breaks the comparison. Pass/fail semantics are the specs' own tests' concern;
these check that a correct output passes and a corrupted one fails on that path too, and that the float64
widening falls back to the host on a device without float64."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch.overrides import TorchFunctionMode

from evaluator.harness.judging import clone_exact
from operators import registry
from operators.catalog.cublas import _blas as B
from operators.catalog.vllm13._support import VD
from operators.spec import Comparison, OperatorSpec, Rng
from operators.tolerance import widen

HANDFUL = 64  # a .tolist() of at most this many values is a handful of scalars
VALUES_NOT_COMPARED = {  # comparisons that judge metadata or statistics, which a shifted output can keep
    "aten::empty_strided",
    "aten::new_empty_strided",
}


def _plain_arguments(args: tuple, kwargs: dict) -> list[Any]:
    """The call's arguments that are not tensors (devices, dtypes, names), positional and keyword."""
    return [a for a in (*args, *kwargs.values()) if not isinstance(a, (torch.Tensor, list, tuple))]


class HostRequests(TorchFunctionMode):
    """Records every call that asks for host data in bulk."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        if name in ("cpu", "numpy"):
            self.calls.append(name)
        elif name == "tolist" and args[0].numel() > HANDFUL:
            self.calls.append(f"tolist of {args[0].numel()}")
        elif "cpu" in _plain_arguments(args, kwargs):
            self.calls.append(f"{name}(..., 'cpu')")
        return func(*args, **kwargs)


def _judge(spec: OperatorSpec, out: Any, ref: Any, case: dict, inputs: dict) -> tuple[Comparison, list[str]]:
    requests = HostRequests()
    with torch.device("meta"), requests:
        verdict = spec.compare(out, ref, case, inputs)
    return verdict, requests.calls


def _shifted(value: Any) -> Any:
    """Every element moved off its value (+1 and more for numbers, negated for bools)."""
    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bool:
            return ~value
        if value.dtype == torch.float8_e4m3fn:
            return (value.float() * 2 + 1).to(value.dtype)
        if value.is_floating_point() or value.is_complex():
            return value + (1 + value.abs()).to(value.dtype)
        return value + 1
    if isinstance(value, (list, tuple)):
        return type(value)(_shifted(v) for v in value)
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, bool):
        return value + 1
    return value


def _smoke_cases() -> list[Any]:
    params = []
    for spec in registry.all_specs():
        if spec.compare is None:
            continue
        for index in range(len(spec.tier("smoke"))):
            params.append(pytest.param(spec.id, index, id=f"{spec.id}-{index}"))
    return params


@pytest.mark.parametrize(("operator", "index"), _smoke_cases())
def test_comparisons_stay_on_the_outputs_device(operator: str, index: int) -> None:
    spec = registry.get(operator)
    case = spec.tier("smoke")[index]
    inputs = spec.make_inputs(case, Rng(index))
    ref = spec.run_reference(clone_exact(inputs))
    verdict, calls = _judge(spec, clone_exact({"out": ref})["out"], ref, case, inputs)
    assert verdict.passed, verdict.reason
    assert calls == [], calls
    verdict, calls = _judge(spec, _shifted(ref), ref, case, inputs)
    assert calls == [], calls
    if operator not in VALUES_NOT_COMPARED:
        assert not verdict.passed


class NoFloat64OnDevice(TorchFunctionMode):
    """A device without float64, simulated: widening to float64 fails unless the host is named."""

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        plain = _plain_arguments(args, kwargs)
        if getattr(func, "__name__", "") == "to" and torch.float64 in plain and "cpu" not in plain:
            raise TypeError("float64 is not supported on this device")
        return func(*args, **kwargs)


def test_widen_falls_back_to_the_host_without_float64() -> None:
    x, z = torch.tensor([1.5, 2.0], dtype=torch.float16), torch.tensor([1 + 2j], dtype=torch.complex64)
    with NoFloat64OnDevice():
        wide = widen(x, torch.ones(2))
        mixed = widen(x, z)
    assert [t.dtype for t in wide] == [torch.float64, torch.float64]
    assert [t.dtype for t in mixed] == [torch.complex128, torch.complex128]
    assert torch.equal(wide[0], x.double()) and all(t.device.type == "cpu" for t in (*wide, *mixed))


def test_comparisons_pass_and_fail_alike_without_float64() -> None:
    ref = torch.randn(64, generator=torch.Generator().manual_seed(0)).half()
    off = ref.clone()
    off[3] += 0.25
    bernoulli = registry.get("aten::bernoulli")
    case = bernoulli.tier("smoke")[1]
    inputs = bernoulli.make_inputs(case, Rng(1))
    sample = bernoulli.run_reference(clone_exact(inputs))
    with NoFloat64OnDevice():
        assert VD(ref.clone(), ref, "output").passed
        assert not VD(off, ref, "output").passed
        assert bernoulli.compare(sample, sample, case, inputs).passed
        assert not bernoulli.compare(torch.zeros_like(sample), sample, case, inputs).passed


# ---------------------------------------------------------------- cuBLAS batched triangular solves


def _batched_trsm(operator: str, tier: str, index: int) -> tuple[OperatorSpec, dict, dict, list[torch.Tensor]]:
    spec = registry.get(operator)
    case = spec.tier(tier)[index]
    inputs = spec.make_inputs(case, Rng(index))
    return spec, case, inputs, spec.run_reference(clone_exact(inputs))


def _trsm_cases() -> list[Any]:
    return [
        pytest.param(operator, tier, index, id=f"{operator.removeprefix('cublas::')}-{tier}-{index}")
        for operator in ("cublas::cublasDtrsmBatched", "cublas::cublasZtrsmBatched")
        for tier in ("smoke", "edge")
        for index in range(len(registry.get(operator).tier(tier)))
    ]


@pytest.mark.parametrize(("operator", "tier", "index"), _trsm_cases())
def test_batched_triangular_solves_are_judged_matrix_by_matrix(operator: str, tier: str, index: int) -> None:
    """The whole batch is judged at once, with the verdict and the worst matrix of a per-matrix loop."""
    spec, case, inputs, ref = _batched_trsm(operator, tier, index)
    m, n, ldb = inputs["m"], inputs["n"], inputs["ldb"]
    if not ref:  # batchCount 0
        assert spec.compare([], ref, case, inputs).passed
        return
    # each solution nudged by a different relative amount well inside the backward-error bound
    generator = torch.Generator().manual_seed(index)
    nudged = [r.clone() for r in ref]
    for t in nudged:
        view = B.matrix_view(t, m, n, ldb)
        view.mul_(1 + 1e-14 * torch.rand(view.shape, generator=generator, dtype=torch.float64))
    verdict = spec.compare(nudged, ref, case, inputs)
    assert verdict.passed, verdict.reason
    if m > 0 and n > 0 and inputs["alpha"] != 0:
        size = m if inputs["side"] == "L" else n
        per_matrix = []
        for a, o, r in zip(inputs["Aarray"], nudged, ref, strict=True):
            triangle = B.triangular_from(B.read_matrix(a, size, size, inputs["lda"]), inputs["uplo"], inputs["diag"])
            per_matrix.append(
                B.residual_check(
                    B.read_matrix(o, m, n, ldb),
                    B.read_matrix(r, m, n, ldb),
                    B.op(triangle, inputs["trans"]),
                    left=inputs["side"] == "L",
                    n=size,
                    dtype=r.dtype,
                    what="B",
                )
            )
        worst = max(per_matrix, key=lambda c: c.max_rel_err)
        assert worst.max_rel_err > 0
        assert verdict.max_rel_err == pytest.approx(worst.max_rel_err, rel=1e-6)
        assert verdict.max_abs_err == pytest.approx(worst.max_abs_err, rel=1e-6)
    last = len(ref) - 1
    if m > 0 and n > 0:
        wrong = [r.clone() for r in ref]
        B.matrix_view(wrong[last], m, n, ldb).add_(1.0)
        failed = spec.compare(wrong, ref, case, inputs)
        assert not failed.passed and failed.reason.startswith(f"Barray[{last}]"), failed.reason
    outside = [r.clone() for r in ref]
    written = B.mask_like(ref[last])
    B.mark_matrix(written, m, n, ldb)
    if bool((~written).any()):
        outside[last][~written] = 7.0
        failed = spec.compare(outside, ref, case, inputs)
        assert not failed.passed and failed.reason.startswith(f"Barray[{last}] (not written)"), failed.reason
