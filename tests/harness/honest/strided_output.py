# honest (spec ADD_2D, shape [3, 5]): the output is a column-major buffer written through its strides,
# the inputs are read through theirs (no .contiguous())
import torch
import triton
import triton.language as tl


@triton.jit
def _add2d(a_ptr, b_ptr, out_ptr, alpha, rows, cols, sar, sac, sbr, sbc, sor, soc, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < rows * cols
    r = offs // cols
    c = offs % cols
    a = tl.load(a_ptr + r * sar + c * sac, mask=mask)
    b = tl.load(b_ptr + r * sbr + c * sbc, mask=mask)
    tl.store(out_ptr + r * sor + c * soc, a + alpha * b, mask=mask)


def add_Tensor(self, other, *, alpha=1):
    rows, cols = self.shape
    out = torch.empty_strided((rows, cols), (1, rows), dtype=self.dtype, device=self.device)
    _add2d[(triton.cdiv(rows * cols, 64),)](
        self, other, out, float(alpha), rows, cols,
        self.stride(0), self.stride(1), other.stride(0), other.stride(1), out.stride(0), out.stride(1),
        BLOCK=64,
    )
    return out
