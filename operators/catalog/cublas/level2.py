"""cuBLAS level-2 routines (matrix-vector): gemv (plain, strided-batched, batched), ger/geru/gerc, syr2,
symv, sbmv, tbmv, trsv.

Grids: upstream `accuracy/cublas/test_<name>.py` (research/upstream_kgb.md §2, "cuBLAS" counts). Cases and
references name flags by their BLAS letters; a candidate is called as upstream's tests call it
(_blas.make_invoke): syr2, symv, sbmv, tbmv and trsv get cuBLAS's integer enums (FILL_MODE_LOWER=0,
UPPER=1; OP_N=0, T=1, C=2; DIAG_NON_UNIT=0, UNIT=1), gemv its trans letter, and gemvBatched int64 device
arrays of the buffers' addresses, built in the calling process from the tensors it holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from operators.catalog.common import product
from operators.catalog.cublas import _blas as B
from operators.catalog.cublas._vendor import vendor_for
from operators.spec import Comparison, Cost, Inputs, OperatorSpec, Rng

# ---------------------------------------------------------------------------- references


def _gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy, off_a=0, off_x=0, off_y=0):
    B.check_flag("trans", trans, B.TRANS_FLAGS)
    len_x, len_y = (n, m) if trans == "N" else (m, n)
    if m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return y
    new = B.combine(
        alpha,
        lambda: B.op(B.read_matrix(A, m, n, lda, off_a), trans) @ B.read_vector(x, len_x, incx, off_x),
        beta,
        lambda: B.read_vector(y, len_y, incy, off_y),
        (len_y,),
        y,
    )
    B.write_vector(y, len_y, incy, new, off_y)
    return y


def _gemv_strided(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount):
    for b in range(batchCount):
        _gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy, b * strideA, b * stridex, b * stridey)
    return y


def _gemv_batched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount):
    for b in range(batchCount):
        _gemv(trans, m, n, alpha, Aarray[b], lda, xarray[b], incx, beta, yarray[b], incy)
    return yarray


def _ger(conjugate: bool) -> Callable:
    def ger(m, n, alpha, x, incx, y, incy, A, lda):
        if m <= 0 or n <= 0 or alpha == 0:
            return A
        yv = B.read_vector(y, n, incy)
        update = alpha * torch.outer(B.read_vector(x, m, incx), yv.conj() if conjugate else yv)
        view = B.matrix_view(A, m, n, lda)
        view.copy_((view.to(update.dtype) + update).to(A.dtype))
        return A

    return ger


def cublasDsyr2_v2(uplo, n, alpha, x, incx, y, incy, A, lda):
    B.check_flag("uplo", uplo, B.UPLO_FLAGS)
    if n <= 0 or alpha == 0:
        return A
    xv, yv = B.read_vector(x, n, incx), B.read_vector(y, n, incy)
    view = B.matrix_view(A, n, n, lda)
    old = view.to(xv.dtype)
    new = old + alpha * (torch.outer(xv, yv) + torch.outer(yv, xv))
    view.copy_(torch.where(B.triangle_mask(n, uplo, A.device), new, old).to(A.dtype))
    return A


def cublasCsymv_v2(uplo, n, alpha, A, lda, x, incx, beta, y, incy):
    if n <= 0 or (alpha == 0 and beta == 1):
        return y
    new = B.combine(
        alpha,
        lambda: B.symmetric_from(B.read_matrix(A, n, n, lda), uplo) @ B.read_vector(x, n, incx),
        beta,
        lambda: B.read_vector(y, n, incy),
        (n,),
        y,
    )
    B.write_vector(y, n, incy, new)
    return y


def _band_diagonals(A, lda, n, k, uplo):
    """(d, a_d) for d = 0..k: a_d[t] = A(t, t+d) for upper storage, A(t+d, t) for lower storage,
    read from the column-major band buffer (upper: A(i, j) at row k+i-j of column j; lower: row i-j)."""
    B.check_flag("uplo", uplo, B.UPLO_FLAGS)
    band = B.read_matrix(A, min(lda, k + 1), n, lda)
    return [(d, band[k - d, d:] if uplo == "U" else band[d, : n - d]) for d in range(min(k, n - 1) + 1)]


def cublasDsbmv_v2(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy):
    if n <= 0 or (alpha == 0 and beta == 1):
        return y

    def product_() -> torch.Tensor:
        xv = B.read_vector(x, n, incx)
        out = torch.zeros_like(xv)
        for d, a in _band_diagonals(A, lda, n, k, uplo):
            if d == 0:
                out += a * xv
            else:
                out[: n - d] += a * xv[d:]
                out[d:] += a * xv[: n - d]
        return out

    B.write_vector(y, n, incy, B.combine(alpha, product_, beta, lambda: B.read_vector(y, n, incy), (n,), y))
    return y


def cublasStbmv_v2(uplo, trans, diag, n, k, A, lda, x, incx):
    B.check_flag("trans", trans, B.TRANS_FLAGS)
    B.check_flag("diag", diag, B.DIAG_FLAGS)
    if n <= 0:
        return x
    xv = B.read_vector(x, n, incx)
    out = torch.zeros_like(xv)
    # which way the band's entries act: above the diagonal for (U, N) and (L, T), below otherwise
    above = (uplo == "U") == (trans == "N")
    for d, a in _band_diagonals(A, lda, n, k, uplo):
        a = a.conj() if trans == "C" else a
        if d == 0:
            out += xv if diag == "U" else a * xv
        elif above:
            out[: n - d] += a * xv[d:]
        else:
            out[d:] += a * xv[: n - d]
    B.write_vector(x, n, incx, out)
    return x


def triangular_operator(A, lda, n, uplo, trans, diag) -> torch.Tensor:
    """op(T) in the work dtype, T the triangular matrix trsv/trsm read from A."""
    return B.op(B.triangular_from(B.read_matrix(A, n, n, lda), uplo, diag), trans)


def cublasStrsv_v2(uplo, trans, diag, n, A, lda, x, incx):
    if n <= 0:
        return x
    matrix = triangular_operator(A, lda, n, uplo, trans, diag)
    upper = (uplo == "U") == (trans == "N")
    solution = torch.linalg.solve_triangular(matrix, B.read_vector(x, n, incx)[:, None], upper=upper)
    B.write_vector(x, n, incx, solution[:, 0])
    return x


def cublasCgemv_v2(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    return _gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy)


def cublasDgemv_v2(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    return _gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy)


def cublasCgemvStridedBatched(
    trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount
):
    return _gemv_strided(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount)


def cublasDgemvStridedBatched(
    trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount
):
    return _gemv_strided(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount)


def cublasSgemvStridedBatched(
    trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount
):
    return _gemv_strided(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount)


def cublasZgemvStridedBatched(
    trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount
):
    return _gemv_strided(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount)


def cublasDgemvBatched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount):
    return _gemv_batched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount)


def cublasSgemvBatched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount):
    return _gemv_batched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount)


def cublasZgemvBatched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount):
    return _gemv_batched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount)


def cublasCgemvBatched_64(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount):
    return _gemv_batched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount)


def cublasCgeru_v2(m, n, alpha, x, incx, y, incy, A, lda):
    return _ger(False)(m, n, alpha, x, incx, y, incy, A, lda)


def cublasSger_v2(m, n, alpha, x, incx, y, incy, A, lda):
    return _ger(False)(m, n, alpha, x, incx, y, incy, A, lda)


def cublasZgerc_v2(m, n, alpha, x, incx, y, incy, A, lda):
    return _ger(True)(m, n, alpha, x, incx, y, incy, A, lda)


# ---------------------------------------------------------------------------- inputs


def _matrix(rng: Rng, ld: int, cols: int, dtype: str, nan: bool = False, rows: int | None = None) -> torch.Tensor:
    """A column-major ld x cols buffer (see _blas.column_major_buffer)."""
    return B.column_major_buffer(rng, rows if rows is not None else ld, cols, ld, dtype, nan=nan)


def _vec(rng: Rng, n: int, inc: int, dtype: str, nan: bool = False) -> torch.Tensor:
    t = B.randn(rng, n * abs(inc) if n > 0 else 1, dtype)
    return B.nan_fill(t) if nan else t


def _gemv_lengths(case: dict) -> tuple[int, int]:
    return (case["n"], case["m"]) if case["trans"] == "N" else (case["m"], case["n"])


def _scalars(case: dict, *names: str) -> Inputs:
    return {k: case[k] for k in names if k in case}


def _gemv_inputs(dtype: str) -> Callable[[dict, Rng], Inputs]:
    def make(case: dict, rng: Rng) -> Inputs:
        m, n = case["m"], case["n"]
        len_x, len_y = _gemv_lengths(case)
        lda = case.get("lda", max(1, m))
        return {
            **_scalars(case, "trans", "m", "n", "alpha", "beta", "incx", "incy"),
            "lda": lda,
            "A": _matrix(rng, lda, n, dtype, case.get("nan_A", False), rows=m),
            "x": _vec(rng, len_x, case["incx"], dtype, case.get("nan_A", False)),
            "y": _vec(rng, len_y, case["incy"], dtype, case.get("nan_y", False)),
        }

    return make


def _strided_inputs(dtype: str) -> Callable[[dict, Rng], Inputs]:
    def make(case: dict, rng: Rng) -> Inputs:
        m, n, batch = case["m"], case["n"], case["batchCount"]
        len_x, len_y = _gemv_lengths(case)
        lda = case.get("lda", max(1, m))
        stride_a = case.get("strideA", lda * n)
        stride_x, stride_y = case.get("stridex", len_x), case.get("stridey", len_y)

        def vectors(stride: int, length: int, nan: bool = False) -> torch.Tensor:
            # upstream's (batch, length) tensor when packed, else a flat buffer
            shape = (
                (batch, length)
                if stride == length and batch > 0 and length > 0
                else (max(stride * (batch - 1) + length, 1),)
            )
            t = rng.randn(shape, dtype)
            return B.nan_fill(t) if nan else t

        return {
            **_scalars(case, "trans", "m", "n", "alpha", "beta", "batchCount"),
            "lda": lda,
            "strideA": stride_a,
            "incx": 1,
            "stridex": stride_x,
            "incy": 1,
            "stridey": stride_y,
            "A": B.strided_batch_buffer(rng, batch, m, n, lda, stride_a, dtype, nan=case.get("nan_A", False)),
            "x": vectors(stride_x, len_x, case.get("nan_A", False)),
            "y": vectors(stride_y, len_y, case.get("nan_y", False)),
        }

    return make


def _batched_inputs(dtype: str) -> Callable[[dict, Rng], Inputs]:
    def make(case: dict, rng: Rng) -> Inputs:
        m, n, batch = case["m"], case["n"], case["batchCount"]
        len_x, len_y = _gemv_lengths(case)
        lda = case.get("lda", max(1, m))
        listed = max(batch, 1)  # batchCount 0 still hands over a pointer array (one entry, never touched)
        return {
            **_scalars(case, "trans", "m", "n", "alpha", "beta", "incx", "incy", "batchCount"),
            "lda": lda,
            "Aarray": [_matrix(rng, lda, n, dtype, rows=m) for _ in range(listed)],
            "xarray": [_vec(rng, len_x, case["incx"], dtype) for _ in range(listed)],
            "yarray": [_vec(rng, len_y, case["incy"], dtype, case.get("nan_y", False)) for _ in range(listed)],
        }

    return make


# ---------------------------------------------------------------------------- written regions and costs


def _y_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    m, n = inputs["m"], inputs["n"]
    past_batch = index is not None and index >= inputs["batchCount"]  # a list entry beyond batchCount
    if m <= 0 or n <= 0 or (inputs["alpha"] == 0 and inputs["beta"] == 1) or past_batch:
        return mask
    len_y = m if inputs["trans"] == "N" else n
    for b in range(inputs.get("batchCount", 1) if "stridey" in inputs else 1):
        B.mark_vector(mask, len_y, inputs["incy"], b * inputs.get("stridey", 0))
    return mask


def _gemv_cost(dtype: str) -> Callable[[dict, Inputs], Cost]:
    def cost(case: dict, inputs: Inputs) -> Cost:
        m, n, batch = case["m"], case["n"], case.get("batchCount", 1)
        reads_y = 1 if case["beta"] != 0 else 0
        len_x, len_y = _gemv_lengths(case)
        if case["alpha"] == 0:  # y = beta * y: A and x are not read
            return B.cost(1.0 * len_y * batch * reads_y, batch * len_y * (1 + reads_y), dtype)
        a_reads = 1 if case.get("strideA", 1) == 0 else batch  # a zero stride shares one A: read once
        return B.cost(2.0 * m * n * batch, a_reads * m * n + batch * (len_x + len_y * (1 + reads_y)), dtype)

    return cost


def _gemv_reduce(case: dict) -> int:
    return max(1, _gemv_lengths(case)[0])


def _gemv_compare(name: str, dtype: str, params: tuple[str, ...], batched: bool = False):
    """float32 / complex64: the fp32 accumulation bound TF32 fails (tolerance.compare_accumulated);
    other dtypes: None (the dtype tolerance with atol = 1e-4 x reduction length)."""
    if dtype not in ("float32", "complex64"):
        return None
    factors = ("Aarray", "xarray") if batched else ("A", "x")
    output = "yarray" if batched else "y"
    return B.accumulated_compare(
        (output,), _y_written, _gemv_reduce, globals()[name], params, factors=factors, addend=output
    )


GEMV_PARAMS = ("trans", "m", "n", "alpha", "A", "lda", "x", "incx", "beta", "y", "incy")
STRIDED_PARAMS = (
    "trans",
    "m",
    "n",
    "alpha",
    "A",
    "lda",
    "strideA",
    "x",
    "incx",
    "stridex",
    "beta",
    "y",
    "incy",
    "stridey",
    "batchCount",
)
BATCHED_PARAMS = ("trans", "m", "n", "alpha", "Aarray", "lda", "xarray", "incx", "beta", "yarray", "incy", "batchCount")
GEMV_DESCRIPTION = "y = alpha*op(A)*x + beta*y with A an m x n column-major matrix (lda), op by trans"

GEMV_SMOKE = [
    {"trans": "N", "m": 13, "n": 9, "alpha": 0.75, "beta": 0.5, "incx": 1, "incy": 1},
    {"trans": "T", "m": 11, "n": 7, "alpha": -1.25, "beta": 0.0, "incx": 2, "incy": 3},
]
GEMV_EDGE = [
    {"trans": "N", "m": 9, "n": 6, "alpha": 0.5, "beta": 0.5, "incx": -1, "incy": -2},
    {"trans": "T", "m": 10, "n": 5, "alpha": 1.5, "beta": 0.0, "incx": 1, "incy": 1, "lda": 13, "nan_y": True},
    {"trans": "N", "m": 8, "n": 7, "alpha": 0.0, "beta": 2.0, "incx": 1, "incy": 1, "nan_A": True},
    {"trans": "N", "m": 0, "n": 5, "alpha": 1.0, "beta": 0.5, "incx": 1, "incy": 1},
    {"trans": "T", "m": 6, "n": 0, "alpha": 1.0, "beta": 0.5, "incx": 1, "incy": 1},
]
GEMV_PERF = [
    {"trans": "N", "m": 4096, "n": 4096, "alpha": 1.0, "beta": 0.0, "incx": 1, "incy": 1},
    {"trans": "T", "m": 14336, "n": 4096, "alpha": 1.0, "beta": 1.0, "incx": 1, "incy": 1},
]


def _complex_cases(cases: list[dict], dtype: str) -> list[dict]:
    """Edge/smoke scalars as complex for complex routines (alpha and beta are Python complex there)."""
    if not dtype.startswith("complex"):
        return cases
    return [
        {**c, "alpha": complex(c["alpha"], 0.25 if c["alpha"] != 0 else 0.0), "beta": complex(c["beta"])} for c in cases
    ]


GEMV_TOLERANCE = {
    "float64": "upstream's: assert_close(y, y_cublas, float64) with no reduction length, atol 1e-4, rtol 1e-5, "
    "on the elements gemv writes (the others bit-exact).",
    "complex64": "upstream's assert_close(y, y_cublas, complex64) (atol 1e-4, rtol 1.3e-6, on the elements "
    "gemv writes) and the fp32 accumulation bound of operators.tolerance (which rejects TF32) together, on "
    "reductions up to upstream's K = 128; the bound alone on the perf shapes (K = 4096, 14336), which upstream "
    "never runs. Measured: real cuBLAS on the H200 meets this on all 1152 full cases "
    "(bench/results/h200-2026-12-02-vllm-tolerance/cublas_complex_vendor.md); alone, our bound allowed up to "
    "4.6x upstream's allowance on some full-tier elements (a CPU comparison of the two bounds against the "
    "complex128 y, seed 0); the honest fp32 gemv emulation of tests/operators/test_precision.py fails upstream's "
    "rule on both perf cases (275 and 2042 of 4096 elements).",
}


# upstream's Cgemv grid has m, n <= 128: its rule holds honest fp32 sums there, not at the perf shapes' K
CGEMV_UPSTREAM_MAX_K = 128


def _cgemv_compare():
    """Cgemv: upstream's rule (atol 1e-4, rtol 1.3e-6 on the written elements) and the fp32 accumulation
    bound together on reductions as long as upstream's (K <= 128); the bound alone beyond them."""
    upstream = B.masked_compare(("y",), _y_written, lambda case: 1)
    bound = _gemv_compare("cublasCgemv_v2", "complex64", GEMV_PARAMS)
    both = B.both_compare(upstream, bound)

    def compare(out: Any, ref: Any, case: dict, inputs: Inputs) -> Comparison:
        return (both if _gemv_reduce(case) <= CGEMV_UPSTREAM_MAX_K else bound)(out, ref, case, inputs)

    return compare


