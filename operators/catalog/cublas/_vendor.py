"""The vendor BLAS as the timing baseline: cuBLAS through ctypes (hipBLAS on ROCm builds, untested).

`vendor_for(name)` gives each spec its `vendor_baseline(device_type)`: a callable with the routine's Python
signature, called as a candidate is (upstream's arguments: flags as BLAS letters or cuBLAS's integers,
Python scalars for alpha and beta, tensors as raw buffers, int64 device arrays of addresses for the
batched routines), or None when the device is not CUDA or the library cannot be loaded, in which case the
harness times the PyTorch reference instead.

Conventions of the calls:
- The library is the one PyTorch's CUDA build uses: first the libcublas already mapped into this process
  (torch loads it for its own matmuls; we run one tiny matmul to make sure), then the nvidia-cublas wheel,
  torch/lib, ctypes.util.find_library and `ldconfig -p`.
- Two handles per process: one in host pointer mode (alpha and beta are passed as host scalars, the usual
  mode), one in device pointer mode used only by dot/asum so the result lands in the device tensor `result`
  without a synchronising copy. Each call first binds the handle to torch's current stream.
- Batched routines get the device array of addresses the spec's invoke built (operators.spec.pointer_array).
- Status codes other than CUBLAS_STATUS_SUCCESS raise RuntimeError.

cuBLAS keeps fewer of BLAS's zero-scalar shortcuts than the references do: its documentation promises that
C (or y) need not be valid when beta == 0, for every routine, and that the unused triangle of a triangular or
symmetric A is not referenced, but it promises the alpha == 0 shortcut (A, B, x not read) only for
DOCUMENTED_ALPHA_ZERO_SKIP. Elsewhere cuBLAS may compute 0 * NaN = NaN: in the H200 check of 2026-11-29 the
four gemmBatched routines, Ssyrk and CsyrkEx returned NaN on exactly their alpha == 0 edge case with NaN in
A/B (their beta == 0 cases with NaN in C passed), and Strsm did not return zeros on its alpha == 0 case with
NaN in B, although its docs promise that shortcut. bench/cublas_vendor_check.py tells such rows apart by
re-running a failing case without its NaN fill. The timed perf cases hold no NaN.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import os
import re
import struct
import subprocess
from collections.abc import Callable, Sequence
from typing import Any

import torch

from operators.catalog.cublas._blas import CUBLAS_ENUMS, flag_letter

# hipBLAS values (hipblas.h) used on ROCm, by BLAS letter
HIPBLAS_ENUMS = {
    "op": {"N": 111, "T": 112, "C": 113},
    "fill": {"U": 121, "L": 122},
    "diag": {"N": 131, "U": 132},
    "side": {"L": 141, "R": 142},
}
POINTER_MODE_HOST, POINTER_MODE_DEVICE = 0, 1


class _Complex64(ctypes.Structure):
    _fields_ = [("re", ctypes.c_float), ("im", ctypes.c_float)]


class _Complex128(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


def _host_scalar(kind: str, value: Any) -> Any:
    """A ctypes object holding alpha/beta in the routine's precision, passed by reference."""
    if kind == "S":
        return ctypes.c_float(float(value))
    if kind == "D":
        return ctypes.c_double(float(value))
    if kind == "H":  # __half: the IEEE binary16 bits
        return ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", float(value)))[0])
    z = complex(value)
    return _Complex64(z.real, z.imag) if kind == "C" else _Complex128(z.real, z.imag)


# Argument kinds, one per Python parameter, in order:
#   op / fill / diag / side : a BLAS letter or cuBLAS's integer, mapped to the library enum (C int)
#   i / l                   : a 32-bit int / a 64-bit int
#   s<P>                    : alpha or beta as a host scalar of precision P (S, D, C, Z, H), by reference
#   p                       : a tensor's device address
#   a                       : an int64 device array of addresses (the spec's pointer array)
#   t                       : a cudaDataType_t code (C int)
_GEMV = ["op", "i", "i", "s?", "p", "i", "p", "i", "s?", "p", "i"]
_GEMV_SB = ["op", "i", "i", "s?", "p", "i", "l", "p", "i", "l", "s?", "p", "i", "l", "i"]
_GEMV_B = ["op", "i", "i", "s?", "a", "i", "a", "i", "s?", "a", "i", "i"]
_GEMM = ["op", "op", "i", "i", "i", "s?", "p", "i", "p", "i", "s?", "p", "i"]
_GEMM_SB = ["op", "op", "i", "i", "i", "s?", "p", "i", "l", "p", "i", "l", "s?", "p", "i", "l", "i"]
_GEMM_B = ["op", "op", "i", "i", "i", "s?", "a", "i", "a", "i", "s?", "a", "i", "i"]
_GER = ["i", "i", "s?", "p", "i", "p", "i", "p", "i"]
_TRSM_B = ["side", "fill", "op", "diag", "i", "i", "s?", "a", "i", "a", "i", "i"]


