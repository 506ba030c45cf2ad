# ruff: noqa
# class 1 (memory): allocate and touch 4x the attempt's memory limit in one process; it must fail
# inside the attempt (an error verdict), never take the machine or the test process down
import resource
import torch, triton


def add_Tensor(self, other, *, alpha=1):
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    size = 4 * (limit if limit > 0 else 2 << 30)
    block = torch.ones(size // 4, dtype=torch.float32)  # touched: every page written
    return torch.empty_like(self)
