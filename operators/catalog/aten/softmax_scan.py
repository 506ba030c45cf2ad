"""Group-B ATen softmax, scan and sort-like operators: _softmax, softmax, cumsum, sort, diff.

Full tiers follow upstream KernelGenBench's test functions (research/upstream_kgb.md §2) where they test the
operator; deviations are stated in each spec's fidelity note.
"""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.aten.group_b_helpers import (
    FLOAT_DTYPES,
    aten_overload,
    io_cost,
    lay_out,
    per_element,
    randn,
    schema_text,
)
from operators.catalog.common import REDUCTION_SHAPES, product
from operators.spec import Comparison, Inputs, OperatorSpec, Rng
from operators.tolerance import compare_outputs

SOFTMAX_SHAPES = [(1, 256), (4096, 256), (200, 2560, 3)]  # upstream's test_accuracy_softmax shapes


def _softmax_input(case: dict[str, Any], rng: Rng) -> torch.Tensor:
    x = randn(rng, case["shape"], case["dtype"], case.get("layout", "contiguous"), scale=case.get("scale", 1.0))
    if case.get("neg_inf"):
        # upstream: every negative entry becomes -inf, so some rows are all -inf (their softmax is NaN)
        x = torch.where(x < 0.0, float("-inf"), x)
    return x


def _underscore_softmax_invoke(impl: Any, inputs: Inputs) -> Any:
    return aten_overload("_softmax")(inputs["self"], inputs["dim"], False)


def _softmax_int_invoke(impl: Any, inputs: Inputs) -> Any:
    return aten_overload("softmax", "int")(inputs["self"], inputs["dim"])


def _softmax_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    return {"self": _softmax_input(case, rng), "dim": case["dim"]}


_SOFTMAX_CASES = {
    "smoke": [
        {"shape": [3, 33], "dtype": "float32", "dim": 1, "neg_inf": False},
        {"shape": [2, 40, 3], "dtype": "float16", "dim": 1, "neg_inf": True},
        {"shape": [5, 17], "dtype": "bfloat16", "dim": 0, "neg_inf": False},
    ],
    "full": product(shape=SOFTMAX_SHAPES, dtype=FLOAT_DTYPES, dim=[0, 1], neg_inf=[True, False]),
    "edge": [
        {"shape": [1023, 257], "dtype": "float32", "dim": 1, "neg_inf": False, "layout": "transposed"},
        {"shape": [7, 50000], "dtype": "bfloat16", "dim": -1, "neg_inf": False, "scale": 40.0},
        {"shape": [16, 1], "dtype": "float16", "dim": 1, "neg_inf": False},
        {"shape": [], "dtype": "float32", "dim": 0, "neg_inf": False},
        {"shape": [4, 6, 300], "dtype": "float32", "dim": -1, "neg_inf": True, "layout": "permuted"},
        {"shape": [0, 33], "dtype": "float32", "dim": 1, "neg_inf": False},
    ],
    "perf": [
        {"shape": [4096, 32000], "dtype": "bfloat16", "dim": -1, "neg_inf": False},
        {"shape": [1024, 128256], "dtype": "bfloat16", "dim": -1, "neg_inf": False},
        {"shape": [8192, 32768], "dtype": "float16", "dim": -1, "neg_inf": False},
        {"shape": [4096, 32000], "dtype": "float32", "dim": -1, "neg_inf": False},
    ],
}

_SOFTMAX_FIDELITY = (
    "Reference is torch's softmax on the same device and dtype. Full tier = upstream's test_accuracy_softmax "
    "(3 shapes x 3 dtypes x dim in {0, 1} x neg_inf in {True, False}) = 36 cases, compared as upstream with "
    "R = 1 and NaN in the same places (rows that are entirely -inf give NaN). Upstream's 36 "
    "test_accuracy_softmax_backward cases under the same label call _softmax_backward_data, another operator, and "
    "are left out. Checked on CPU against a float64 softmax cast back to the dtype."
)
_SOFTMAX_NOTES = (
    "Subtract the row maximum before exp (inputs contain -inf and large magnitudes); compute in float32 for "
    "float16/bfloat16 and return the input dtype. A slice that is entirely -inf yields NaN, as torch does. `dim` "
    "may be negative and need not be the last dim; inputs may be non-contiguous."
)

