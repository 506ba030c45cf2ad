"""Triton reference solution for aten::arange: [start, start + step, ...) as a 1-D tensor.

Wrappers: `arange`, `arange_start`, `arange_start_step`. The length is ceil((end - start) / step) (computed on
the host, like PyTorch). Element i is start + i * step, computed in int64 for integer results and in fp32 (fp64
for float64) for floating results, then rounded to the dtype in the kernel. Policy: torch only allocates.
"""

import math

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def _arange_kernel(
    out_ptr,
    n,
    fstart: tl.float64,
    fstep: tl.float64,
    istart: tl.int64,
    istep: tl.int64,
    INTEGER: tl.constexpr,
    WIDE: tl.constexpr,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if INTEGER:
        v = istart + offs * istep
    elif WIDE:
        v = fstart + offs.to(tl.float64) * fstep
    else:
        start = (tl.zeros([BLOCK], dtype=tl.float64) + fstart).to(tl.float32)
        step = (tl.zeros([BLOCK], dtype=tl.float64) + fstep).to(tl.float32)
        v = start + offs.to(tl.float32) * step
    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty), mask=mask)


def _length(start, end, step):
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if all(isinstance(v, int) for v in (start, end, step)):
        return max(0, -((start - end) // step))  # exact ceil division for integers
    return max(0, math.ceil((end - start) / step))


def arange_start_step(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    if layout is not None and layout != torch.strided:
        raise RuntimeError("arange: only the strided layout is supported")
    integral = all(isinstance(v, int) for v in (start, end, step))
    if dtype is None:
        dtype = torch.int64 if integral else torch.get_default_dtype()
    n = _length(start, end, step)
    out = torch.empty((n,), dtype=dtype, device=device)
    if n == 0:
        return out
    integer = not (dtype.is_floating_point or dtype.is_complex)
    if integer and not integral:
        raise RuntimeError("arange: fractional start/step need a floating dtype in this kernel")
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    _arange_kernel[grid](
        out,
        n,
        float(start),
        float(step),
        int(start) if integral else 0,
        int(step) if integral else 0,
        INTEGER=integer,
        WIDE=dtype == torch.float64,
        BLOCK=BLOCK_SIZE,
    )
    return out


def arange_start(start, end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(start, end, 1, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(0, end, 1, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
