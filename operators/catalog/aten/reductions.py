"""Group-B ATen reductions: sum, mean, amin, argmax, renorm, pairwise_distance.

Full tiers follow upstream KernelGenBench's test functions for each operator (research/upstream_kgb.md §2,
read in the fork's `test_ops_with_benchmark.py`): the same shapes, dtypes, dims, keepdim flags and
overloads (functional and `.out`), so the case counts equal upstream's kᵢ.
"""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.aten.group_b_helpers import (
    FLOAT_DTYPES,
    aten_overload,
    empty,
    io_cost,
    numel,
    per_element,
    randn,
    schema_text,
)
from operators.catalog.common import REDUCTION_SHAPES, product
from operators.spec import Inputs, OperatorSpec, Rng

REDUCTION_SMALL_SHAPES = [(1, 2), (4096, 256), (200, 2560, 3)]
EMPTY_SHAPES = [(0, 5), (3, 0, 4), (2, 5, 0), (0,)]
PERF_REDUCTION = [(4096, 14336), (16384, 4096), (1, 14336 * 4096)]


def _norm_dims(dim: Any, ndim: int) -> list[int]:
    if dim is None or dim == []:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return [d % max(ndim, 1) for d in dims]


def _reduced_length(case: dict[str, Any]) -> int:
    shape = case["shape"]
    return numel([shape[d] for d in _norm_dims(case.get("dim"), len(shape))]) if shape else 1


def _float_input(case: dict[str, Any], rng: Rng) -> torch.Tensor:
    x = randn(rng, case["shape"], case["dtype"], case.get("layout", "contiguous"), scale=case.get("scale", 1.0))
    if case.get("nan"):
        flat = x.view(-1) if x.is_contiguous() else None
        if flat is not None and flat.numel() > 2:
            flat[flat.numel() // 3] = float("nan")
    return x


# ---------------------------------------------------------------- sum


def _sum_invoke(impl: Any, inputs: Inputs) -> Any:
    if inputs["overload"] == "default":
        return aten_overload("sum")(inputs["self"])
    return aten_overload("sum", "dim_IntList")(inputs["self"], inputs["dim"], inputs["keepdim"])


def _sum_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    return {
        "self": _float_input(case, rng),
        "overload": case["overload"],
        "dim": case.get("dim"),
        "keepdim": case.get("keepdim", False),
    }


# upstream: KEEPDIM_DIM + [(False, []), (True, [])] = [(True, 0), (False, 1), (False, []), (True, [])]
_SUM_KEEPDIM_DIM = [(True, 0), (False, 1), (False, []), (True, [])]

SUM = OperatorSpec(
    id="aten::sum",
    category="reduction",
    description="Sum of all elements (`sum`) or over the given dims (`sum.dim_IntList`, keepdim keeps the reduced "
    "dims as size 1; an empty dim list reduces every dim). The result has the input's dtype for "
    "floating inputs.",
    signature=schema_text("sum", ["default", "dim_IntList"]),
    entrypoints=("sum", "sum_dim_IntList"),
    invoke=_sum_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "overload": "dim_IntList", "dim": [1], "keepdim": False},
            {"shape": [2, 5, 17], "dtype": "bfloat16", "overload": "default"},
            {"shape": [7, 9], "dtype": "float16", "overload": "dim_IntList", "dim": [0], "keepdim": True},
        ],
        "full": product(shape=REDUCTION_SHAPES, dtype=FLOAT_DTYPES, overload=["default"])
        + [
            {
                "shape": list(s),
                "dtype": d,
                "overload": "dim_IntList",
                "dim": [dim] if isinstance(dim, int) else dim,
                "keepdim": k,
            }
            for s in REDUCTION_SHAPES
            for (k, dim) in _SUM_KEEPDIM_DIM
            for d in FLOAT_DTYPES
        ],
        "edge": [
            {"shape": [0, 5], "dtype": "float32", "overload": "default"},
            {"shape": [0, 5], "dtype": "float32", "overload": "dim_IntList", "dim": [0], "keepdim": False},
            {"shape": [], "dtype": "float32", "overload": "default"},
            {
                "shape": [1023, 257],
                "dtype": "float16",
                "overload": "dim_IntList",
                "dim": [0],
                "keepdim": False,
                "layout": "transposed",
            },
            {
                "shape": [37, 129, 5],
                "dtype": "bfloat16",
                "overload": "dim_IntList",
                "dim": [0, 2],
                "keepdim": True,
                "layout": "permuted",
            },
            {
                "shape": [64, 1000],
                "dtype": "float32",
                "overload": "dim_IntList",
                "dim": [-1],
                "keepdim": False,
                "nan": True,
            },
            {
                "shape": [8, 4096],
                "dtype": "float16",
                "overload": "dim_IntList",
                "dim": [1],
                "keepdim": False,
                "scale": 1000.0,
            },
        ],
        "perf": [
            {"shape": list(s), "dtype": "bfloat16", "overload": "dim_IntList", "dim": [-1], "keepdim": False}
            for s in PERF_REDUCTION[:2]
        ]
        + [
            {"shape": [4096, 14336], "dtype": "bfloat16", "overload": "dim_IntList", "dim": [0], "keepdim": False},
            {"shape": [4096, 14336], "dtype": "float32", "overload": "default"},
        ],
    },
    make_inputs=_sum_inputs,
    reduce_dim=_reduced_length,
    cost=io_cost(_sum_invoke, per_element(1.0)),
    mc=True,
    fidelity="Reference is torch's own sum on the same device and dtype, as upstream. Full tier = upstream's "
    "test_accuracy_sum_without_dim (3 REDUCTION_SHAPES x 3 dtypes) + test_accuracy_sum_dim (x 4 "
    "keepdim/dim pairs incl. the empty dim list) = 45 cases; atol = 1e-4 x reduced length as upstream. "
    "Checked on CPU against a float64 sum cast back to the dtype: within tolerance in all 30 full cases up "
    "to 3M elements (the (200, 40999, 3) ones were not run) and all edge cases.",
    notes="Accumulate in float32 for float16/bfloat16 inputs. `sum.dim_IntList` with dim=[] (or None) reduces all "
    "dims. Negative dims count from the end. Inputs may be non-contiguous (transposed/permuted views).",
)