UNDERSCORE_SOFTMAX = OperatorSpec(
    id="aten::_softmax",
    category="softmax_scan",
    description="softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x) along `dim`. half_to_float=False: the "
    "output has the input dtype.",
    signature=schema_text("_softmax", ["default"]),
    entrypoints=("_softmax",),
    invoke=_underscore_softmax_invoke,
    cases=_SOFTMAX_CASES,
    make_inputs=_softmax_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_underscore_softmax_invoke, per_element(5.0)),
    mc=True,
    fidelity=_SOFTMAX_FIDELITY + " Called as torch.ops.aten._softmax(x, dim, False) (upstream reaches it through "
    "F.softmax, which dispatches to _softmax).",
    notes=_SOFTMAX_NOTES,
)

SOFTMAX = OperatorSpec(
    id="aten::softmax",
    category="softmax_scan",
    description="softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x) along `dim` (`softmax.int`, dtype=None: "
    "the output has the input dtype).",
    signature=schema_text("softmax", ["int"]),
    entrypoints=("softmax_int",),
    invoke=_softmax_int_invoke,
    cases=_SOFTMAX_CASES,
    make_inputs=_softmax_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_softmax_int_invoke, per_element(5.0)),
    mc=True,
    fidelity=_SOFTMAX_FIDELITY + " Called as torch.ops.aten.softmax.int(x, dim), a CompositeImplicitAutograd op; "
    "tests/operators/test_aten_reductions_matmul.py checks the calls reach a "
    "registered kernel rather than the decomposition into _softmax.",
    notes=_SOFTMAX_NOTES,
)

# ---------------------------------------------------------------- cumsum

CUMSUM_SHAPES = REDUCTION_SHAPES + [(2637,), (16, 1025, 255)]


def _cumsum_invoke(impl: Any, inputs: Inputs) -> Any:
    if inputs["out_dtype"] is not None:
        return aten_overload("cumsum")(inputs["self"], inputs["dim"], dtype=inputs["out_dtype"])
    return aten_overload("cumsum")(inputs["self"], inputs["dim"])


def _cumsum_reference(inputs: Inputs) -> Any:
    """torch's cumsum, but float16/bfloat16 results are summed in float32 and rounded once: torch's CUDA kernel
    keeps its running sum in the half type (ScanUtils.cuh), which on a 40999-long scan drifts past atol = 1e-4 x
    length from the true prefix sums; a float32 sum does not (FlagGems compares with a float64 cumsum)."""
    x, dim, dtype = inputs["self"], inputs["dim"], inputs["out_dtype"]
    result_dtype = dtype or x.dtype
    if result_dtype in (torch.float16, torch.bfloat16):
        return torch.cumsum(x.to(result_dtype), dim, dtype=torch.float32).to(result_dtype)
    return torch.cumsum(x, dim, dtype=dtype)


def _cumsum_dim(shape: list[int]) -> int:
    # upstream's converted test leaves `dim` undefined; FlagGems' original uses dim=1 for the 3-D reduction shape
    return 1 if tuple(shape) == tuple(REDUCTION_SHAPES[-1]) else -1


def _cumsum_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    dtype = case["dtype"]
    if dtype.startswith("int"):
        x = lay_out(rng.randint(-100, 100, case["shape"], dtype), case.get("layout", "contiguous"))
    else:
        x = randn(rng, case["shape"], dtype, case.get("layout", "contiguous"))
    out_dtype = case.get("out_dtype")
    return {
        "self": x,
        "dim": case.get("dim", _cumsum_dim(case["shape"])),
        "out_dtype": getattr(torch, out_dtype) if out_dtype else None,
    }


def _cumsum_length(case: dict[str, Any]) -> int:
    shape = case["shape"]
    return shape[case.get("dim", _cumsum_dim(shape))] if shape else 1


