"""Column-major BLAS semantics on torch tensors, shared by the cuBLAS catalog modules (no SPECS here).

Every matrix or vector argument is a buffer: cuBLAS sees only its data pointer, so a torch tensor's
shape is irrelevant and element (i, j) of a column-major matrix with leading dimension `ld` lives at
storage offset i + j*ld (research/upstream_kgb.md §2.3: upstream allocates row-major tensors and
passes lda = A.shape[0]). Vectors with increment inc hold element i at i*inc, or at (n-1-i)*|inc| when
inc < 0 (BLAS walks a negative increment backwards from the end). References compute in float64
(complex128) and round once to the buffer dtype (research/operators.md §1, profile FG), honour the BLAS
shortcuts (alpha == 0: A, B, x are not read; beta == 0: C, y are not read) and write only what BLAS
writes; everything else in an output buffer must come back bit-for-bit unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from operators.spec import Comparison, Cost, Inputs, OperatorSpec, Rng, dtype_of, pointer_array
from operators.tolerance import ACCUMULATED_DTYPES, compare_accumulated, compare_tensors, widen

TRANS_FLAGS = ("N", "T", "C")
UPLO_FLAGS = ("U", "L")
DIAG_FLAGS = ("N", "U")
SIDE_FLAGS = ("L", "R")
# cuBLAS's enum values (cublas_api.h: cublasOperation_t, cublasFillMode_t, cublasDiagType_t,
# cublasSideMode_t) by kind, for each BLAS letter: the integers upstream's tests pass
CUBLAS_ENUMS: dict[str, dict[str, int]] = {
    "op": {"N": 0, "T": 1, "C": 2},
    "fill": {"L": 0, "U": 1},
    "diag": {"N": 0, "U": 1},
    "side": {"L": 0, "R": 1},
}
# which enum each flag parameter holds
FLAG_KINDS = {
    "trans": "op",
    "transa": "op",
    "transb": "op",
    "uplo": "fill",
    "diag": "diag",
    "side": "side",
    "mode": "side",
}
# cudaDataType_t values (library_types.h): the *Ex routines take them as plain ints
CUDA_R_16F, CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F, CUDA_R_16BF = 2, 0, 1, 4, 5, 14
CUDA_DATA_TYPES: dict[int, torch.dtype] = {
    CUDA_R_16F: torch.float16,
    CUDA_R_32F: torch.float32,
    CUDA_R_64F: torch.float64,
    CUDA_C_32F: torch.complex64,
    CUDA_C_64F: torch.complex128,
    CUDA_R_16BF: torch.bfloat16,
}

FIDELITY = (
    "Reference = the BLAS definition written in PyTorch on the raw column-major buffers, computed in "
    "float64/complex128 and rounded once. Checked in tests/operators/test_cublas.py against explicit "
    "element loops of the BLAS formulas and against torch.linalg (solve_triangular, matmul) on float64, "
    "including negative increments, padded leading dimensions and the alpha/beta = 0 shortcuts. The check "
    "against real cuBLAS (bench/cublas_vendor_check.py, cuBLAS through ctypes on an H200) is written and "
    "still to be run by the lead; its output goes to BENCHMARKS.md."
)


def flag_letter(kind: str, value: Any) -> Any:
    """The BLAS letter of a cuBLAS enum value of that kind (a letter, or anything else, unchanged)."""
    if isinstance(value, int) and not isinstance(value, bool):
        for letter, code in CUBLAS_ENUMS[kind].items():
            if code == value:
                return letter
    return value


def check_flag(name: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def work_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.complex128 if dtype.is_complex else torch.float64


# ---------------------------------------------------------------------------- buffers as BLAS objects


def vector_view(x: torch.Tensor, n: int, inc: int, offset: int = 0) -> torch.Tensor:
    """The n elements a BLAS vector touches, in storage order (ascending addresses)."""
    return x.as_strided((max(n, 0),), (max(abs(inc), 1),), x.storage_offset() + offset)


def read_vector(x: torch.Tensor, n: int, inc: int, offset: int = 0) -> torch.Tensor:
    """Elements x_0..x_{n-1} in BLAS order, in the work dtype."""
    v = vector_view(x, n, inc, offset).to(work_dtype(x.dtype))
    return v.flip(0) if inc < 0 else v


def write_vector(x: torch.Tensor, n: int, inc: int, values: torch.Tensor, offset: int = 0) -> None:
    if n <= 0:
        return
    values = values.to(x.dtype)
    vector_view(x, n, inc, offset).copy_(values.flip(0) if inc < 0 else values)


def matrix_view(buf: torch.Tensor, rows: int, cols: int, ld: int, offset: int = 0) -> torch.Tensor:
    """The rows x cols column-major matrix with leading dimension ld starting at element `offset`."""
    return buf.as_strided((max(rows, 0), max(cols, 0)), (1, max(ld, 1)), buf.storage_offset() + offset)


def read_matrix(buf: torch.Tensor, rows: int, cols: int, ld: int, offset: int = 0) -> torch.Tensor:
    return matrix_view(buf, rows, cols, ld, offset).to(work_dtype(buf.dtype))


def op(matrix: torch.Tensor, trans: str) -> torch.Tensor:
    """op(X) for trans 'N' / 'T' / 'C' (conjugate transpose; equal to 'T' for real data)."""
    check_flag("trans", trans, TRANS_FLAGS)
    if trans == "N":
        return matrix
    return matrix.transpose(-1, -2).conj() if trans == "C" else matrix.transpose(-1, -2)


def triangle_mask(n: int, uplo: str, device: torch.device | str = "cpu", *, strict: bool = False) -> torch.Tensor:
    """Boolean n x n mask of the `uplo` triangle of a column-major matrix (row i, column j)."""
    check_flag("uplo", uplo, UPLO_FLAGS)
    ones = torch.ones(n, n, dtype=torch.bool, device=device)
    if uplo == "U":
        return torch.triu(ones, diagonal=1 if strict else 0)
    return torch.tril(ones, diagonal=-1 if strict else 0)


def symmetric_from(matrix: torch.Tensor, uplo: str) -> torch.Tensor:
    """The symmetric (not Hermitian) matrix defined by the `uplo` triangle; the other one is not read."""
    n = matrix.shape[-1]
    tri = triangle_mask(n, uplo, matrix.device)
    strict = triangle_mask(n, uplo, matrix.device, strict=True)
    zero = torch.zeros((), dtype=matrix.dtype, device=matrix.device)
    upper = torch.where(tri, matrix, zero)
    return upper + torch.where(strict, matrix, zero).transpose(-1, -2)


def triangular_from(matrix: torch.Tensor, uplo: str, diag: str) -> torch.Tensor:
    """The triangular matrix BLAS reads: the `uplo` triangle, with ones on the diagonal when diag='U'."""
    check_flag("diag", diag, DIAG_FLAGS)
    n = matrix.shape[-1]
    zero = torch.zeros((), dtype=matrix.dtype, device=matrix.device)
    tri = torch.where(triangle_mask(n, uplo, matrix.device), matrix, zero)
    if diag == "U":
        eye = torch.eye(n, dtype=torch.bool, device=matrix.device)
        tri = torch.where(eye, torch.ones((), dtype=matrix.dtype, device=matrix.device), tri)
    return tri


def combine(
    alpha: complex,
    product: Callable[[], torch.Tensor],
    beta: complex,
    current: Callable[[], torch.Tensor],
    shape: Sequence[int],
    like: torch.Tensor,
) -> torch.Tensor:
    """alpha*product + beta*current with BLAS's shortcuts: a zero factor means its operand is not read,
    so NaN or garbage there must not propagate."""
    out = torch.zeros(tuple(shape), dtype=work_dtype(like.dtype), device=like.device)
    if alpha != 0:
        out = out + alpha * product()
    if beta != 0:
        out = out + beta * current()
    return out


# ---------------------------------------------------------------------------- written-region masks


def mask_like(buf: torch.Tensor) -> torch.Tensor:
    """A False mask with the buffer's shape, strides and device, so the same views index it and it
    selects elements where the buffer lives."""
    return torch.zeros_like(buf, dtype=torch.bool)


def mark_vector(mask: torch.Tensor, n: int, inc: int, offset: int = 0) -> None:
    if n > 0:
        vector_view(mask, n, inc, offset).fill_(True)


def mark_matrix(mask: torch.Tensor, rows: int, cols: int, ld: int, offset: int = 0) -> None:
    if rows > 0 and cols > 0:
        matrix_view(mask, rows, cols, ld, offset).fill_(True)


def mark_triangle(mask: torch.Tensor, n: int, ld: int, uplo: str) -> None:
    if n > 0:
        view = matrix_view(mask, n, n, ld)
        view.copy_(triangle_mask(n, uplo, mask.device))


# ---------------------------------------------------------------------------- comparison


def compare_written(
    out: torch.Tensor, ref: torch.Tensor, written: torch.Tensor, *, reduce_dim: int, what: str
) -> Comparison:
    """Elements BLAS writes: the dtype tolerance (atol = 1e-4 * reduce_dim); all others: bit-exact."""
    if not isinstance(out, torch.Tensor):
        return Comparison(False, reason=f"{what}: expected a tensor, got {type(out).__name__}")
    if out.dtype != ref.dtype or tuple(out.shape) != tuple(ref.shape):
        return compare_tensors(out, ref, what=what)
    r = ref.detach()
    o = out.detach().to(r.device)
    untouched = compare_tensors(o[~written], r[~written], exact=True, what=f"{what} (elements BLAS must not write)")
    if not untouched.passed:
        return untouched
    return compare_tensors(o[written], r[written], reduce_dim=reduce_dim, what=what)


def as_outputs(value: Any, count: int) -> list[Any]:
    if count == 1:
        return [value]
    return list(value) if isinstance(value, (list, tuple)) else [value]


Written = Callable[[Inputs, str, "int | None", torch.Tensor], torch.Tensor]


def masked_compare(
    outputs: Sequence[str], written: Written, reduce_dim: Callable[[dict], int]
) -> Callable[[Any, Any, dict, Inputs], Comparison]:
    """A spec `compare` that checks each mutated buffer (or list of buffers) with compare_written."""

    def compare(out: Any, ref: Any, case: dict, inputs: Inputs) -> Comparison:
        outs, refs = as_outputs(out, len(outputs)), as_outputs(ref, len(outputs))
        if len(outs) != len(refs):
            return Comparison(False, reason=f"expected {len(refs)} outputs, got {len(outs)}")
        worst_abs, worst_rel = 0.0, 0.0
        r_dim = reduce_dim(case)
        for name, o, r in zip(outputs, outs, refs, strict=True):
            is_list = isinstance(r, (list, tuple))
            if is_list and (not isinstance(o, (list, tuple)) or len(o) != len(r)):
                return Comparison(False, reason=f"{name}: expected a list of {len(r)} tensors")
            pairs = list(enumerate(zip(o, r, strict=True))) if is_list else [(None, (o, r))]
            for i, (oi, ri) in pairs:
                what = name if i is None else f"{name}[{i}]"
                c = compare_written(oi, ri, written(inputs, name, i, ri), reduce_dim=r_dim, what=what)
                if not c.passed:
                    return c
                worst_abs = max(worst_abs, c.max_abs_err or 0.0)
                worst_rel = max(worst_rel, c.max_rel_err or 0.0)
        return Comparison(True, worst_abs, worst_rel)

    return compare


def _map_buffers(value: Any, fn: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_map_buffers(v, fn) for v in value)
    return value


def both_compare(
    *compares: Callable[[Any, Any, dict, Inputs], Comparison],
) -> Callable[[Any, Any, dict, Inputs], Comparison]:
    """A spec `compare` passing only what every one of `compares` passes (the first failure is the reason):
    upstream's rule together with a bound of ours, so the result is never looser than either."""

    def compare(out: Any, ref: Any, case: dict, inputs: Inputs) -> Comparison:
        result = Comparison(True, 0.0, 0.0)
        for check in compares:
            result = check(out, ref, case, inputs)
            if not result.passed:
                return result
        return result

    return compare