def _gemv_spec(name: str, dtype: str, full: list[dict]) -> OperatorSpec:
    return B.blas_spec(
        name=name,
        category="blas2",
        params=GEMV_PARAMS,
        outputs=("y",),
        reference_impl=globals()[name],
        description=f"BLAS gemv ({dtype}): {GEMV_DESCRIPTION}; y (length m for 'N', n otherwise, increment incy) "
        "is written in place.",
        cases={
            "smoke": _complex_cases(GEMV_SMOKE, dtype),
            "full": full,
            "edge": _complex_cases(GEMV_EDGE, dtype),
            "perf": _complex_cases(GEMV_PERF, dtype),
        },
        make_inputs=_gemv_inputs(dtype),
        written=_y_written,
        # upstream's assert_close(y, y_cublas, dtype) without a reduction length (atol 1e-4); complex64 must
        # also meet the fp32 accumulation bound over K (_gemv_compare), the catalog's rule against TF32
        reduce_dim=lambda case: 1,
        compare=_cgemv_compare() if dtype == "complex64" else None,
        cost_model=_gemv_cost(dtype),
        vendor=vendor_for(name),
        tolerance_note=GEMV_TOLERANCE[dtype],
    )


STRIDED_GRID_MN = [(1, 1), (16, 16), (32, 64), (64, 32), (128, 64), (256, 128), (17, 33), (128, 128), (256, 256)]
REAL_STRIDED_AB = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (-1.0, 1.0), (2.0, -0.5), (0.001, 0.999)]
COMPLEX_STRIDED_AB = [
    (1 + 0j, 0j),
    (0j, 1 + 0j),
    (1 + 0.5j, 0j),
    (0.5 + 0.3j, 0.5 - 0.2j),
    (-1 + 0j, 1 + 0j),
    (0.001 + 0.001j, 0.999 - 0.999j),
]


