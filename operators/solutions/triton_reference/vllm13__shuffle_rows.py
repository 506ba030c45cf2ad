"""vllm13::shuffle_rows in Triton: out[i] = input_tensor[dst2src_map[i]] (row gather)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _shuffle_rows_kernel(in_ptr, map_ptr, out_ptr, cols, in_stride, out_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    src = tl.load(map_ptr + row).to(tl.int64)
    mask = c < cols
    tl.store(out_ptr + row * out_stride + c, tl.load(in_ptr + src * in_stride + c, mask=mask), mask=mask)


def shuffle_rows(input_tensor: torch.Tensor, dst2src_map: torch.Tensor) -> torch.Tensor:
    rows, cols = dst2src_map.numel(), input_tensor.shape[1]
    out = torch.empty((rows, cols), dtype=input_tensor.dtype, device=input_tensor.device)
    if rows == 0 or cols == 0:
        return out
    block = min(triton.next_power_of_2(cols), 2048)
    _shuffle_rows_kernel[(rows, triton.cdiv(cols, block))](
        input_tensor, dst2src_map, out, cols, input_tensor.stride(0), out.stride(0), BLOCK=block
    )
    return out
