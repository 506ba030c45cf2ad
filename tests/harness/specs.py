"""Small operator specs for the harness tests, one per kind of contract: an out-of-place ATen op
(add.Tensor), a CompositeImplicitAutograd ATen op (softmax.int, reached only through the
Autograd key), a vLLM-style op writing into an output buffer (rms_norm) and a cuBLAS-style
in-place BLAS-1 routine (saxpy). Tiny shapes: the Triton interpreter runs them in seconds."""

from __future__ import annotations

from typing import Any

import torch

from operators.spec import Cost, OperatorSpec, Rng

FLOATS = ("float32", "bfloat16")


def _add_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {
        "a": rng.randn(case["shape"], case["dtype"]),
        "b": rng.randn(case["shape"], case["dtype"]),
        "alpha": case["alpha"],
    }


def _add_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    return torch.add(inputs["a"], inputs["b"], alpha=inputs["alpha"])


def _add_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    a = inputs["a"]
    return Cost(flops=2 * a.numel(), bytes=3 * a.numel() * a.element_size(), dtype=case["dtype"])


ADD = OperatorSpec(
    id="aten::add",
    category="elementwise",
    description="a + alpha * b",
    signature="add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    entrypoints=("add_Tensor",),
    invoke=_add_invoke,
    cases={
        "smoke": [
            {"shape": [7], "dtype": "float32", "alpha": 1.0},
            {"shape": [3, 33], "dtype": "bfloat16", "alpha": -0.5},
        ],
        "full": [
            {"shape": [7], "dtype": "float32", "alpha": 1.0},
            {"shape": [3, 33], "dtype": "bfloat16", "alpha": -0.5},
            {"shape": [2, 5, 17], "dtype": "float32", "alpha": 2.5},
        ],
        "perf": [
            {"shape": [4096, 4096], "dtype": "bfloat16", "alpha": 1.0},
            {"shape": [1024], "dtype": "float32", "alpha": 1.0},
        ],
    },
    make_inputs=_add_inputs,
    fidelity="test fixture: torch.add itself",
    cost=_add_cost,
)


def _softmax_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {"x": rng.randn(case["shape"], case["dtype"], scale=3.0), "dim": -1}


def _softmax_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    return torch.softmax(inputs["x"], inputs["dim"])


SOFTMAX = OperatorSpec(
    id="aten::softmax",
    category="softmax_scan",
    description="softmax over the last dim",
    signature="softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    entrypoints=("softmax_int",),
    invoke=_softmax_invoke,
    cases={"smoke": [{"shape": [4, 19], "dtype": "float32"}], "perf": [{"shape": [4096, 4096], "dtype": "float32"}]},
    make_inputs=_softmax_inputs,
    fidelity="test fixture: torch.softmax",
    reduce_dim=lambda case: 1,
)


def _rms_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    rows, cols = case["shape"]
    return {
        "out": torch.empty((rows, cols), dtype=getattr(torch, case["dtype"]), device=rng.device).fill_(7.0),
        "input": rng.randn((rows, cols), case["dtype"]),
        "weight": rng.randn((cols,), case["dtype"]),
        "epsilon": 1e-6,
    }


def rms_norm_reference(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    x = input.float()
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + epsilon) * weight.float()
    out.copy_(y.to(out.dtype))


def _rms_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    impl(inputs["out"], inputs["input"], inputs["weight"], inputs["epsilon"])
    return inputs["out"]


RMS_NORM = OperatorSpec(
    id="vllm13::rms_norm",
    category="normalization",
    description="out = x / rms(x) * weight",
    signature="def rms_norm(out, input, weight, epsilon) -> None",
    entrypoints=("rms_norm",),
    invoke=_rms_invoke,
    cases={
        "smoke": [{"shape": [3, 40], "dtype": "float32"}, {"shape": [2, 64], "dtype": "bfloat16"}],
        "perf": [{"shape": [4096, 4096], "dtype": "bfloat16"}],
    },
    make_inputs=_rms_inputs,
    fidelity="test fixture",
    reference_impl=rms_norm_reference,
    mutates=("out",),
    reduce_dim=lambda case: case["shape"][1],
)


def _saxpy_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    n = case["n"]
    return {
        "n": n,
        "alpha": case["alpha"],
        "x": rng.randn((n,), "float32"),
        "incx": 1,
        "y": rng.randn((n,), "float32"),
        "incy": 1,
    }


def saxpy_reference(n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    y[:n].add_(x[:n], alpha=alpha)


def _saxpy_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    impl(inputs["n"], inputs["alpha"], inputs["x"], inputs["incx"], inputs["y"], inputs["incy"])
    return inputs["y"]


SAXPY = OperatorSpec(
    id="cublas::cublasSaxpy_v2",
    category="blas1",
    description="y = alpha * x + y",
    signature="def cublasSaxpy_v2(n, alpha, x, incx, y, incy) -> None",
    entrypoints=("cublasSaxpy_v2",),
    invoke=_saxpy_invoke,
    cases={"smoke": [{"n": 37, "alpha": 1.5}, {"n": 5, "alpha": -0.25}], "perf": [{"n": 1 << 24, "alpha": 1.5}]},
    make_inputs=_saxpy_inputs,
    fidelity="test fixture",
    reference_impl=saxpy_reference,
    mutates=("y",),
)

SPECS = [ADD, SOFTMAX, RMS_NORM, SAXPY]
