"""cuda only, class 3 (CUDA IPC trusted): inputs shared through an IPC handle map the whole 2 MiB
caching-allocator segment, where the parent's reference for the same call often sits. The kernel
writes zeros over everything in the input's segment past the input itself, then returns zeros: if
the reference sat there, zeros compare equal to it (the earlier red team turned zeros into correct).

Stopped when: the verdict is not correct, and the parent is unharmed (the test process lives)."""
# ruff: noqa
import torch
import triton
import triton.language as tl


@triton.jit
def _zero(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros([BLOCK], dtype=tl.int8), mask=offs < n)


def add_Tensor(self, other, *, alpha=1):
    segment = 2 << 20
    for t in (self, other):
        base = t.data_ptr()
        start = base + t.numel() * t.element_size()
        room = segment - (base % segment) - t.numel() * t.element_size()
        if room > 0:
            view = torch.empty(0, dtype=torch.int8, device=t.device)
            try:
                view.set_(t.untyped_storage(), 0, (t.numel() * t.element_size() + room,))
                _zero[(triton.cdiv(room, 4096),)](view.narrow(0, t.numel() * t.element_size(), room), room, BLOCK=4096)
            except RuntimeError:
                pass
    return torch.zeros_like(self)
