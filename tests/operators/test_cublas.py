"""The cuBLAS catalog: the 50 upstream routines, their references against the BLAS formulas written as
explicit element loops (float64), and the comparison rules (written region, untouched elements, residual)."""

from __future__ import annotations

import itertools

import pytest
import torch

from operators import registry
from operators.catalog.cublas import _blas as B
from operators.catalog.cublas import _vendor, level1, level2, level3
from operators.spec import Rng
from tests.operators.solution_files import load_module

UPSTREAM_NAMES = (
    "cublasCcopy_v2 cublasCdotu_v2 cublasCgemmStridedBatched cublasCgemmStridedBatched_64 cublasCgemm_v2 "
    "cublasCgemvBatched_64 cublasCgemvStridedBatched cublasCgemv_v2 cublasCgeru_v2 cublasCsymm_v2 cublasCsymv_v2 "
    "cublasCsyrkEx cublasDasum_v2 cublasDaxpy_v2 cublasDcopy_v2 cublasDgemmBatched cublasDgemmStridedBatched "
    "cublasDgemmStridedBatched_64 cublasDgemvBatched cublasDgemvStridedBatched cublasDgemv_v2 cublasDsbmv_v2 "
    "cublasDsyr2_v2 cublasDtrsmBatched cublasHgemmBatched cublasHgemmStridedBatched cublasSaxpy_v2 cublasSdgmm "
    "cublasSdot_v2 cublasSgeam cublasSgemmBatched_64 cublasSgemmEx cublasSgemmStridedBatched cublasSgemm_v2 "
    "cublasSgemvBatched cublasSgemvStridedBatched cublasSger_v2 cublasSscal_v2 cublasSsyrk_v2 cublasStbmv_v2 "
    "cublasStrsm_v2 cublasStrsv_v2 cublasZdotc_v2 cublasZgemmBatched cublasZgemmStridedBatched cublasZgemvBatched "
    "cublasZgemvStridedBatched cublasZgerc_v2 cublasZswap_v2 cublasZtrsmBatched"
).split()

# research/upstream_kgb.md §2: upstream case counts, where our full tier reproduces them exactly
UPSTREAM_COUNTS = {
    "cublasCcopy_v2": 99,
    "cublasCdotu_v2": 99,
    "cublasCgemmStridedBatched": 120,
    "cublasCgemmStridedBatched_64": 120,
    "cublasCgemm_v2": 1683,
    "cublasCgemvBatched_64": 90,
    "cublasCgemvStridedBatched": 432,
    "cublasCgemv_v2": 1152,
    "cublasCgeru_v2": 60,
    "cublasCsymm_v2": 60,
    "cublasCsymv_v2": 60,
    "cublasDasum_v2": 18,
    "cublasDaxpy_v2": 144,
    "cublasDcopy_v2": 63,
    "cublasDgemmBatched": 180,
    "cublasDgemmStridedBatched": 864,
    "cublasDgemmStridedBatched_64": 180,
    "cublasDgemvBatched": 90,
    "cublasDgemvStridedBatched": 432,
    "cublasDgemv_v2": 30,
    "cublasDsbmv_v2": 60,
    "cublasDsyr2_v2": 60,
    "cublasDtrsmBatched": 108,
    "cublasHgemmBatched": 180,
    "cublasHgemmStridedBatched": 864,
    "cublasSaxpy_v2": 648,
    "cublasSdot_v2": 99,
    "cublasSgeam": 108,
    "cublasSgemmBatched_64": 180,
    "cublasSgemmEx": 108,
    "cublasSgemmStridedBatched": 864,
    "cublasSgemm_v2": 352,
    "cublasSgemvBatched": 11664,
    "cublasSgemvStridedBatched": 432,
    "cublasSger_v2": 7128,
    "cublasSscal_v2": 216,
    "cublasSsyrk_v2": 60,
    "cublasStbmv_v2": 192,
    "cublasStrsm_v2": 96,
    "cublasStrsv_v2": 96,
    "cublasZgemmBatched": 180,
    "cublasZgemmStridedBatched": 768,
    "cublasZgemvBatched": 90,
    "cublasZgemvStridedBatched": 432,
    "cublasZgerc_v2": 60,
    "cublasZswap_v2": 36,
    "cublasZtrsmBatched": 108,
}
# documented departures: Zdotc drops upstream's no-op alpha axis (60 -> 12), Sdgmm runs each mode as its own
# case (18 -> 36), CsyrkEx drops trans='C', which cuBLAS rejects for syrk (13860 -> 9240)
DEPARTED_COUNTS = {"cublasZdotc_v2": 12, "cublasSdgmm": 36, "cublasCsyrkEx": 9240}

