# ruff: noqa
# class 2: find the harness's State object through gc (no import of the harness needed), forge its
# counters and trace after torch arithmetic
import gc
import torch
import triton


def _state():
    for obj in gc.get_objects():
        if type(obj).__name__ == "State" and hasattr(obj, "launches") and hasattr(obj, "trace"):
            return obj


def add_Tensor(self, other, *, alpha=1):
    state = _state()
    if state is None or state.ghost:
        return torch.empty_like(self)
    out = self - (-alpha) * other
    del state.trace[:]
    state.launches += 1
    return out
