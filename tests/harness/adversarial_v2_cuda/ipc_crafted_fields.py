"""cuda only, class 3 (IPC fields only type-checked): return an output that imitates a shared-memory
handle with an out-of-range ref_counter_offset and storage size; the earlier red team crashed the
parent with SIGSEGV this way.

Stopped when: the verdict is runtime_error/incorrect (the output is refused), and the parent (the
test process) is alive and answers the next evaluation."""
# ruff: noqa
import torch
import triton

FORGED = {
    "__ipc__": True,
    "device": 0,
    "handle": b"\xff" * 64,
    "storage_size_bytes": 1 << 62,
    "storage_offset_bytes": (1 << 62) - 8,
    "ref_counter_handle": b"\xff" * 64,
    "ref_counter_offset": (1 << 62),
    "event_handle": b"\x00" * 64,
    "event_sync_required": True,
    "dtype": "float32",
    "shape": [1 << 30],
    "stride": [1],
}


def add_Tensor(self, other, *, alpha=1):
    return FORGED
