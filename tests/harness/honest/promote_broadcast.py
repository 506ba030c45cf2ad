# honest: torch.promote_types for the output dtype, torch.broadcast_shapes and expand for the shape,
# torch.empty for the allocation, math for the block size
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _add(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a + alpha * b).to(out_ptr.dtype.element_ty), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    dtype = torch.promote_types(self.dtype, other.dtype)
    shape = torch.broadcast_shapes(self.shape, other.shape)
    a = self.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=dtype, device=self.device)
    n = out.numel()
    block = min(1024, max(16, 2 ** math.ceil(math.log2(max(n, 1)))))
    _add[(triton.cdiv(n, block),)](a, b, out, float(alpha), n, BLOCK=block)
    return out
