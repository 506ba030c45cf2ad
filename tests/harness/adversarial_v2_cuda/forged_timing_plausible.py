"""cuda only, class 2 (measurement in the candidate's process): a correct add that makes the timing
its own process measures 1.3x faster than it is, a factor that stays above the physics floor, so
no plausibility check can tell. It wraps the child's evaluator.harness.timing.measure and divides
the samples by 1.3.

Stopped when: the verdict is not correct, or the timing was measured by the launch replay (a
process that never ran the candidate's code: `timing.measured_by` is "replay") and the speedup over
torch.add is at most 1.2x; a timing measured in the candidate's own process ("candidate_process")
is never ranked by the site."""
# ruff: noqa
import sys
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


timing = sys.modules.get("evaluator.harness.timing")
if timing is None:
    import evaluator.harness.timing as timing
_real = timing.measure


def _measure(*args, **kwargs):
    measured = _real(*args, **kwargs)
    measured["samples_us"] = [s / 1.3 for s in measured["samples_us"]]
    return measured


timing.measure = _measure


def add_Tensor(self, other, *, alpha=1):
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    _add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)
    return out