def _mn_ab(mn: list[tuple[int, int]], ab: list[tuple], **axes) -> list[dict]:
    return [
        {"m": m, "n": n, "alpha": a, "beta": b, **rest} for (m, n) in mn for (a, b) in ab for rest in product(**axes)
    ]


def _strided_spec(name: str, dtype: str) -> OperatorSpec:
    ab = COMPLEX_STRIDED_AB if dtype.startswith("complex") else REAL_STRIDED_AB
    smoke = [{**c, "batchCount": 3, "incx": 1, "incy": 1} for c in GEMV_SMOKE]
    edge = [
        {
            "trans": "N",
            "m": 9,
            "n": 7,
            "alpha": 0.5,
            "beta": 0.0,
            "batchCount": 3,
            "lda": 12,
            "strideA": 100,
            "stridex": 9,
            "stridey": 13,
            "nan_y": True,
        },
        {"trans": "T", "m": 8, "n": 6, "alpha": 1.5, "beta": 0.5, "batchCount": 4, "strideA": 0},
        {"trans": "N", "m": 7, "n": 5, "alpha": 0.0, "beta": 2.0, "batchCount": 2, "nan_A": True},
        {"trans": "N", "m": 7, "n": 5, "alpha": 1.0, "beta": 1.0, "batchCount": 0},
    ]
    perf = [{"trans": t, "m": 4096, "n": 128, "alpha": 1.0, "beta": 0.0, "batchCount": 64} for t in ("N", "T")]
    for c in smoke:
        c.pop("incx"), c.pop("incy")
    return B.blas_spec(
        name=name,
        category="blas2",
        params=STRIDED_PARAMS,
        outputs=("y",),
        reference_impl=globals()[name],
        description=f"BLAS gemvStridedBatched ({dtype}): for b < batchCount, {GEMV_DESCRIPTION}, with A, x, y of "
        "problem b starting b*strideA, b*stridex, b*stridey elements into their buffers; y written in place.",
        cases={
            "smoke": _complex_cases(smoke, dtype),
            "full": _mn_ab(STRIDED_GRID_MN, ab, trans=["N", "T"], batchCount=[1, 2, 4, 8]),
            "edge": _complex_cases(edge, dtype),
            "perf": _complex_cases(perf, dtype),
        },
        make_inputs=_strided_inputs(dtype),
        written=_y_written,
        reduce_dim=_gemv_reduce,
        compare=_gemv_compare(name, dtype, STRIDED_PARAMS),
        cost_model=_gemv_cost(dtype),
        vendor=vendor_for(name),
    )