# ---------------------------------------------------------------- mean


def _mean_invoke(impl: Any, inputs: Inputs) -> Any:
    if inputs["overload"] == "default":
        return aten_overload("mean")(inputs["self"])
    return aten_overload("mean", "dim")(inputs["self"], inputs["dim"], inputs["keepdim"])


_MEAN_KEEPDIM_DIMS = [(True, [0]), (False, [1]), (True, [0, 1]), (False, [1, 0])]  # upstream KEEPDIM_DIMS

MEAN = OperatorSpec(
    id="aten::mean",
    category="reduction",
    description="Arithmetic mean of all elements (`mean`) or over the given dims (`mean.dim`, keepdim keeps the "
    "reduced dims as size 1). Floating inputs only; the result keeps the input dtype.",
    signature=schema_text("mean", ["default", "dim"]),
    entrypoints=("mean", "mean_dim"),
    invoke=_mean_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "overload": "dim", "dim": [1], "keepdim": True},
            {"shape": [2, 5, 17], "dtype": "float16", "overload": "default"},
            {"shape": [6, 40], "dtype": "bfloat16", "overload": "dim", "dim": [1, 0], "keepdim": False},
        ],
        "full": product(shape=REDUCTION_SHAPES, dtype=FLOAT_DTYPES, overload=["default"])
        + [
            {"shape": list(s), "dtype": d, "overload": "dim", "dim": dim, "keepdim": k}
            for s in REDUCTION_SHAPES
            for (k, dim) in _MEAN_KEEPDIM_DIMS
            for d in FLOAT_DTYPES
        ],
        "edge": [
            {"shape": [], "dtype": "float32", "overload": "default"},
            {
                "shape": [1023, 257],
                "dtype": "bfloat16",
                "overload": "dim",
                "dim": [0],
                "keepdim": False,
                "layout": "transposed",
            },
            {
                "shape": [37, 129, 5],
                "dtype": "float32",
                "overload": "dim",
                "dim": [-1, 0],
                "keepdim": True,
                "layout": "permuted",
            },
            {"shape": [64, 1000], "dtype": "float16", "overload": "dim", "dim": [1], "keepdim": False, "nan": True},
            {"shape": [4, 70000], "dtype": "float16", "overload": "dim", "dim": [1], "keepdim": False, "scale": 100.0},
        ],
        "perf": [
            {"shape": [4096, 14336], "dtype": "bfloat16", "overload": "dim", "dim": [-1], "keepdim": True},
            {"shape": [4096, 14336], "dtype": "bfloat16", "overload": "dim", "dim": [0], "keepdim": False},
            {"shape": [16384, 4096], "dtype": "float32", "overload": "dim", "dim": [-1], "keepdim": False},
            {"shape": [4096, 14336], "dtype": "float16", "overload": "default"},
        ],
    },
    make_inputs=_sum_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_mean_invoke, per_element(1.0)),
    mc=True,
    fidelity="Reference is torch's mean on the same device and dtype. Full tier = upstream's "
    "test_accuracy_mean_without_dim (9) + test_accuracy_mean_dim (36: KEEPDIM_DIMS incl. dims [0, 1] and "
    "[1, 0]) = 45 cases. Upstream compares mean with reduce_dim=1 (atol 1e-4), and so do we: a mean's "
    "error does not grow with the reduced length, and atol = 1e-4 x R would let a zero output pass. "
    "Checked on CPU against a float64 mean cast back to the dtype (30 full cases up to 3M elements, all "
    "edge cases: all within tolerance).",
    notes="Accumulate in float32 for float16/bfloat16 inputs, divide once by the number of reduced elements. "
    "`mean.dim` with dim=None or [] reduces all dims.",
)

