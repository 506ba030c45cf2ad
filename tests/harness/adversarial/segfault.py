# ruff: noqa
# crash: dereference NULL through ctypes
import ctypes
import triton


def add_Tensor(self, other, *, alpha=1):
    return ctypes.string_at(0)
