"""cuda only, class 2 (measurement in the candidate's process): a correct add that forges the
program its process records for the launch replay (evaluator.harness.replay.Recorder.finish):
every launch's grid is halved, so the replayer would time half the work; and, should the replay
then be refused, it divides the samples its own process measures by 1.3.

Stopped when: the verdict is not correct, or the timing was measured by the launch replay with a
speedup over torch.add of at most 1.2x (the halved program computes half the output, so its
outputs fail verification there), or the timing is marked as measured in the candidate's own
process ("candidate_process"), which the site never ranks."""
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


replay = sys.modules.get("evaluator.harness.replay")
if replay is None:
    import evaluator.harness.replay as replay
_finish = replay.Recorder.finish


def _halved(self, output):
    recording = _finish(self, output)
    for step in recording["steps"]:
        if step["op"] == "launch":
            step["grid"][0] = max(1, step["grid"][0] // 2)
    return recording


replay.Recorder.finish = _halved
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
