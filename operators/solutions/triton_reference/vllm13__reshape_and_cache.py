"""vllm13::reshape_and_cache in Triton: scatter key/value rows into vLLM's v0 paged caches,
key_cache [NB, H, D/x, BS, x] and value_cache [NB, H, D, BS]; negative slots are skipped. With an 'fp8'
cache dtype the uint8 caches receive e4m3fn(clamp(x / scale, +-448)) bytes, rounded to nearest even on the
bit pattern with integer arithmetic (exact on every backend, the CPU interpreter included)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(x):
    f = tl.floor(x)
    diff = x - f
    f_is_even = (f - 2.0 * tl.floor(f * 0.5)) == 0.0
    return tl.where(diff > 0.5, f + 1.0, tl.where(diff < 0.5, f, tl.where(f_is_even, f, f + 1.0)))


@triton.jit
def _e4m3fn_bits(x):
    """Byte of float8_e4m3fn(x) for finite |x| <= 448."""
    a = tl.abs(x)
    bits = a.to(tl.int32, bitcast=True)
    exponent = ((bits >> 23) & 0xFF) - 127
    mantissa = bits & 0x7FFFFF
    keep = mantissa >> 20
    rest = mantissa & 0xFFFFF
    round_up = (rest > 0x80000) | ((rest == 0x80000) & ((keep & 1) == 1))
    normal = ((exponent + 7) << 3) + keep + round_up.to(tl.int32)
    subnormal = _round_half_even(a * 512.0).to(tl.int32)  # multiples of 2^-9, 8 = smallest normal
    magnitude = tl.where(a < 0.015625, subnormal, normal)
    sign = tl.where(x < 0, 0x80, 0)
    return (magnitude | sign).to(tl.uint8)


@triton.jit
def _reshape_and_cache_kernel(
    key_ptr,
    value_ptr,
    kc_ptr,
    vc_ptr,
    slot_ptr,
    num_heads,
    head_size,
    block_size,
    key_tok_stride,
    key_head_stride,
    value_tok_stride,
    value_head_stride,
    kc_block_stride,
    kc_head_stride,
    kc_chunk_stride,
    kc_slot_stride,
    vc_block_stride,
    vc_head_stride,
    vc_dim_stride,
    k_scale_ptr,
    v_scale_ptr,
    X: tl.constexpr,
    BLOCK_H: tl.constexpr,
    BLOCK_D: tl.constexpr,
    FP8: tl.constexpr,
):
    tok = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + tok).to(tl.int64)
    if slot >= 0:
        block = slot // block_size
        offset = slot % block_size
        heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
        d = tl.arange(0, BLOCK_D)
        mask = (heads[:, None] < num_heads) & (d[None, :] < head_size)
        h64 = heads.to(tl.int64)[:, None]
        k = tl.load(key_ptr + tok * key_tok_stride + h64 * key_head_stride + d[None, :], mask=mask)
        v = tl.load(value_ptr + tok * value_tok_stride + h64 * value_head_stride + d[None, :], mask=mask)
        k_dst = (
            kc_ptr
            + block * kc_block_stride
            + h64 * kc_head_stride
            + (d[None, :] // X) * kc_chunk_stride
            + offset * kc_slot_stride
            + d[None, :] % X
        )
        v_dst = vc_ptr + block * vc_block_stride + h64 * vc_head_stride + d[None, :] * vc_dim_stride + offset
        if FP8:
            k_scale = tl.load(k_scale_ptr).to(tl.float32)
            v_scale = tl.load(v_scale_ptr).to(tl.float32)
            kq = tl.minimum(tl.maximum(k.to(tl.float32) / k_scale, -448.0), 448.0)
            vq = tl.minimum(tl.maximum(v.to(tl.float32) / v_scale, -448.0), 448.0)
            tl.store(k_dst, _e4m3fn_bits(kq), mask=mask)
            tl.store(v_dst, _e4m3fn_bits(vq), mask=mask)
        else:
            tl.store(k_dst, k, mask=mask)
            tl.store(v_dst, v, mask=mask)


def reshape_and_cache(
    key: torch.Tensor,
    value: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
    kv_cache_dtype: str,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
) -> None:
    tokens = slot_mapping.shape[0]
    if tokens == 0:
        return
    heads, head_size = key.shape[1], key.shape[2]
    block_h = min(triton.next_power_of_2(heads), 8)
    grid = (tokens, triton.cdiv(heads, block_h))
    _reshape_and_cache_kernel[grid](
        key,
        value,
        key_cache,
        value_cache,
        slot_mapping,
        heads,
        head_size,
        key_cache.shape[3],
        key.stride(0),
        key.stride(1),
        value.stride(0),
        value.stride(1),
        key_cache.stride(0),
        key_cache.stride(1),
        key_cache.stride(2),
        key_cache.stride(3),
        value_cache.stride(0),
        value_cache.stride(1),
        value_cache.stride(2),
        k_scale,
        v_scale,
        X=key_cache.shape[4],
        BLOCK_H=block_h,
        BLOCK_D=triton.next_power_of_2(head_size),
        FP8=kv_cache_dtype.startswith("fp8"),
    )