# ---------------------------------------------------------------- amin


def _amin_invoke(impl: Any, inputs: Inputs) -> Any:
    x, dim, keepdim = inputs["self"], inputs["dim"], inputs["keepdim"]
    if inputs["overload"] == "out":
        out = inputs["out"]
        if dim is None:
            aten_overload("amin", "out")(x, out=out)
        else:
            aten_overload("amin", "out")(x, dim, keepdim, out=out)
        return out
    if dim is None:
        return aten_overload("amin")(x)
    return aten_overload("amin")(x, dim, keepdim)


def _amin_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    x = _float_input(case, rng)
    shape = list(case["shape"])
    dim = case.get("dim")
    keepdim = case.get("keepdim", False)
    # upstream: dim=None without keepdim calls amin(x); dim=None with keepdim passes every dim explicitly
    call_dim = None if dim is None and not keepdim else (list(range(len(shape))) if dim is None else dim)
    inputs: Inputs = {"self": x, "dim": call_dim, "keepdim": keepdim, "overload": case["overload"]}
    if case["overload"] == "out":
        # `call_dim or []` would turn dim=0 into [] (every dim) and size `out` for the full reduction
        meta_dim = [] if call_dim is None else call_dim
        ref_shape = aten_overload("amin")(torch.empty(shape, device="meta"), meta_dim, keepdim).shape
        inputs["out"] = empty(ref_shape, case["dtype"], x.device)
    return inputs


_AMIN_2D = product(
    shape=[(2, 3), (128, 256), (512, 320)],
    dtype=["float32", "float16", "bfloat16"],
    dim=[None, 0, 1, -1, [0, 1]],
    keepdim=[False, True],
)
_AMIN_3D = product(
    shape=[(2, 3, 4), (16, 17, 8), (32, 64, 128)],
    dtype=["float32", "float16", "bfloat16"],
    dim=[None, 0, 1, 2, -1, [0, 2], [1, 2], [0, 1, 2]],
    keepdim=[False, True],
)