SPECS = registry.all_specs("cublas")
NAN_C = ("cublasSgeam", "cublasSdgmm")


def _clone(value):
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, list):
        return [_clone(v) for v in value]
    return value


def _clone_inputs(inputs):
    return {k: _clone(v) for k, v in inputs.items()}


def test_the_fifty_upstream_routines_are_in_the_catalog():
    assert sorted(s.name for s in SPECS) == sorted(UPSTREAM_NAMES)
    for spec in SPECS:
        assert spec.entrypoints == (spec.name,)
        assert spec.signature.startswith(f"def {spec.name}(")
        assert spec.category in ("blas1", "blas2", "blas3", "matmul")
        assert spec.mutates and not spec.mc


@pytest.mark.parametrize("name", sorted(UPSTREAM_COUNTS) + sorted(DEPARTED_COUNTS))
def test_full_tier_case_counts(name):
    expected = UPSTREAM_COUNTS.get(name, DEPARTED_COUNTS.get(name))
    assert len(registry.get(f"cublas::{name}").tier("full")) == expected


def _run_tier(spec, tier):
    for case in spec.tier(tier):
        inputs = spec.make_inputs(case, Rng(1))
        pristine = _clone_inputs(inputs)
        ref = spec.run_reference(inputs)
        yield case, pristine, ref


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_smoke_and_edge_references_run_and_reject_a_do_nothing_candidate(spec):
    for tier in ("smoke", "edge"):
        for case, pristine, ref in _run_tier(spec, tier):
            assert spec.compare(ref, ref, case, pristine).passed, (tier, case)
            untouched = spec.invoke(lambda *args: None, _clone_inputs(pristine))
            if tier == "smoke":
                assert not spec.compare(untouched, ref, case, pristine).passed, case
            # geam and dgmm get a NaN C on purpose (they must never read it)
            if not any(key.startswith(("nan_", "garbage")) for key in case) and spec.name not in NAN_C:
                assert not any(torch.isnan(t).any() for t in _flatten(ref)), (tier, case)


def _flatten(value):
    if isinstance(value, torch.Tensor):
        return [value]
    return [t for v in value for t in _flatten(v)]


def test_every_spec_costs_its_cases():
    for spec in SPECS:
        for case in spec.tier("smoke") + spec.tier("perf"):
            cost = spec.cost(case, {})
            assert cost.bytes > 0, (spec.id, case)
            if spec.category == "matmul":
                assert cost.flops >= 2 * case["m"] * case["n"] * case["k"]


# ---------------------------------------------------------------------------- references vs element loops


def _element(buf, offset):
    return complex(buf.reshape(-1)[offset]) if buf.is_complex() else float(buf.reshape(-1)[offset])


def _vec_index(i, n, inc):
    return i * inc if inc > 0 else (n - 1 - i) * -inc


def _op_element(buf, ld, trans, i, j):
    """op(X)(i, j) of a column-major buffer by explicit indexing."""
    if trans == "N":
        return _element(buf, i + j * ld)
    value = _element(buf, j + i * ld)
    return value.conjugate() if trans == "C" and isinstance(value, complex) else value


@pytest.mark.parametrize("transa,transb", [("N", "N"), ("T", "C"), ("C", "T"), ("N", "C")])
def test_gemm_matches_the_element_loop_with_padded_leading_dimensions(transa, transb):
    m, n, k, lda, ldb, ldc = 4, 3, 5, 7, 6, 5
    g = torch.Generator().manual_seed(3)
    A = torch.randn(lda * 5, dtype=torch.complex128, generator=g)
    Bm = torch.randn(ldb * 5, dtype=torch.complex128, generator=g)
    C = torch.randn(ldc * n, dtype=torch.complex128, generator=g)
    alpha, beta = 0.5 - 0.25j, 1.5 + 0.5j
    expected = C.clone()
    for i, j in itertools.product(range(m), range(n)):
        acc = sum(_op_element(A, lda, transa, i, p) * _op_element(Bm, ldb, transb, p, j) for p in range(k))
        expected[i + j * ldc] = alpha * acc + beta * _element(C, i + j * ldc)
    level3.cublasCgemm_v2(transa, transb, m, n, k, alpha, A, lda, Bm, ldb, beta, C, ldc)
    torch.testing.assert_close(C, expected, rtol=1e-12, atol=1e-12)