def _typed(kinds: Sequence[str], precision: str, *, wide: bool = False) -> list[str]:
    """Fill in the scalar precision; `wide` turns every int into int64 (the _64 API)."""
    return [("s" + precision) if k == "s?" else ("l" if wide and k == "i" else k) for k in kinds]


ROUTINES: dict[str, list[str]] = {
    "cublasCcopy_v2": ["i", "p", "i", "p", "i"],
    "cublasDcopy_v2": ["i", "p", "i", "p", "i"],
    "cublasZswap_v2": ["i", "p", "i", "p", "i"],
    "cublasSdot_v2": ["i", "p", "i", "p", "i", "p"],
    "cublasCdotu_v2": ["i", "p", "i", "p", "i", "p"],
    "cublasZdotc_v2": ["i", "p", "i", "p", "i", "p"],
    "cublasDasum_v2": ["i", "p", "i", "p"],
    "cublasSaxpy_v2": ["i", "sS", "p", "i", "p", "i"],
    "cublasDaxpy_v2": ["i", "sD", "p", "i", "p", "i"],
    "cublasSscal_v2": ["i", "sS", "p", "i"],
    "cublasCgemv_v2": _typed(_GEMV, "C"),
    "cublasDgemv_v2": _typed(_GEMV, "D"),
    "cublasCgemvStridedBatched": _typed(_GEMV_SB, "C"),
    "cublasDgemvStridedBatched": _typed(_GEMV_SB, "D"),
    "cublasSgemvStridedBatched": _typed(_GEMV_SB, "S"),
    "cublasZgemvStridedBatched": _typed(_GEMV_SB, "Z"),
    "cublasDgemvBatched": _typed(_GEMV_B, "D"),
    "cublasSgemvBatched": _typed(_GEMV_B, "S"),
    "cublasZgemvBatched": _typed(_GEMV_B, "Z"),
    "cublasCgemvBatched_64": _typed(_GEMV_B, "C", wide=True),
    "cublasSger_v2": _typed(_GER, "S"),
    "cublasCgeru_v2": _typed(_GER, "C"),
    "cublasZgerc_v2": _typed(_GER, "Z"),
    "cublasDsyr2_v2": ["fill", "i", "sD", "p", "i", "p", "i", "p", "i"],
    "cublasCsymv_v2": ["fill", "i", "sC", "p", "i", "p", "i", "sC", "p", "i"],
    "cublasDsbmv_v2": ["fill", "i", "i", "sD", "p", "i", "p", "i", "sD", "p", "i"],
    "cublasStbmv_v2": ["fill", "op", "diag", "i", "i", "p", "i", "p", "i"],
    "cublasStrsv_v2": ["fill", "op", "diag", "i", "p", "i", "p", "i"],
    "cublasSgemm_v2": _typed(_GEMM, "S"),
    "cublasCgemm_v2": _typed(_GEMM, "C"),
    "cublasSgemmEx": ["op", "op", "i", "i", "i", "sS", "p", "t", "i", "p", "t", "i", "sS", "p", "t", "i"],
    "cublasSgemmStridedBatched": _typed(_GEMM_SB, "S"),
    "cublasDgemmStridedBatched": _typed(_GEMM_SB, "D"),
    "cublasHgemmStridedBatched": _typed(_GEMM_SB, "H"),
    "cublasZgemmStridedBatched": _typed(_GEMM_SB, "Z"),
    "cublasCgemmStridedBatched": _typed(_GEMM_SB, "C"),
    "cublasCgemmStridedBatched_64": _typed(_GEMM_SB, "C", wide=True),
    "cublasDgemmStridedBatched_64": _typed(_GEMM_SB, "D", wide=True),
    "cublasDgemmBatched": _typed(_GEMM_B, "D"),
    "cublasHgemmBatched": _typed(_GEMM_B, "H"),
    "cublasSgemmBatched_64": _typed(_GEMM_B, "S", wide=True),
    "cublasZgemmBatched": _typed(_GEMM_B, "Z"),
    "cublasSgeam": ["op", "op", "i", "i", "sS", "p", "i", "sS", "p", "i", "p", "i"],
    "cublasSdgmm": ["side", "i", "i", "p", "i", "p", "i", "p", "i"],
    "cublasCsymm_v2": ["side", "fill", "i", "i", "sC", "p", "i", "p", "i", "sC", "p", "i"],
    "cublasSsyrk_v2": ["fill", "op", "i", "i", "sS", "p", "i", "sS", "p", "i"],
    "cublasCsyrkEx": ["fill", "op", "i", "i", "sC", "p", "t", "i", "sC", "p", "t", "i"],
    "cublasStrsm_v2": ["side", "fill", "op", "diag", "i", "i", "sS", "p", "i", "p", "i"],
    "cublasDtrsmBatched": _typed(_TRSM_B, "D"),
    "cublasZtrsmBatched": _typed(_TRSM_B, "Z"),
}
# cuBLAS's documentation ("if alpha == 0 then A is not referenced and B does not have to be a valid input",
# and geam's "if *alpha == 0, A does not have to be a valid input"): the only routines here whose docs promise
# not to read the alpha operands when alpha == 0
DOCUMENTED_ALPHA_ZERO_SKIP = {"cublasSgeam", "cublasStrsm_v2", "cublasDtrsmBatched", "cublasZtrsmBatched"}
# routines whose output is a device scalar: they run on the device-pointer-mode handle
DEVICE_RESULT = {"cublasSdot_v2", "cublasCdotu_v2", "cublasZdotc_v2", "cublasDasum_v2"}
# hipBLAS has these under other names or other data-type enums; not mapped (the reference is timed instead)
HIP_UNSUPPORTED = {
    "cublasSgemmEx",
    "cublasCsyrkEx",
    "cublasCgemvBatched_64",
    "cublasSgemmBatched_64",
    "cublasCgemmStridedBatched_64",
    "cublasDgemmStridedBatched_64",
}

