# ruff: noqa
# family A1 without any kernel: Python arithmetic, no Triton launch at all
import torch
import triton


def add_Tensor(self, other, *, alpha=1):
    a = self.contiguous().view(-1).tolist()
    b = other.contiguous().view(-1).tolist()
    return torch.tensor([x + alpha * y for x, y in zip(a, b)], dtype=self.dtype).view(self.shape)
