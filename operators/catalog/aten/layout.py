"""ATen shape and layout operators: as_strided, expand, expand_as, narrow, select, t, unsqueeze,
reshape, unsafe_split, unsafe_split_with_sizes (views), and cat, stack, rot90 (copies).

View policy (upstream FlagGems/KernelGenBench compares view outputs by value only): a solution must
return a tensor with the right shape, dtype and values; it may return a view or a copy, and its
strides are not checked. Copies (cat, stack, rot90, the split out-variants) are compared bit-exactly.
View ops have no data to move, so their least cost is 0 bytes (their timing measures overhead).

Upstream cases: research/upstream_kgb.md §2.1 (counts) and the fork's
`src/kernelgenbench/accuracy/test_ops_with_benchmark.py` (read at HEAD b1966bc). Integer lists
travel in `inputs` as "AxB" strings (see creation.dims_str).
"""

from __future__ import annotations

import random
from typing import Any

import torch

from operators.catalog.aten.creation import dims_str, parse_dims
from operators.catalog.aten.layout_support import (
    FLOAT_DTYPES,
    INT_DTYPES,
    POINTWISE_SHAPES,
    REDUCTION_SHAPES,
    arg,
    aten_spec,
    base_shape,
    laid_out,
    layout_tag,
    nbytes,
    numel,
    values,
    view_cost,
    view_of,
)
from operators.catalog.common import product
from operators.spec import Cost, Rng

_VIEW_FIDELITY = " View op: values, shape and dtype are compared bit-exactly; strides are not checked (like upstream)."


def _unary_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    laid_out(inputs, "self", rng, case["shape"], case["dtype"], case.get("layout", "contiguous"))
    for key in ("dim", "index", "start", "length", "k", "split_size", "overload"):
        if key in case:
            inputs[key] = case[key]
    for key in ("size", "stride", "dims", "split_sizes"):
        if key in case:
            inputs[key] = dims_str(case[key])
    if "storage_offset" in case:
        inputs["storage_offset"] = case["storage_offset"]
    return inputs


def _copy_out_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    """Copies: the logical input read once and written once."""
    n = nbytes(case["shape"], case["dtype"])
    return Cost(flops=0.0, bytes=float(2 * n), dtype=case["dtype"])


# ---- as_strided ------------------------------------------------------------------------------------


def _contiguous_strides(shape: list[int]) -> list[int]:
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return strides