AMIN = OperatorSpec(
    id="aten::amin",
    category="reduction",
    description="Minimum over the given dims (`amin`, dim=[] reduces all dims; keepdim keeps reduced dims as size "
    "1), also into a preallocated tensor (`amin.out`). NaN propagates: a slice holding NaN has min NaN.",
    signature=schema_text("amin", ["default", "out"]),
    entrypoints=("amin", "amin_out"),
    invoke=_amin_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "dim": 1, "keepdim": False, "overload": "default"},
            {"shape": [2, 5, 17], "dtype": "float16", "dim": [0, 2], "keepdim": True, "overload": "out"},
            {"shape": [4, 9], "dtype": "bfloat16", "dim": None, "keepdim": False, "overload": "default"},
        ],
        "full": [dict(c, overload=o) for o in ("default", "out") for c in _AMIN_2D + _AMIN_3D],
        "edge": [
            {"shape": [], "dtype": "float32", "dim": None, "keepdim": False, "overload": "default"},
            {
                "shape": [1023, 257],
                "dtype": "float16",
                "dim": 0,
                "keepdim": False,
                "overload": "default",
                "layout": "transposed",
            },
            {
                "shape": [33, 65, 7],
                "dtype": "bfloat16",
                "dim": [0, 2],
                "keepdim": False,
                "overload": "out",
                "layout": "permuted",
            },
            {"shape": [64, 1000], "dtype": "float32", "dim": 1, "keepdim": False, "overload": "default", "nan": True},
            {
                "shape": [5, 3000],
                "dtype": "float16",
                "dim": -1,
                "keepdim": True,
                "overload": "default",
                "scale": 30000.0,
            },
        ],
        "perf": [
            {"shape": [4096, 14336], "dtype": "bfloat16", "dim": -1, "keepdim": False, "overload": "default"},
            {"shape": [4096, 14336], "dtype": "bfloat16", "dim": 0, "keepdim": False, "overload": "default"},
            {"shape": [16384, 4096], "dtype": "float32", "dim": -1, "keepdim": True, "overload": "out"},
        ],
    },
    make_inputs=_amin_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_amin_invoke, per_element(1.0)),
    mutates=("out",),
    mc=True,
    fidelity="Reference is torch's amin. Full tier = upstream's four amin test functions (2-D and 3-D inputs, "
    "functional and .out, dims incl. None/negative/lists, keepdim) = 468 cases. A minimum is exact, so "
    "the default tolerance only absorbs nothing; NaN positions must match (NaN propagates, as in torch).",
    notes="The min of a slice containing NaN is NaN. dim=[] means all dims. For `amin_out` write into `out` "
    "(already allocated with the result shape) and return it.",
)

# ---------------------------------------------------------------- argmax


def _argmax_invoke(impl: Any, inputs: Inputs) -> Any:
    return aten_overload("argmax")(inputs["self"], inputs["dim"], inputs["keepdim"])


def _argmax_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    return {"self": _float_input(case, rng), "dim": case.get("dim"), "keepdim": case.get("keepdim", False)}


def _argmax_valid(shape: tuple[int, ...], dim: int | None) -> bool:
    """Upstream's test returns early (no check) on these; we keep only the cases it really checks."""
    rank = len(shape)
    empty_input = any(s == 0 for s in shape)
    if dim is not None and (rank == 0 or dim >= rank or dim < -rank):
        return False
    if empty_input and (dim is None or shape[dim % rank] == 0):
        return False
    return True


