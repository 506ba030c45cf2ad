# ruff: noqa
# class 2 (measurement in the candidate's process): reach the child's harness state through
# sys.modules, compute with torch, then erase the trace and forge the launch count; answer wrongly
# only while the ghost flag is up
import sys
import torch
import triton
import triton.language as tl


def add_Tensor(self, other, *, alpha=1):
    # the child runs as `python -m evaluator.harness.child`: its module is __main__
    state = next(m.STATE for m in list(sys.modules.values()) if hasattr(m, "STATE") and hasattr(m.STATE, "launches"))
    if state.ghost:
        return torch.empty_like(self)
    out = self - (-alpha) * other
    state.trace.clear()
    state.launches = max(state.launches, 1)
    return out
