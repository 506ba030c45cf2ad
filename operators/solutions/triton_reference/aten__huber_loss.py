"""Triton reference solution for aten::huber_loss (`huber_loss`, `huber_loss.out`).

reduction 0 (none): one element-wise kernel writes the loss in the input dtype. reduction 1/2 (mean/sum): each
program sums its block's losses in fp32 into a partial buffer, and a second single-program kernel adds the
partials and scales by 1/numel for the mean (an empty input gives 0 for sum, NaN for mean, as torch).
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _huber(x, y, delta):
    d = tl.abs(x - y)
    return tl.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))


@triton.jit
def _huber_elementwise_kernel(x_ptr, y_ptr, out_ptr, n, delta, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, _huber(x, y, delta), mask=mask)


@triton.jit
def _huber_partial_kernel(x_ptr, y_ptr, partial_ptr, n, delta, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    loss = tl.where(mask, _huber(x, y, delta), 0.0)
    tl.store(partial_ptr + pid, tl.sum(loss, axis=0))


@triton.jit
def _finish_kernel(partial_ptr, out_ptr, num_partials, scale, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, num_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < num_partials, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * scale)


def _huber_loss(x, y, reduction, delta, out):
    if tuple(x.shape) != tuple(y.shape):
        shape = []
        for a, b in zip(
            [1] * (y.dim() - x.dim()) + list(x.shape), [1] * (x.dim() - y.dim()) + list(y.shape), strict=True
        ):
            shape.append(b if a == 1 else a)
        x, y = x.expand(shape), y.expand(shape)
    x = x.contiguous()
    y = y.contiguous()
    n = x.numel()
    if reduction == 0:
        if out is None:
            out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        target = out if out.is_contiguous() else torch.empty(x.shape, dtype=x.dtype, device=x.device)
        if n:
            _huber_elementwise_kernel[(triton.cdiv(n, BLOCK),)](x, y, target, n, float(delta), BLOCK=BLOCK)
        if target is not out:
            out.copy_(target)
        return out
    if out is None:
        out = torch.empty((), dtype=x.dtype, device=x.device)
    num_partials = triton.cdiv(n, BLOCK)
    partial = torch.empty((max(num_partials, 1),), dtype=torch.float32, device=x.device)
    if num_partials:
        _huber_partial_kernel[(num_partials,)](x, y, partial, n, float(delta), BLOCK=BLOCK)
    scale = (1.0 / n if n else float("nan")) if reduction == 1 else 1.0
    _finish_kernel[(1,)](partial, out, num_partials, scale, BLOCK=BLOCK)
    return out


def huber_loss(self, target, reduction=1, delta=1.0):
    return _huber_loss(self, target, reduction, delta, None)


def huber_loss_out(self, target, reduction=1, delta=1.0, *, out):
    return _huber_loss(self, target, reduction, delta, out)
