# ruff: noqa
# class 4, not in issue 20: on the Triton interpreter a @triton.jit body is plain Python run inside the
# launch (untraced): it does the torch arithmetic on tensors parked in a module-level box. Under the
# ghost replay the launch never runs, so nothing is computed and the replay shows nothing wrong
import torch
import triton
import triton.language as tl

BOX = {}


@triton.jit
def _kernel(x_ptr, BLOCK: tl.constexpr):
    a, b, alpha = BOX["args"]
    BOX["out"] = a + alpha * b


def add_Tensor(self, other, *, alpha=1):
    BOX["args"] = (self, other, alpha)
    BOX["out"] = torch.empty_like(self)
    _kernel[(1,)](self, BLOCK=1)
    return BOX.pop("out")
