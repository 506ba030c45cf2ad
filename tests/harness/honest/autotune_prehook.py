# honest: triton.autotune over several configs, each with a pre_hook that zeroes the output before an
# accumulating kernel (upstream's kernels autotune like this; on the CPU interpreter the harness runs
# the first config, since benchmarking needs a device driver)
import torch
import triton
import triton.language as tl


def _zero_out(nargs):
    nargs["out_ptr"].zero_()


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, pre_hook=_zero_out) for b in (16, 32, 64)],
    key=["n"],
)
@triton.jit
def _add_acc(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(out_ptr + offs, mask=mask)
    acc += tl.load(a_ptr + offs, mask=mask) + alpha * tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, acc, mask=mask)


def add_Tensor(self, other, *, alpha=1):
    a = self.contiguous()
    b = other.contiguous()
    out = torch.empty_like(a)
    n = a.numel()
    _add_acc[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](a, b, out, float(alpha), n)
    return out