def _as_strided_case(base: list[int], dtype: str, kind: str) -> dict[str, Any]:
    """Upstream's as_strided geometry for one base shape and case kind (1-D, 2-D and 3-D tests)."""
    strides = _contiguous_strides(base)
    total = numel(base)
    k = 4 if total % 4 == 0 else 2 if total % 2 == 0 else 1
    offset: int | None = None
    if kind in ("contig",):
        size, stride = list(base), strides
    elif kind == "reshape_like":
        size, stride = [total // k, k], [k, 1]
    elif len(base) == 1:
        n, s = base[0], strides[0]
        if kind == "skip_step":
            size, stride = [max(n // 2, 1)], [s * 2]
        else:  # offset_start
            offset = 1 if n > 1 else 0
            size, stride = [max(n - offset, 1)], [s]
    elif len(base) == 2:
        (h, w), (s0, s1) = base, strides
        if kind == "transpose":
            size, stride = [w, h], [s1, s0]
        elif kind == "subsample":
            size, stride = [max(h // 2, 1), max(w // 2, 1)], [s0 * 2, s1 * 2]
        else:  # offset_cropped
            offset = (s0 if h > 1 else 0) + (s1 if w > 1 else 0)
            size, stride = [max(h - 1, 1), max(w - 1, 1)], [s0, s1]
    else:
        (d0, d1, d2), (s0, s1, s2) = base, strides
        if kind == "swap_last_two":
            size, stride = [d0, d2, d1], [s0, s2, s1]
        elif kind == "subsample":
            size, stride = [max(d0 // 2, 1), max(d1 // 2, 1), d2], [s0 * 2, s1 * 2, s2]
        else:  # offset_plane
            offset = (s0 if d0 > 1 else 0) + (s2 if d2 > 1 else 0)
            size, stride = [max(d0 - 1, 1), d1, max(d2 - 1, 1)], [s0, s1, s2]
    case: dict[str, Any] = {"shape": base, "dtype": dtype, "size": size, "stride": stride}
    if offset is not None:
        case["storage_offset"] = offset
    return case


def _as_strided_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.as_strided.default(
        arg(inputs, "self"), parse_dims(inputs["size"]), parse_dims(inputs["stride"]), inputs.get("storage_offset")
    )


_AS_STRIDED_FULL = (
    [
        _as_strided_case(b, dt, kind)
        for b in ([2, 3], [128, 256], [512, 512])
        for dt in FLOAT_DTYPES
        for kind in ("contig", "transpose", "subsample", "offset_cropped", "reshape_like")
    ]
    + [
        _as_strided_case(b, dt, kind)
        for b in ([6], [64], [1024])
        for dt in FLOAT_DTYPES
        for kind in ("contig", "skip_step", "offset_start", "reshape_like")
    ]
    + [
        _as_strided_case(b, dt, kind)
        for b in ([2, 3, 4], [8, 16, 8], [16, 32, 16])
        for dt in FLOAT_DTYPES
        for kind in ("contig", "swap_last_two", "subsample", "offset_plane")
    ]
)

AS_STRIDED = aten_spec(
    "as_strided",
    ["default"],
    category="layout",
    description=(
        "Return a view of self's storage with the given size and strides, starting at storage_offset "
        "(default: self's own storage offset): out[i0, i1, ...] = storage[offset + sum(i_d * stride_d)]. "
        "Strides may be zero or overlap."
    ),
    invoke=_as_strided_invoke,
    cases={
        "smoke": [
            _as_strided_case([2, 3], "float32", "transpose"),
            _as_strided_case([6], "float16", "offset_start"),
            _as_strided_case([2, 3, 4], "bfloat16", "offset_plane"),
        ],
        "full": _AS_STRIDED_FULL,
        "edge": [
            {"shape": [10], "dtype": "float32", "size": [7, 4], "stride": [1, 1]},  # overlapping sliding windows
            {"shape": [5], "dtype": "float16", "size": [3, 5], "stride": [0, 1]},  # zero stride (broadcast)
            {"shape": [4, 6], "dtype": "float32", "size": [0, 3], "stride": [6, 1]},
            {"shape": [4, 6], "dtype": "int32", "size": [], "stride": [], "storage_offset": 23},
            {
                "shape": [64, 48],
                "dtype": "bfloat16",
                "layout": "transposed",
                "size": [16, 16],
                "stride": [2, 130],
                "storage_offset": 5,
            },
        ],
        "perf": [{"shape": [16384, 4096], "dtype": "bfloat16", "size": [4096, 16384], "stride": [1, 4096]}],
    },
    make_inputs=_unary_inputs,
    exact=True,
    cost=view_cost,
    fidelity=(
        "Reference: the built-in aten.as_strided. full = upstream's 117 cases: 2-D bases {(2,3), (128,256), "
        "(512,512)} x 5 geometries (contiguous, transpose, subsample, offset-cropped, reshape-like), 1-D bases "
        "{(6,), (64,), (1024,)} x 4, 3-D bases {(2,3,4), (8,16,8), (16,32,16)} x 4, each x {fp32, fp16, bf16}, "
        "with the geometry computed as upstream does." + _VIEW_FIDELITY
    ),
    notes="Strides are in elements of the underlying storage, not of self's logical layout.",
)


# ---- expand / expand_as -------------------------------------------------------------------------------

_EXPAND_PAIRS = [
    ([3, 1], [3, 4]),
    ([1], [1024]),
    ([4, 1, 6], [4, 5, 6]),
    ([3, 1], [2, 3, 4]),
    ([3, 1], [-1, 4]),
    ([], [5]),
    ([2, 3], [2, 3]),
    ([1, 1], [2, 3, 7, 5]),
]


def _expand_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs = _unary_inputs(case, rng)
    inputs["target"] = dims_str(case["target"])
    if case.get("as_tensor"):
        resolved = [
            s if s != -1 else case["shape"][i - len(case["target"]) + len(case["shape"])]
            for i, s in enumerate(case["target"])
        ]
        inputs["other"] = values(rng, resolved, case["dtype"])
    return inputs


def _expand_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.expand.default(arg(inputs, "self"), parse_dims(inputs["target"]))


def _expand_as_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.expand_as.default(arg(inputs, "self"), inputs["other"])


def _expand_cases(as_tensor: bool) -> dict[str, list[dict[str, Any]]]:
    extra = {"as_tensor": True} if as_tensor else {}
    pairs = [(s, t) for s, t in _EXPAND_PAIRS if not (as_tensor and -1 in t)]
    return {
        "smoke": [
            {"shape": [3, 1], "target": [2, 3, 4], "dtype": "float32", **extra},
            {"shape": [1], "target": [33], "dtype": "bfloat16", **extra},
        ],
        "full": [{"shape": s, "target": t, "dtype": dt, **extra} for s, t in pairs for dt in FLOAT_DTYPES],
        "edge": [
            {"shape": [1], "target": [0], "dtype": "float32", **extra},
            {"shape": [1, 48], "target": [64, 48], "dtype": "float16", "layout": "strided", **extra},
            {"shape": [1, 64], "target": [5, 48, 64], "dtype": "int32", "layout": "transposed", **extra},
            {"shape": [4, 1], "target": [4, 9], "dtype": "bool", **extra},
        ],
        "perf": [
            {"shape": [1, 4096], "target": [16384, 4096], "dtype": "bfloat16", **extra},
            {"shape": [32, 1, 4096, 128], "target": [32, 4, 4096, 128], "dtype": "bfloat16", **extra},
        ],
    }


_DELETED = (
    "Upstream deleted this operator's test (research/upstream_kgb.md §2.1), so the cases are ours: "
    "{(3,1)->(3,4), (1,)->(1024,), (4,1,6)->(4,5,6), (3,1)->(2,3,4), (3,1)->(-1,4), ()->(5,), identity, "
    "(1,1)->(2,3,7,5)} x {fp16, fp32, bf16}"
)

EXPAND = aten_spec(
    "expand",
    ["default"],
    category="layout",
    description=(
        "Return a view of `self` broadcast to `size`: new dimensions are prepended, size-1 dimensions are "
        "repeated (stride 0), -1 keeps the existing size."
    ),
    invoke=_expand_invoke,
    cases=_expand_cases(as_tensor=False),
    make_inputs=_expand_inputs,
    exact=True,
    cost=view_cost,
    fidelity=_DELETED + "; reference: the built-in aten.expand." + _VIEW_FIDELITY,
)

EXPAND_AS = aten_spec(
    "expand_as",
    ["default"],
    category="layout",
    description="Return `self` broadcast to other's shape (self.expand(other.size())).",
    invoke=_expand_as_invoke,
    cases=_expand_cases(as_tensor=True),
    make_inputs=_expand_inputs,
    exact=True,
    cost=view_cost,
    fidelity=(
        _DELETED.replace(", (3,1)->(-1,4)", "") + " with `other` a random tensor of the target shape; "
        "reference: the built-in aten.expand_as." + _VIEW_FIDELITY
    ),
)


# ---- narrow / select (upstream draws dim/start/length with Python's random at import) -------------

_DRAW = random.Random(20261129)


def _narrow_case(shape: list[int], dtype: str) -> dict[str, Any]:
    dim = _DRAW.randint(0, len(shape) - 1)
    start = _DRAW.randint(0, max(0, shape[dim] - 1))
    return {"shape": shape, "dtype": dtype, "dim": dim, "start": start, "length": _DRAW.randint(1, shape[dim] - start)}


def _narrow_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    if inputs.get("overload") == "Tensor":
        start = torch.tensor(inputs["start"], device=inputs["self"].device)
        return torch.ops.aten.narrow.Tensor(arg(inputs, "self"), inputs["dim"], start, inputs["length"])
    return torch.ops.aten.narrow.default(arg(inputs, "self"), inputs["dim"], inputs["start"], inputs["length"])


NARROW = aten_spec(
    "narrow",
    ["default", "Tensor"],
    category="layout",
    description=(
        "Return the view of `self` with elements start .. start + length - 1 along `dim` (negative dim and "
        "start count from the end). narrow.Tensor takes `start` as a 0-d integer tensor."
    ),
    invoke=_narrow_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "dim": 1, "start": 5, "length": 20},
            {"shape": [2, 5, 17], "dtype": "bfloat16", "dim": 0, "start": 1, "length": 1},
        ],
        "full": [_narrow_case(s, dt) for s in POINTWISE_SHAPES if s for dt in FLOAT_DTYPES],
        "edge": [
            {"shape": [33, 65], "dtype": "float32", "dim": -1, "start": -10, "length": 10},
            {"shape": [33, 65], "dtype": "float16", "dim": 0, "start": 33, "length": 0},
            {"shape": [64, 48], "dtype": "bfloat16", "dim": 0, "start": 3, "length": 40, "layout": "transposed"},
            {"shape": [64, 48], "dtype": "int64", "dim": 1, "start": 7, "length": 9, "layout": "strided"},
            {"shape": [33, 65], "dtype": "float32", "dim": 1, "start": 2, "length": 60, "overload": "Tensor"},
        ],
        "perf": [{"shape": [16384, 14336], "dtype": "bfloat16", "dim": 1, "start": 4096, "length": 8192}],
    },
    make_inputs=_unary_inputs,
    exact=True,
    cost=view_cost,
    fidelity=(
        "Reference: the built-in aten.narrow. full = upstream's POINTWISE_SHAPES x {fp16, fp32, bf16} minus the "
        "3 zero-dim cases upstream skips (15); upstream draws dim/start/length with Python's random at import, "
        "we draw them once with a fixed seed and store them in the case." + _VIEW_FIDELITY
    ),
)


def _select_case(shape: list[int], dtype: str) -> dict[str, Any]:
    dim = _DRAW.randint(0, len(shape) - 1)
    return {"shape": shape, "dtype": dtype, "dim": dim, "index": _DRAW.randint(0, shape[dim] - 1)}


def _select_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.select.int(arg(inputs, "self"), inputs["dim"], inputs["index"])


SELECT = aten_spec(
    "select",
    ["int"],
    category="layout",
    description=(
        "Return the view of `self` at position `index` along `dim`, with that dimension removed (negative "
        "dim and index count from the end)."
    ),
    invoke=_select_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "dim": 1, "index": 7},
            {"shape": [2, 5, 17], "dtype": "float16", "dim": 2, "index": 16},
        ],
        "full": [_select_case(s, dt) for s in REDUCTION_SHAPES for dt in FLOAT_DTYPES],
        "edge": [
            {"shape": [33, 65], "dtype": "float32", "dim": -1, "index": -1},
            {"shape": [7], "dtype": "int32", "dim": 0, "index": 3},
            {"shape": [64, 48], "dtype": "bfloat16", "dim": 0, "index": 5, "layout": "transposed"},
            {"shape": [64, 48], "dtype": "float16", "dim": 1, "index": -3, "layout": "strided"},
            {"shape": [0, 4], "dtype": "float32", "dim": 1, "index": 2},
        ],
        "perf": [{"shape": [32, 16384, 4096], "dtype": "bfloat16", "dim": 0, "index": 17}],
    },
    make_inputs=_unary_inputs,
    exact=True,
    cost=view_cost,
    fidelity=(
        "Reference: the built-in aten.select.int. full = upstream's 9 cases: REDUCTION_SHAPES x {fp16, fp32, "
        "bf16}, with dim and index drawn once with a fixed seed (upstream draws them at import)." + _VIEW_FIDELITY
    ),
)


# ---- t / unsqueeze -----------------------------------------------------------------------------------


def _t_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.t.default(arg(inputs, "self"))


T = aten_spec(
    "t",
    ["default"],
    category="layout",
    description="Return the transpose of a tensor with at most 2 dimensions (0-d and 1-d tensors come back as they are).",
    invoke=_t_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32"},
            {"shape": [5, 7], "dtype": "bfloat16", "layout": "transposed"},
            {"shape": [6, 6], "dtype": "float16"},
        ],
        "full": product(
            shape=[[2, 3], [128, 256], [512, 512]], dtype=FLOAT_DTYPES, layout=["contiguous", "transposed"]
        ),
        "edge": [
            {"shape": [7], "dtype": "float32"},
            {"shape": [], "dtype": "float16"},
            {"shape": [0, 5], "dtype": "float32"},
            {"shape": [64, 48], "dtype": "int16", "layout": "strided"},
        ],
        "perf": [{"shape": [4096, 14336], "dtype": "bfloat16"}],
    },
    make_inputs=_unary_inputs,
    exact=True,
    cost=view_cost,
    fidelity=(
        "Reference: the built-in aten.t. full = upstream's 18 cases: {(2,3), (128,256), (512,512)} x {fp32, "
        "fp16, bf16} x {contiguous, the transpose of a contiguous tensor}." + _VIEW_FIDELITY
    ),
)

