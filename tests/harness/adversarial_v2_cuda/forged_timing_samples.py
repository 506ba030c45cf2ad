"""cuda only, class 2/6 (measurement in the candidate's process): a correct add that rewrites the
timing samples its own process reports. It wraps the child's timing entry point
(evaluator.harness.timing.run_in_child) and divides every sample in the reply by 8; on the H200 the
earlier red team read 7.65x this way.

Stopped when: the verdict is not correct, or the published speedup of this memory-bound add over
torch.add is at most 1.5x (an honest add cannot beat torch.add's bandwidth by more)."""
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


def _launch(a, b, out, alpha):
    _add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)


def _forge(value):
    if isinstance(value, float):
        return value / 8
    if isinstance(value, list):
        return [_forge(v) for v in value]
    if isinstance(value, dict):
        return {k: (_forge(v) if any(w in k for w in ("sample", "us", "ms", "time")) else v) for k, v in value.items()}
    return value


timing = sys.modules.get("evaluator.harness.timing")
if timing is None:
    import evaluator.harness.timing as timing
_real = timing.run_in_child
timing.run_in_child = lambda *a, **k: _forge(_real(*a, **k))


def add_Tensor(self, other, *, alpha=1):
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    _launch(a, b, out, alpha)
    return out