def _batched_spec(name: str, dtype: str, full: list[dict]) -> OperatorSpec:
    smoke = [{**c, "batchCount": 3} for c in GEMV_SMOKE]
    edge = [
        {
            "trans": "T",
            "m": 9,
            "n": 6,
            "alpha": 0.5,
            "beta": 0.0,
            "incx": -1,
            "incy": 2,
            "batchCount": 3,
            "lda": 11,
            "nan_y": True,
        },
        {"trans": "N", "m": 5, "n": 8, "alpha": 1.0, "beta": 1.0, "incx": 1, "incy": 1, "batchCount": 0},
    ]
    perf = [
        {"trans": t, "m": 4096, "n": 128, "alpha": 1.0, "beta": 0.0, "incx": 1, "incy": 1, "batchCount": 64}
        for t in ("N", "T")
    ]
    return B.blas_spec(
        name=name,
        category="blas2",
        params=BATCHED_PARAMS,
        outputs=("yarray",),
        reference_impl=globals()[name],
        description=f"BLAS gemvBatched ({dtype}): for b < batchCount, {GEMV_DESCRIPTION}, on the b-th buffers "
        "of the pointer arrays Aarray, xarray, yarray; each yarray[b] is written in place.",
        cases={
            "smoke": _complex_cases(smoke, dtype),
            "full": full,
            "edge": _complex_cases(edge, dtype),
            "perf": _complex_cases(perf, dtype),
        },
        make_inputs=_batched_inputs(dtype),
        written=_y_written,
        reduce_dim=_gemv_reduce,
        compare=_gemv_compare(name, dtype, BATCHED_PARAMS, batched=True),
        cost_model=_gemv_cost(dtype),
        vendor=vendor_for(name),
        pointer_arrays=("Aarray", "xarray", "yarray"),
    )