_UNSQUEEZE_SHAPE_DIMS = [
    ([], 0),
    ([], -1),
    ([2, 3], -3),
    ([2, 3], -1),
    ([2, 3], 0),
    ([2, 3], 1),
    ([2, 3], 2),
    ([128, 256], -3),
    ([128, 256], -1),
    ([128, 256], 0),
    ([128, 256], 2),
    ([512, 512], -3),
    ([512, 512], 0),
    ([512, 512], 2),
    ([64, 32, 16], -4),
    ([64, 32, 16], -1),
    ([64, 32, 16], 0),
    ([64, 32, 16], 2),
    ([64, 32, 16], 3),
    ([4], -2),
    ([4], -1),
    ([4], 0),
    ([4], 1),
]


def _unsqueeze_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.unsqueeze.default(arg(inputs, "self"), inputs["dim"])


UNSQUEEZE = aten_spec(
    "unsqueeze",
    ["default"],
    category="layout",
    description="Return a view of `self` with a size-1 dimension inserted at `dim` (in [-ndim-1, ndim]).",
    invoke=_unsqueeze_invoke,
    cases={
        "smoke": [{"shape": [3, 33], "dtype": "float32", "dim": -1}, {"shape": [], "dtype": "float16", "dim": 0}],
        "full": [
            {"shape": s, "dtype": dt, "dim": d}
            for s, d in _UNSQUEEZE_SHAPE_DIMS
            for dt in ("float32", "float16", "bfloat16")
        ],
        "edge": [
            {"shape": [0, 5], "dtype": "float32", "dim": 1},
            {"shape": [64, 48], "dtype": "bfloat16", "dim": 1, "layout": "transposed"},
            {"shape": [64, 48], "dtype": "int64", "dim": -2, "layout": "strided"},
        ],
        "perf": [{"shape": [16384, 4096], "dtype": "bfloat16", "dim": 1}],
    },
    make_inputs=_unary_inputs,
    exact=True,
    cost=view_cost,
    fidelity=(
        "Reference: the built-in aten.unsqueeze. full = upstream's 69 cases: its 23 (shape, dim) pairs x {fp32, "
        "fp16, bf16}." + _VIEW_FIDELITY
    ),
)


