"""The cuBLAS vendor baseline without a GPU: the ctypes arguments each binding hands the library (a recording
fake in place of libcublas), the bench's sorting of failing NaN edge cases, and the fix for a row the H200
vendor check flagged (Zswap's reference)."""

from __future__ import annotations

import ctypes
import struct
import types
from pathlib import Path

import pytest
import torch

from operators import registry
from operators.catalog.cublas import _blas as B
from operators.catalog.cublas import _vendor, level1
from operators.spec import Rng
from tests.operators.solution_files import load_module

REPO = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------- Zswap reference


@pytest.mark.parametrize("incx, incy", [(1, 1), (2, 3), (1, -2), (-1, 2), (-2, -1)])
def test_zswap_reference_exchanges_both_vectors(incx, incy):
    n = 7
    g = torch.Generator().manual_seed(3)
    x = torch.randn(n * abs(incx), dtype=torch.complex128, generator=g)
    y = torch.randn(n * abs(incy), dtype=torch.complex128, generator=g)
    x0, y0 = x.clone(), y.clone()

    def at(i: int, inc: int) -> int:
        return i * inc if inc > 0 else (n - 1 - i) * -inc

    level1.cublasZswap_v2(n, x, incx, y, incy)
    for i in range(n):
        assert x[at(i, incx)] == y0[at(i, incy)], i
        assert y[at(i, incy)] == x0[at(i, incx)], i


# ---------------------------------------------------------------------------- bindings against a fake library


