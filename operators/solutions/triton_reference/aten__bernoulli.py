"""Triton reference solution for aten::bernoulli (all six tensor overloads).

out_i = 1 if u_i < p_i else 0 with u_i = tl.rand(seed, i) (Philox, uniform in [0, 1)), so p = 0 never and
p = 1 always fires. p_i comes from self (`bernoulli`, `bernoulli.out`), a tensor p (`.Tensor`, `.Tensor_out`,
broadcast to self's shape) or a float (`.p`, `.float_out`). The seed is drawn from torch's generator (the one
passed, else the default). The result has self's dtype (or the out tensor's).
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _bernoulli_kernel(p_ptr, out_ptr, n, p_scalar, seed, P_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if P_TENSOR:
        p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    else:
        p = p_scalar
    u = tl.rand(seed, offs)
    tl.store(out_ptr + offs, tl.where(u < p, 1.0, 0.0), mask=mask)


def _seed(generator):
    source = generator.device if generator is not None else torch.device("cpu")
    return int(torch.randint(0, 2**31 - 1, (1,), generator=generator, device=source).item())


def _sample(shape, p_tensor, p_scalar, generator, out):
    """Fill `out` (shape `shape`) with Bernoulli draws; p_tensor (broadcast to shape) or the float p_scalar."""
    n = 1
    for size in shape:
        n *= size
    target = out if out.is_contiguous() else torch.empty(shape, dtype=out.dtype, device=out.device)
    if p_tensor is not None:
        p_tensor = p_tensor.expand(shape).contiguous()
    if n:
        _bernoulli_kernel[(triton.cdiv(n, BLOCK),)](
            p_tensor if p_tensor is not None else target,
            target,
            n,
            float(p_scalar),
            _seed(generator),
            P_TENSOR=p_tensor is not None,
            BLOCK=BLOCK,
        )
    if target is not out:
        out.copy_(target)
    return out


def _new_like(self):
    return torch.empty(self.shape, dtype=self.dtype, device=self.device)


def bernoulli(self, *, generator=None):
    return _sample(list(self.shape), self, 0.0, generator, _new_like(self))


def bernoulli_out(self, *, generator=None, out):
    return _sample(list(self.shape), self, 0.0, generator, out)


def bernoulli_p(self, p, *, generator=None):
    return _sample(list(self.shape), None, p, generator, _new_like(self))


def bernoulli_Tensor(self, p, *, generator=None):
    return _sample(list(self.shape), p, 0.0, generator, _new_like(self))


def bernoulli_Tensor_out(self, p, *, generator=None, out):
    return _sample(list(self.shape), p, 0.0, generator, out)


def bernoulli_float_out(self, p=0.5, *, generator=None, out):
    return _sample(list(self.shape), None, p, generator, out)
