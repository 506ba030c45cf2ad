"""vllm13::paged_attention_v1 in Triton ('auto' cache dtype): decode attention over vLLM's v0 paged KV cache
(key_cache [NB, Hkv, D/x, BS, x], value_cache [NB, Hkv, D, BS]). One program per (sequence, kv head)
handles all query heads of that GQA group, walking the sequence's blocks with an online fp32 softmax."""

import torch
import triton
import triton.language as tl


@triton.jit
def _paged_attention_kernel(
    out_ptr,
    q_ptr,
    kc_ptr,
    vc_ptr,
    block_tables_ptr,
    seq_lens_ptr,
    alibi_ptr,
    scale,
    head_size,
    q_seq_stride,
    q_head_stride,
    out_seq_stride,
    out_head_stride,
    kc_block_stride,
    kc_head_stride,
    kc_chunk_stride,
    kc_slot_stride,
    vc_block_stride,
    vc_head_stride,
    vc_dim_stride,
    bt_stride,
    GROUP: tl.constexpr,
    BLOCK_G: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    BLOCK_D: tl.constexpr,
    X: tl.constexpr,
    HAS_ALIBI: tl.constexpr,
):
    seq = tl.program_id(0).to(tl.int64)
    kv_head = tl.program_id(1).to(tl.int64)
    g = tl.arange(0, BLOCK_G)
    gmask = g < GROUP
    heads = kv_head * GROUP + g
    d = tl.arange(0, BLOCK_D)
    dmask = d < head_size
    q = tl.load(
        q_ptr + seq * q_seq_stride + heads[:, None] * q_head_stride + d[None, :],
        mask=gmask[:, None] & dmask[None, :],
        other=0.0,
    ).to(tl.float32)
    seq_len = tl.load(seq_lens_ptr + seq)
    if HAS_ALIBI:
        slopes = tl.load(alibi_ptr + heads, mask=gmask, other=0.0).to(tl.float32)
    m_i = tl.full([BLOCK_G], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_G], dtype=tl.float32)
    acc = tl.zeros([BLOCK_G, BLOCK_D], dtype=tl.float32)
    t = tl.arange(0, BLOCK_SIZE)
    k_offsets = (d[:, None] // X) * kc_chunk_stride + t[None, :] * kc_slot_stride + d[:, None] % X  # [D, BS]
    v_offsets = d[None, :] * vc_dim_stride + t[:, None]  # [BS, D]
    num_blocks = tl.cdiv(seq_len, BLOCK_SIZE)
    for b in range(0, num_blocks):
        block = tl.load(block_tables_ptr + seq * bt_stride + b).to(tl.int64)
        pos = b * BLOCK_SIZE + t
        tmask = pos < seq_len
        k = tl.load(
            kc_ptr + block * kc_block_stride + kv_head * kc_head_stride + k_offsets,
            mask=dmask[:, None] & tmask[None, :],
            other=0.0,
        ).to(tl.float32)
        scores = tl.sum(q[:, :, None] * k[None, :, :], axis=1) * scale  # [G, BS]
        if HAS_ALIBI:
            scores += slopes[:, None] * (pos - seq_len + 1).to(tl.float32)[None, :]
        scores = tl.where(tmask[None, :], scores, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(scores, axis=1))
        p = tl.exp(scores - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        v = tl.load(
            vc_ptr + block * vc_block_stride + kv_head * vc_head_stride + v_offsets,
            mask=tmask[:, None] & dmask[None, :],
            other=0.0,
        ).to(tl.float32)
        acc = acc * alpha[:, None] + tl.sum(p[:, :, None] * v[None, :, :], axis=1)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(
        out_ptr + seq * out_seq_stride + heads[:, None] * out_head_stride + d[None, :],
        out.to(out_ptr.dtype.element_ty),
        mask=gmask[:, None] & dmask[None, :],
    )


def paged_attention_v1(
    out: torch.Tensor,
    query: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    num_kv_heads: int,
    scale: float,
    block_tables: torch.Tensor,
    seq_lens: torch.Tensor,
    block_size: int,
    max_seq_len: int,
    alibi_slopes: torch.Tensor | None,
    kv_cache_dtype: str,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
    tp_rank: int = 0,
    blocksparse_local_blocks: int = 0,
    blocksparse_vert_stride: int = 0,
    blocksparse_block_size: int = 64,
    blocksparse_head_sliding_step: int = 0,
) -> None:
    if kv_cache_dtype != "auto":
        raise NotImplementedError("this reference solution covers kv_cache_dtype='auto' only")
    seqs, heads, head_size = query.shape
    if seqs == 0:
        return
    group = heads // num_kv_heads
    has_alibi = alibi_slopes is not None
    _paged_attention_kernel[(seqs, num_kv_heads)](
        out,
        query,
        key_cache,
        value_cache,
        block_tables,
        seq_lens,
        alibi_slopes if has_alibi else query,
        float(scale),
        head_size,
        query.stride(0),
        query.stride(1),
        out.stride(0),
        out.stride(1),
        key_cache.stride(0),
        key_cache.stride(1),
        key_cache.stride(2),
        key_cache.stride(3),
        value_cache.stride(0),
        value_cache.stride(1),
        value_cache.stride(2),
        block_tables.stride(0),
        GROUP=group,
        BLOCK_G=max(triton.next_power_of_2(group), 1),
        BLOCK_SIZE=value_cache.shape[3],
        BLOCK_D=triton.next_power_of_2(head_size),
        X=key_cache.shape[4],
        HAS_ALIBI=has_alibi,
    )