class RecordingLibrary:
    """Stands in for libcublas: every symbol records its ctypes arguments and returns CUBLAS_STATUS_SUCCESS."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple]] = []
        self.handles_made = 0

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)

        def symbol(*args):
            self.calls.append((name, args))
            if name == "cublasCreate_v2":
                self.handles_made += 1
                args[0]._obj.value = 0x1000 * self.handles_made
            return 0

        setattr(self, name, symbol)  # one object per symbol, so the binding's `restype` stays set on it
        return symbol


@pytest.fixture
def blas(monkeypatch):
    # no CUDA here: every call binds its handle to "stream 0"
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=0))
    return _vendor.VendorBlas(RecordingLibrary(), "fake", hip=False)


def call_routine(blas, name: str, case: dict) -> tuple[dict, tuple]:
    """Builds the spec's inputs for `case`, calls the binding as the spec calls a candidate (upstream's
    arguments), returns (inputs, the arguments libcublas got)."""
    spec = registry.get(f"cublas::{name}")
    inputs = spec.make_inputs(case, Rng(0))
    spec.invoke(lambda *args: blas.call(name, _vendor.ROUTINES[name], args), inputs)
    called, args = blas.lib.calls[-1]
    assert called == name
    return inputs, args


def host_handle(blas) -> int:
    return blas.handles[_vendor.POINTER_MODE_HOST].value


def scalar(arg):
    """The ctypes object a by-reference argument points to."""
    return arg._obj


def pointer_table(arg, count: int) -> list[int]:
    return list((ctypes.c_int64 * count).from_address(arg.value)) if count else []


def test_handles_are_made_in_host_and_device_pointer_mode(blas):
    modes = {args[0].value: args[1].value for name, args in blas.lib.calls if name == "cublasSetPointerMode_v2"}
    assert modes == {
        blas.handles[_vendor.POINTER_MODE_HOST].value: 0,
        blas.handles[_vendor.POINTER_MODE_DEVICE].value: 1,
    }


def test_zswap_binding_passes_n_two_pointers_and_increments(blas):
    inputs, args = call_routine(blas, "cublasZswap_v2", {"n": 5, "incx": 2, "incy": -1})
    handle, n, x, incx, y, incy = args
    assert handle.value == host_handle(blas)
    assert [type(a) for a in (n, incx, incy)] == [ctypes.c_int] * 3
    assert (n.value, incx.value, incy.value) == (5, 2, -1)
    assert (x.value, y.value) == (inputs["x"].data_ptr(), inputs["y"].data_ptr())


def _half_bits(value: float) -> int:
    return struct.unpack("<H", struct.pack("<e", value))[0]


@pytest.mark.parametrize(
    "name, scalar_type, int_type",
    [
        ("cublasDgemmBatched", ctypes.c_double, ctypes.c_int),
        ("cublasHgemmBatched", ctypes.c_uint16, ctypes.c_int),  # __half: its IEEE binary16 bits
        ("cublasSgemmBatched_64", ctypes.c_float, ctypes.c_int64),
        ("cublasZgemmBatched", _vendor._Complex128, ctypes.c_int),
    ],
)
def test_gemm_batched_bindings(blas, name, scalar_type, int_type):
    complex_ = name.startswith("cublasZ")
    alpha, beta = (0.5 - 0.25j, 0.0) if complex_ else (0.5, 0.0)
    case = {"m": 5, "n": 4, "k": 3, "alpha": alpha, "beta": beta, "transa": "T", "transb": "N", "batchCount": 3}
    inputs, args = call_routine(blas, name, {**case, "lda": 6, "ldb": 7, "ldc": 8})
    handle, transa, transb, m, n, k, a_alpha, a_arr, lda, b_arr, ldb, a_beta, c_arr, ldc, batch = args
    assert handle.value == host_handle(blas)
    assert (transa.value, transb.value) == (1, 0)
    ints = (m, n, k, lda, ldb, ldc, batch)
    assert all(type(i) is int_type for i in ints)
    assert [i.value for i in ints] == [5, 4, 3, 6, 7, 8, 3]
    assert type(scalar(a_alpha)) is scalar_type and type(scalar(a_beta)) is scalar_type
    if complex_:
        assert (scalar(a_alpha).re, scalar(a_alpha).im) == (0.5, -0.25)
        assert (scalar(a_beta).re, scalar(a_beta).im) == (0.0, 0.0)
    elif scalar_type is ctypes.c_uint16:
        assert (scalar(a_alpha).value, scalar(a_beta).value) == (_half_bits(0.5), 0)
    else:
        assert (scalar(a_alpha).value, scalar(a_beta).value) == (0.5, 0.0)
    for table, tensors in ((a_arr, "Aarray"), (b_arr, "Barray"), (c_arr, "Carray")):
        assert pointer_table(table, 3) == [t.data_ptr() for t in inputs[tensors]]


def test_syrk_bindings_pass_scalars_in_the_routine_precision_and_type_codes(blas):
    case = {"uplo": "L", "trans": "T", "n": 6, "k": 4, "alpha": 1.5, "beta": 0.0}
    inputs, args = call_routine(blas, "cublasSsyrk_v2", case)
    _, uplo, trans, n, k, alpha, a, lda, beta, c, ldc = args
    assert (uplo.value, trans.value, n.value, k.value, lda.value, ldc.value) == (0, 1, 6, 4, 4, 6)
    assert type(scalar(alpha)) is ctypes.c_float and (scalar(alpha).value, scalar(beta).value) == (1.5, 0.0)
    assert (a.value, c.value) == (inputs["A"].data_ptr(), inputs["C"].data_ptr())

    case = {"uplo": "U", "trans": "N", "n": 6, "k": 4, "alpha": 1.5 + 0.25j, "beta": 0j}
    inputs, args = call_routine(blas, "cublasCsyrkEx", case)
    _, uplo, trans, n, k, alpha, a, a_type, lda, beta, c, c_type, ldc = args
    assert (uplo.value, trans.value, n.value, k.value, lda.value, ldc.value) == (1, 0, 6, 4, 6, 6)
    assert type(scalar(alpha)) is _vendor._Complex64 and type(scalar(beta)) is _vendor._Complex64
    assert (scalar(alpha).re, scalar(alpha).im, scalar(beta).re, scalar(beta).im) == (1.5, 0.25, 0.0, 0.0)
    assert (a_type.value, c_type.value) == (B.CUDA_C_32F, B.CUDA_C_32F)
    assert (a.value, c.value) == (inputs["A"].data_ptr(), inputs["C"].data_ptr())


def test_strsm_binding_passes_a_zero_alpha_as_a_host_float(blas):
    case = {"side": "L", "uplo": "U", "trans": "N", "diag": "N", "m": 7, "n": 5, "alpha": 0.0}
    inputs, args = call_routine(blas, "cublasStrsm_v2", case)
    handle, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb = args
    assert handle.value == host_handle(blas)
    assert [v.value for v in (side, uplo, trans, diag, m, n, lda, ldb)] == [0, 1, 0, 0, 7, 5, 7, 7]
    assert type(scalar(alpha)) is ctypes.c_float and scalar(alpha).value == 0.0
    assert (a.value, b.value) == (inputs["A"].data_ptr(), inputs["B"].data_ptr())


# ---------------------------------------------------------------------------- the bench's NaN re-run


def _load_bench():
    return load_module(REPO / "bench" / "cublas_vendor_check.py", "cublas_vendor_check")


def host_buffers(pointers: torch.Tensor, count: int, numel: int, dtype: torch.dtype) -> list[torch.Tensor]:
    """The host buffers of `numel` elements a pointer array names (a fake vendor's side of upstream's ABI)."""
    nbytes = max(numel, 1) * torch.empty((), dtype=dtype).element_size()  # every buffer holds an element
    return [
        torch.frombuffer((ctypes.c_byte * nbytes).from_address(address), dtype=dtype)
        for address in pointers[:count].tolist()
    ]


def gemm_batched_without_shortcuts(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, count):
    """A vendor that always computes alpha*op(A)*op(B) + beta*C, so a zero scalar times NaN stays NaN."""
    a_shape = (m, k) if transa == "N" else (k, m)
    b_shape = (k, n) if transb == "N" else (n, k)
    buffers = (
        host_buffers(Aarray, count, lda * a_shape[1], torch.float64),
        host_buffers(Barray, count, ldb * b_shape[1], torch.float64),
        host_buffers(Carray, count, ldc * n, torch.float64),
    )
    for a_buf, b_buf, c_buf in zip(*buffers, strict=True):
        a = B.op(B.read_matrix(a_buf, *a_shape, lda), transa)
        b = B.op(B.read_matrix(b_buf, *b_shape, ldb), transb)
        c = B.matrix_view(c_buf, m, n, ldc)
        c.copy_((alpha * (a @ b) + beta * c.to(a.dtype)).to(c_buf.dtype))


def test_bench_sorts_nan_reads_by_what_cublas_documents():
    bench = _load_bench()
    spec = registry.get("cublas::cublasDgemmBatched")
    rows = bench.check_spec(spec, gemm_batched_without_shortcuts, ["edge"], 0, 0, False, device="cpu")
    statuses = [row["status"] for row in rows]
    # edge 0: beta == 0 with NaN in C, which cuBLAS documents as not read; edge 1: alpha == 0 with NaN in A
    # and B, which gemm's documentation does not promise to skip; the rest have no NaN
    assert statuses == ["NAN-READ vs docs", "nan-read"] + ["pass"] * (len(rows) - 2)
    assert "nan_AB" in rows[1]["reason"] and "alpha = 0.0" in rows[1]["reason"]


def test_bench_keeps_a_wrong_vendor_failing_with_or_without_nan():
    bench = _load_bench()
    spec = registry.get("cublas::cublasDgemmBatched")

    def does_nothing(*args):
        return None

    rows = bench.check_spec(spec, does_nothing, ["smoke", "edge"], 0, 0, False, device="cpu")
    nan_rows = [r for r in rows if bench.nan_fills(r["params"])]
    assert nan_rows and all(
        r["status"] == "FAIL" and "also fails without the NaN fill" in r["reason"] for r in nan_rows
    )
    assert any(r["status"] == "FAIL" for r in rows if r["tier"] == "smoke")


def test_only_trsm_and_geam_document_the_alpha_zero_skip():
    bench = _load_bench()
    assert bench.documented_skip("cublasStrsm_v2", ["nan_B", "garbage"])
    assert bench.documented_skip("cublasSsyrk_v2", ["nan_C"])
    assert not bench.documented_skip("cublasSsyrk_v2", ["nan_A"])
    assert not bench.documented_skip("cublasHgemmBatched", ["nan_AB"])
