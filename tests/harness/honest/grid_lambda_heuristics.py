# honest: a grid lambda with triton.cdiv over the meta-parameters, triton.heuristics picking the
# block, torch.empty_like, .contiguous() of the inputs
import torch
import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(min(args["n"], 256))})
@triton.jit
def _add(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + alpha * tl.load(b_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    a = self.contiguous()
    b = other.contiguous()
    out = torch.empty_like(a)
    n = a.numel()
    _add[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](a, b, out, float(alpha), n)
    return out