SMALL_BATCHED_GRID = _mn_ab(
    [(16, 16), (64, 128), (128, 256), (256, 256), (17, 33)],
    [(1.0, 0.0), (0.5, 0.5), (-1.0, 1.0)],
    trans=["N", "T"],
    batchCount=[1, 2, 4],
    incx=[1],
    incy=[1],
)
SGEMV_BATCHED_GRID = _mn_ab(
    [
        (1, 1),
        (1, 32),
        (32, 1),
        (16, 16),
        (32, 64),
        (64, 128),
        (128, 64),
        (128, 128),
        (128, 256),
        (256, 128),
        (256, 256),
        (17, 33),
        (33, 17),
        (71, 497),
        (497, 71),
        (1024, 4096),
        (4096, 1024),
        (5333, 5333),
    ],
    [
        (1.0, 0.0),
        (0.0, 1.0),
        (0.5, 0.5),
        (-1.0, 1.0),
        (1.0, 0.5),
        (0.001, 0.999),
        (-0.999, -1.0),
        (100.001, 0.0),
        (0.5, -0.5),
    ],
    trans=["N", "T"],
    batchCount=[1, 2, 4, 8],
    incx=[1, 2, 3],
    incy=[1, 2, 3],
)


# ---------------------------------------------------------------------------- ger / syr2 / symv / sbmv


def _ger_inputs(dtype: str) -> Callable[[dict, Rng], Inputs]:
    def make(case: dict, rng: Rng) -> Inputs:
        m, n = case["m"], case["n"]
        lda = case.get("lda", max(1, m))
        return {
            **_scalars(case, "m", "n", "alpha", "incx", "incy"),
            "lda": lda,
            "x": _vec(rng, m, case["incx"], dtype, case.get("nan_x", False)),
            "y": _vec(rng, n, case["incy"], dtype, case.get("nan_x", False)),
            "A": _matrix(rng, lda, n, dtype),
        }

    return make


def _ger_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    if inputs["alpha"] != 0:
        B.mark_matrix(mask, inputs["m"], inputs["n"], inputs["lda"])
    return mask


def _ger_cost(dtype: str) -> Callable[[dict, Inputs], Cost]:
    def cost(case: dict, inputs: Inputs) -> Cost:
        m, n = case["m"], case["n"]
        return B.cost(2.0 * m * n, 2 * m * n + m + n, dtype)

    return cost


GER_SMOKE = [
    {"m": 13, "n": 9, "alpha": 0.75, "incx": 1, "incy": 1},
    {"m": 7, "n": 12, "alpha": -1.5, "incx": 2, "incy": 3},
]
GER_EDGE = [
    {"m": 9, "n": 6, "alpha": 0.5, "incx": -1, "incy": -2, "lda": 12},
    {"m": 8, "n": 5, "alpha": 0.0, "incx": 1, "incy": 1, "nan_x": True},
    {"m": 0, "n": 5, "alpha": 1.0, "incx": 1, "incy": 1},
]
GER_PERF = [
    {"m": 4096, "n": 4096, "alpha": 1.0, "incx": 1, "incy": 1},
    {"m": 14336, "n": 4096, "alpha": 0.5, "incx": 1, "incy": 1},
]


def _ger_spec(name: str, dtype: str, full: list[dict], conj: bool) -> OperatorSpec:
    def cplx(cases: list[dict]) -> list[dict]:
        if not dtype.startswith("complex"):
            return cases
        return [{**c, "alpha": complex(c["alpha"], 0.5 if c["alpha"] != 0 else 0.0)} for c in cases]

    yform = "conj(y)^T" if conj else "y^T"
    return B.blas_spec(
        name=name,
        category="blas2",
        params=("m", "n", "alpha", "x", "incx", "y", "incy", "A", "lda"),
        outputs=("A",),
        reference_impl=globals()[name],
        description=f"BLAS rank-1 update ({dtype}): A = alpha*x*{yform} + A, A an m x n column-major matrix "
        "(lda) updated in place; alpha == 0 leaves A unchanged.",
        cases={"smoke": cplx(GER_SMOKE), "full": full, "edge": cplx(GER_EDGE), "perf": cplx(GER_PERF)},
        make_inputs=_ger_inputs(dtype),
        written=_ger_written,
        cost_model=_ger_cost(dtype),
        vendor=vendor_for(name),
    )


def _square_ger_grid(alphas: list) -> list[dict]:
    return [
        {"m": n, "n": n, "alpha": a, "incx": i, "incy": i}
        for n in [1, 32, 71, 1024, 4096, 5333]
        for a in alphas
        for i in (1, 2)
    ]


def _syr2_inputs(case: dict, rng: Rng) -> Inputs:
    n = case["n"]
    lda = case.get("lda", max(1, n))
    return {
        **_scalars(case, "uplo", "n", "alpha", "incx", "incy"),
        "lda": lda,
        "x": _vec(rng, n, case["incx"], "float64"),
        "y": _vec(rng, n, case["incy"], "float64"),
        "A": _matrix(rng, lda, n, "float64"),
    }


def _syr2_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    if inputs["alpha"] != 0:
        B.mark_triangle(mask, inputs["n"], inputs["lda"], inputs["uplo"])
    return mask


def _symv_inputs(case: dict, rng: Rng) -> Inputs:
    n = case["n"]
    lda = case.get("lda", max(1, n))
    a = _matrix(rng, lda, n, "complex64")
    if case.get("garbage") == "nan":  # the triangle BLAS must not read
        view = B.matrix_view(a, n, n, lda)
        view.masked_fill_(B.triangle_mask(n, "L" if case["uplo"] == "U" else "U", a.device, strict=True), float("nan"))
    else:  # upstream: a symmetric matrix, A = (M + M^T)/2
        view = B.matrix_view(a, n, n, lda)
        view.copy_(0.5 * (view + view.transpose(0, 1)))
    return {
        **_scalars(case, "uplo", "n", "alpha", "beta", "incx", "incy"),
        "lda": lda,
        "A": a,
        "x": _vec(rng, n, case["incx"], "complex64"),
        "y": _vec(rng, n, case["incy"], "complex64", case.get("nan_y", False)),
    }