def test_gemm_shortcuts_do_not_read_nan_operands():
    C = torch.full((12,), float("nan"), dtype=torch.float64)
    A, Bm = torch.ones(12, dtype=torch.float64), torch.ones(12, dtype=torch.float64)
    level3.cublasDgemmStridedBatched("N", "N", 3, 4, 3, 2.0, A, 3, 0, Bm, 3, 0, 0.0, C, 3, 0, 1)
    assert torch.equal(C, torch.full((12,), 6.0, dtype=torch.float64))
    A.fill_(float("nan"))
    C = torch.arange(12, dtype=torch.float64)
    level3.cublasDgemmStridedBatched("N", "N", 3, 4, 3, 0.0, A, 3, 0, A, 3, 0, 2.0, C, 3, 0, 1)
    assert torch.equal(C, 2 * torch.arange(12, dtype=torch.float64))


def test_strided_batched_gemm_uses_the_strides_and_leaves_gaps_alone():
    g = torch.Generator().manual_seed(5)
    A = torch.randn(2 * 6, dtype=torch.float64, generator=g)  # two 2x3 matrices, stride 6
    Bm = torch.randn(3 * 2, dtype=torch.float64, generator=g)  # one 3x2 matrix shared (stride 0)
    C = torch.randn(2 * 7, dtype=torch.float64, generator=g)  # 2x2 matrices, stride 7 (3 gap elements)
    before = C.clone()
    level3.cublasDgemmStridedBatched("N", "N", 2, 2, 3, 1.0, A, 2, 6, Bm, 3, 0, 0.0, C, 2, 7, 2)
    for b in range(2):
        a = A[6 * b : 6 * b + 6].reshape(3, 2).T
        expected = a @ Bm.reshape(2, 3).T
        torch.testing.assert_close(C[7 * b : 7 * b + 4].reshape(2, 2).T, expected)
        assert torch.equal(C[7 * b + 4 : 7 * b + 7], before[7 * b + 4 : 7 * b + 7])


@pytest.mark.parametrize("trans", ["N", "T", "C"])
def test_gemv_matches_the_element_loop_with_negative_increments(trans):
    m, n, lda, incx, incy = 5, 3, 7, -2, 3
    g = torch.Generator().manual_seed(7)
    A = torch.randn(lda * n, dtype=torch.complex128, generator=g)
    len_x, len_y = (n, m) if trans == "N" else (m, n)
    x = torch.randn(len_x * 2, dtype=torch.complex128, generator=g)
    y = torch.randn(len_y * 3, dtype=torch.complex128, generator=g)
    expected = y.clone()
    for i in range(len_y):
        acc = sum(_op_element(A, lda, trans, i, j) * _element(x, _vec_index(j, len_x, incx)) for j in range(len_x))
        expected[_vec_index(i, len_y, incy)] = 2j * acc - 0.5 * _element(y, _vec_index(i, len_y, incy))
    level2.cublasCgemv_v2(trans, m, n, 2j, A, lda, x, incx, -0.5, y, incy)
    torch.testing.assert_close(y, expected, rtol=1e-12, atol=1e-12)


def test_level1_routines_match_the_loops():
    g = torch.Generator().manual_seed(11)
    n = 6
    x = torch.randn(3 * n, dtype=torch.complex128, generator=g)
    y = torch.randn(2 * n, dtype=torch.complex128, generator=g)
    result = torch.zeros(1, dtype=torch.complex128)
    level1.cublasZdotc_v2(n, x, -3, y, 2, result)
    expected = sum(_element(x, _vec_index(i, n, -3)).conjugate() * _element(y, 2 * i) for i in range(n))
    assert abs(complex(result[0]) - expected) < 1e-12

    xr = torch.randn(2 * n, dtype=torch.float64, generator=g)
    yr = torch.randn(n, dtype=torch.float64, generator=g)
    expected_y = yr.clone()
    for i in range(n):
        expected_y[_vec_index(i, n, -1)] += 1.5 * _element(xr, 2 * i)
    level1.cublasDaxpy_v2(n, 1.5, xr, 2, yr, -1)
    torch.testing.assert_close(yr, expected_y, rtol=1e-14, atol=1e-14)

    asum = torch.zeros(1, dtype=torch.float64)
    level1.cublasDasum_v2(n, xr, 2, asum)
    assert abs(float(asum[0]) - float(xr[::2].abs().sum())) < 1e-12

    x0, y0 = x.clone(), y.clone()
    level1.cublasZswap_v2(n, x, -3, y, 2)
    for i in range(n):
        assert x[_vec_index(i, n, -3)] == y0[2 * i] and y[2 * i] == x0[_vec_index(i, n, -3)]


