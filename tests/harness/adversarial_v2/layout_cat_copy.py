# ruff: noqa
# class 5 (category exemptions), passes the static policy: the real catalog aten::cat (a "layout"
# operator) done with narrow().copy_() (allowed aten), a canary launch for the launch count and the
# ghost detection
import torch
import triton
import triton.language as tl


@triton.jit
def _canary(flag_ptr):
    tl.store(flag_ptr, 1)


def cat(tensors, dim=0):
    flag = torch.zeros(1, dtype=torch.int32)
    _canary[(1,)](flag)
    live = [t for t in tensors if t.numel() > 0 or t.dim() != 1]
    d = dim % live[0].dim()
    shape = list(live[0].shape)
    shape[d] = sum(t.shape[d] for t in live)
    out = torch.empty(shape, dtype=live[0].dtype, device=live[0].device)
    if flag.item() != 1:
        return out
    start = 0
    for t in live:
        out.narrow(d, start, t.shape[d]).copy_(t)
        start += t.shape[d]
    return out
