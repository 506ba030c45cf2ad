"""vllm13::concat_and_cache_mla in Triton: kv_cache[s // BS, s % BS] = cat(kv_c[t], k_pe[t]) for
s = slot_mapping[t] >= 0; an 'fp8' cache (uint8) receives e4m3fn(clamp(x / scale)) bytes, rounded to nearest even
on the bit pattern with integer arithmetic."""

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
def _mla_cache_kernel(
    kv_c_ptr,
    k_pe_ptr,
    cache_ptr,
    slot_ptr,
    rank,
    pe_dim,
    block_size,
    kv_c_stride,
    k_pe_stride,
    cache_block_stride,
    cache_slot_stride,
    scale_ptr,
    BLOCK: tl.constexpr,
    FP8: tl.constexpr,
):
    tok = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + tok).to(tl.int64)
    if slot >= 0:
        dst = cache_ptr + (slot // block_size) * cache_block_stride + (slot % block_size) * cache_slot_stride
        for start in range(0, rank + pe_dim, BLOCK):
            i = start + tl.arange(0, BLOCK)
            in_c = i < rank
            in_pe = (i >= rank) & (i < rank + pe_dim)
            c = tl.load(kv_c_ptr + tok * kv_c_stride + i, mask=in_c, other=0.0)
            p = tl.load(k_pe_ptr + tok * k_pe_stride + (i - rank), mask=in_pe, other=0.0)
            entry = tl.where(in_c, c, p)
            if FP8:
                scaled = entry.to(tl.float32) / tl.load(scale_ptr)
                tl.store(dst + i, _e4m3fn_bits(tl.minimum(tl.maximum(scaled, -448.0), 448.0)), mask=in_c | in_pe)
            else:
                tl.store(dst + i, entry, mask=in_c | in_pe)


def concat_and_cache_mla(
    kv_c: torch.Tensor,
    k_pe: torch.Tensor,
    kv_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
    kv_cache_dtype: str,
    scale: torch.Tensor,
) -> None:
    tokens = slot_mapping.shape[0]
    if tokens == 0:
        return
    rank, pe_dim = kv_c.shape[1], k_pe.shape[1]
    block = min(triton.next_power_of_2(rank + pe_dim), 1024)
    _mla_cache_kernel[(tokens,)](
        kv_c,
        k_pe,
        kv_cache,
        slot_mapping,
        rank,
        pe_dim,
        kv_cache.shape[1],
        kv_c.stride(0),
        k_pe.stride(0),
        kv_cache.stride(0),
        kv_cache.stride(1),
        scale,
        BLOCK=block,
        FP8=kv_cache_dtype.startswith("fp8"),
    )