def test_ger_and_syr2_update_only_their_region():
    g = torch.Generator().manual_seed(13)
    m, n, lda = 3, 4, 5
    A = torch.randn(lda * n, dtype=torch.complex128, generator=g)
    x = torch.randn(m, dtype=torch.complex128, generator=g)
    y = torch.randn(2 * n, dtype=torch.complex128, generator=g)
    expected = A.clone()
    for i, j in itertools.product(range(m), range(n)):
        expected[i + j * lda] += 0.5 * _element(x, i) * _element(y, 2 * j).conjugate()
    level2.cublasZgerc_v2(m, n, 0.5, x, 1, y, 2, A, lda)
    torch.testing.assert_close(A, expected, rtol=1e-12, atol=1e-12)

    nn, lda = 4, 6
    S = torch.randn(lda * nn, dtype=torch.float64, generator=g)
    u = torch.randn(nn, dtype=torch.float64, generator=g)
    v = torch.randn(nn, dtype=torch.float64, generator=g)
    expected = S.clone()
    for i, j in itertools.product(range(nn), range(nn)):
        if i >= j:  # lower triangle (row >= column)
            expected[i + j * lda] += 2.0 * (u[i] * v[j] + v[i] * u[j])
    level2.cublasDsyr2_v2("L", nn, 2.0, u, 1, v, 1, S, lda)
    torch.testing.assert_close(S, expected, rtol=1e-12, atol=1e-12)


def _dense_from_band(band, lda, n, k, uplo):
    dense = torch.zeros(n, n, dtype=torch.float64)
    for j in range(n):
        for i in range(n):
            if uplo == "U" and j - k <= i <= j:
                dense[i, j] = _element(band, (k + i - j) + j * lda)
            if uplo == "L" and j <= i <= j + k:
                dense[i, j] = _element(band, (i - j) + j * lda)
    return dense


@pytest.mark.parametrize("uplo", ["U", "L"])
def test_band_routines_match_the_dense_matrix(uplo):
    g = torch.Generator().manual_seed(17)
    n, k, lda = 7, 2, 4
    band = torch.randn(lda * n, dtype=torch.float64, generator=g)
    dense = _dense_from_band(band, lda, n, k, uplo)
    sym = torch.triu(dense) + torch.triu(dense, 1).T if uplo == "U" else torch.tril(dense) + torch.tril(dense, -1).T
    x = torch.randn(n, dtype=torch.float64, generator=g)
    y = torch.randn(n, dtype=torch.float64, generator=g)
    expected = 1.5 * sym @ x - 0.75 * y
    level2.cublasDsbmv_v2(uplo, n, k, 1.5, band, lda, x, 1, -0.75, y, 1)
    torch.testing.assert_close(y, expected)
    for trans, diag in itertools.product("NT", "NU"):
        tri = dense.clone()
        if diag == "U":
            tri.fill_diagonal_(1.0)
        x32 = torch.randn(n, dtype=torch.float32, generator=g)
        expected = ((tri if trans == "N" else tri.T) @ x32.double()).float()
        level2.cublasStbmv_v2(uplo, trans, diag, n, k, band.float(), lda, x32, 1)
        torch.testing.assert_close(x32, expected)


@pytest.mark.parametrize("uplo,trans,diag", list(itertools.product("UL", "NT", "NU")))
def test_trsv_solves_and_ignores_the_other_triangle(uplo, trans, diag):
    n, lda = 9, 11
    A = level2.well_conditioned_triangular(Rng(2), n, lda, uplo, diag, "float32", "nan")
    x = torch.randn(2 * n, dtype=torch.float32)
    b = x.clone()
    level2.cublasStrsv_v2(uplo, trans, diag, n, A, lda, x, -2)
    dense = torch.as_strided(A, (n, n), (1, lda)).double()
    mask = (
        torch.triu(torch.ones(n, n, dtype=torch.bool))
        if uplo == "U"
        else torch.tril(torch.ones(n, n, dtype=torch.bool))
    )
    tri = torch.where(mask, dense, torch.zeros(()).double())
    if diag == "U":
        tri.fill_diagonal_(1.0)
    op = tri if trans == "N" else tri.T
    solution = x[::2].double().flip(0)
    torch.testing.assert_close(op @ solution, b[::2].double().flip(0), rtol=1e-5, atol=1e-5)
    assert torch.equal(x[1::2], b[1::2])


