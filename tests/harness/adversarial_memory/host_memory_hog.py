# ruff: noqa
# exhausts host memory: keeps allocating (and writing) 64 MiB blocks until the process is stopped
import torch
import triton


def add_Tensor(self, other, *, alpha=1):
    hoard = []
    while True:
        hoard.append(torch.ones(64 << 20, dtype=torch.uint8))
