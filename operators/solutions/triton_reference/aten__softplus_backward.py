"""Triton reference solution for aten::softplus_backward (`softplus_backward`, `softplus_backward.grad_input`).

grad_input = grad_output * z / (z + 1) with z = exp(beta * x), or grad_output where beta * x > threshold,
computed element-wise in fp32 over contiguous copies of the operands (views that are already contiguous
are read in place).
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _softplus_backward_kernel(grad_ptr, x_ptr, out_ptr, n, beta, threshold, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(grad_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    bx = x * beta
    # z / (z + 1) = sigmoid(beta * x); the exp(-|bx|) form cannot overflow
    e = tl.exp(-tl.abs(bx))
    sig = tl.where(bx >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    result = tl.where(bx > threshold, g, g * sig)
    tl.store(out_ptr + offs, result, mask=mask)


def _softplus_backward(grad_output, self, beta, threshold, out):
    grad = grad_output.contiguous()
    x = self.contiguous()
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    target = out if out.is_contiguous() else torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n:
        _softplus_backward_kernel[(triton.cdiv(n, BLOCK),)](
            grad, x, target, n, float(beta), float(threshold), BLOCK=BLOCK
        )
    if target is not out:
        out.copy_(target)
    return out


def softplus_backward(grad_output, self, beta, threshold):
    return _softplus_backward(grad_output, self, beta, threshold, None)


def softplus_backward_grad_input(grad_output, self, beta, threshold, *, grad_input):
    return _softplus_backward(grad_output, self, beta, threshold, grad_input)