CUMSUM = OperatorSpec(
    id="aten::cumsum",
    category="softmax_scan",
    description="Inclusive prefix sum along `dim`: out[..., i, ...] = sum_{j<=i} x[..., j, ...]. Integer (and bool) "
    "inputs give int64 outputs; an explicit `dtype` casts the input first.",
    signature=schema_text("cumsum", ["default"]),
    entrypoints=("cumsum",),
    invoke=_cumsum_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32"},
            {"shape": [2, 40, 3], "dtype": "float16", "dim": 1},
            {"shape": [77], "dtype": "int32"},
        ],
        "full": product(shape=CUMSUM_SHAPES, dtype=FLOAT_DTYPES + ["int16", "int32"]),
        "edge": [
            {"shape": [1023, 257], "dtype": "float32", "dim": 0, "layout": "transposed"},
            {"shape": [], "dtype": "float32", "dim": 0},
            {"shape": [0, 5], "dtype": "float32", "dim": 1},
            {"shape": [8, 5000], "dtype": "float16", "dim": 1, "out_dtype": "float32"},
            {"shape": [4, 100000], "dtype": "int32", "dim": -1},
            {"shape": [33, 65, 7], "dtype": "bfloat16", "dim": 1, "layout": "permuted"},
        ],
        "perf": [
            {"shape": [4096, 14336], "dtype": "bfloat16", "dim": -1},
            {"shape": [16384, 4096], "dtype": "float32", "dim": -1},
            {"shape": [4096, 14336], "dtype": "float32", "dim": 0},
            {"shape": [64, 262144], "dtype": "int32", "dim": -1},
        ],
    },
    make_inputs=_cumsum_inputs,
    reference=_cumsum_reference,
    reduce_dim=_cumsum_length,
    cost=io_cost(_cumsum_invoke, per_element(1.0)),
    mc=True,
    fidelity="Reference is torch's cumsum, with float16/bfloat16 summed in float32 and rounded once (FlagGems "
    "compares with a float64 cumsum): on CUDA torch keeps a half-precision running sum (pytorch/pytorch#180150); "
    "on the H200 its float16 (200, 40999, 3) result put 3.3 M of 24.6 M elements of a float32-accumulating "
    "Triton scan outside atol = 4.1 (simulated on CPU, such a running sum drifts up to ~13 from the float64 "
    "prefix sums there). Full tier = upstream's test_accuracy_cumsum: CUMSUM_SHAPES (5) x "
    "(3 float + int16, int32) = 25 cases, atol = 1e-4 x shape[dim] as upstream, int outputs exact "
    "(int64). Upstream's converted test never defines `dim` and builds int inputs with randn (both "
    "fail); we use FlagGems' original dim rule (1 for the (200, 40999, 3) shape, else -1) and integer "
    "inputs in [-100, 100). Checked on CPU against a float64 cumsum cast back to the dtype (15 full cases "
    "up to 3M elements and all edge cases agree).",
    notes="Accumulate floats in float32 (a sequential sum per element is too slow: use a parallel scan). Integer "
    "and bool inputs produce int64. `dim` may be any dim, inputs may be non-contiguous.",
)

# ---------------------------------------------------------------- sort


def _sort_invoke(impl: Any, inputs: Inputs) -> Any:
    x, dim, descending = inputs["self"], inputs["dim"], inputs["descending"]
    if inputs["stable"]:
        return aten_overload("sort", "stable")(x, stable=True, dim=dim, descending=descending)
    return aten_overload("sort")(x, dim, descending)


def _sort_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    if dtype.startswith("int"):
        info = torch.iinfo(getattr(torch, dtype))
        low, high = case.get("int_range", (info.min, info.max))
        x = rng.randint(low, high, shape, dtype)
    else:
        x = randn(rng, shape, dtype)
        if case.get("nan"):
            x = torch.where(rng.bernoulli(shape, 0.05), float("nan"), x)
    x = lay_out(x, case.get("layout", "contiguous"))
    return {"self": x, "dim": case["dim"], "descending": case["descending"], "stable": case.get("stable", True)}