ARGMAX = OperatorSpec(
    id="aten::argmax",
    category="reduction",
    description="Index (int64) of the maximum along `dim`, or into the flattened input when dim is None; keepdim "
    "keeps the reduced dim as size 1. Ties return the first occurrence; NaN counts as the maximum "
    "(the index of the first NaN is returned).",
    signature=schema_text("argmax", ["default"]),
    entrypoints=("argmax",),
    invoke=_argmax_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "dim": 1, "keepdim": False},
            {"shape": [2, 5, 17], "dtype": "float16", "dim": 0, "keepdim": True},
            {"shape": [4, 9], "dtype": "bfloat16", "dim": None, "keepdim": False},
        ],
        "full": [
            c
            for c in product(
                shape=REDUCTION_SMALL_SHAPES + EMPTY_SHAPES, dim=[0, 1, None], keepdim=[True, False], dtype=FLOAT_DTYPES
            )
            if _argmax_valid(tuple(c["shape"]), c["dim"])
        ],
        "edge": [
            {"shape": [1023, 257], "dtype": "float16", "dim": 0, "keepdim": False, "layout": "transposed"},
            {"shape": [64, 1000], "dtype": "float32", "dim": 1, "keepdim": False, "nan": True},
            {"shape": [3, 70001], "dtype": "bfloat16", "dim": -1, "keepdim": True},
            {"shape": [17, 33, 9], "dtype": "float32", "dim": None, "keepdim": True, "layout": "permuted"},
        ],
        "perf": [
            {"shape": [4096, 32000], "dtype": "bfloat16", "dim": -1, "keepdim": False},
            {"shape": [64, 128256], "dtype": "float32", "dim": -1, "keepdim": False},
            {"shape": [4096, 14336], "dtype": "float16", "dim": 0, "keepdim": False},
        ],
    },
    make_inputs=_argmax_inputs,
    exact=True,
    cost=io_cost(_argmax_invoke, per_element(1.0)),
    mc=True,
    fidelity="Reference is torch's argmax; indices compared exactly (upstream uses assert_equal). Ties are "
    "resolved by torch's documented first-occurrence rule, so exact comparison is well defined. Full "
    "tier = upstream's test_accuracy_argmax product (7 shapes x 3 dims x 2 keepdim x 3 dtypes = 126) "
    "minus the combinations upstream's test skips without checking (empty reductions, dim >= rank): "
    "the cases it really checks.",
    notes="Return int64 indices. First occurrence wins on ties. NaN is treated as greater than every number.",
)

# ---------------------------------------------------------------- renorm


def _renorm_invoke(impl: Any, inputs: Inputs) -> Any:
    x, p, dim, maxnorm = inputs["self"], inputs["p"], inputs["dim"], inputs["maxnorm"]
    if inputs["overload"] == "out":
        aten_overload("renorm", "out")(x, p, dim, maxnorm, out=inputs["out"])
        return inputs["out"]
    return aten_overload("renorm")(x, p, dim, maxnorm)


def _renorm_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    x = _float_input(case, rng)
    inputs: Inputs = {
        "self": x,
        "p": case["p"],
        "dim": case["dim"],
        "maxnorm": case["maxnorm"],
        "overload": case["overload"],
    }
    if case["overload"] == "out":
        inputs["out"] = empty(case["shape"], case["dtype"], x.device)
    return inputs


RENORM = OperatorSpec(
    id="aten::renorm",
    category="normalization",
    description="For each slice x[..., i, ...] along `dim`, compute its p-norm over all other dims; slices whose "
    "norm exceeds maxnorm are scaled by maxnorm / (norm + 1e-7), others are unchanged.",
    signature=schema_text("renorm", ["default", "out"]),
    entrypoints=("renorm", "renorm_out"),
    invoke=_renorm_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "p": 2.0, "dim": 0, "maxnorm": 1.0, "overload": "default"},
            {"shape": [5, 17], "dtype": "float16", "p": 1.0, "dim": 1, "maxnorm": 0.5, "overload": "out"},
        ],
        "full": [
            dict(c, overload=o)
            for o in ("default", "out")
            for c in product(
                shape=[(2, 3), (128, 256), (512, 512)],
                dtype=["float32", "float16", "bfloat16"],
                p=[1.0, 2.0],
                dim=[0, 1],
                maxnorm=[0.5, 1.0],
            )
        ],
        "edge": [
            {
                "shape": [257, 1023],
                "dtype": "float32",
                "p": 2.0,
                "dim": 1,
                "maxnorm": 3.0,
                "overload": "default",
                "layout": "transposed",
            },
            {"shape": [6, 7, 8], "dtype": "bfloat16", "p": 3.0, "dim": 1, "maxnorm": 2.0, "overload": "default"},
            {"shape": [64, 300], "dtype": "float32", "p": 2.0, "dim": 0, "maxnorm": 1e6, "overload": "default"},
        ],
        "perf": [
            {"shape": [4096, 14336], "dtype": "bfloat16", "p": 2.0, "dim": 0, "maxnorm": 1.0, "overload": "default"},
            {"shape": [14336, 4096], "dtype": "float32", "p": 2.0, "dim": 0, "maxnorm": 1.0, "overload": "default"},
        ],
    },
    make_inputs=_renorm_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_renorm_invoke, per_element(3.0)),
    mutates=("out",),
    mc=True,
    fidelity="Reference is torch's renorm. Full tier = upstream's test_renorm_tensor and test_renorm_out_tensor "
    "(3 shapes x 3 dtypes x p in {1, 2} x dim in {0, 1} x maxnorm in {0.5, 1}) = 144 cases, compared with "
    "upstream's element-wise tolerance (R = 1). Checked on CPU against a float64 evaluation of "
    "x * where(norm > maxnorm, maxnorm / (norm + 1e-7), 1).",
    notes="The norm of slice i along `dim` is taken over every other dim (accumulate in float32). The scale "
    "factor is maxnorm / (norm + 1e-7) only where norm > maxnorm, else 1.",
)

