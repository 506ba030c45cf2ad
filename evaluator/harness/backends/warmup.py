"""A trivial Triton kernel a warm candidate process compiles and runs before any candidate arrives.

The first Triton compile in a process pays one-off costs (the compiler backend's imports and LLVM
start-up, building and loading Triton's C driver helpers into the process's private cache); paying
them while the process waits in the pool keeps them out of the candidate's attempt.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _warm_up_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


def warm_up_compiler(device_type: str) -> None:
    import torch

    x = torch.zeros(64, device=device_type)
    _warm_up_kernel[(1,)](x, x.numel(), BLOCK=64)
    if int(x.sum().item()) != 64:
        raise RuntimeError("the warm-up Triton kernel computed a wrong result")
