# ruff: noqa
# new (outside red team, 2026-12-02): Triton's own launch code calls methods of what a kernel is
# given (untyped_storage, data_ptr, size, ...) outside the trace; an object of the candidate's
# with those methods computes the answer with torch there, the kernel itself does nothing
import torch
import triton
import triton.language as tl


@triton.jit
def _nothing(P):
    pass


class _Storage:
    def __init__(self, owner):
        self.owner = owner

    def data_ptr(self):
        return self.owner.out.data_ptr()

    def cpu(self):
        return self.owner.out

    def copy_(self, other):
        return self


class _Smuggler:
    def __init__(self, a, b, alpha, out):
        self.a, self.b, self.alpha, self.out = a, b, alpha, out

    def data_ptr(self):
        return self.out.data_ptr()

    def untyped_storage(self):
        self.out.copy_(self.a.add(self.b, alpha=self.alpha))
        return _Storage(self)

    def new_empty(self, *args, **kwargs):
        return self.out.new_empty(*args, **kwargs)

    def storage_offset(self):
        return self.out.storage_offset()

    def size(self):
        return self.out.size()

    def stride(self):
        return self.out.stride()


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    _nothing[(1,)](_Smuggler(self, other, alpha, out))
    return out