# ---- reshape --------------------------------------------------------------------------------------------


def _reshape_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {
        "self": values(rng, case["base"], case["dtype"]),
        "perm": ",".join(map(str, case.get("perm", []))),
        "target": dims_str(case["target"]),
    }


def _reshape_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    x = inputs["self"]
    if inputs["perm"]:
        x = x.permute(*[int(p) for p in inputs["perm"].split(",")])
    return torch.ops.aten.reshape.default(x, parse_dims(inputs["target"]))


def _reshape_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    # a permuted input cannot be viewed: reshape must copy it
    return (
        _copy_out_cost({"shape": case["base"], "dtype": case["dtype"]}, inputs)
        if case.get("perm")
        else view_cost(case, inputs)
    )


_RESHAPE_CONTIGUOUS = [
    ([2, 3], [3, 2]),
    ([2, 3], [1, 6]),
    ([2, 3], [-1]),
    ([128, 256], [256, 128]),
    ([128, 256], [32, -1]),
    ([128, 256], [-1, 128]),
    ([64, 64, 64], [-1]),
    ([64, 64, 64], [64, 4096]),
    ([512, 512], [-1]),
    ([256, 512], [512, 256]),
]
_RESHAPE_PERMUTED = [
    ([32, 64], [-1], [1, 0]),
    ([64, 128], [128, 64], [1, 0]),
    ([8, 16, 32], [256, 16], [2, 0, 1]),
    ([64, 64, 64], [4096, 64], [1, 2, 0]),
]