def accumulated_compare(
    outputs: Sequence[str],
    written: Written,
    reduce_dim: Callable[[dict], int],
    reference_impl: Callable,
    params: Sequence[str],
    *,
    factors: Sequence[str],
    addend: str | None = None,
    alpha: str | None = "alpha",
    beta: str | None = "beta",
) -> Callable[[Any, Any, dict, Inputs], Comparison]:
    """A spec `compare` for products accumulated in float32 / complex64 (gemm, gemv, dot): the elements
    BLAS writes are judged by operators.tolerance.compare_accumulated, the fp32 accumulation bound that
    TF32 fails; all other elements bit-exact; other dtypes as masked_compare. The bound's magnitudes come
    from the reference itself run on copies of the pristine inputs: walk^2 = the reference with every
    factor buffer replaced by |x|^2, alpha by |alpha|^2 and beta by 0 (sum_k |alpha a_k b_k|^2); drift =
    |the reference with beta = 0| (|alpha sum_k a_k b_k|); addend = |beta| |C| (0 when beta == 0: C is
    not read). The reference output itself is the float64 result rounded once (within the bound's MU
    term)."""
    invoke = make_invoke(params, outputs, reference=reference_impl)
    fallback = masked_compare(outputs, written, reduce_dim)

    def run(inputs: Inputs, **changes: Any) -> list[Any]:
        copy = {k: _map_buffers(v, lambda t: t.clone()) for k, v in inputs.items()}
        copy.update(changes)
        return as_outputs(invoke(reference_impl, copy), len(outputs))

    def compare(out: Any, ref: Any, case: dict, inputs: Inputs) -> Comparison:
        refs = as_outputs(ref, len(outputs))
        first = refs[0][0] if isinstance(refs[0], (list, tuple)) and refs[0] else refs[0]
        if not isinstance(first, torch.Tensor) or first.dtype not in ACCUMULATED_DTYPES:
            return fallback(out, ref, case, inputs)
        outs = as_outputs(out, len(outputs))
        if len(outs) != len(refs):
            return Comparison(False, reason=f"expected {len(refs)} outputs, got {len(outs)}")
        a = inputs[alpha] if alpha else 1.0
        b = inputs[beta] if beta else 0.0
        squares: dict[str, Any] = {f: _map_buffers(inputs[f], lambda t: t.abs().square().to(t.dtype)) for f in factors}
        if alpha:
            squares[alpha] = abs(a) ** 2
        if beta:
            squares[beta] = 0.0
        walk2 = run(inputs, **squares)
        drift = run(inputs, **({beta: 0.0} if beta else {}))
        k = reduce_dim(case)
        worst_abs, worst_rel = 0.0, 0.0
        for slot, name in enumerate(outputs):
            o_all, r_all, w_all, d_all = outs[slot], refs[slot], walk2[slot], drift[slot]
            is_list = isinstance(r_all, (list, tuple))
            if is_list and (not isinstance(o_all, (list, tuple)) or len(o_all) != len(r_all)):
                return Comparison(False, reason=f"{name}: expected a list of {len(r_all)} tensors")
            if is_list:
                pairs = list(enumerate(zip(o_all, r_all, w_all, d_all, strict=True)))
            else:
                pairs = [(None, (o_all, r_all, w_all, d_all))]
            for i, (o, r, w2, d) in pairs:
                what = name if i is None else f"{name}[{i}]"
                if not isinstance(o, torch.Tensor):
                    return Comparison(False, reason=f"{what}: expected a tensor, got {type(o).__name__}")
                if o.dtype != r.dtype or tuple(o.shape) != tuple(r.shape):
                    return compare_tensors(o, r, what=what)
                mask = written(inputs, name, i, r)
                o = o.detach().to(r.device)
                untouched = compare_tensors(
                    o[~mask], r[~mask], exact=True, what=f"{what} (elements BLAS must not write)"
                )
                if not untouched.passed:
                    return untouched
                if addend and b != 0:
                    c_in = inputs[addend][i] if i is not None else inputs[addend]
                    extra: torch.Tensor | float = abs(b) * widen(c_in.detach())[0].abs()[mask]
                else:
                    extra = 0.0
                c = compare_accumulated(
                    o[mask],
                    r[mask],
                    walk=widen(w2.detach())[0].abs()[mask].sqrt(),
                    drift=widen(d.detach())[0].abs()[mask],
                    addend=extra,
                    reduce_len=k,
                    dtype=r.dtype,
                    what=what,
                )
                if not c.passed:
                    return c
                worst_abs = max(worst_abs, c.max_abs_err or 0.0)
                worst_rel = max(worst_rel, c.max_rel_err or 0.0)
        return Comparison(True, worst_abs, worst_rel)

    return compare