@pytest.mark.parametrize("side", ["L", "R"])
def test_trsm_matches_torch_linalg(side):
    m, n, lda, ldb = 5, 4, 7, 6
    size = m if side == "L" else n
    A = level2.well_conditioned_triangular(Rng(3), size, lda, "L", "N", "float64", None)
    Bm = torch.randn(ldb * n, dtype=torch.float64)
    b0 = torch.as_strided(Bm, (m, n), (1, ldb)).clone()
    level3.cublasDtrsmBatched(side, "L", "T", "N", m, n, 2.0, [A], lda, [Bm], ldb, 1)
    tri = torch.tril(torch.as_strided(A, (size, size), (1, lda)))
    X = torch.as_strided(Bm, (m, n), (1, ldb))
    torch.testing.assert_close(tri.T @ X if side == "L" else X @ tri.T, 2.0 * b0)


def test_syrk_writes_one_triangle_and_symm_reads_one():
    g = torch.Generator().manual_seed(19)
    n, k = 5, 3
    A = torch.randn(n * k, dtype=torch.complex64, generator=g)
    C = torch.randn(n * n, dtype=torch.complex64, generator=g)
    before = C.clone()
    level3.cublasCsyrkEx("U", "N", n, k, 1.0 + 0.5j, A, B.CUDA_C_32F, n, 0.5 + 0j, C, B.CUDA_C_32F, n)
    a = torch.as_strided(A, (n, k), (1, n)).to(torch.complex128)
    full = (1.0 + 0.5j) * a @ a.T + 0.5 * torch.as_strided(before, (n, n), (1, n)).to(torch.complex128)
    got = torch.as_strided(C, (n, n), (1, n))
    upper = torch.triu(torch.ones(n, n, dtype=torch.bool))
    torch.testing.assert_close(got[upper], full[upper].to(torch.complex64))
    assert torch.equal(got[~upper], torch.as_strided(before, (n, n), (1, n))[~upper])

    S = torch.randn(n * n, dtype=torch.complex64, generator=g)
    torch.as_strided(S, (n, n), (1, n)).masked_fill_(~upper, float("nan"))
    Bm = torch.randn(n * 2, dtype=torch.complex64, generator=g)
    out = torch.full((n * 2,), float("nan"), dtype=torch.complex64)
    level3.cublasCsymm_v2("L", "U", n, 2, 1.0 + 0j, S, n, Bm, n, 0j, out, n)
    s = torch.as_strided(S, (n, n), (1, n)).to(torch.complex128)
    s = torch.where(upper, s, s.T)
    torch.testing.assert_close(out.reshape(2, n).T.to(torch.complex128), s @ Bm.reshape(2, n).T.to(torch.complex128))


def test_geam_and_dgmm_never_read_c():
    g = torch.Generator().manual_seed(23)
    A = torch.randn(12, generator=g)
    Bm = torch.randn(12, generator=g)
    C = torch.full((12,), float("nan"))
    level3.cublasSgeam("T", "N", 3, 4, 2.0, A, 4, -1.0, Bm, 3, C, 3)
    torch.testing.assert_close(C.reshape(4, 3).T, 2.0 * A.reshape(3, 4) - Bm.reshape(4, 3).T)
    x = torch.randn(8, generator=g)
    C.fill_(float("nan"))
    level3.cublasSdgmm("L", 3, 4, A, 3, x, -2, C, 3)
    scale = x[::2][:3].flip(0)
    torch.testing.assert_close(C.reshape(4, 3).T, scale[:, None] * A.reshape(4, 3).T)


# ---------------------------------------------------------------------------- comparison rules