RESHAPE = aten_spec(
    "reshape",
    ["default"],
    category="layout",
    description=(
        "Return a tensor with the same elements in row-major order and the new shape (one -1 is inferred): "
        "a view when the strides allow it, otherwise a copy."
    ),
    invoke=_reshape_invoke,
    cases={
        "smoke": [
            {"base": [2, 3], "target": [3, 2], "dtype": "float32"},
            {"base": [8, 16, 32], "target": [256, 16], "perm": [2, 0, 1], "dtype": "bfloat16"},
        ],
        "full": [
            {"base": b, "target": t, "dtype": dt}
            for b, t in _RESHAPE_CONTIGUOUS
            for dt in ("float32", "float16", "bfloat16")
        ]
        + [
            {"base": b, "target": t, "perm": p, "dtype": dt}
            for b, t, p in _RESHAPE_PERMUTED
            for dt in ("float32", "float16", "bfloat16")
        ],
        "edge": [
            {"base": [0, 6], "target": [3, 0, 2], "dtype": "float32"},
            {"base": [1, 1], "target": [], "dtype": "float16"},
            {"base": [5, 7, 9], "target": [9, -1], "perm": [2, 1, 0], "dtype": "int32"},
            {"base": [6, 10], "target": [2, 3, 5, 2], "perm": [1, 0], "dtype": "bfloat16"},
        ],
        "perf": [
            {"base": [16384, 4096], "target": [16384, 32, 128], "dtype": "bfloat16"},
            {"base": [32, 4096, 128], "target": [4096, 4096], "perm": [1, 0, 2], "dtype": "bfloat16"},
        ],
    },
    make_inputs=_reshape_inputs,
    exact=True,
    cost=_reshape_cost,
    fidelity=(
        "Reference: the built-in aten.reshape. full = upstream's 42 cases: 10 contiguous (in, out) shape pairs "
        "and 4 permuted inputs (transpose(0,1), permute(2,0,1), permute(1,2,0)) x {fp32, fp16, bf16}." + _VIEW_FIDELITY
    ),
)


# ---- rot90 ----------------------------------------------------------------------------------------------


def _rot90_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    x, dims = arg(inputs, "self"), parse_dims(inputs["dims"])
    if inputs.get("overload") == "out":
        out = torch.empty(0, dtype=x.dtype, device=x.device)
        return torch.ops.aten.rot90.out(x, inputs["k"], dims, out=out)
    return torch.ops.aten.rot90.default(x, inputs["k"], dims)


_ROT90_FULL = [
    {"shape": s, "dtype": dt, "k": k, "dims": d, "overload": ov}
    for ov in ("default", "out")
    for s, ks, dims_list in (
        ([2, 3], [0, 1, 2, 3, -1], [[0, 1]]),
        ([128, 256], [0, 1, 2, 3, -1], [[0, 1]]),
        ([512, 512], [0, 1, 2, 3, -1], [[0, 1]]),
        ([4, 5, 6], [0, 1, 2, 3], [[0, 1], [0, 2], [1, 2]]),
        ([32, 64, 16], [0, 1, 2, 3], [[0, 1], [0, 2], [1, 2]]),
        ([128, 32, 64], [0, 1, 2, 3], [[0, 1], [0, 2], [1, 2]]),
    )
    for dt in ("float32", "float16", "bfloat16")
    for k in ks
    for d in dims_list
]