def eps_of(dtype: torch.dtype) -> float:
    real = {torch.complex64: torch.float32, torch.complex128: torch.float64}.get(dtype, dtype)
    return float(torch.finfo(real).eps)


def residual_bound(dtype: torch.dtype, n: int) -> float:
    """The largest backward error a correct triangular solve of order n in `dtype` may show (RES40)."""
    return 40 * eps_of(dtype) * max(1, n)


def residual_errors(
    x: torch.Tensor, x_ref: torch.Tensor, m: torch.Tensor, *, left: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """(backward error, max |X - X_ref|) of each solution, reducing the last two dimensions, so a batch of
    solves stacked along a leading dimension is judged in one pass; inputs in the work dtype."""
    ax = m @ x if left else x @ m
    b = m @ x_ref if left else x_ref @ m
    num = (ax - b).abs().amax(dim=(-2, -1))
    den = m.abs().sum(-1).amax(-1) * x.abs().amax(dim=(-2, -1)) + b.abs().amax(dim=(-2, -1))
    return num / den.clamp_min(1e-300), (x - x_ref).abs().amax(dim=(-2, -1))


def residual_check(
    solution: torch.Tensor,
    accurate: torch.Tensor,
    matrix: torch.Tensor,
    *,
    left: bool,
    n: int,
    dtype: torch.dtype,
    what: str,
) -> Comparison:
    """Norm-wise backward error of a triangular solve (research/operators.md §1, RES40):
    ||M·X − M·X_ref|| / (||M||·||X|| + ||M·X_ref||) ≤ 40·eps·max(1, n), with M the operator op(A) (on the
    left, or on the right when `left` is False), all in float64 on the solution's device; X_ref is the
    float64 reference solution, so M·X_ref reproduces the right-hand side; eps is that of `dtype`, the
    buffer's dtype."""
    x, x_ref, m = widen(solution, accurate, matrix)
    if x.numel() == 0:
        return Comparison(True, 0.0, 0.0)
    if not bool(torch.isfinite(x).all()):
        return Comparison(False, reason=f"{what}: non-finite values in the solution")
    errors, differences = residual_errors(x, x_ref, m, left=left)
    err, max_abs = torch.stack([errors, differences]).tolist()  # two scalars, one transfer
    bound = residual_bound(dtype, n)
    if err <= bound:
        return Comparison(True, max_abs, err)
    return Comparison(False, max_abs, err, f"{what}: backward error {err:.3g} > {bound:.3g} (40·eps·n)")


# ---------------------------------------------------------------------------- inputs and cases


def randn(rng: Rng, numel: int, dtype: str, *, scale: float = 1.0) -> torch.Tensor:
    return rng.randn((max(numel, 1),), dtype, scale=scale)


def column_major_buffer(rng: Rng, rows: int, cols: int, ld: int, dtype: str, *, nan: bool = False) -> torch.Tensor:
    """Storage for a rows x cols column-major matrix with leading dimension ld. When ld == rows it is the
    row-major torch tensor of shape (rows, cols) that upstream allocates and passes with lda = rows (the
    same flat storage); with padding (ld > rows) it is the contiguous tensor of shape (cols, ld)."""
    shape = (max(rows, 1), max(cols, 1)) if ld == rows else (max(cols, 1), max(ld, 1))
    t = rng.randn(shape, dtype)
    return nan_fill(t) if nan else t


def strided_batch_buffer(
    rng: Rng, batch: int, rows: int, cols: int, ld: int, stride: int, dtype: str, *, nan: bool = False
) -> torch.Tensor:
    """Storage for batch column-major matrices `stride` elements apart: upstream's (batch, rows, cols)
    tensor when the matrices are packed (ld == rows, stride == rows*cols), else a flat buffer."""
    if ld == rows and stride == rows * cols and batch > 0:
        t = rng.randn((batch, max(rows, 1), max(cols, 1)), dtype)
    else:
        t = rng.randn((max(stride * (batch - 1) + ld * cols, 1),), dtype)
    return nan_fill(t) if nan else t


def batched_matrix_view(buf: torch.Tensor, batch: int, rows: int, cols: int, ld: int, stride: int) -> torch.Tensor:
    return buf.as_strided((max(batch, 0), max(rows, 0), max(cols, 0)), (stride, 1, max(ld, 1)), buf.storage_offset())


def vector_length(n: int, inc: int) -> int:
    """Storage a BLAS vector of n elements with increment inc needs (at least one element)."""
    return max(1, 1 + (n - 1) * abs(inc)) if n > 0 else 1


def nan_fill(t: torch.Tensor) -> torch.Tensor:
    return t.fill_(float("nan"))


def element_size(dtype: str) -> int:
    return torch.empty((), dtype=dtype_of(dtype)).element_size()


def flop_factor(dtype: str) -> int:
    """Real flops per multiply-add relative to a real one: a complex multiply-add is 4x the work."""
    return 4 if dtype.startswith("complex") else 1


def cost(flops: float, elements_moved: float, dtype: str) -> Cost:
    return Cost(flops=flops * flop_factor(dtype), bytes=elements_moved * element_size(dtype), dtype=dtype)


def def_line(name: str, params: Sequence[str]) -> str:
    return f"def {name}({', '.join(params)}):"


def upstream_argument(name: str, value: Any, *, integer_flags: bool, pointer_arrays: Sequence[str]) -> Any:
    """One argument as upstream's tests pass it: flags as cuBLAS's integers where upstream passes integers,
    lists of tensors as an int64 device array of their addresses."""
    if name in pointer_arrays:
        return pointer_array(value)
    if integer_flags and name in FLAG_KINDS and isinstance(value, str):
        return CUBLAS_ENUMS[FLAG_KINDS[name]][value]
    return value


def make_invoke(
    params: Sequence[str],
    outputs: Sequence[str],
    *,
    reference: Callable[..., Any],
    integer_flags: bool = False,
    pointer_arrays: Sequence[str] = (),
    returns: bool = False,
) -> Callable[[Callable[..., Any] | None, Inputs], Any]:
    """Calls impl with the inputs in the baseline's parameter order and returns the written buffers. Our
    `reference` gets the inputs as built (BLAS letters, lists of tensors); every other impl (a candidate,
    the vendor library) gets upstream's arguments (upstream_argument), so an upstream kernel runs unchanged.
    `returns`: upstream's test judges what the routine returns (its baselines return the first written
    buffer), so the returned value comes after the buffers; the reference's is that buffer itself."""

    def invoke(impl: Callable[..., Any] | None, inputs: Inputs) -> Any:
        if impl is None:
            raise ValueError("cuBLAS operators need an implementation to call")
        if impl is reference:
            impl(*[inputs[p] for p in params])
            returned = inputs[outputs[0]]
        else:
            returned = impl(
                *[
                    upstream_argument(p, inputs[p], integer_flags=integer_flags, pointer_arrays=pointer_arrays)
                    for p in params
                ]
            )
        written = tuple(inputs[o] for o in outputs)
        if returns:
            return (*written, returned)
        return written[0] if len(written) == 1 else written

    return invoke


CONVENTIONS = (
    "Column-major BLAS on raw buffers: a matrix argument X with leading dimension ldx is the flat "
    "storage of the given torch tensor (its torch shape and strides do not matter), element (i, j) at "
    "storage offset i + j*ldx; a vector with increment inc has element i at i*inc, or at (n-1-i)*|inc| "
    "when inc < 0. alpha and beta are Python numbers. "
    "Write results in place exactly where BLAS writes and nowhere else; when alpha == 0 the A/B/x "
    "operands are not read and when beta == 0 the C/y operand is not read (NaN there must not propagate)."
)
LETTER_FLAGS = "trans/transa/transb are the strings 'N', 'T' or 'C' (conjugate transpose)."
INTEGER_FLAGS = (
    "Flags are cuBLAS's integer enum values, as upstream KernelGenBench passes them: trans/transa/transb "
    "0 = N, 1 = T, 2 = C (conjugate transpose); uplo 0 = lower, 1 = upper (CUBLAS_FILL_MODE_LOWER/UPPER); "
    "diag 0 = non-unit, 1 = unit (the diagonal is not read); side/mode 0 = left, 1 = right. The "
    "reference and the example cases below name the same values by their BLAS letters ('N'/'T'/'C', "
    "'L'/'U', 'N'/'U', 'L'/'R')."
)
POINTER_ARRAYS = (
    "Batched arguments ({names}) are int64 tensors on the device holding the data pointers of the batch's "
    "buffers (`torch.tensor([t.data_ptr() for t in buffers], dtype=torch.int64, device=...)`, as upstream "
    "builds them); entry b is the address of problem b's buffer of the routine's dtype, to be read in the "
    "kernel (`tl.load(ptrs + b).to(tl.pointer_type(...))`). Only the first batchCount entries are used. "
    "The reference below receives the buffers themselves as Python lists."
)

RETURNS = (
    "Return the written buffer `{name}` after writing it in place, as upstream's baselines do: the returned "
    "value is judged as well as the buffer."
)

RETURN_NOT_COMPARED = frozenset({"cublasCgemmStridedBatched"})


def blas_spec(
    *,
    name: str,
    category: str,
    params: Sequence[str],
    outputs: Sequence[str],
    reference_impl: Callable,
    description: str,
    cases: dict[str, list[dict]],
    make_inputs: Callable[[dict, Rng], Inputs],
    written: Written | None = None,
    reduce_dim: Callable[[dict], int] = lambda case: 1,
    compare: Callable[[Any, Any, dict, Inputs], Comparison] | None = None,
    cost_model: Callable[[dict, Inputs], Cost] | None = None,
    notes: str = "",
    exact: bool = False,
    vendor: Callable[[str], Callable[..., Any] | None] | None = None,
    integer_flags: bool = False,
    pointer_arrays: Sequence[str] = (),
    tolerance_note: str = "",
) -> OperatorSpec:
    """`integer_flags`: the routine's flags reach a candidate as cuBLAS's integers (upstream's tests pass
    integers there; elsewhere they pass the letters); `pointer_arrays`: the list inputs a candidate gets as
    device arrays of addresses (make_invoke); `tolerance_note`: how the comparison relates to upstream's
    (its fidelity sentence, with the evidence where ours differs)."""
    if compare is None and exact:
        compare = exact_compare(outputs)
    elif compare is None:
        if written is None:
            raise ValueError(f"{name}: give `written` or `compare`")
        compare = masked_compare(outputs, written, reduce_dim)
    # upstream judges the returned value of every routine but the pointer-array ones (it reads their
    # buffers) and CgemmStridedBatched (its test asserts on C, discarding the return)
    returns = not pointer_arrays and name not in RETURN_NOT_COMPARED
    if returns:
        compare = returned_compare(compare, outputs)
        if vendor is not None:
            vendor = _returning_vendor(vendor, list(params).index(outputs[0]))
    return OperatorSpec(
        id=f"cublas::{name}",
        category=category,
        description=description,
        signature=def_line(name, params),
        entrypoints=(name,),
        invoke=make_invoke(
            params,
            outputs,
            reference=reference_impl,
            integer_flags=integer_flags,
            pointer_arrays=pointer_arrays,
            returns=returns,
        ),
        cases=cases,
        make_inputs=_binding_pointer_arrays(make_inputs, pointer_arrays),
        fidelity=FIDELITY + (" Tolerance: " + tolerance_note if tolerance_note else ""),
        reference_impl=reference_impl,
        vendor_baseline=vendor,
        compare=compare,
        reduce_dim=reduce_dim,
        exact=exact,
        mutates=tuple(outputs),
        pointer_arrays=tuple(pointer_arrays),
        cost=cost_model,
        notes=" ".join(
            part
            for part in (
                CONVENTIONS,
                INTEGER_FLAGS if integer_flags else LETTER_FLAGS if any(p in FLAG_KINDS for p in params) else "",
                POINTER_ARRAYS.format(names=", ".join(pointer_arrays)) if pointer_arrays else "",
                RETURNS.format(name=outputs[0]) if returns else "",
                notes,
            )
            if part
        ),
    )


def returned_compare(
    compare: Callable[[Any, Any, dict, Inputs], Comparison], outputs: Sequence[str]
) -> Callable[[Any, Any, dict, Inputs], Comparison]:
    """`compare` on the written buffers, then on the returned value in the first buffer's place (upstream's
    tests assert on `act_out = routine(...)`; its baselines return that buffer): a routine that writes
    right but returns nothing, or returns other values, fails as it fails upstream."""
    n = len(outputs)

    def unpack(values: Sequence[Any]) -> Any:
        return values[0] if n == 1 else tuple(values)

    def judge(out: Any, ref: Any, case: dict, inputs: Inputs) -> Comparison:
        if not isinstance(out, (tuple, list)) or len(out) != n + 1:
            return Comparison(False, reason=f"expected the written {', '.join(outputs)} and the returned value")
        buffers, refs = list(out[:n]), list(ref[:n])
        written = compare(unpack(buffers), unpack(refs), case, inputs)
        if not written.passed:
            return written
        returned = out[n]
        if not isinstance(returned, torch.Tensor):
            return Comparison(
                False,
                reason=f"returned value: expected {outputs[0]} (upstream compares what the routine returns), "
                f"got {type(returned).__name__}",
            )
        as_returned = compare(unpack([returned, *buffers[1:]]), unpack(refs), case, inputs)
        if not as_returned.passed:
            return Comparison(
                False, as_returned.max_abs_err, as_returned.max_rel_err, "returned value: " + as_returned.reason
            )
        return written

    return judge


def _returning_vendor(
    vendor: Callable[[str], Callable[..., Any] | None], index: int
) -> Callable[[str], Callable[..., Any] | None]:
    """The vendor routine returning its argument at `index` (the written buffer), as upstream's baselines do."""

    def baseline(device_type: str) -> Callable[..., Any] | None:
        routine = vendor(device_type)
        if routine is None:
            return None

        def returning(*args: Any) -> Any:
            routine(*args)
            return args[index]

        returning.__name__ = returning.__qualname__ = routine.__name__
        return returning

    return baseline


def _binding_pointer_arrays(
    make_inputs: Callable[[dict, Rng], Inputs], names: Sequence[str]
) -> Callable[[dict, Rng], Inputs]:
    """make_inputs that also builds each set's pointer arrays, where the set is made (the timed sets of
    both processes), so no timed call copies addresses to the device."""
    if not names:
        return make_inputs

    def make(case: dict, rng: Rng) -> Inputs:
        inputs = make_inputs(case, rng)
        for name in names:
            pointer_array(inputs[name])
        return inputs

    return make


def exact_compare(outputs: Sequence[str]) -> Callable[[Any, Any, dict, Inputs], Comparison]:
    """Copies and swaps: every element of every written buffer bit-exact (the written elements equal the
    reference, the others are unchanged, which the reference buffer also holds)."""

    def compare(out: Any, ref: Any, case: dict, inputs: Inputs) -> Comparison:
        for name, o, r in zip(outputs, as_outputs(out, len(outputs)), as_outputs(ref, len(outputs)), strict=True):
            c = compare_tensors(o, r, exact=True, what=name)
            if not c.passed:
                return c
        return Comparison(True, 0.0, 0.0)

    return compare
