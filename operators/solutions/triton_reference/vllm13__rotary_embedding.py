"""vllm13::rotary_embedding in Triton: in-place RoPE on query and key, one program per (token, head block).
cos/sin rows come from cos_sin_cache[positions[t]] = cat(cos, sin) over rot_dim; neox rotates halves,
GPT-J rotates even/odd pairs; channels past rot_dim are untouched."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rope_kernel(
    pos_ptr,
    x_ptr,
    cache_ptr,
    num_heads,
    token_stride,
    head_stride,
    cache_stride,
    HALF: tl.constexpr,
    BLOCK_H: tl.constexpr,
    BLOCK_D: tl.constexpr,
    IS_NEOX: tl.constexpr,
):
    tok = tl.program_id(0).to(tl.int64)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    i = tl.arange(0, BLOCK_D)
    imask = i < HALF
    pos = tl.load(pos_ptr + tok).to(tl.int64)
    cos = tl.load(cache_ptr + pos * cache_stride + i, mask=imask, other=0.0).to(tl.float32)
    sin = tl.load(cache_ptr + pos * cache_stride + HALF + i, mask=imask, other=0.0).to(tl.float32)
    if IS_NEOX:
        first = i
        second = i + HALF
    else:
        first = 2 * i
        second = 2 * i + 1
    base = x_ptr + tok * token_stride + heads.to(tl.int64)[:, None] * head_stride
    mask = (heads[:, None] < num_heads) & imask[None, :]
    x1 = tl.load(base + first[None, :], mask=mask, other=0.0)
    x2 = tl.load(base + second[None, :], mask=mask, other=0.0)
    a = x1.to(tl.float32)
    b = x2.to(tl.float32)
    tl.store(base + first[None, :], (a * cos[None, :] - b * sin[None, :]).to(x1.dtype), mask=mask)
    tl.store(base + second[None, :], (b * cos[None, :] + a * sin[None, :]).to(x1.dtype), mask=mask)


def _apply(positions: torch.Tensor, x: torch.Tensor, head_size: int, cache: torch.Tensor, is_neox: bool) -> None:
    tokens = positions.numel()
    if tokens == 0:
        return
    view = x.view(tokens, -1, head_size)
    heads = view.shape[1]
    half = cache.shape[1] // 2
    block_h = min(triton.next_power_of_2(heads), 16)
    grid = (tokens, triton.cdiv(heads, block_h))
    _rope_kernel[grid](
        positions,
        view,
        cache,
        heads,
        view.stride(0),
        view.stride(1),
        cache.stride(0),
        HALF=half,
        BLOCK_H=block_h,
        BLOCK_D=triton.next_power_of_2(half),
        IS_NEOX=bool(is_neox),
    )


def rotary_embedding(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor | None,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> None:
    flat_positions = positions.reshape(-1)
    _apply(flat_positions, query, head_size, cos_sin_cache, is_neox)
    if key is not None:
        _apply(flat_positions, key, head_size, cos_sin_cache, is_neox)