ROT90 = aten_spec(
    "rot90",
    ["default", "out"],
    category="layout",
    description=(
        "Rotate `self` by k * 90 degrees in the plane of `dims` (from dims[0] towards dims[1]); k may be any "
        "integer (taken mod 4) and the result is a new tensor."
    ),
    invoke=_rot90_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "k": 1, "dims": [0, 1]},
            {"shape": [4, 5, 6], "dtype": "bfloat16", "k": 3, "dims": [0, 2], "overload": "out"},
            {"shape": [5, 7], "dtype": "float16", "k": -1, "dims": [0, 1]},
        ],
        "full": _ROT90_FULL,
        "edge": [
            {"shape": [33, 65], "dtype": "float32", "k": 5, "dims": [1, 0]},
            {"shape": [33, 65], "dtype": "int64", "k": -3, "dims": [-1, -2]},
            {"shape": [64, 48], "dtype": "bfloat16", "k": 1, "dims": [0, 1], "layout": "transposed"},
            {"shape": [6, 64, 48], "dtype": "float16", "k": 2, "dims": [1, 2], "layout": "strided"},
            {"shape": [0, 4], "dtype": "float32", "k": 1, "dims": [0, 1]},
            {"shape": [1, 129], "dtype": "bool", "k": 1, "dims": [0, 1]},
        ],
        "perf": [
            {"shape": [4096, 4096], "dtype": "float16", "k": 1, "dims": [0, 1]},
            {"shape": [64, 512, 512], "dtype": "bfloat16", "k": 1, "dims": [1, 2]},
        ],
    },
    make_inputs=_unary_inputs,
    exact=True,
    cost=_copy_out_cost,
    fidelity=(
        "Reference: the built-in aten.rot90. full = upstream's 306 cases: 2-D {(2,3), (128,256), (512,512)} x "
        "k {0,1,2,3,-1} x dims [0,1], and 3-D {(4,5,6), (32,64,16), (128,32,64)} x k {0..3} x dims {[0,1], "
        "[0,2], [1,2]}, each x {fp32, fp16, bf16} x {default, out}; compared bit-exactly. Upstream uses the "
        "dtype tolerance; for a permutation of values exactness is the same test."
    ),
)


# ---- unsafe_split / unsafe_split_with_sizes ------------------------------------------------------------


def _split_pieces(shape: list[int], dim: int, sizes: list[int]) -> list[list[int]]:
    d = dim % len(shape)
    return [shape[:d] + [s] + shape[d + 1 :] for s in sizes]


def _chunks(length: int, split_size: int) -> list[int]:
    return [min(split_size, length - i) for i in range(0, length, split_size)] or [0]


def _unsafe_split_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    x, dim = arg(inputs, "self"), inputs["dim"]
    if inputs.get("overload") == "Tensor_out":
        sizes = _chunks(x.shape[dim], inputs["split_size"])
        out = [torch.empty(s, dtype=x.dtype, device=x.device) for s in _split_pieces(list(x.shape), dim, sizes)]
        torch.ops.aten.unsafe_split.Tensor_out(x, inputs["split_size"], dim, out=out)
        return out
    return list(torch.ops.aten.unsafe_split.Tensor(x, inputs["split_size"], dim))


def _unsafe_split_with_sizes_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    x, dim, sizes = arg(inputs, "self"), inputs["dim"], parse_dims(inputs["split_sizes"])
    if inputs.get("overload") == "out":
        out = [torch.empty(s, dtype=x.dtype, device=x.device) for s in _split_pieces(list(x.shape), dim, sizes)]
        torch.ops.aten.unsafe_split_with_sizes.out(x, sizes, dim, out=out)
        return out
    return list(torch.ops.aten.unsafe_split_with_sizes.default(x, sizes, dim))


def _split_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    return _copy_out_cost(case, inputs) if case.get("overload", "").endswith("out") else view_cost(case, inputs)


UNSAFE_SPLIT = aten_spec(
    "unsafe_split",
    ["Tensor", "Tensor_out"],
    category="layout",
    description=(
        "Split `self` along `dim` into consecutive chunks of split_size (the last may be smaller); returns "
        "the list of views (Tensor) or copies the chunks into the given `out` tensors (Tensor_out)."
    ),
    invoke=_unsafe_split_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "dim": -1, "split_size": 8},
            {"shape": [6, 5], "dtype": "bfloat16", "dim": 0, "split_size": 4, "overload": "Tensor_out"},
        ],
        "full": product(
            shape=[[2, 3], [128, 256], [1024, 256]],
            dtype=FLOAT_DTYPES,
            dim=[0, 1, -1],
            split_size=[2, 64, 1000],
            overload=["Tensor", "Tensor_out"],
        ),
        "edge": [
            {"shape": [33, 65], "dtype": "int32", "dim": -2, "split_size": 7},
            {
                "shape": [64, 48],
                "dtype": "float16",
                "dim": 1,
                "split_size": 5,
                "layout": "transposed",
                "overload": "Tensor_out",
            },
            {
                "shape": [64, 48],
                "dtype": "float32",
                "dim": 0,
                "split_size": 16,
                "layout": "strided",
                "overload": "Tensor_out",
            },
            {"shape": [0, 6], "dtype": "float32", "dim": 1, "split_size": 4},
        ],
        "perf": [
            {"shape": [16384, 6144], "dtype": "bfloat16", "dim": -1, "split_size": 2048},
            {"shape": [16384, 6144], "dtype": "bfloat16", "dim": -1, "split_size": 2048, "overload": "Tensor_out"},
        ],
    },
    make_inputs=_unary_inputs,
    exact=True,
    cost=_split_cost,
    fidelity=(
        "Reference: the built-in aten.unsafe_split. full = upstream's 162 cases: {(2,3), (128,256), (1024,256)} "
        "x {fp32, fp16, bf16} x dim {0, 1, -1} x split_size {2, 64, 1000} x {Tensor, Tensor_out}; the chunk "
        "list must have the reference's length and each chunk is compared bit-exactly (views: strides not "
        "checked)."
    ),
)