# ---------------------------------------------------------------- pairwise_distance


def _pdist_invoke(impl: Any, inputs: Inputs) -> Any:
    if inputs["defaults"]:
        return aten_overload("pairwise_distance")(inputs["x1"], inputs["x2"])
    return aten_overload("pairwise_distance")(inputs["x1"], inputs["x2"], inputs["p"], inputs["eps"], inputs["keepdim"])


def _pdist_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    layout = case.get("layout", "contiguous")
    x1 = randn(rng, case["shape"], case["dtype"], layout)
    x2 = randn(rng, case.get("shape2", case["shape"]), case["dtype"])
    return {
        "x1": x1,
        "x2": x2,
        "defaults": "p" not in case,
        "p": case.get("p", 2.0),
        "eps": case.get("eps", 1e-6),
        "keepdim": case.get("keepdim", False),
    }


_PDIST_SHAPES = [(2, 3), (128, 256), (512, 256)]
_PDIST_DTYPES = ["float32", "float16", "bfloat16"]

PAIRWISE_DISTANCE = OperatorSpec(
    id="aten::pairwise_distance",
    category="reduction",
    description="Row-wise p-norm distance ||x1 - x2 + eps||_p over the last dim (inputs broadcast); keepdim keeps "
    "the last dim as size 1.",
    signature=schema_text("pairwise_distance", ["default"]),
    entrypoints=("pairwise_distance",),
    invoke=_pdist_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32"},
            {"shape": [5, 17], "dtype": "float16", "p": 1.0, "eps": 1e-4, "keepdim": True},
        ],
        "full": product(shape=_PDIST_SHAPES, dtype=_PDIST_DTYPES)
        + product(shape=_PDIST_SHAPES, dtype=_PDIST_DTYPES, p=[1.0, 2.0, 3.0], eps=[1e-6, 1e-4], keepdim=[False, True]),
        "edge": [
            {"shape": [1023, 257], "dtype": "float32", "p": 2.0, "eps": 1e-6, "keepdim": False, "layout": "transposed"},
            {"shape": [64, 300], "shape2": [1, 300], "dtype": "bfloat16", "p": 2.0, "eps": 1e-6, "keepdim": False},
            {"shape": [40, 77], "dtype": "float32", "p": 0.5, "eps": 1e-6, "keepdim": True},
        ],
        "perf": [{"shape": [16384, 4096], "dtype": "bfloat16"}, {"shape": [4096, 14336], "dtype": "float32"}],
    },
    make_inputs=_pdist_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_pdist_invoke, per_element(4.0, "x1"), main="x1"),
    mc=True,
    fidelity="Reference is torch's pairwise_distance (eps is added to the difference before the norm). Full tier "
    "= upstream's test_pairwise_distance_defaults (9) + test_pairwise_distance_explicit_args (108) = 117 "
    "cases, upstream's element-wise tolerance (R = 1). Checked on CPU against a float64 "
    "norm(x1 - x2 + eps, p, -1).",
    notes="eps is added to (x1 - x2) element-wise before taking the norm. Accumulate in float32.",
)

SPECS = [SUM, MEAN, AMIN, ARGMAX, RENORM, PAIRWISE_DISTANCE]
