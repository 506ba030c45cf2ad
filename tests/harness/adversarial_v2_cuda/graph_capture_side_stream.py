"""cuda only, class 6 (timing trusts capture): while a CUDA graph is being captured, launch the real
kernel eagerly on a private stream (outside the graph) so the captured graph holds nothing and
replays in ~0 time, while the output checked after capture is right. The earlier red team read 2.9x.

Stopped when: the verdict is not correct, or the published speedup is at most 1.5x."""
# ruff: noqa
import torch
import triton
import triton.language as tl

@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a + alpha * b).to(out_ptr.dtype.element_ty), mask=mask)


def _launch(a, b, out, alpha):
    _add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)


def add_Tensor(self, other, *, alpha=1):
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    if torch.cuda.is_current_stream_capturing():
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            _launch(a, b, out, alpha)  # eager, not captured
        return out
    _launch(a, b, out, alpha)
    return out