_SPLIT_WITH_SIZES = [
    ([2, 3], [1, 1], 0),
    ([2, 3], [1, 2], 1),
    ([128, 256], [64, 64], 0),
    ([128, 256], [100, 156], 1),
    ([512, 512], [128, 128, 256], 0),
    ([512, 512], [256, 256], 1),
    ([64, 32, 16], [4, 4, 4, 4], 2),
    ([64, 32, 16], [10, 10, 12], 1),
    ([64, 32, 16], [16], -1),
]

UNSAFE_SPLIT_WITH_SIZES = aten_spec(
    "unsafe_split_with_sizes",
    ["default", "out"],
    category="layout",
    description=(
        "Split `self` along `dim` into consecutive pieces of the given sizes (which sum to self.size(dim)); "
        "returns the list of views, or copies the pieces into the given `out` tensors (out)."
    ),
    invoke=_unsafe_split_with_sizes_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "dim": 1, "split_sizes": [10, 23]},
            {"shape": [6, 5, 4], "dtype": "bfloat16", "dim": -2, "split_sizes": [1, 0, 4], "overload": "out"},
        ],
        "full": [
            {"shape": s, "split_sizes": sizes, "dim": d, "dtype": dt, "overload": ov}
            for ov in ("default", "out")
            for dt in FLOAT_DTYPES
            for s, sizes, d in _SPLIT_WITH_SIZES
        ],
        "edge": [
            {
                "shape": [64, 48],
                "dtype": "float16",
                "dim": 0,
                "split_sizes": [1, 62, 1],
                "layout": "transposed",
                "overload": "out",
            },
            {"shape": [64, 48], "dtype": "int64", "dim": -1, "split_sizes": [24, 0, 24], "layout": "strided"},
            {"shape": [0, 6], "dtype": "float32", "dim": 1, "split_sizes": [2, 4]},
        ],
        "perf": [
            {"shape": [16384, 6144], "dtype": "bfloat16", "dim": -1, "split_sizes": [4096, 1024, 1024]},
            {
                "shape": [16384, 6144],
                "dtype": "bfloat16",
                "dim": -1,
                "split_sizes": [4096, 1024, 1024],
                "overload": "out",
            },
        ],
    },
    make_inputs=_unary_inputs,
    exact=True,
    cost=_split_cost,
    fidelity=(
        "Reference: the built-in aten.unsafe_split_with_sizes. full = upstream's 54 cases: its 9 (shape, sizes, "
        "dim) triples x {fp32, fp16, bf16} x {default, out}; each piece compared bit-exactly (views: strides "
        "not checked)."
    ),
)


# ---- cat / stack -----------------------------------------------------------------------------------------


def _list_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    layout = case.get("layout", "contiguous")
    shapes = case["shapes"]
    return {
        "tensors": [
            values(rng, base_shape(s, layout), case.get("dtypes", {}).get(str(i), case["dtype"]))
            for i, s in enumerate(shapes)
        ],
        "layouts": ";".join(layout_tag(layout, s) for s in shapes),
        "dim": case["dim"],
    }


def _laid_out_list(inputs: dict[str, Any]) -> list[torch.Tensor]:
    return [view_of(t, tag) for t, tag in zip(inputs["tensors"], inputs["layouts"].split(";"), strict=True)]


def _cat_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.cat.default(_laid_out_list(inputs), inputs["dim"])


def _stack_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.stack.default(_laid_out_list(inputs), inputs["dim"])


def _list_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    moved = sum(nbytes(s, case["dtype"]) for s in case["shapes"])
    return Cost(flops=0.0, bytes=float(2 * moved), dtype=case["dtype"])


_CAT_SHAPES = [
    [[1, 32], [8, 32]],
    [[16, 128], [32, 128]],
    [[1024, 1024], [1024, 1024]],
    [[1, 1024, 256], [8, 1024, 256], [16, 1024, 256]],
    [[16, 320, 15], [32, 320, 15], [64, 320, 15]],
    [[16, 128, 64, 64], [16, 128, 64, 64], [24, 128, 64, 64], [32, 128, 64, 64]],
]

