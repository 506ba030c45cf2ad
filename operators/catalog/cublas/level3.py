"""cuBLAS level-3 routines: the GEMM family (plain, Ex, strided-batched, batched, _64) and geam, dgmm,
symm, syrk/syrkEx, trsm, trsmBatched.

Grids: upstream `accuracy/cublas/test_<name>.py` (research/upstream_kgb.md §2.3: row-major torch tensors
passed as column-major buffers with lda = A.shape[0], ldc = M). Cases and references name flags by their BLAS
letters; a candidate is called as upstream's tests call it (_blas.make_invoke): geam, dgmm, symm, syrk,
syrkEx, trsm and trsmBatched get cuBLAS's integer enums (OP_N/T/C = 0/1/2, FILL_MODE_LOWER/UPPER = 0/1,
SIDE_LEFT/RIGHT = 0/1, DIAG_NON_UNIT/UNIT = 0/1), the gemm family its trans letters, and the batched
routines int64 device arrays of the buffers' addresses. The _64 variants have the same semantics with
64-bit integer arguments.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from operators.catalog.common import product
from operators.catalog.cublas import _blas as B
from operators.catalog.cublas._vendor import vendor_for
from operators.catalog.cublas.level2 import well_conditioned_triangular
from operators.spec import Comparison, Cost, Inputs, OperatorSpec, Rng
from operators.tolerance import widen

_B = B  # the helper module under a name that the BLAS parameter `B` of the routines below does not shadow

# ---------------------------------------------------------------------------- references


def _op_shape(trans: str, rows: int, cols: int) -> tuple[int, int]:
    """Stored shape of a matrix whose op(X) is rows x cols."""
    return (rows, cols) if B.check_flag("trans", trans, B.TRANS_FLAGS) == "N" else (cols, rows)


def _gemm_batched_views(transa, transb, m, n, k, A, lda, strideA, Bm, ldb, strideB, C, ldc, strideC, batch):
    a_rows, a_cols = _op_shape(transa, m, k)
    b_rows, b_cols = _op_shape(transb, k, n)
    a = B.batched_matrix_view(A, batch, a_rows, a_cols, lda, strideA)
    b = B.batched_matrix_view(Bm, batch, b_rows, b_cols, ldb, strideB)
    c = B.batched_matrix_view(C, batch, m, n, ldc, strideC)
    return a, b, c


def _gemm_strided(transa, transb, m, n, k, alpha, A, lda, strideA, Bm, ldb, strideB, beta, C, ldc, strideC, batchCount):
    """C_i = alpha*op(A_i)*op(B_i) + beta*C_i for i < batchCount, the matrices `stride` elements apart."""
    a, b, c = _gemm_batched_views(
        transa, transb, m, n, k, A, lda, strideA, Bm, ldb, strideB, C, ldc, strideC, batchCount
    )
    if batchCount <= 0 or m <= 0 or n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return C
    work = B.work_dtype(C.dtype)
    new = B.combine(
        alpha if k > 0 else 0,
        lambda: B.op(a.to(work), transa) @ B.op(b.to(work), transb),
        beta,
        lambda: c.to(work),
        (batchCount, m, n),
        C,
    )
    c.copy_(new.to(C.dtype))
    return C


def _gemm(transa, transb, m, n, k, alpha, A, lda, Bm, ldb, beta, C, ldc):
    return _gemm_strided(transa, transb, m, n, k, alpha, A, lda, 0, Bm, ldb, 0, beta, C, ldc, 0, 1)


def _gemm_batched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount):
    for i in range(batchCount):
        _gemm(transa, transb, m, n, k, alpha, Aarray[i], lda, Barray[i], ldb, beta, Carray[i], ldc)
    return Carray


def cublasSgemm_v2(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    return _gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


def cublasCgemm_v2(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    return _gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


def cublasSgemmEx(transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc):
    for name, tensor, code in (("Atype", A, Atype), ("Btype", B, Btype), ("Ctype", C, Ctype)):
        if _B.CUDA_DATA_TYPES.get(code) != tensor.dtype:
            raise ValueError(f"{name}={code} does not describe a {tensor.dtype} buffer")
    return _gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


def _strided_entry(name: str) -> Callable:
    def routine(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount):
        return _gemm_strided(
            transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount
        )

    routine.__name__ = routine.__qualname__ = name
    return routine


def _batched_entry(name: str) -> Callable:
    def routine(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount):
        return _gemm_batched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount)

    routine.__name__ = routine.__qualname__ = name
    return routine


def cublasSgeam(transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc):
    a_rows, a_cols = _op_shape(transa, m, n)
    b_rows, b_cols = _op_shape(transb, m, n)
    if m <= 0 or n <= 0:
        return C
    new = _B.combine(
        alpha,
        lambda: _B.op(_B.read_matrix(A, a_rows, a_cols, lda), transa),
        beta,
        lambda: _B.op(_B.read_matrix(B, b_rows, b_cols, ldb), transb),
        (m, n),
        C,
    )
    _B.matrix_view(C, m, n, ldc).copy_(new.to(C.dtype))
    return C


def cublasSdgmm(mode, m, n, A, lda, x, incx, C, ldc):
    _B.check_flag("mode", mode, _B.SIDE_FLAGS)
    if m <= 0 or n <= 0:
        return C
    length = m if mode == "L" else n
    if incx == 0:  # cuBLAS dgmm: incx == 0 scales by x[0] throughout
        xv = _B.read_vector(x, 1, 1).expand(length)
    else:  # |incx| is the stride, a negative incx walks x from its end
        xv = _B.read_vector(x, length, incx)
    a = _B.read_matrix(A, m, n, lda)
    new = xv[:, None] * a if mode == "L" else a * xv[None, :]
    _B.matrix_view(C, m, n, ldc).copy_(new.to(C.dtype))
    return C


def cublasCsymm_v2(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc):
    _B.check_flag("side", side, _B.SIDE_FLAGS)
    if m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return C
    size = m if side == "L" else n

    def product_() -> torch.Tensor:
        sym = _B.symmetric_from(_B.read_matrix(A, size, size, lda), uplo)
        b = _B.read_matrix(B, m, n, ldb)
        return sym @ b if side == "L" else b @ sym

    new = _B.combine(alpha, product_, beta, lambda: _B.read_matrix(C, m, n, ldc), (m, n), C)
    _B.matrix_view(C, m, n, ldc).copy_(new.to(C.dtype))
    return C


def _syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
    _B.check_flag("trans", trans, ("N", "T"))  # syrk is symmetric: 'C' is invalid for complex data
    if n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return C
    rows, cols = _op_shape(trans, n, k)

    def product_() -> torch.Tensor:
        a = _B.op(_B.read_matrix(A, rows, cols, lda), trans)
        return a @ a.transpose(0, 1)

    view = _B.matrix_view(C, n, n, ldc)
    new = _B.combine(alpha if k > 0 else 0, product_, beta, lambda: view.to(_B.work_dtype(C.dtype)), (n, n), C)
    view.copy_(torch.where(_B.triangle_mask(n, uplo, C.device), new.to(C.dtype), view))
    return C


def cublasSsyrk_v2(uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
    return _syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc)


def cublasCsyrkEx(uplo, trans, n, k, alpha, A, Atype, lda, beta, C, Ctype, ldc):
    if (Atype, Ctype) != (_B.CUDA_C_32F, _B.CUDA_C_32F) or A.dtype != torch.complex64 or C.dtype != torch.complex64:
        raise ValueError("cublasCsyrkEx: only Atype = Ctype = CUDA_C_32F (4) with complex64 buffers is exercised")
    return _syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc)


def _triangular_operator(A, lda, size, uplo, trans, diag) -> torch.Tensor:
    return _B.op(_B.triangular_from(_B.read_matrix(A, size, size, lda), uplo, diag), trans)


def _trsm(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb):
    return _trsm_batched(side, uplo, trans, diag, m, n, alpha, [A], lda, [B], ldb, 1)[0]


def cublasStrsm_v2(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb):
    return _trsm(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb)


def _trsm_batched(side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batchCount):
    """BLAS trsm on every problem at once: one batched solve on the stacked matrices (thousands of
    problems at perf size; a loop launched a dozen small kernels per problem)."""
    if batchCount <= 0:
        return Barray
    _B.check_flag("side", side, _B.SIDE_FLAGS)
    if m <= 0 or n <= 0:
        return Barray
    views = [_B.matrix_view(b, m, n, ldb) for b in Barray[:batchCount]]
    if alpha == 0:  # BLAS: B = 0 without reading A or B
        torch._foreach_zero_(views)
        return Barray
    size = m if side == "L" else n
    stacked = torch.stack([_B.matrix_view(a, size, size, lda) for a in Aarray[:batchCount]])
    matrix = _B.op(_B.triangular_from(stacked.to(_B.work_dtype(stacked.dtype)), uplo, diag), trans)
    upper = (uplo == "U") == (trans == "N")
    rhs = alpha * torch.stack(views).to(matrix.dtype)
    solution = torch.linalg.solve_triangular(matrix, rhs, upper=upper, left=(side == "L"))
    torch._foreach_copy_(views, list(solution.to(views[0].dtype).unbind(0)))
    return Barray


def cublasDtrsmBatched(side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batchCount):
    return _trsm_batched(side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batchCount)


def cublasZtrsmBatched(side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batchCount):
    return _trsm_batched(side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batchCount)


STRIDED_NAMES = [
    "cublasCgemmStridedBatched",
    "cublasCgemmStridedBatched_64",
    "cublasDgemmStridedBatched",
    "cublasDgemmStridedBatched_64",
    "cublasHgemmStridedBatched",
    "cublasSgemmStridedBatched",
    "cublasZgemmStridedBatched",
]
BATCHED_NAMES = ["cublasDgemmBatched", "cublasHgemmBatched", "cublasSgemmBatched_64", "cublasZgemmBatched"]
for _name in STRIDED_NAMES:
    globals()[_name] = _strided_entry(_name)
for _name in BATCHED_NAMES:
    globals()[_name] = _batched_entry(_name)

# ---------------------------------------------------------------------------- GEMM cases and inputs

GEMM_PARAMS = ("transa", "transb", "m", "n", "k", "alpha", "A", "lda", "B", "ldb", "beta", "C", "ldc")
GEMM_EX_PARAMS = (
    "transa",
    "transb",
    "m",
    "n",
    "k",
    "alpha",
    "A",
    "Atype",
    "lda",
    "B",
    "Btype",
    "ldb",
    "beta",
    "C",
    "Ctype",
    "ldc",
)
STRIDED_PARAMS = (
    "transa",
    "transb",
    "m",
    "n",
    "k",
    "alpha",
    "A",
    "lda",
    "strideA",
    "B",
    "ldb",
    "strideB",
    "beta",
    "C",
    "ldc",
    "strideC",
    "batchCount",
)
BATCHED_PARAMS = (
    "transa",
    "transb",
    "m",
    "n",
    "k",
    "alpha",
    "Aarray",
    "lda",
    "Barray",
    "ldb",
    "beta",
    "Carray",
    "ldc",
    "batchCount",
)
TRANS_PAIRS = [("N", "N"), ("N", "T"), ("T", "N"), ("T", "T")]
GEMM_DESCRIPTION = (
    "C = alpha*op(A)*op(B) + beta*C with op(A) m x k, op(B) k x n and C m x n, all column-major "
    "with leading dimensions lda/ldb/ldc, op chosen by transa/transb"
)


def _grid(mnk: list[tuple[int, int, int]], ab: list[tuple], pairs: list[tuple[str, str]], **axes) -> list[dict]:
    return [
        {"m": m, "n": n, "k": k, "alpha": a, "beta": b, "transa": ta, "transb": tb, **rest}
        for (m, n, k) in mnk
        for (a, b) in ab
        for (ta, tb) in pairs
        for rest in product(**axes)
    ]


def _as_complex(cases: list[dict]) -> list[dict]:
    return [{**c, "alpha": complex(c["alpha"]), "beta": complex(c["beta"])} for c in cases]


def _smoke(batched: bool, complex_: bool) -> list[dict]:
    cases = [
        {"m": 17, "n": 9, "k": 13, "alpha": 0.75, "beta": 0.5, "transa": "N", "transb": "N"},
        {"m": 8, "n": 12, "k": 19, "alpha": -1.25, "beta": 0.0, "transa": "T", "transb": "N"},
        {"m": 10, "n": 7, "k": 6, "alpha": 1.5, "beta": -1.0, "transa": "N", "transb": "T"},
    ]
    if complex_:
        cases = _as_complex(cases)
        cases[0]["alpha"] = 0.75 + 0.5j
        cases[2]["transb"] = "C"
    return [{**c, "batchCount": 3} for c in cases] if batched else cases


def _edge(kind: str, complex_: bool) -> list[dict]:
    cases = [
        {
            "m": 9,
            "n": 7,
            "k": 5,
            "alpha": 0.5,
            "beta": 0.0,
            "transa": "N",
            "transb": "T",
            "lda": 12,
            "ldb": 10,
            "ldc": 11,
            "nan_C": True,
        },
        {"m": 8, "n": 6, "k": 5, "alpha": 0.0, "beta": 2.0, "transa": "T", "transb": "N", "nan_AB": True},
        {"m": 7, "n": 5, "k": 0, "alpha": 1.0, "beta": 0.5, "transa": "N", "transb": "N"},
        {"m": 0, "n": 5, "k": 4, "alpha": 1.0, "beta": 0.5, "transa": "N", "transb": "N"},
        {"m": 6, "n": 0, "k": 4, "alpha": 1.0, "beta": 0.5, "transa": "T", "transb": "T"},
    ]
    if kind == "strided":
        cases = [{**c, "batchCount": 3} for c in cases] + [
            {
                "m": 9,
                "n": 7,
                "k": 5,
                "alpha": 0.5,
                "beta": 0.5,
                "transa": "N",
                "transb": "N",
                "batchCount": 4,
                "strideA": 0,
                "strideC": 70,
            },
            {"m": 5, "n": 4, "k": 3, "alpha": 1.0, "beta": 1.0, "transa": "N", "transb": "N", "batchCount": 0},
        ]
    elif kind == "batched":
        cases = [{**c, "batchCount": 3} for c in cases] + [
            {"m": 5, "n": 4, "k": 3, "alpha": 1.0, "beta": 1.0, "transa": "N", "transb": "N", "batchCount": 0}
        ]
    return _as_complex(cases) if complex_ else cases


def _perf(kind: str, complex_: bool) -> list[dict]:
    if kind == "plain":
        cases = [
            {"m": 4096, "n": 4096, "k": 4096, "alpha": 1.0, "beta": 0.0, "transa": "N", "transb": "N"},
            {"m": 4096, "n": 14336, "k": 4096, "alpha": 1.0, "beta": 1.0, "transa": "T", "transb": "N"},
            {"m": 4096, "n": 1, "k": 4096, "alpha": 1.0, "beta": 0.0, "transa": "T", "transb": "N"},
        ]
    else:
        cases = [
            {"m": 512, "n": 512, "k": 128, "alpha": 1.0, "beta": 0.0, "transa": "N", "transb": "N", "batchCount": 64},
            {
                "m": 1024,
                "n": 1024,
                "k": 1024,
                "alpha": 1.0,
                "beta": 0.5,
                "transa": "T",
                "transb": "N",
                "batchCount": 16,
            },
        ]
    return _as_complex(cases) if complex_ else cases


def _gemm_dims(case: dict) -> tuple[int, int, int, int, int, int]:
    m, n, k = case["m"], case["n"], case["k"]
    a_rows, a_cols = _op_shape(case["transa"], m, k)
    b_rows, b_cols = _op_shape(case["transb"], k, n)
    return a_rows, a_cols, b_rows, b_cols, m, n


def _lds(case: dict) -> tuple[int, int, int]:
    a_rows, _, b_rows, _, m, _ = _gemm_dims(case)
    return case.get("lda", max(1, a_rows)), case.get("ldb", max(1, b_rows)), case.get("ldc", max(1, m))


def _gemm_inputs(dtype: str, kind: str) -> Callable[[dict, Rng], Inputs]:
    def make(case: dict, rng: Rng) -> Inputs:
        a_rows, a_cols, b_rows, b_cols, m, n = _gemm_dims(case)
        lda, ldb, ldc = _lds(case)
        nan_ab, nan_c = case.get("nan_AB", False), case.get("nan_C", False)
        inputs: Inputs = {k: case[k] for k in ("transa", "transb", "m", "n", "k", "alpha", "beta")}
        inputs.update(lda=lda, ldb=ldb, ldc=ldc)
        if kind == "plain":
            inputs["A"] = B.column_major_buffer(rng, a_rows, a_cols, lda, dtype, nan=nan_ab)
            inputs["B"] = B.column_major_buffer(rng, b_rows, b_cols, ldb, dtype, nan=nan_ab)
            inputs["C"] = B.column_major_buffer(rng, m, n, ldc, dtype, nan=nan_c)
        elif kind == "batched":
            batch = case["batchCount"]
            inputs["batchCount"] = batch
            listed = max(batch, 1)  # batchCount 0 still hands over a pointer array (one entry, never touched)
            inputs["Aarray"] = [
                B.column_major_buffer(rng, a_rows, a_cols, lda, dtype, nan=nan_ab) for _ in range(listed)
            ]
            inputs["Barray"] = [
                B.column_major_buffer(rng, b_rows, b_cols, ldb, dtype, nan=nan_ab) for _ in range(listed)
            ]
            inputs["Carray"] = [B.column_major_buffer(rng, m, n, ldc, dtype, nan=nan_c) for _ in range(listed)]
        else:
            batch = case["batchCount"]
            stride_a = case.get("strideA", lda * a_cols)
            stride_b = case.get("strideB", ldb * b_cols)
            stride_c = case.get("strideC", ldc * n)
            inputs.update(strideA=stride_a, strideB=stride_b, strideC=stride_c, batchCount=batch)
            inputs["A"] = B.strided_batch_buffer(rng, batch, a_rows, a_cols, lda, stride_a, dtype, nan=nan_ab)
            inputs["B"] = B.strided_batch_buffer(rng, batch, b_rows, b_cols, ldb, stride_b, dtype, nan=nan_ab)
            inputs["C"] = B.strided_batch_buffer(rng, batch, m, n, ldc, stride_c, dtype, nan=nan_c)
        return inputs

    if kind == "ex":
        plain = _gemm_inputs(dtype, "plain")

        def make_ex(case: dict, rng: Rng) -> Inputs:
            inputs = plain(case, rng)
            code = {v: k for k, v in B.CUDA_DATA_TYPES.items()}[B.dtype_of(dtype)]
            inputs.update(Atype=code, Btype=code, Ctype=code)
            return inputs

        return make_ex
    return make


def _c_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    if index is not None and index >= inputs["batchCount"]:  # a list entry beyond batchCount
        return mask
    m, n, ldc = inputs["m"], inputs["n"], inputs["ldc"]
    batches = inputs.get("batchCount", 1) if "strideC" in inputs else 1
    for i in range(batches):
        B.mark_matrix(mask, m, n, ldc, i * inputs.get("strideC", 0))
    return mask


def _gemm_cost(dtype: str) -> Callable[[dict, Inputs], Cost]:
    def cost(case: dict, inputs: Inputs) -> Cost:
        m, n, k, batch = case["m"], case["n"], case["k"], case.get("batchCount", 1)
        c_reads = 1 if case["beta"] != 0 else 0
        if case["alpha"] == 0:  # C = beta * C: BLAS reads neither A nor B and multiplies nothing
            return B.cost(1.0 * m * n * batch * c_reads, batch * m * n * (1 + c_reads), dtype)
        # a zero stride shares one matrix among the problems: it is read once
        a_reads = 1 if case.get("strideA", 1) == 0 else batch
        b_reads = 1 if case.get("strideB", 1) == 0 else batch
        return B.cost(2.0 * m * n * k * batch, a_reads * m * k + b_reads * k * n + batch * m * n * (1 + c_reads), dtype)

    return cost


def _gemm_spec(name: str, dtype: str, kind: str, full: list[dict], extra_notes: str = "") -> OperatorSpec:
    complex_ = dtype.startswith("complex")
    shape_kind = {"plain": "plain", "ex": "plain", "strided": "strided", "batched": "batched"}[kind]
    params = {"plain": GEMM_PARAMS, "ex": GEMM_EX_PARAMS, "strided": STRIDED_PARAMS, "batched": BATCHED_PARAMS}[kind]
    output = "Carray" if kind == "batched" else "C"
    what = {
        "plain": f"BLAS gemm ({dtype}): {GEMM_DESCRIPTION}; C is written in place.",
        "ex": f"cuBLAS gemmEx with float32 compute ({dtype} buffers): {GEMM_DESCRIPTION}; Atype/Btype/Ctype are "
        "cudaDataType_t codes of the buffers (CUDA_R_32F = 0); C is written in place.",
        "strided": f"BLAS gemmStridedBatched ({dtype}): for i < batchCount, {GEMM_DESCRIPTION}, where problem i's "
        "matrices start i*strideA, i*strideB, i*strideC elements into A, B, C (strideA = 0 reuses one "
        "A for every problem); C is written in place.",
        "batched": f"BLAS gemmBatched ({dtype}): for i < batchCount, {GEMM_DESCRIPTION}, on the i-th buffers of the "
        "pointer arrays Aarray, Barray, Carray; each Carray[i] is written in place.",
    }[kind]
    entry = globals()[name]
    factors = ("Aarray", "Barray") if kind == "batched" else ("A", "B")
    compare = None
    if dtype in ("float32", "complex64"):  # fp32 accumulation: the bound TF32 fails (tolerance.compare_accumulated)
        compare = B.accumulated_compare(
            (output,), _c_written, lambda case: max(1, case["k"]), entry, params, factors=factors, addend=output
        )
    return B.blas_spec(
        name=name,
        category="matmul",
        params=params,
        outputs=(output,),
        reference_impl=entry,
        description=what,
        cases={
            "smoke": _smoke(kind in ("strided", "batched"), complex_),
            "full": full,
            "edge": _edge(shape_kind, complex_),
            "perf": _perf(shape_kind, complex_),
        },
        make_inputs=_gemm_inputs(dtype, kind),
        written=_c_written,
        reduce_dim=lambda case: max(1, case["k"]),
        compare=compare,
        cost_model=_gemm_cost(dtype),
        notes=extra_notes,
        vendor=vendor_for(name),
        pointer_arrays=("Aarray", "Barray", "Carray") if kind == "batched" else (),
    )


SGEMM_MNK = [
    (1, 1, 1),
    (16, 16, 16),
    (32, 64, 16),
    (64, 32, 48),
    (128, 256, 64),
    (256, 128, 128),
    (17, 33, 65),
    (128, 128, 128),
    (256, 256, 256),
    (71, 71, 71),
    (33, 71, 497),
]
SB_MNK = [
    (1, 1, 1),
    (16, 16, 16),
    (32, 64, 16),
    (64, 32, 48),
    (128, 256, 64),
    (256, 128, 128),
    (17, 33, 65),
    (128, 128, 128),
    (256, 256, 256),
]
SMALL_MNK = [(1, 1, 1), (16, 16, 16), (64, 32, 48), (128, 256, 64), (17, 33, 65)]
SB_AB = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (-1.0, 1.0), (2.0, -0.5), (0.001, 0.999)]
SMALL_AB = [(1.0, 0.0), (0.5, 0.5), (-1.0, 1.0)]
Z_AB = [
    (1 + 0j, 0j),
    (0j, 1 + 0j),
    (1 + 0.5j, 0j),
    (0.5 + 0.3j, 0.5 - 0.2j),
    (-1 + 0j, 1 + 0j),
    (0.001 + 0.001j, 0.999 - 0.999j),
]
CGEMM_MNK = [
    (1, 1, 1),
    (16, 16, 16),
    (32, 32, 32),
    (32, 64, 16),
    (64, 32, 48),
    (128, 256, 64),
    (256, 128, 128),
    (17, 33, 65),
    (71, 497, 33),
    (128, 128, 128),
    (256, 256, 256),
    (1024, 1024, 256),
    (4096, 1024, 64),
    (1024, 4096, 32),
    (5333, 5333, 71),
    (5333, 71, 33),
    (71, 5333, 17),
]
CGEMM_AB = [
    (1 + 0j, 0j),
    (0j, 1 + 0j),
    (0.5 + 0j, 0.5 + 0j),
    (-1 + 0j, 1 + 0j),
    (2 + 0j, -0.5 + 0j),
    (0.001 + 0j, 0.999 + 0j),
    (-0.999 + 0j, 1 + 0j),
    (100.001 + 0j, -0.999 + 0j),
    (0.5 + 0.3j, 0.5 - 0.2j),
    (0.001 + 0.001j, 0j),
    (1 + 0j, 0.001 + 0.001j),
]
CGEMM_PAIRS = [
    ("N", "N"),
    ("N", "T"),
    ("T", "N"),
    ("T", "T"),
    ("C", "N"),
    ("N", "C"),
    ("C", "C"),
    ("T", "C"),
    ("C", "T"),
]

GEMM_SPECS: list[OperatorSpec] = [
    _gemm_spec(
        "cublasSgemm_v2",
        "float32",
        "plain",
        _grid(
            SGEMM_MNK,
            [
                (1.0, 0.0),
                (0.0, 1.0),
                (0.5, 0.5),
                (-1.0, 1.0),
                (2.0, -0.5),
                (0.001, 0.999),
                (-0.999, 0.5),
                (100.001, -1.0),
            ],
            TRANS_PAIRS,
        ),
    ),
    _gemm_spec("cublasCgemm_v2", "complex64", "plain", _grid(CGEMM_MNK, CGEMM_AB, CGEMM_PAIRS)),
    _gemm_spec(
        "cublasSgemmEx",
        "float32",
        "ex",
        _grid(SB_MNK, SMALL_AB, TRANS_PAIRS),
        "Only CUDA_R_32F buffers (code 0) are exercised, as upstream.",
    ),
    _gemm_spec(
        "cublasSgemmStridedBatched", "float32", "strided", _grid(SB_MNK, SB_AB, TRANS_PAIRS, batchCount=[1, 2, 4, 8])
    ),
    _gemm_spec(
        "cublasDgemmStridedBatched", "float64", "strided", _grid(SB_MNK, SB_AB, TRANS_PAIRS, batchCount=[1, 2, 4, 8])
    ),
    _gemm_spec(
        "cublasHgemmStridedBatched", "float16", "strided", _grid(SB_MNK, SB_AB, TRANS_PAIRS, batchCount=[1, 2, 4, 8])
    ),
    _gemm_spec(
        "cublasZgemmStridedBatched",
        "complex128",
        "strided",
        _grid(SB_MNK[:8], Z_AB, TRANS_PAIRS, batchCount=[1, 2, 4, 8]),
    ),
    _gemm_spec(
        "cublasCgemmStridedBatched",
        "complex64",
        "strided",
        _as_complex(_grid(SMALL_MNK, SMALL_AB, TRANS_PAIRS, batchCount=[2, 4])),
    ),
    _gemm_spec(
        "cublasCgemmStridedBatched_64",
        "complex64",
        "strided",
        _as_complex(_grid(SMALL_MNK, SMALL_AB, TRANS_PAIRS, batchCount=[2, 4])),
    ),
    _gemm_spec(
        "cublasDgemmStridedBatched_64",
        "float64",
        "strided",
        _grid(SMALL_MNK, SMALL_AB, TRANS_PAIRS, batchCount=[1, 2, 4]),
    ),
    _gemm_spec(
        "cublasDgemmBatched", "float64", "batched", _grid(SMALL_MNK, SMALL_AB, TRANS_PAIRS, batchCount=[1, 2, 4])
    ),
    _gemm_spec(
        "cublasHgemmBatched", "float16", "batched", _grid(SMALL_MNK, SMALL_AB, TRANS_PAIRS, batchCount=[1, 2, 4])
    ),
    _gemm_spec(
        "cublasSgemmBatched_64", "float32", "batched", _grid(SMALL_MNK, SMALL_AB, TRANS_PAIRS, batchCount=[1, 2, 4])
    ),
    _gemm_spec(
        "cublasZgemmBatched",
        "complex128",
        "batched",
        _as_complex(_grid(SMALL_MNK, SMALL_AB, TRANS_PAIRS, batchCount=[1, 2, 4])),
    ),
]

# ---------------------------------------------------------------------------- geam, dgmm


def _geam_cost(case: dict, inputs: Inputs) -> Cost:
    """C written; A read only when alpha != 0 and B only when beta != 0 (BLAS does not read them otherwise)."""
    m, n = case["m"], case["n"]
    reads = (1 if case["alpha"] != 0 else 0) + (1 if case["beta"] != 0 else 0)
    return B.cost(3.0 * m * n, (1 + reads) * m * n, "float32")


def _geam_inputs(case: dict, rng: Rng) -> Inputs:
    m, n = case["m"], case["n"]
    a_rows, a_cols = _op_shape(case["transa"], m, n)
    b_rows, b_cols = _op_shape(case["transb"], m, n)
    lda, ldb, ldc = case.get("lda", max(1, a_rows)), case.get("ldb", max(1, b_rows)), case.get("ldc", max(1, m))
    return {
        **{k: case[k] for k in ("transa", "transb", "m", "n", "alpha", "beta")},
        "lda": lda,
        "ldb": ldb,
        "ldc": ldc,
        "A": B.column_major_buffer(rng, a_rows, a_cols, lda, "float32", nan=case.get("nan_A", False)),
        "B": B.column_major_buffer(rng, b_rows, b_cols, ldb, "float32", nan=case.get("nan_B", False)),
        # geam never reads C (upstream passes torch.empty): NaN makes reading it visible
        "C": B.column_major_buffer(rng, m, n, ldc, "float32", nan=True),
    }


def _plain_c_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    B.mark_matrix(mask, inputs["m"], inputs["n"], inputs["ldc"])
    return mask


def _dgmm_inputs(case: dict, rng: Rng) -> Inputs:
    m, n = case["m"], case["n"]
    lda, ldc = case.get("lda", max(1, m)), case.get("ldc", max(1, m))
    length = m if case["mode"] == "L" else n
    inc = case["incx"]
    x = B.randn(rng, length * abs(inc) if inc else 1, "float32")
    return {
        **{k: case[k] for k in ("mode", "m", "n", "incx")},
        "lda": lda,
        "ldc": ldc,
        "A": B.column_major_buffer(rng, m, n, lda, "float32"),
        "x": x,
        "C": B.column_major_buffer(rng, m, n, ldc, "float32", nan=True),
    }


OTHER_SPECS: list[OperatorSpec] = [
    B.blas_spec(
        name="cublasSgeam",
        category="blas3",
        params=("transa", "transb", "m", "n", "alpha", "A", "lda", "beta", "B", "ldb", "C", "ldc"),
        outputs=("C",),
        reference_impl=cublasSgeam,
        description="cuBLAS geam (float32): C = alpha*op(A) + beta*op(B), all m x n after op, column-major with "
        "lda/ldb/ldc. C is only written (never read); alpha == 0 means A is not read, beta == 0 that B is not.",
        cases={
            "smoke": [
                {"transa": "N", "transb": "T", "m": 13, "n": 9, "alpha": 0.75, "beta": -0.5},
                {"transa": "T", "transb": "N", "m": 7, "n": 11, "alpha": 1.5, "beta": 0.25},
            ],
            "full": [
                {"transa": ta, "transb": tb, "m": m, "n": n, "alpha": a, "beta": b}
                for m in (1, 32, 1024)
                for n in (1, 71, 1024)
                for (a, b) in SMALL_AB
                for (ta, tb) in TRANS_PAIRS
            ],
            "edge": [
                {
                    "transa": "N",
                    "transb": "N",
                    "m": 9,
                    "n": 7,
                    "alpha": 0.5,
                    "beta": 0.0,
                    "nan_B": True,
                    "lda": 11,
                    "ldc": 12,
                },
                {"transa": "T", "transb": "T", "m": 6, "n": 8, "alpha": 0.0, "beta": 2.0, "nan_A": True, "ldb": 10},
                {"transa": "N", "transb": "N", "m": 0, "n": 8, "alpha": 1.0, "beta": 1.0},
            ],
            "perf": [
                {"transa": "N", "transb": "T", "m": 8192, "n": 8192, "alpha": 1.0, "beta": 1.0},
                {"transa": "T", "transb": "N", "m": 4096, "n": 4096, "alpha": 0.5, "beta": 0.5},
            ],
        },
        make_inputs=_geam_inputs,
        written=_plain_c_written,
        cost_model=_geam_cost,
        vendor=vendor_for("cublasSgeam"),
        integer_flags=True,
    ),
    B.blas_spec(
        name="cublasSdgmm",
        category="blas3",
        params=("mode", "m", "n", "A", "lda", "x", "incx", "C", "ldc"),
        outputs=("C",),
        reference_impl=cublasSdgmm,
        description="cuBLAS dgmm (float32): C = diag(x)*A (mode 'L', x of length m) or A*diag(x) (mode 'R', "
        "length n), A and C m x n column-major (lda, ldc); |incx| is x's stride, a negative incx reads x from its "
        "end and incx == 0 uses x[0] throughout. C is only written.",
        cases={
            "smoke": [{"mode": "L", "m": 13, "n": 9, "incx": 1}, {"mode": "R", "m": 7, "n": 11, "incx": 2}],
            "full": [
                {"mode": md, "m": n, "n": n, "incx": i}
                for n in [1, 32, 71, 1024, 4096, 5333]
                for i in (1, 2, 3)
                for md in ("R", "L")
            ],
            "edge": [
                {"mode": "L", "m": 9, "n": 6, "incx": -1, "lda": 12, "ldc": 10},
                {"mode": "R", "m": 5, "n": 8, "incx": 0},
                {"mode": "R", "m": 0, "n": 8, "incx": 1},
            ],
            "perf": [{"mode": "R", "m": 8192, "n": 8192, "incx": 1}, {"mode": "L", "m": 8192, "n": 8192, "incx": 1}],
        },
        make_inputs=_dgmm_inputs,
        written=_plain_c_written,
        cost_model=lambda case, inputs: B.cost(1.0 * case["m"] * case["n"], 2 * case["m"] * case["n"], "float32"),
        notes="Upstream's test calls both modes per case (18 cases); here each mode is its own case (36).",
        vendor=vendor_for("cublasSdgmm"),
        integer_flags=True,
    ),
]

# ---------------------------------------------------------------------------- symm, syrk


def _symm_cost(case: dict, inputs: Inputs) -> Cost:
    """One triangle of A and B read, C written, and C read only when beta != 0 (BLAS does not read it
    otherwise)."""
    m, n = case["m"], case["n"]
    size = m if case["side"] == "L" else n
    c_reads = 1 if case["beta"] != 0 else 0
    if case["alpha"] == 0:  # C = beta * C: A and B are not read, nothing is multiplied
        return B.cost(1.0 * m * n * c_reads, (1 + c_reads) * m * n, "complex64")
    return B.cost(2.0 * m * n * size, size**2 / 2 + (2 + c_reads) * m * n, "complex64")


def _symm_inputs(case: dict, rng: Rng) -> Inputs:
    m, n = case["m"], case["n"]
    size = m if case["side"] == "L" else n
    lda, ldb, ldc = case.get("lda", max(1, size)), case.get("ldb", max(1, m)), case.get("ldc", max(1, m))
    a = B.column_major_buffer(rng, size, size, lda, "complex64")
    view = B.matrix_view(a, size, size, lda)
    if case.get("garbage") == "nan":  # the triangle BLAS must not read
        other = B.triangle_mask(size, "L" if case["uplo"] == "U" else "U", a.device, strict=True)
        view.masked_fill_(other, float("nan"))
    else:  # upstream: a symmetric matrix A + A^T
        view.copy_(view + view.transpose(0, 1))
    return {
        **{k: case[k] for k in ("side", "uplo", "m", "n", "alpha", "beta")},
        "lda": lda,
        "ldb": ldb,
        "ldc": ldc,
        "A": a,
        "B": B.column_major_buffer(rng, m, n, ldb, "complex64"),
        "C": B.column_major_buffer(rng, m, n, ldc, "complex64", nan=case.get("nan_C", False)),
    }


def _symm_c_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    if not (inputs["alpha"] == 0 and inputs["beta"] == 1):
        B.mark_matrix(mask, inputs["m"], inputs["n"], inputs["ldc"])
    return mask


def _syrk_inputs(dtype: str) -> Callable[[dict, Rng], Inputs]:
    def make(case: dict, rng: Rng) -> Inputs:
        n, k = case["n"], case["k"]
        rows, cols = _op_shape(case["trans"], n, k)
        lda, ldc = case.get("lda", max(1, rows)), case.get("ldc", max(1, n))
        c = B.column_major_buffer(rng, n, n, ldc, dtype, nan=case.get("nan_C", False))
        if case.get("garbage") == "nan":  # the triangle syrk neither reads nor writes
            other = B.triangle_mask(n, "L" if case["uplo"] == "U" else "U", c.device, strict=True)
            B.matrix_view(c, n, n, ldc).masked_fill_(other, float("nan"))
        inputs = {
            **{key: case[key] for key in ("uplo", "trans", "n", "k", "alpha", "beta")},
            "lda": lda,
            "ldc": ldc,
            "A": B.column_major_buffer(rng, rows, cols, lda, dtype, nan=case.get("nan_A", False)),
            "C": c,
        }
        if dtype == "complex64":
            inputs.update(Atype=B.CUDA_C_32F, Ctype=B.CUDA_C_32F)
        return inputs

    return make


def _syrk_written(inputs: Inputs, name: str, index: int | None, ref: torch.Tensor) -> torch.Tensor:
    mask = B.mask_like(ref)
    B.mark_triangle(mask, inputs["n"], inputs["ldc"], inputs["uplo"])
    return mask


def _syrk_cost(dtype: str) -> Callable[[dict, Inputs], Cost]:
    def cost(case: dict, inputs: Inputs) -> Cost:
        n, k = case["n"], case["k"]
        triangle = n * (n + 1) * (1 if case["beta"] == 0 else 2) / 2
        if case["alpha"] == 0:  # C = beta * C on the triangle: A is not read
            return B.cost(0.0 if case["beta"] == 0 else n * (n + 1) / 2, triangle, dtype)
        return B.cost(1.0 * n * (n + 1) * k, n * k + triangle, dtype)

    return cost


def _syrk_cases(complex_: bool) -> dict[str, list[dict]]:
    cases = {
        "smoke": [
            {"uplo": "L", "trans": "N", "n": 13, "k": 9, "alpha": 0.75, "beta": 0.25},
            {"uplo": "U", "trans": "T", "n": 9, "k": 12, "alpha": -1.5, "beta": 0.0},
        ],
        "edge": [
            {
                "uplo": "U",
                "trans": "N",
                "n": 9,
                "k": 5,
                "alpha": 0.5,
                "beta": 0.5,
                "lda": 12,
                "ldc": 11,
                "garbage": "nan",
            },
            {"uplo": "L", "trans": "T", "n": 8, "k": 6, "alpha": 1.0, "beta": 0.0, "nan_C": True},
            {"uplo": "L", "trans": "N", "n": 7, "k": 4, "alpha": 0.0, "beta": 2.0, "nan_A": True},
            {"uplo": "U", "trans": "N", "n": 7, "k": 0, "alpha": 1.0, "beta": 0.5},
            {"uplo": "U", "trans": "N", "n": 0, "k": 4, "alpha": 1.0, "beta": 0.5},
        ],
        "perf": [
            {"uplo": "L", "trans": "N", "n": 4096, "k": 4096, "alpha": 1.0, "beta": 0.0},
            {"uplo": "U", "trans": "T", "n": 8192, "k": 1024, "alpha": 1.0, "beta": 1.0},
        ],
    }
    if complex_:
        cases = {
            tier: [
                {**c, "alpha": complex(c["alpha"], 0.25 if c["alpha"] else 0.0), "beta": complex(c["beta"])} for c in cs
            ]
            for tier, cs in cases.items()
        }
    return cases


SYMM_SPECS: list[OperatorSpec] = [
    B.blas_spec(
        name="cublasCsymm_v2",
        category="blas3",
        params=("side", "uplo", "m", "n", "alpha", "A", "lda", "B", "ldb", "beta", "C", "ldc"),
        outputs=("C",),
        reference_impl=cublasCsymm_v2,
        description="BLAS symm (complex64, symmetric not Hermitian): C = alpha*A*B + beta*C (side 'L', A m x m) or "
        "alpha*B*A + beta*C (side 'R', A n x n); only the `uplo` triangle of A is read; B and C m x n; all "
        "column-major (lda, ldb, ldc); C written in place.",
        cases={
            "smoke": [
                {"side": "L", "uplo": "U", "m": 13, "n": 9, "alpha": 0.75 + 0.25j, "beta": 0.5 + 0j},
                {"side": "R", "uplo": "L", "m": 7, "n": 11, "alpha": -1.5 + 0j, "beta": 0j},
            ],
            "full": [
                {"side": s, "uplo": "U", "m": n, "n": n, "alpha": complex(a), "beta": complex(b)}
                for n in [1, 32, 64, 128, 160]
                for a in (1.0, 0.0, -1.0)
                for b in (0.0, 0.5)
                for s in ("L", "R")
            ],
            "edge": [
                {
                    "side": "L",
                    "uplo": "L",
                    "m": 9,
                    "n": 6,
                    "alpha": 0.5 + 0.5j,
                    "beta": 0.5 + 0j,
                    "lda": 12,
                    "ldb": 10,
                    "ldc": 11,
                    "garbage": "nan",
                },
                {
                    "side": "R",
                    "uplo": "U",
                    "m": 8,
                    "n": 5,
                    "alpha": 1.0 + 0j,
                    "beta": 0j,
                    "nan_C": True,
                    "garbage": "nan",
                },
                {"side": "L", "uplo": "U", "m": 0, "n": 5, "alpha": 1.0 + 0j, "beta": 0.5 + 0j},
            ],
            "perf": [{"side": "L", "uplo": "U", "m": 4096, "n": 4096, "alpha": 1.0 + 0j, "beta": 0j}],
        },
        make_inputs=_symm_inputs,
        written=_symm_c_written,
        reduce_dim=lambda case: max(1, case["m"] if case["side"] == "L" else case["n"]),
        cost_model=_symm_cost,
        vendor=vendor_for("cublasCsymm_v2"),
        integer_flags=True,
    ),
    B.blas_spec(
        name="cublasSsyrk_v2",
        category="blas3",
        params=("uplo", "trans", "n", "k", "alpha", "A", "lda", "beta", "C", "ldc"),
        outputs=("C",),
        reference_impl=cublasSsyrk_v2,
        description="BLAS syrk (float32): C = alpha*op(A)*op(A)^T + beta*C on the `uplo` triangle of the n x n "
        "column-major C (ldc) only (the other triangle is neither read nor written); op(A) is n x k (A n x k for "
        "trans 'N', k x n for 'T', column-major lda).",
        cases={
            **_syrk_cases(False),
            "full": [
                {"uplo": "L", "trans": t, "n": n, "k": max(1, n // 2), "alpha": a, "beta": 0.25}
                for n in [1, 32, 71, 1024, 4096, 5333]
                for a in [1.0, 0.0, -0.999, 0.5, 100.001]
                for t in ("N", "T")
            ],
        },
        make_inputs=_syrk_inputs("float32"),
        written=_syrk_written,
        reduce_dim=lambda case: max(1, case["k"]),
        cost_model=_syrk_cost("float32"),
        vendor=vendor_for("cublasSsyrk_v2"),
        integer_flags=True,
    ),
    B.blas_spec(
        name="cublasCsyrkEx",
        category="blas3",
        params=("uplo", "trans", "n", "k", "alpha", "A", "Atype", "lda", "beta", "C", "Ctype", "ldc"),
        outputs=("C",),
        reference_impl=cublasCsyrkEx,
        description="cuBLAS syrkEx (complex64 in and out, CUDA_C_32F = 4): C = alpha*op(A)*op(A)^T + beta*C "
        "(transpose, no conjugation) on the `uplo` triangle of the n x n column-major C only; op(A) n x k.",
        cases={
            **_syrk_cases(True),
            "full": [
                {"uplo": u, "trans": t, "n": n, "k": k, "alpha": a, "beta": b}
                for n in [1, 17, 32, 33, 71, 160, 497, 1024, 4096, 4113, 5333]
                for k in [1, 17, 33, 71, 160, 497]
                for u in ("L", "U")
                for t in ("N", "T")
                for a in [1 + 0j, 0j, 0.5 + 0.3j, 0.001 + 0.001j, -0.999 + 0j, 100.001 + 0j, -1 + 0j]
                for b in [0j, 1 + 0j, 0.5 - 0.25j, -1 + 0j, 0.001 + 0.001j]
            ],
        },
        make_inputs=_syrk_inputs("complex64"),
        written=_syrk_written,
        reduce_dim=lambda case: max(1, case["k"]),
        cost_model=_syrk_cost("complex64"),
        notes="Upstream also runs trans='C' (2), which cuBLAS rejects for the symmetric rank-k update "
        "(CUBLAS_STATUS_INVALID_VALUE); those cases are left out (9240 of upstream's 13860 remain). Upstream passes "
        "Atype = Ctype = 8, which is CUDA_R_8U, not CUDA_C_32F (4); here the correct code 4 is passed.",
        vendor=vendor_for("cublasCsyrkEx"),
        integer_flags=True,
    ),
]

# ---------------------------------------------------------------------------- trsm


def _trsm_size(case: dict) -> int:
    return case["m"] if case["side"] == "L" else case["n"]


def _trsm_inputs(dtype: str, batched: bool) -> Callable[[dict, Rng], Inputs]:
    def make(case: dict, rng: Rng) -> Inputs:
        m, n, size = case["m"], case["n"], _trsm_size(case)
        lda, ldb = case.get("lda", max(1, size)), case.get("ldb", max(1, m))
        inputs = {**{k: case[k] for k in ("side", "uplo", "trans", "diag", "m", "n", "alpha")}, "lda": lda, "ldb": ldb}

        def a() -> torch.Tensor:
            return well_conditioned_triangular(rng, size, lda, case["uplo"], case["diag"], dtype, case.get("garbage"))

        def b() -> torch.Tensor:
            return B.column_major_buffer(rng, m, n, ldb, dtype, nan=case.get("nan_B", False))

        if batched:
            batch = case["batchCount"]
            listed = max(batch, 1)  # batchCount 0 still hands over a pointer array (one entry, never touched)
            inputs.update(batchCount=batch, Aarray=[a() for _ in range(listed)], Barray=[b() for _ in range(listed)])
        else:
            inputs.update(A=a(), B=b())
        return inputs

    return make


def _trsm_compare(batched: bool) -> Callable[[object, object, dict, Inputs], Comparison]:
    """Bit-exact outside the m x n solution; the solution by backward error (RES40); alpha == 0 must give
    exact zeros."""

    def written_mask(ref: torch.Tensor, inputs: Inputs) -> torch.Tensor:
        written = B.mask_like(ref)
        B.mark_matrix(written, inputs["m"], inputs["n"], inputs["ldb"])
        return written

    def one(out, ref, a_buf, inputs: Inputs, what: str) -> Comparison:
        if not isinstance(out, torch.Tensor) or out.shape != ref.shape or out.dtype != ref.dtype:
            return B.compare_tensors(out, ref, what=what)
        m, n, ldb = inputs["m"], inputs["n"], inputs["ldb"]
        written = written_mask(ref, inputs)
        o, r = out.detach().to(ref.device), ref.detach()
        untouched = B.compare_tensors(o[~written], r[~written], exact=True, what=f"{what} (not written)")
        if not untouched.passed or m <= 0 or n <= 0:
            return untouched
        if inputs["alpha"] == 0:
            return B.compare_tensors(o[written], r[written], exact=True, what=what)
        size = m if inputs["side"] == "L" else n
        matrix = _triangular_operator(a_buf, inputs["lda"], size, inputs["uplo"], inputs["trans"], inputs["diag"])
        return B.residual_check(
            B.read_matrix(out, m, n, ldb),
            B.read_matrix(ref, m, n, ldb),
            matrix,
            left=inputs["side"] == "L",
            n=size,
            dtype=out.dtype,
            what=what,
        )

    def whole_batch(outs, refs, inputs: Inputs) -> Comparison | None:
        """The batch judged in a few passes over stacked matrices (one() costs a dozen device round trips
        per matrix: seconds for 4096 small solves). A pass, or None when some matrix fails or the
        buffers differ in layout, for the per-matrix loop to decide and name the failing one."""
        first = refs[0]
        same_layout = all(r.shape == first.shape and r.stride() == first.stride() for r in refs)
        if not same_layout or any(
            not isinstance(o, torch.Tensor) or o.shape != first.shape or o.dtype != first.dtype for o in outs
        ):
            return None
        m, n, ldb = inputs["m"], inputs["n"], inputs["ldb"]
        outs = [o.detach().to(first.device) for o in outs]
        o, r = torch.stack(outs), torch.stack([t.detach() for t in refs])
        same = o == r
        if o.is_floating_point() or o.is_complex():
            same = same | (torch.isnan(o) & torch.isnan(r))
        # the solution region is judged by its residual below; everything else (all of B when alpha == 0:
        # zeros) bit for bit
        by_residual = written_mask(first, inputs) if inputs["alpha"] != 0 else torch.zeros_like(first, dtype=torch.bool)
        if not bool((same | by_residual).all()):
            return None
        if m <= 0 or n <= 0 or inputs["alpha"] == 0:
            return Comparison(True, 0.0, 0.0)  # exact matches: no finite difference
        size = m if inputs["side"] == "L" else n
        x, x_ref, a = widen(
            torch.stack([B.matrix_view(t, m, n, ldb) for t in outs]),
            torch.stack([B.matrix_view(t, m, n, ldb) for t in refs]),
            torch.stack([B.matrix_view(t, size, size, inputs["lda"]) for t in inputs["Aarray"]]),
        )
        if not bool(torch.isfinite(x).all()):
            return None
        matrix = B.op(B.triangular_from(a, inputs["uplo"], inputs["diag"]), inputs["trans"])
        errors, differences = B.residual_errors(x, x_ref, matrix, left=inputs["side"] == "L")
        if not bool((errors <= B.residual_bound(first.dtype, size)).all()):
            return None
        worst = int((errors == errors.max()).nonzero().max())  # the last of the largest, as the loop picks
        err, max_abs = torch.stack([errors[worst], differences[worst]]).tolist()
        return Comparison(True, max_abs, err)

    def compare(out, ref, case: dict, inputs: Inputs) -> Comparison:
        if not batched:
            return one(out, ref, inputs["A"], inputs, "B")
        if not isinstance(out, (list, tuple)) or len(out) != len(ref):
            return Comparison(False, reason=f"Barray: expected a list of {len(ref)} tensors")
        judged = whole_batch(out, ref, inputs) if len(ref) else None
        if judged is not None:
            return judged
        worst = Comparison(True, 0.0, 0.0)
        for i, (o, r) in enumerate(zip(out, ref, strict=True)):
            c = one(o, r, inputs["Aarray"][i], inputs, f"Barray[{i}]")
            if not c.passed:
                return c
            worst = c if (c.max_rel_err or 0) >= (worst.max_rel_err or 0) else worst
        return worst

    return compare


def _trsm_cost(dtype: str) -> Callable[[dict, Inputs], Cost]:
    def cost(case: dict, inputs: Inputs) -> Cost:
        m, n, size, batch = case["m"], case["n"], _trsm_size(case), case.get("batchCount", 1)
        if case["alpha"] == 0:  # B is set to zero: nothing is read
            return B.cost(0.0, batch * m * n, dtype)
        return B.cost(1.0 * m * n * size * batch, batch * (size * (size + 1) / 2 + 2 * m * n), dtype)

    return cost


TRSM_DESCRIPTION = (
    "solves op(A)*X = alpha*B (side 'L', A m x m) or X*op(A) = alpha*B (side 'R', A n x n) and "
    "overwrites the m x n B (ldb) with X; A column-major (lda), triangular by `uplo` (the other "
    "triangle is not read), diag='U': unit diagonal, not read; alpha == 0 sets B to zero. Checked by "
    "backward error (40*eps*size), not element-wise."
)
TRSM_EDGE = [
    {
        "side": "R",
        "uplo": "L",
        "trans": "T",
        "diag": "U",
        "m": 9,
        "n": 6,
        "alpha": 0.5,
        "lda": 8,
        "ldb": 12,
        "garbage": "nan",
    },
    {
        "side": "L",
        "uplo": "U",
        "trans": "N",
        "diag": "N",
        "m": 7,
        "n": 5,
        "alpha": 0.0,
        "nan_B": True,
        "garbage": "nan",
    },
    {"side": "L", "uplo": "L", "trans": "N", "diag": "N", "m": 0, "n": 5, "alpha": 1.0},
]


def _trsm_batched_spec(name: str, dtype: str) -> OperatorSpec:
    complex_ = dtype.startswith("complex")

    def cplx(cases: list[dict]) -> list[dict]:
        return [{**c, "alpha": complex(c["alpha"])} for c in cases] if complex_ else cases

    return B.blas_spec(
        name=name,
        category="blas3",
        params=("side", "uplo", "trans", "diag", "m", "n", "alpha", "Aarray", "lda", "Barray", "ldb", "batchCount"),
        outputs=("Barray",),
        reference_impl=globals()[name],
        description=f"BLAS trsmBatched ({dtype}): for i < batchCount, {TRSM_DESCRIPTION} Aarray and Barray are "
        "pointer arrays.",
        cases={
            "smoke": cplx(
                [
                    {
                        "side": "L",
                        "uplo": "U",
                        "trans": "N",
                        "diag": "N",
                        "m": 13,
                        "n": 6,
                        "alpha": 0.5,
                        "batchCount": 3,
                    },
                    {
                        "side": "R",
                        "uplo": "L",
                        "trans": "T",
                        "diag": "U",
                        "m": 5,
                        "n": 9,
                        "alpha": -1.0,
                        "batchCount": 2,
                    },
                ]
            ),
            "full": cplx(
                [
                    {"side": "L", "uplo": "U", "trans": "N", "diag": "N", "m": m, "n": n, "alpha": a, "batchCount": b}
                    for m in (4, 16, 32, 64)
                    for n in (4, 16, 32)
                    for a in (1.0, 0.5, -1.0)
                    for b in (1, 2, 4)
                ]
            ),
            "edge": cplx(
                [{**c, "batchCount": 2} for c in TRSM_EDGE]
                + [{**TRSM_EDGE[0], "trans": "C" if complex_ else "T", "batchCount": 0}]
            ),
            "perf": cplx(
                [
                    {
                        "side": "L",
                        "uplo": "U",
                        "trans": "N",
                        "diag": "N",
                        "m": 64,
                        "n": 64,
                        "alpha": 1.0,
                        "batchCount": 4096,
                    },
                    {
                        "side": "R",
                        "uplo": "L",
                        "trans": "T",
                        "diag": "N",
                        "m": 256,
                        "n": 128,
                        "alpha": 1.0,
                        "batchCount": 256,
                    },
                ]
            ),
        },
        make_inputs=_trsm_inputs(dtype, True),
        compare=_trsm_compare(True),
        reduce_dim=_trsm_size,
        cost_model=_trsm_cost(dtype),
        vendor=vendor_for(name),
        integer_flags=True,
        pointer_arrays=("Aarray", "Barray"),
    )


TRSM_SPECS: list[OperatorSpec] = [
    B.blas_spec(
        name="cublasStrsm_v2",
        category="blas3",
        params=("side", "uplo", "trans", "diag", "m", "n", "alpha", "A", "lda", "B", "ldb"),
        outputs=("B",),
        reference_impl=cublasStrsm_v2,
        description=f"BLAS trsm (float32): {TRSM_DESCRIPTION}",
        cases={
            "smoke": [
                {"side": "L", "uplo": "U", "trans": "N", "diag": "N", "m": 13, "n": 6, "alpha": 1.0},
                {"side": "R", "uplo": "L", "trans": "T", "diag": "U", "m": 5, "n": 9, "alpha": -0.5},
            ],
            "full": [
                {"side": "L", "uplo": u, "trans": t, "diag": d, "m": m, "n": n, "alpha": 1.0}
                for m in (1, 16, 48, 64)
                for n in (1, 8, 16)
                for t in ("N", "T")
                for u in ("L", "U")
                for d in ("N", "U")
            ],
            "edge": TRSM_EDGE,
            "perf": [
                {"side": "L", "uplo": "L", "trans": "N", "diag": "N", "m": 4096, "n": 4096, "alpha": 1.0},
                {"side": "R", "uplo": "U", "trans": "T", "diag": "N", "m": 8192, "n": 1024, "alpha": 1.0},
            ],
        },
        make_inputs=_trsm_inputs("float32", False),
        compare=_trsm_compare(False),
        reduce_dim=_trsm_size,
        cost_model=_trsm_cost("float32"),
        vendor=vendor_for("cublasStrsm_v2"),
        integer_flags=True,
    ),
    _trsm_batched_spec("cublasDtrsmBatched", "float64"),
    _trsm_batched_spec("cublasZtrsmBatched", "complex128"),
]

SPECS: list[OperatorSpec] = GEMM_SPECS + OTHER_SPECS + SYMM_SPECS + TRSM_SPECS