def _square_y_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    if inputs["n"] > 0 and not (inputs.get("alpha", 1) == 0 and inputs.get("beta", 0) == 1):
        B.mark_vector(mask, inputs["n"], inputs["incy" if "incy" in inputs else "incx"])
    return mask


def _sbmv_inputs(case: dict, rng: Rng) -> Inputs:
    n, k = case["n"], case["k"]
    lda = case.get("lda", k + 1)
    band = _matrix(rng, lda, n, "float64")
    view = B.matrix_view(band, lda, n, lda)
    # entries of the band buffer BLAS never reads: zero upstream, NaN in the edge tier
    unused = torch.zeros(lda, n, dtype=torch.bool)
    for d in range(k + 1):
        if case["uplo"] == "U":
            unused[k - d, :d] = True
        else:
            unused[d, n - d :] = True
    unused[k + 1 :, :] = True
    view.masked_fill_(unused.to(band.device), float("nan") if case.get("garbage") == "nan" else 0.0)
    return {
        **_scalars(case, "uplo", "n", "k", "alpha", "beta", "incx", "incy"),
        "lda": lda,
        "A": band,
        "x": _vec(rng, n, case["incx"], "float64"),
        "y": _vec(rng, n, case["incy"], "float64"),
    }


def _tbmv_inputs(case: dict, rng: Rng) -> Inputs:
    inputs = _sbmv_inputs({**case, "alpha": 1.0, "beta": 0.0, "incy": 1}, rng)
    band = inputs["A"].to(torch.float32)
    if case["diag"] == "U":  # the unit diagonal is not read: upstream sets 1, the edge tier NaN
        row = case["k"] if case["uplo"] == "U" else 0
        B.matrix_view(band, case.get("lda", case["k"] + 1), case["n"], case.get("lda", case["k"] + 1))[row].fill_(
            float("nan") if case.get("garbage") == "nan" else 1.0
        )
    return {
        **_scalars(case, "uplo", "trans", "diag", "n", "k", "incx"),
        "lda": inputs["lda"],
        "A": band,
        "x": _vec(rng, case["n"], case["incx"], "float32"),
    }


def well_conditioned_triangular(
    rng: Rng,
    n: int,
    lda: int,
    uplo: str,
    diag: str,
    dtype: str,
    garbage: str | None,
    *,
    offset_scale: float | None = None,
) -> torch.Tensor:
    """A column-major lda x n buffer whose `uplo` triangle is diagonally dominant (off-diagonal entries
    ~ N(0, 1)/n, diagonal 1.5..2.5 with random sign), so triangular solves are well conditioned; the other
    triangle holds random values (or NaN, as does the diagonal when diag='U', for garbage='nan')."""
    a = _matrix(rng, lda, n, dtype)
    view = B.matrix_view(a, n, n, lda)
    scale = offset_scale if offset_scale is not None else 1.0 / max(n, 1)
    off = rng.randn((n, n), dtype) * scale
    dvals = (rng.uniform((n,), 1.5, 2.5) * torch.where(rng.bernoulli((n,)), 1.0, -1.0)).to(view.dtype)
    strict = B.triangle_mask(n, uplo, a.device, strict=True)
    eye = torch.eye(n, dtype=torch.bool, device=a.device)
    view.copy_(torch.where(strict, off, view))
    view.copy_(torch.where(eye, torch.diag(dvals), view))
    if garbage == "nan":
        other = ~B.triangle_mask(n, uplo, a.device)
        if diag == "U":
            other = other | eye
        view.masked_fill_(other, float("nan"))
    return a


def _trsv_inputs(case: dict, rng: Rng) -> Inputs:
    n = case["n"]
    lda = case.get("lda", max(1, n))
    return {
        **_scalars(case, "uplo", "trans", "diag", "n", "incx"),
        "lda": lda,
        "A": well_conditioned_triangular(rng, n, lda, case["uplo"], case["diag"], "float32", case.get("garbage")),
        "x": _vec(rng, n, case["incx"], "float32"),
    }


def _x_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    B.mark_vector(mask, inputs["n"], inputs["incx"])
    return mask


def _trsv_cost(case: dict, inputs: Inputs) -> Cost:
    n = case["n"]
    return B.cost(1.0 * n * n, n * (n + 1) / 2 + 2 * n, "float32")


def _tbmv_cost(case: dict, inputs: Inputs) -> Cost:
    n, k = case["n"], case["k"]
    return B.cost(2.0 * n * (k + 1), n * (k + 1) + 2 * n, "float32")


