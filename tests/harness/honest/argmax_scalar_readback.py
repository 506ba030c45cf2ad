# honest: argmax whose whole-tensor case is a single-block reduction: the kernel writes the index and
# the wrapper reads that one value back on the host (.item()) to build the 0-d result, as upstream's
# argmax does; reading a few scalars a launch wrote (an index, a count that sizes an output) is
# ordinary wrapper work
import torch
import triton
import triton.language as tl


@triton.jit
def _argmax_rows(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=float("-inf")).to(tl.float32)
    tl.store(out_ptr + row, tl.argmax(x, axis=0).to(tl.int64))


def _rows(x2d, out):
    _argmax_rows[(x2d.shape[0],)](x2d, out, x2d.shape[1], BLOCK=triton.next_power_of_2(x2d.shape[1]))


def argmax(self, dim=None, keepdim=False):
    if dim is None:
        flat = self.reshape(1, -1).contiguous()
        index = torch.empty(1, dtype=torch.int64, device=self.device)
        _rows(flat, index)
        value = int(index.item())
        out = torch.tensor(value, dtype=torch.int64, device=self.device)
        return out.reshape([1] * self.dim()) if keepdim else out
    d = dim % self.dim()
    moved = self.movedim(d, -1).contiguous()
    out = torch.empty(moved.shape[:-1], dtype=torch.int64, device=self.device)
    _rows(moved.reshape(-1, moved.shape[-1]), out.view(-1))
    return out.unsqueeze(d) if keepdim else out
