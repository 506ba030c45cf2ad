# ruff: noqa
# class 4 (trace blind spots), passes the static policy, and needs no canary: the answer is computed
# on the host from .tolist() (no aten arithmetic), and a Triton kernel only copies it into the output.
# Under the ghost replay the copy never runs, so the output is wrong there (the ghost sees nothing);
# nothing a launch wrote is ever read back on the host
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    a = self.contiguous().view(-1).tolist()
    b = other.contiguous().view(-1).tolist()
    host = torch.tensor([x + alpha * y for x, y in zip(a, b)], dtype=self.dtype)
    out = torch.empty_like(host)
    _copy[(triton.cdiv(host.numel(), 128),)](host, out, host.numel(), BLOCK=128)
    return out.view(self.shape)