SPECS: list[OperatorSpec] = [
    _gemv_spec(
        "cublasCgemv_v2",
        "complex64",
        [
            {**c, "alpha": complex(c["alpha"]), "beta": complex(c["beta"])}
            for c in product(
                m=[1, 16, 64, 128],
                n=[1, 16, 64, 128],
                trans=["N", "T", "C"],
                alpha=[1.0, 0.0, -0.5 + 0.5j],
                beta=[1.0, 0.0],
                incx=[1, 2],
                incy=[1, 2],
            )
        ],
    ),
    _gemv_spec(
        "cublasDgemv_v2",
        "float64",
        _mn_ab(
            [(16, 16), (64, 128), (128, 256), (256, 256), (17, 33)],
            [(1.0, 0.0), (0.5, 0.5), (-1.0, 1.0)],
            trans=["N", "T"],
            incx=[1],
            incy=[1],
        ),
    ),
    _strided_spec("cublasCgemvStridedBatched", "complex64"),
    _strided_spec("cublasDgemvStridedBatched", "float64"),
    _strided_spec("cublasSgemvStridedBatched", "float32"),
    _strided_spec("cublasZgemvStridedBatched", "complex128"),
    _batched_spec("cublasDgemvBatched", "float64", SMALL_BATCHED_GRID),
    _batched_spec("cublasSgemvBatched", "float32", SGEMV_BATCHED_GRID),
    _batched_spec(
        "cublasZgemvBatched",
        "complex128",
        [{**c, "alpha": complex(c["alpha"]), "beta": complex(c["beta"])} for c in SMALL_BATCHED_GRID],
    ),
    _batched_spec(
        "cublasCgemvBatched_64",
        "complex64",
        [{**c, "alpha": complex(c["alpha"]), "beta": complex(c["beta"])} for c in SMALL_BATCHED_GRID],
    ),
    _ger_spec(
        "cublasSger_v2",
        "float32",
        product(
            m=[1, 32, 71, 160, 497, 1024, 4096, 5333],
            n=[1, 17, 32, 33, 71, 160, 497, 1024, 4096, 4113, 5333],
            alpha=[1.0, 0.0, 0.001, -0.999, 100.001, -111.999, 0.5, -0.5, -1.0],
            incx=[1, 2, 3],
            incy=[1, 2, 3],
        ),
        False,
    ),
    _ger_spec(
        "cublasCgeru_v2", "complex64", _square_ger_grid([1.0 + 0j, 0j, -0.999 + 0j, 0.5 + 0j, 100.001 + 0j]), False
    ),
    _ger_spec(
        "cublasZgerc_v2", "complex128", _square_ger_grid([1.0 + 0j, 0j, -0.999 + 0j, 0.5 + 0j, 100.001 + 0j]), True
    ),
    B.blas_spec(
        name="cublasDsyr2_v2",
        category="blas2",
        params=("uplo", "n", "alpha", "x", "incx", "y", "incy", "A", "lda"),
        outputs=("A",),
        reference_impl=cublasDsyr2_v2,
        description="BLAS symmetric rank-2 update (float64): A = alpha*(x*y^T + y*x^T) + A on the `uplo` triangle "
        "of the n x n column-major A (lda) only; the other triangle is neither read nor written.",
        cases={
            "smoke": [
                {"uplo": "U", "n": 13, "alpha": 0.75, "incx": 1, "incy": 1},
                {"uplo": "L", "n": 9, "alpha": -1.5, "incx": 2, "incy": 2},
            ],
            "full": [
                {"uplo": "U", "n": n, "alpha": a, "incx": i, "incy": i}
                for n in [1, 32, 71, 1024, 4096, 5333]
                for a in [1.0, 0.0, -0.999, 0.5, 100.001]
                for i in (1, 2)
            ],
            "edge": [
                {"uplo": "L", "n": 11, "alpha": 0.5, "incx": -1, "incy": 2, "lda": 14},
                {"uplo": "U", "n": 0, "alpha": 1.0, "incx": 1, "incy": 1},
            ],
            "perf": [{"uplo": u, "n": 8192, "alpha": 0.5, "incx": 1, "incy": 1} for u in ("U", "L")],
        },
        make_inputs=_syr2_inputs,
        written=_syr2_written,
        cost_model=lambda case, inputs: B.cost(2.0 * case["n"] ** 2, case["n"] ** 2 + 2 * case["n"], "float64"),
        vendor=vendor_for("cublasDsyr2_v2"),
        integer_flags=True,
    ),
    B.blas_spec(
        name="cublasCsymv_v2",
        category="blas2",
        params=("uplo", "n", "alpha", "A", "lda", "x", "incx", "beta", "y", "incy"),
        outputs=("y",),
        reference_impl=cublasCsymv_v2,
        description="BLAS symmetric matrix-vector product (complex64, symmetric, not Hermitian): y = alpha*A*x + "
        "beta*y, where A is n x n column-major (lda) and only its `uplo` triangle is read; y written in place.",
        cases={
            "smoke": [
                {"uplo": "L", "n": 13, "alpha": 0.75 + 0.25j, "beta": 0.5 + 0j, "incx": 1, "incy": 1},
                {"uplo": "U", "n": 9, "alpha": -1.5 + 0j, "beta": 0j, "incx": 2, "incy": 1},
            ],
            "full": [
                {"uplo": "L", "n": n, "alpha": complex(a), "beta": 0.5 + 0j, "incx": i, "incy": 1}
                for n in [1, 32, 71, 1024, 4096, 5333]
                for a in [1.0, 0.0, -0.999, 0.5, 100.001]
                for i in (1, 2)
            ],
            "edge": [
                {
                    "uplo": "U",
                    "n": 11,
                    "alpha": 0.5 + 0.5j,
                    "beta": 0.5 + 0j,
                    "incx": -1,
                    "incy": 2,
                    "lda": 14,
                    "garbage": "nan",
                },
                {
                    "uplo": "L",
                    "n": 10,
                    "alpha": 1.0 + 0j,
                    "beta": 0j,
                    "incx": 1,
                    "incy": 1,
                    "nan_y": True,
                    "garbage": "nan",
                },
                {"uplo": "L", "n": 0, "alpha": 1.0 + 0j, "beta": 0.5 + 0j, "incx": 1, "incy": 1},
            ],
            "perf": [{"uplo": "L", "n": 8192, "alpha": 1.0 + 0j, "beta": 0j, "incx": 1, "incy": 1}],
        },
        make_inputs=_symv_inputs,
        written=_square_y_written,
        reduce_dim=lambda case: max(1, case["n"]),
        cost_model=lambda case, inputs: B.cost(2.0 * case["n"] ** 2, case["n"] ** 2 / 2 + 3 * case["n"], "complex64"),
        vendor=vendor_for("cublasCsymv_v2"),
        integer_flags=True,
    ),
    B.blas_spec(
        name="cublasDsbmv_v2",
        category="blas2",
        params=("uplo", "n", "k", "alpha", "A", "lda", "x", "incx", "beta", "y", "incy"),
        outputs=("y",),
        reference_impl=cublasDsbmv_v2,
        description="BLAS symmetric band matrix-vector product (float64): y = alpha*A*x + beta*y, A n x n "
        "symmetric with k super-diagonals in band storage (column-major lda >= k+1 rows; upper: A(i,j) at row "
        "k+i-j of column j, lower: at row i-j); y written in place.",
        cases={
            "smoke": [
                {"uplo": "U", "n": 13, "k": 2, "alpha": 0.75, "beta": -0.75, "incx": 1, "incy": 1},
                {"uplo": "L", "n": 9, "k": 3, "alpha": -1.5, "beta": 0.5, "incx": 2, "incy": 2},
            ],
            "full": [
                {"uplo": "U", "n": n, "k": 2, "alpha": a, "beta": -0.75, "incx": i, "incy": i}
                for n in [1, 32, 71, 1024, 4096, 5333]
                for a in [1.0, 0.0, -0.999, 0.5, 100.001]
                for i in (1, 2)
            ],
            "edge": [
                {
                    "uplo": "L",
                    "n": 12,
                    "k": 3,
                    "alpha": 0.5,
                    "beta": 0.5,
                    "incx": -1,
                    "incy": 2,
                    "lda": 6,
                    "garbage": "nan",
                },
                {"uplo": "U", "n": 10, "k": 4, "alpha": 1.0, "beta": 0.5, "incx": 1, "incy": -1, "garbage": "nan"},
                {"uplo": "U", "n": 0, "k": 2, "alpha": 1.0, "beta": 0.5, "incx": 1, "incy": 1},
            ],
            "perf": [{"uplo": "U", "n": 1 << 20, "k": 16, "alpha": 1.0, "beta": 0.5, "incx": 1, "incy": 1}],
        },
        make_inputs=_sbmv_inputs,
        written=_square_y_written,
        reduce_dim=lambda case: 2 * case["k"] + 1,
        cost_model=lambda case, inputs: B.cost(
            2.0 * case["n"] * (2 * case["k"] + 1), case["n"] * (case["k"] + 4), "float64"
        ),
        vendor=vendor_for("cublasDsbmv_v2"),
        integer_flags=True,
    ),
    B.blas_spec(
        name="cublasStbmv_v2",
        category="blas2",
        params=("uplo", "trans", "diag", "n", "k", "A", "lda", "x", "incx"),
        outputs=("x",),
        reference_impl=cublasStbmv_v2,
        description="BLAS triangular band matrix-vector product (float32): x = op(A)*x in place, A n x n "
        "triangular (`uplo`) with k off-diagonals in band storage (column-major lda >= k+1 rows; upper: A(i,j) "
        "at row k+i-j of column j, lower: at row i-j); diag='U' means a unit diagonal that is not read.",
        cases={
            "smoke": [
                {"uplo": "U", "trans": "N", "diag": "N", "n": 13, "k": 2, "incx": 1},
                {"uplo": "L", "trans": "T", "diag": "U", "n": 9, "k": 3, "incx": 2},
            ],
            "full": [
                {"uplo": u, "trans": t, "diag": d, "n": n, "k": min(k, max(0, n - 1)), "incx": i}
                for n in [1, 32, 71, 1024, 4096, 5333]
                for i in (1, 2)
                for u in ("L", "U")
                for t in ("N", "T")
                for d in ("N", "U")
                for k in (0, 2)
            ],
            "edge": [
                {"uplo": "L", "trans": "N", "diag": "U", "n": 12, "k": 3, "incx": -1, "lda": 6, "garbage": "nan"},
                {"uplo": "U", "trans": "T", "diag": "U", "n": 10, "k": 4, "incx": 2, "garbage": "nan"},
                {"uplo": "U", "trans": "N", "diag": "N", "n": 0, "k": 2, "incx": 1},
            ],
            "perf": [{"uplo": "U", "trans": "N", "diag": "N", "n": 1 << 20, "k": 32, "incx": 1}],
        },
        make_inputs=_tbmv_inputs,
        written=_x_written,
        reduce_dim=lambda case: 1,  # upstream: assert_close(x, x_cublas, float32), atol 1e-4, rtol 1e-5
        cost_model=_tbmv_cost,
        vendor=vendor_for("cublasStbmv_v2"),
        integer_flags=True,
        tolerance_note="upstream's: assert_close(x, x_cublas, float32) with no reduction length (atol 1e-4, "
        "rtol 1e-5) on the n elements of x (previously atol 1e-4*(k+1)).",
    ),
    B.blas_spec(
        name="cublasStrsv_v2",
        category="blas2",
        params=("uplo", "trans", "diag", "n", "A", "lda", "x", "incx"),
        outputs=("x",),
        reference_impl=cublasStrsv_v2,
        description="BLAS triangular solve (float32): solves op(A)*x = b in place (x holds b on entry), A n x n "
        "column-major (lda), triangular by `uplo` (the other triangle is not read), diag='U': unit diagonal, "
        "not read. Checked by backward error (40*eps*n), not element-wise.",
        cases={
            "smoke": [
                {"uplo": "U", "trans": "N", "diag": "N", "n": 13, "incx": 1},
                {"uplo": "L", "trans": "T", "diag": "U", "n": 9, "incx": 2},
            ],
            "full": [
                {"uplo": u, "trans": t, "diag": d, "n": n, "incx": i}
                for n in [1, 32, 71, 1024, 4096, 5333]
                for i in (1, 2)
                for u in ("L", "U")
                for t in ("N", "T")
                for d in ("N", "U")
            ],
            "edge": [
                {"uplo": "L", "trans": "N", "diag": "U", "n": 12, "incx": -1, "lda": 15, "garbage": "nan"},
                {"uplo": "U", "trans": "T", "diag": "N", "n": 10, "incx": -2, "garbage": "nan"},
                {"uplo": "U", "trans": "N", "diag": "N", "n": 0, "incx": 1},
            ],
            "perf": [{"uplo": "L", "trans": "N", "diag": "N", "n": 8192, "incx": 1}],
        },
        make_inputs=_trsv_inputs,
        written=_x_written,
        reduce_dim=lambda case: 1,  # upstream: assert_close(x, x_cublas, float32), atol 1e-4, rtol 1e-5
        cost_model=_trsv_cost,
        vendor=vendor_for("cublasStrsv_v2"),
        integer_flags=True,
        tolerance_note="upstream's: assert_close(x, x_cublas, float32) elementwise (atol 1e-4, rtol 1e-5) on "
        "the n elements of x, against the float64 solution (previously a backward-error bound 40*eps*n, "
        "looser). An fp32 triangular solve of every full-tier system (torch.linalg.solve_triangular in float32) "
        "stays within 0.08x of it; the Triton reference solution passes its 64 cases with n <= 1024 on the "
        "interpreter (n = 4096, 5333 outrun the interpreter's time limit).",
    ),
]
