# ruff: noqa
# class 4 (trace blind spots), passes the static policy: host math on .tolist() (no aten arithmetic for
# the trace), one canary launch for the launch count, and the canary tells the ghost replay from a
# real call: only then is the answer wrong
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


def add_Tensor(self, other, *, alpha=1):
    if not _launches_run():
        return torch.empty_like(self)
    a = self.contiguous().view(-1).tolist()
    b = other.contiguous().view(-1).tolist()
    return torch.tensor([x + alpha * y for x, y in zip(a, b)], dtype=self.dtype).view(self.shape)
