# ruff: noqa
# resource abuse on the device (cuda only): a kernel that spins forever waiting for a flag nobody
# sets. The host thread blocks in the synchronising copy, so only killing the process ends it; the
# question is whether the context goes with it and the next candidate gets a working device.
import torch
import triton
import triton.language as tl


@triton.jit
def _spin_kernel(flag_ptr, out_ptr):
    # volatile: reloaded every iteration, so the loop cannot be folded into one read
    while tl.load(flag_ptr, volatile=True) == 0:
        pass
    tl.store(out_ptr, 1.0)


def add_Tensor(self, other, *, alpha=1):
    flag = torch.zeros(1, dtype=torch.int32, device=self.device)
    out = torch.empty_like(self)
    _spin_kernel[(1,)](flag, out)
    out.sum().item()  # blocks the host until the kernel ends: never
    return out