CAT = aten_spec(
    "cat",
    ["default"],
    category="layout",
    description=(
        "Concatenate the tensors along `dim` (negative counts from the end) into a new tensor. All tensors "
        "agree on every other dimension; 1-D empty tensors of shape (0,) are skipped; mixed dtypes promote."
    ),
    invoke=_cat_invoke,
    cases={
        "smoke": [
            {"shapes": [[3, 33], [5, 33]], "dim": 0, "dtype": "float32"},
            {"shapes": [[2, 5, 7], [2, 5, 1], [2, 5, 9]], "dim": -1, "dtype": "bfloat16"},
            {"shapes": [[0, 3], [2, 3]], "dim": 0, "dtype": "float32"},
        ],
        "full": [{"shapes": s, "dim": 0, "dtype": "float32"} for s in ([[0, 3], [2, 3]], [[0, 3], [0, 3]], [[0], [0]])],
        "edge": [{"shapes": s, "dim": 0, "dtype": dt} for s in _CAT_SHAPES[:5] for dt in FLOAT_DTYPES]
        + [{"shapes": [[16, 320, 15], [16, 320, 15]], "dim": d, "dtype": "float16"} for d in (1, 2, -1)]
        + [
            {"shapes": [[64, 48], [64, 16]], "dim": 1, "dtype": "bfloat16", "layout": "transposed"},
            {"shapes": [[64, 48], [32, 48]], "dim": 0, "dtype": "int32", "layout": "strided"},
            {"shapes": [[0], [5, 7], [3, 7]], "dim": 0, "dtype": "float32"},
            {"shapes": [[4, 7], [4, 9]], "dim": -1, "dtype": "float16", "dtypes": {"1": "float32"}},
        ],
        "perf": [
            {"shapes": [[16384, 4096], [16384, 4096]], "dim": -1, "dtype": "bfloat16"},
            {"shapes": [[1, 32, 8192, 128], [1, 32, 128, 128]], "dim": 2, "dtype": "bfloat16"},
            {"shapes": [[1, 8, 4096, 128]] * 16, "dim": 0, "dtype": "bfloat16"},
        ],
    },
    make_inputs=_list_inputs,
    exact=True,
    cost=_list_cost,
    fidelity=(
        "Reference: the built-in aten.cat. full = upstream's 3 cases exactly: ((0,3),(2,3)), ((0,3),(0,3)), "
        "((0,),(0,)) along dim 0 in fp32, compared bit-exactly; upstream's file defines CAT_SHAPES but gives the "
        "cat label only to the empty-tensor test, so non-empty coverage (CAT_SHAPES x {fp16, fp32, bf16}, other "
        "dims, non-contiguous members, the legacy (0,) skip, dtype promotion) is in the edge tier."
    ),
    notes="Members may be non-contiguous; the legacy 1-D (0,) empty tensor is ignored whatever the other shapes.",
)

STACK = aten_spec(
    "stack",
    ["default"],
    category="layout",
    description=(
        "Stack equally shaped tensors along a new dimension `dim` (in [-ndim-1, ndim]) into a new tensor: "
        "out.select(dim, i) == tensors[i]."
    ),
    invoke=_stack_invoke,
    cases={
        "smoke": [
            {"shapes": [[16], [16]], "dim": -2, "dtype": "float32"},
            {"shapes": [[3, 5, 7]] * 3, "dim": 1, "dtype": "int16"},
        ],
        "full": product(
            shapes=[[[16], [16]], [[16, 256], [16, 256]], [[20, 320, 15]] * 3],
            dim=[-2, -1, 0, 1],
            dtype=FLOAT_DTYPES + INT_DTYPES,
        ),
        "edge": [
            {"shapes": [[64, 48]] * 3, "dim": 2, "dtype": "bfloat16", "layout": "transposed"},
            {"shapes": [[64, 48]] * 2, "dim": -3, "dtype": "float16", "layout": "strided"},
            {"shapes": [[0, 4]] * 2, "dim": 1, "dtype": "float32"},
            {"shapes": [[]] * 5, "dim": 0, "dtype": "float32"},
            {"shapes": [[7, 9]], "dim": 1, "dtype": "int64"},
        ],
        "perf": [
            {"shapes": [[8, 4096, 128]] * 32, "dim": 0, "dtype": "bfloat16"},
            {"shapes": [[16384, 4096]] * 2, "dim": 1, "dtype": "bfloat16"},
        ],
    },
    make_inputs=_list_inputs,
    exact=True,
    cost=_list_cost,
    fidelity=(
        "Reference: the built-in aten.stack. full = upstream's 60 cases: STACK_SHAPES {2 x (16,), 2 x (16,256), "
        "3 x (20,320,15)} x dim {-2, -1, 0, 1} x {fp16, fp32, bf16, int16, int32}, compared bit-exactly."
    ),
)

SPECS = [
    AS_STRIDED,
    EXPAND,
    EXPAND_AS,
    NARROW,
    SELECT,
    T,
    UNSQUEEZE,
    RESHAPE,
    ROT90,
    UNSAFE_SPLIT,
    UNSAFE_SPLIT_WITH_SIZES,
    CAT,
    STACK,
]
