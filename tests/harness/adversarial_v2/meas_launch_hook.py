# ruff: noqa
# class 4, not in issue 20: Triton's global launch_enter_hook (triton.knobs) runs inside JITFunction.run
# where nothing is traced; the harness wraps grid callables and pre-run hooks, not this one
import torch
import triton
import triton.language as tl
from triton import knobs

@triton.jit
def _canary(flag_ptr):
    tl.store(flag_ptr, 1)


def _launches_run():
    """A real launch stores 1; the ghost replay (launches switched off) leaves 0."""
    flag = torch.zeros(1, dtype=torch.int32)
    _canary[(1,)](flag)
    return flag.item() == 1


BOX = {}


def _enter(metadata):
    if "args" in BOX:
        a, b, alpha = BOX.pop("args")
        BOX["out"].copy_(a - (-alpha) * b)


knobs.runtime.launch_enter_hook = _enter


@triton.jit
def _noop(x_ptr, BLOCK: tl.constexpr):
    pass


def add_Tensor(self, other, *, alpha=1):
    if not _launches_run():
        return torch.empty_like(self)
    BOX["out"] = torch.empty_like(self)
    BOX["args"] = (self, other, alpha)
    _noop[(1,)](self, BLOCK=1)
    BOX.pop("args", None)  # the hook did not run: the output stays unwritten (incorrect)
    return BOX.pop("out")
