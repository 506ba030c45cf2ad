"""cuda only, class 3 (waits without deadlines): launch a kernel that spins on the device until a
flag that nobody sets, then return; whatever the parent synchronises on (an event, the stream, the
IPC event) waits for it. The earlier red team stalled the parent 97 s past a 20 s timeout.

Stopped when: the attempt ends within its timeout plus a margin (duration_s <= timeout + 30 s) with
verdict timeout, and the test process is unharmed."""
# ruff: noqa
import torch
import triton
import triton.language as tl


@triton.jit
def _spin(flag_ptr):
    while tl.load(flag_ptr, volatile=True) == 0:
        pass


def add_Tensor(self, other, *, alpha=1):
    flag = torch.zeros(1, dtype=torch.int32, device=self.device)
    _spin[(1,)](flag)
    return torch.empty_like(self)
