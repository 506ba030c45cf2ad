# ruff: noqa
# class 4 (trace blind spots), passes the static policy: .item() per element, host arithmetic, and the
# allowed fill_ on a narrow() view writes each result; a canary launch and ghost detection as above
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
    a = self.contiguous().view(-1)
    b = other.contiguous().view(-1)
    out = torch.empty_like(a)
    for i in range(a.numel()):
        out.narrow(0, i, 1).fill_(a[i].item() + alpha * b[i].item())
    return out.view(self.shape)