_CUBLAS_NAME = re.compile(r"libcublas\.so(\.\d+)*$")
_HIPBLAS_NAME = re.compile(r"libhipblas\.so(\.\d+)*$")


def _mapped_libraries(pattern: re.Pattern[str]) -> list[str]:
    """Libraries of that name already mapped into this process (the ones torch itself uses)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = {line.split()[-1] for line in maps if "/" in line}
    except OSError:
        return []
    return sorted(p for p in paths if pattern.search(os.path.basename(p)))


def _ldconfig_libraries(pattern: re.Pattern[str]) -> list[str]:
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.split("=>")[-1].strip() for line in out.splitlines() if pattern.search(line.split("=>")[-1].strip())]


def library_candidates(hip: bool) -> list[str]:
    pattern = _HIPBLAS_NAME if hip else _CUBLAS_NAME
    found = _mapped_libraries(pattern)
    if not hip:
        try:
            import nvidia.cublas  # the nvidia-cublas wheel PyTorch's CUDA build depends on

            for root in nvidia.cublas.__path__:
                found += sorted(glob.glob(os.path.join(root, "lib", "libcublas.so*")))
        except ImportError:
            pass
    found += sorted(
        glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib", "libhipblas.so*" if hip else "libcublas.so*"))
    )
    if hip:
        found += sorted(glob.glob("/opt/rocm*/lib/libhipblas.so*"))
    short = ctypes.util.find_library("hipblas" if hip else "cublas")
    if short:
        found.append(short)
    found += _ldconfig_libraries(pattern)
    return [p for p in dict.fromkeys(found) if pattern.search(os.path.basename(p)) or p == short]


class VendorBlas:
    """One loaded library with its two handles."""

    def __init__(self, lib: ctypes.CDLL, path: str, hip: bool) -> None:
        self.lib, self.path, self.hip = lib, path, hip
        self.enums = HIPBLAS_ENUMS if hip else CUBLAS_ENUMS
        prefix = "hipblas" if hip else "cublas"
        self._create = getattr(lib, f"{prefix}Create" if hip else "cublasCreate_v2")
        self._set_stream = getattr(lib, f"{prefix}SetStream" if hip else "cublasSetStream_v2")
        self._set_mode = getattr(lib, f"{prefix}SetPointerMode" if hip else "cublasSetPointerMode_v2")
        for fn in (self._create, self._set_stream, self._set_mode):
            fn.restype = ctypes.c_int
        self.handles = {
            POINTER_MODE_HOST: self._new_handle(POINTER_MODE_HOST),
            POINTER_MODE_DEVICE: self._new_handle(POINTER_MODE_DEVICE),
        }

    def _new_handle(self, mode: int) -> ctypes.c_void_p:
        handle = ctypes.c_void_p()
        _check(self._create(ctypes.byref(handle)), "create handle")
        _check(self._set_mode(handle, ctypes.c_int(mode)), "set pointer mode")
        return handle

    def symbol(self, name: str) -> Any:
        if self.hip:
            name = "hipblas" + name.removeprefix("cublas").removesuffix("_v2")
        fn = getattr(self.lib, name)
        fn.restype = ctypes.c_int
        return fn

    def call(self, name: str, kinds: Sequence[str], args: Sequence[Any]) -> None:
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cuda"))
        handle = self.handles[POINTER_MODE_DEVICE if name in DEVICE_RESULT else POINTER_MODE_HOST]
        _check(self._set_stream(handle, ctypes.c_void_p(torch.cuda.current_stream(device).cuda_stream)), "set stream")
        c_args: list[Any] = [handle]
        keep: list[Any] = []  # scalars must outlive the call
        for kind, value in zip(kinds, args, strict=True):
            if kind in self.enums:
                c_args.append(ctypes.c_int(self.enums[kind][flag_letter(kind, value)]))
            elif kind == "i" or kind == "t":
                c_args.append(ctypes.c_int(int(value)))
            elif kind == "l":
                c_args.append(ctypes.c_int64(int(value)))
            elif kind.startswith("s"):
                scalar = _host_scalar(kind[1], value)
                keep.append(scalar)
                c_args.append(ctypes.byref(scalar))
            elif kind in ("p", "a"):
                c_args.append(ctypes.c_void_p(value.data_ptr()))
            else:
                raise ValueError(f"unknown argument kind {kind!r}")
        _check(self.symbol(name)(*c_args), name)


def _check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"vendor BLAS {what} failed with status {status}")


@functools.cache
def load(hip: bool) -> VendorBlas | None:
    """The vendor BLAS for this process, or None when none can be loaded (cached, so tried once)."""
    if not torch.cuda.is_available():
        return None
    # make torch load its own BLAS first, so /proc/self/maps names exactly the library torch uses
    torch.ones(1, 1, device="cuda") @ torch.ones(1, 1, device="cuda")
    torch.cuda.synchronize()
    for path in library_candidates(hip):
        try:
            return VendorBlas(ctypes.CDLL(path), path, hip)
        except (OSError, AttributeError, RuntimeError):
            continue
    return None


def vendor_impl(name: str, device_type: str) -> Callable[..., Any] | None:
    """The vendor routine for `name` on this device type, or None (not CUDA, library or symbol absent)."""
    if device_type != "cuda" or name not in ROUTINES:
        return None
    hip = torch.version.hip is not None
    if hip and name in HIP_UNSUPPORTED:
        return None
    blas = load(hip)
    if blas is None:
        return None
    try:
        blas.symbol(name)
    except AttributeError:
        return None
    kinds = ROUTINES[name]

    def routine(*args: Any) -> None:
        if len(args) != len(kinds):
            raise TypeError(f"{name} takes {len(kinds)} arguments, got {len(args)}")
        blas.call(name, kinds, args)

    routine.__name__ = routine.__qualname__ = name
    return routine


def vendor_for(name: str) -> Callable[[str], Callable[..., Any] | None]:
    """The spec's `vendor_baseline`: device type -> the vendor routine or None."""

    def baseline(device_type: str) -> Callable[..., Any] | None:
        return vendor_impl(name, device_type)

    return baseline