def _compare_sort(out: Any, ref: Any, case: dict[str, Any], inputs: Inputs) -> Comparison:
    """Values against the reference (tolerance, NaN in place). Indices: a permutation along dim that gathers
    exactly the returned values; with stable=True the permutation is unique, so it must equal the reference."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        return Comparison(False, reason="expected (values, indices)")
    values_cmp = compare_outputs(out[0], ref[0], what="values")
    if not values_cmp.passed:
        return values_cmp
    indices, x, dim = out[1], inputs["self"], inputs["dim"]
    if not isinstance(indices, torch.Tensor) or indices.dtype != torch.int64 or indices.shape != ref[1].shape:
        return Comparison(False, reason="indices: expected an int64 tensor shaped like the input")
    if indices.numel() == 0:
        return values_cmp
    indices = indices.to(x.device)
    n = x.shape[dim] if x.dim() else 1
    if x.dim() == 0:
        ok_perm = bool((indices == 0).all())
    else:
        in_range = bool(((indices >= 0) & (indices < n)).all())
        ok_perm = in_range and bool(
            (
                indices.sort(dim=dim).values
                == torch.arange(n, device=x.device).view([-1 if d == dim % x.dim() else 1 for d in range(x.dim())])
            ).all()
        )
    if not ok_perm:
        return Comparison(False, reason="indices: not a permutation along dim")
    gathered = x if x.dim() == 0 else x.gather(dim, indices)
    vals = out[0].to(x.device)
    same = (
        (gathered == vals) | (torch.isnan(gathered) & torch.isnan(vals)) if x.is_floating_point() else gathered == vals
    )
    if not bool(same.all()):
        return Comparison(False, reason="indices: input gathered at the indices differs from the returned values")
    ref_indices = ref[1].to(indices.device)
    if inputs["stable"] and not torch.equal(indices, ref_indices):
        bad = int((indices != ref_indices).sum())
        return Comparison(False, reason=f"indices: {bad} differ from the stable order (ties keep input order)")
    return values_cmp


SORT = OperatorSpec(
    id="aten::sort",
    category="indexing",
    description="Sort along `dim` (ascending unless descending=True), returning (values, int64 indices) with "
    "values = self.gather(dim, indices). `sort.stable` with stable=True keeps equal elements in input "
    "order. NaN sorts above +inf (last ascending, first descending).",
    signature=schema_text("sort", ["stable", "default"]),
    entrypoints=("sort_stable", "sort"),
    invoke=_sort_invoke,
    cases={
        "smoke": [
            {"shape": [4, 33], "dtype": "float32", "dim": -1, "descending": False},
            {"shape": [8, 20], "dtype": "float16", "dim": 0, "descending": True},
            {"shape": [3, 50], "dtype": "int32", "dim": -1, "descending": True, "int_range": [-5, 5]},
        ],
        "full": [
            {"shape": [b, h], "descending": desc, "dtype": d, "dim": dim}
            for b in (4, 8)
            for h in (1, 256, 2048, 9333, 65536, 32768, 128 * 1024, 256 * 1024)
            for desc in (True, False)
            for d in FLOAT_DTYPES + ["int16", "int32"]
            for dim in (0, -1)
        ],
        "edge": [
            {"shape": [16, 1000], "dtype": "float32", "dim": -1, "descending": False, "nan": True},
            {"shape": [16, 1000], "dtype": "bfloat16", "dim": -1, "descending": True, "nan": True},
            {
                "shape": [6, 3000],
                "dtype": "int16",
                "dim": -1,
                "descending": False,
                "int_range": [0, 4],
                "stable": False,
            },
            {"shape": [257, 63], "dtype": "float16", "dim": 0, "descending": False, "layout": "transposed"},
            {"shape": [5, 7, 33], "dtype": "float32", "dim": 1, "descending": True, "layout": "permuted"},
            {"shape": [], "dtype": "float32", "dim": 0, "descending": False},
            {"shape": [0, 7], "dtype": "float32", "dim": -1, "descending": False},
            {"shape": [12, 513], "dtype": "float32", "dim": -1, "descending": False, "stable": False},
        ],
        "perf": [
            {"shape": [4096, 32000], "dtype": "bfloat16", "dim": -1, "descending": True},
            {"shape": [64, 128256], "dtype": "float32", "dim": -1, "descending": True},
            {"shape": [16384, 256], "dtype": "float16", "dim": -1, "descending": False},
        ],
    },
    make_inputs=_sort_inputs,
    compare=_compare_sort,
    cost=io_cost(
        _sort_invoke,
        lambda case, inputs: (
            inputs["self"].numel()
            * max(1, (inputs["self"].shape[inputs["dim"]] if inputs["self"].dim() else 1)).bit_length()
        ),
    ),
    mc=True,
    fidelity="Reference is torch's sort. Full tier = upstream's test_sort: batch {4, 8} x 8 hidden sizes up to "
    "262144 x descending x (3 float + int16, int32) x dim {0, -1} = 320 cases, stable=True as upstream. "
    "Values are compared with the dtype tolerance (NaN in place); indices must be a permutation along dim "
    "that gathers exactly the returned values, and for stable=True (unique answer even with ties) must "
    "equal torch's indices, as upstream's assert_equal demands. The unstable default overload (edge cases "
    "with many ties) accepts any valid ordering of tied elements.",
    notes="Implement both `sort_stable` (torch.sort(..., stable=True); equal elements keep input order) and "
    "`sort` (stable=False: any order of ties is accepted). Indices are int64. NaN is greater than +inf. "
    "Rows can be 262144 long and dim can be 0.",
)

# ---------------------------------------------------------------- diff


def _diff_invoke(impl: Any, inputs: Inputs) -> Any:
    return aten_overload("diff")(inputs["self"], inputs["n"], inputs["dim"], inputs["prepend"], inputs["append"])


def _diff_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    dtype = case["dtype"]
    if dtype.startswith("int"):
        x = rng.randint(-1000, 1000, case["shape"], dtype)
    else:
        x = randn(rng, case["shape"], dtype)
    x = lay_out(x, case.get("layout", "contiguous"))
    prepend = randn(rng, case["prepend"], dtype) if case.get("prepend") else None
    append = randn(rng, case["append"], dtype) if case.get("append") else None
    return {"self": x, "n": case.get("n", 1), "dim": case.get("dim", -1), "prepend": prepend, "append": append}


DIFF = OperatorSpec(
    id="aten::diff",
    category="elementwise",
    description="n-th forward difference along `dim`: out[i] = x[i+1] - x[i], applied n times, after "
    "concatenating `prepend` before and `append` after x along dim. The dim shrinks by n.",
    signature=schema_text("diff", ["default"]),
    entrypoints=("diff",),
    invoke=_diff_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "n": 1, "dim": -1},
            {"shape": [9, 5, 4], "dtype": "float16", "n": 2, "dim": 0},
            {"shape": [4, 6], "dtype": "bfloat16", "n": 1, "dim": -1, "prepend": [4, 2], "append": [4, 3]},
        ],
        "full": product(shape=[(16,), (16, 32), (8, 16, 32)], n=[1, 2], dim=[0, -1], dtype=FLOAT_DTYPES)
        + [
            {"shape": [8, 16], "dtype": d, "n": 1, "dim": -1, "prepend": [8, 2], "append": [8, 3]} for d in FLOAT_DTYPES
        ],
        "edge": [
            {"shape": [257, 63], "dtype": "float32", "n": 1, "dim": 0, "layout": "transposed"},
            {"shape": [5, 3], "dtype": "float32", "n": 4, "dim": -1},
            {"shape": [6, 1000], "dtype": "int32", "n": 3, "dim": 1},
            {"shape": [7, 9, 11], "dtype": "float16", "n": 2, "dim": 1, "layout": "permuted"},
        ],
        "perf": [
            {"shape": [4096, 14336], "dtype": "bfloat16", "n": 1, "dim": -1},
            {"shape": [4096, 14336], "dtype": "float32", "n": 2, "dim": 0},
        ],
    },
    make_inputs=_diff_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_diff_invoke, lambda case, inputs: inputs["n"] * inputs["self"].numel()),
    mc=True,
    fidelity="Reference is torch's diff. Full tier = upstream's test_accuracy_diff (3 shapes x n {1, 2} x dim "
    "{0, -1} x 3 dtypes = 36, none skipped) + test_accuracy_diff_with_prepend_append (3) = 39 cases, "
    "element-wise tolerance. Checked on CPU against a float64 evaluation (repeated x[1:] - x[:-1]): all "
    "n = 1 cases agree; for n = 2 torch rounds the first difference to the dtype before the second, so "
    "half-precision results differ from float64 by up to 0.25 relative under cancellation (9 of 39 full "
    "cases). That rounding is the operator's definition (n repeated diffs); the prompt says so.",
    notes="n may exceed 1 (apply the difference n times; round to the input dtype between steps as torch "
    "does). With n >= the dim's length the result is empty along dim. prepend/append are concatenated "
    "along dim first.",
)

SPECS = [UNDERSCORE_SOFTMAX, SOFTMAX, CUMSUM, SORT, DIFF]
