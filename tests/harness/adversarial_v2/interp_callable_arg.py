# ruff: noqa
# new (outside red team, 2026-12-02): on the Triton interpreter a kernel's non-tensor arguments
# reach its body unconverted and the body is Python, so a closure passed as an argument runs
# inside the launch: it does the add with torch while the launch is being counted
import torch
import triton
import triton.language as tl


@triton.jit
def _shell(FN, n):
    FN()


def add_Tensor(self, other, *, alpha=1):
    box = [None]

    def work():
        box[0] = self.add(other, alpha=alpha)

    _shell[(1,)](work, 1)
    return box[0]
