# ruff: noqa
# class 4: torch arithmetic in a joined thread that first drops the trace the harness pushes for
# every thread (the mode stack is thread-local); canary launch and ghost detection
import threading
import torch
import triton
import triton.language as tl
from torch.utils._python_dispatch import _pop_mode, _len_torch_dispatch_stack

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
    box = []

    def work():
        while _len_torch_dispatch_stack() > 0:
            _pop_mode()
        box.append(self - (-alpha) * other)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    return box[0]