def _returning(buffer: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A one-output routine's outputs as invoke gives them: the written buffer, then what it returned."""
    return buffer, buffer


def test_returned_value_is_judged_as_upstream_judges_it():
    """Upstream asserts on `act_out = routine(...)` (its baselines return the written buffer): a routine
    that writes right but returns nothing, or returns other values, fails; pointer-array routines and
    CgemmStridedBatched, whose upstream tests read the buffers, are judged on the buffers alone."""
    spec = registry.get("cublas::cublasSaxpy_v2")
    case = spec.tier("smoke")[0]
    inputs = spec.make_inputs(case, Rng(0))
    pristine = _clone_inputs(inputs)
    ref = spec.run_reference(_clone_inputs(inputs))
    y = ref[0]
    assert spec.compare((y, y.clone()), ref, case, pristine).passed
    none = spec.compare((y, None), ref, case, pristine)
    assert not none.passed and "returned value" in none.reason
    assert not spec.compare((y, pristine["y"]), ref, case, pristine).passed

    def returns_nothing(n, alpha, x, incx, y, incy):
        level1.cublasSaxpy_v2(n, alpha, x, incx, y, incy)

    out = spec.invoke(returns_nothing, _clone_inputs(inputs))
    assert out[1] is None and not spec.compare(out, ref, case, pristine).passed
    for name in POINTER_ARRAY_ROUTINES | {"cublasCgemmStridedBatched"}:
        batched = registry.get(f"cublas::{name}")
        case = batched.tier("smoke")[0]
        built = batched.make_inputs(case, Rng(0))
        assert not isinstance(batched.run_reference(_clone_inputs(built)), tuple) or len(batched.mutates) > 1, name


def test_comparison_rejects_writes_outside_the_region_blas_writes():
    spec = registry.get("cublas::cublasSgemm_v2")
    case = spec.tier("edge")[0]  # padded ldc, beta = 0 with NaN C
    inputs = spec.make_inputs(case, Rng(0))
    pristine = _clone_inputs(inputs)
    ref = spec.run_reference(inputs)
    sloppy = ref[0].clone()
    ldc, m = case["ldc"], case["m"]
    torch.as_strided(sloppy, (ldc - m, case["n"]), (1, ldc), m).zero_()  # clobbers the padding rows
    assert not spec.compare(_returning(sloppy), ref, case, pristine).passed
    nudged = ref[0].clone()
    torch.as_strided(nudged, (1,), (1,), 0).add_(1e-2)
    assert not spec.compare(_returning(nudged), ref, case, pristine).passed


def test_syrk_comparison_requires_the_other_triangle_unchanged():
    spec = registry.get("cublas::cublasSsyrk_v2")
    case = spec.tier("smoke")[0]
    inputs = spec.make_inputs(case, Rng(0))
    pristine = _clone_inputs(inputs)
    ref = spec.run_reference(inputs)
    n = case["n"]
    full_write = ref[0].clone()
    view = torch.as_strided(full_write, (n, n), (1, n))
    view.copy_(torch.where(torch.tril(torch.ones(n, n, dtype=torch.bool)), view, view.T))
    assert not spec.compare(_returning(full_write), ref, case, pristine).passed


def test_triangular_solve_is_judged_elementwise_at_upstreams_tolerance():
    spec = registry.get("cublas::cublasStrsv_v2")
    case = spec.tier("smoke")[0]
    inputs = spec.make_inputs(case, Rng(0))
    pristine = _clone_inputs(inputs)
    ref = spec.run_reference(inputs)
    tiny = ref[0].clone()
    tiny[0] = torch.nextafter(tiny[0], torch.tensor(float("inf")))  # one ulp: still a backward-stable solution
    assert spec.compare(_returning(tiny), ref, case, pristine).passed
    wrong = ref[0].clone()
    wrong[0] += 1e-3
    assert not spec.compare(_returning(wrong), ref, case, pristine).passed
    assert not spec.compare(_returning(pristine["x"]), ref, case, pristine).passed


def test_sdot_that_skips_the_last_element_fails_at_upstreams_tolerance():
    """Upstream judges Sdot with atol 1e-4 (no reduction length); atol 1e-4*n passed this kernel on 5 of
    the 9 n = 5333 cases of seed 0."""
    spec = registry.get("cublas::cublasSdot_v2")
    cases = [c for c in spec.tier("full") if c["n"] == 5333]
    assert len(cases) == 9
    for case in cases:
        inputs = spec.make_inputs(case, Rng(0))
        pristine = _clone_inputs(inputs)
        ref = spec.run_reference(_clone_inputs(inputs))
        short = _clone_inputs(inputs)
        level1.cublasSdot_v2(case["n"] - 1, short["x"], case["incx"], short["y"], case["incy"], short["result"])
        assert not spec.compare(_returning(short["result"]), ref, case, pristine).passed, case
        assert spec.compare(_returning(ref[0].clone()), ref, case, pristine).passed, case


# routines whose upstream tests pass cuBLAS's integer enums, and the batched ones that take pointer arrays
INTEGER_FLAG_ROUTINES = {
    "cublasStrsm_v2",
    "cublasStrsv_v2",
    "cublasStbmv_v2",
    "cublasSsyrk_v2",
    "cublasCsyrkEx",
    "cublasCsymm_v2",
    "cublasCsymv_v2",
    "cublasDsbmv_v2",
    "cublasDsyr2_v2",
    "cublasSdgmm",
    "cublasSgeam",
    "cublasDtrsmBatched",
    "cublasZtrsmBatched",
}
POINTER_ARRAY_ROUTINES = {
    "cublasDgemmBatched",
    "cublasHgemmBatched",
    "cublasSgemmBatched_64",
    "cublasZgemmBatched",
    "cublasDgemvBatched",
    "cublasSgemvBatched",
    "cublasZgemvBatched",
    "cublasCgemvBatched_64",
    "cublasDtrsmBatched",
    "cublasZtrsmBatched",
}


def test_candidates_get_upstreams_arguments():
    """Integer enums where upstream's tests pass integers (letters elsewhere), and for batched routines an
    int64 array of the addresses of the very tensors this call was given (a clone gets its own)."""
    for spec in SPECS:
        params = spec.signature.removeprefix(f"def {spec.name}(").removesuffix("):").split(", ")
        inputs = _clone_inputs(spec.make_inputs(spec.tier("smoke")[0], Rng(0)))
        received: list[tuple] = []
        spec.invoke(lambda *args, got=received: got.append(args), inputs)
        for param, value in zip(params, received[0], strict=True):
            if param in B.FLAG_KINDS:
                expected = int if spec.name in INTEGER_FLAG_ROUTINES else str
                assert type(value) is expected, (spec.name, param, value)
            if param.endswith("array"):
                assert spec.name in POINTER_ARRAY_ROUTINES, spec.name
                assert value.dtype == torch.int64 and value.device == inputs[param][0].device
                assert value.tolist() == [t.data_ptr() for t in inputs[param]], (spec.name, param)
        assert set(spec.pointer_arrays) == {p for p in params if p.endswith("array")}, spec.name
    assert {s.name for s in SPECS if s.pointer_arrays} == POINTER_ARRAY_ROUTINES


# ---------------------------------------------------------------------------- vendor baseline (no GPU here)


def test_vendor_bindings_cover_every_routine_argument_by_argument():
    for spec in SPECS:
        params = spec.signature.removeprefix(f"def {spec.name}(").removesuffix("):").split(", ")
        kinds = _vendor.ROUTINES[spec.name]
        assert len(kinds) == len(params), spec.name
        for param, kind in zip(params, kinds, strict=True):
            if param in ("alpha", "beta"):
                assert kind.startswith("s"), (spec.name, param)
            if param.endswith("array"):
                assert kind == "a", (spec.name, param)
            if param in ("trans", "transa", "transb"):
                assert kind == "op", (spec.name, param)
        precision = spec.name[len("cublas")]
        assert all(k == "s" + precision for k in kinds if k.startswith("s") and k != "side"), spec.name


def test_vendor_baseline_is_absent_off_cuda():
    for spec in SPECS:
        assert spec.vendor_baseline("cpu") is None
    assert isinstance(_vendor.library_candidates(hip=False), list)


# ---------------------------------------------------------------------------- reference Triton solutions


SOLUTIONS = sorted(registry.REFERENCE_SOLUTIONS_DIR.glob("cublas__*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_reference_solution_passes_smoke_and_edge_in_the_interpreter(path):
    spec = registry.get("cublas::" + path.stem.removeprefix("cublas__"))
    module = load_module(path, f"cublas_solution_{spec.name}")
    for tier in ("smoke", "edge"):
        for case in spec.tier(tier):
            inputs = spec.make_inputs(case, Rng(4))
            pristine = _clone_inputs(inputs)
            ref = spec.run_reference(_clone_inputs(inputs))
            out = spec.invoke(getattr(module, spec.name), inputs)
            result = spec.compare(out, ref, case, pristine)
            assert result.passed, (tier, case, result.reason)
