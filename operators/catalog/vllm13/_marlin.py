"""Marlin's weight and scale layouts as vLLM 0.13 produces and consumes them (no SPECS here).

Facts (our own PyTorch, written from vLLM's source as stored in the search index; the repository snapshot
itself was over the fetch size limit, so no v0.13 tag could be checked out):
- csrc/quantization/gptq_marlin/gptq_marlin_repack.cu (commit 0794945f; an older copy at 3e5cec22 has the
  same repack_tile) and awq_marlin_repack.cu (18a21921): the output [K/16, N*16*bits/32] int32 is a
  sequence of 16x64 (k x n) tiles, k-tile major then n-tile; tile words at th*4 + warp (4-bit) or
  th*8 + 2*warp + {0,1} (8-bit) for warp 0..3 (16 columns each) and thread th 0..31, which holds the
  rows 2*(th%4) + {0, 1, 8, 9} of columns warp*16 + th/4 and that column + 8; the 8 (4-bit) or 2x4
  (8-bit) values go into the word in FasterTransformer's interleaved order.
- vllm/model_executor/layers/quantization/utils/marlin_utils_test.py (04aa528e): marlin_weights /
  get_weight_perm are the Python oracle vLLM's tests/kernels/quantization/test_marlin_gemm.py
  (test_gptq_marlin_repack, test_awq_marlin_repack, 01065c02) compare both repack kernels against
  exactly (assert_close on the int32 words); the same tables give the layout test_marlin_gemm feeds the GEMM.
- marlin_utils.py (007d5005): marlin_permute_scales, an 8x8 transpose of every 64 scales when there are
  several groups, a fixed 32-entry shuffle for one group per column (channelwise).
Only the 16-bit-activation layout (is_a_8bit=False) is written here: vLLM's int8/fp8-activation path uses
32x32 tiles and is not exercised by the catalog's cases.
"""

from __future__ import annotations

import torch

from operators.catalog.vllm13._bits import pack_last, unpack_last

TILE_K = 16
TILE_N = 64

# FasterTransformer's interleaved numeric conversion: position i of a word holds value ORDER[i]
_WORD_ORDER = {4: (0, 2, 4, 6, 1, 3, 5, 7), 8: (0, 2, 1, 3)}


def _tile_slot_order(num_bits: int) -> torch.Tensor:
    """For every value slot of a packed 16x64 tile (word by word, low bits first), the index of the value
    it holds in the tile's natural order (four 16x16 column blocks, each row-major: block*256 + k*16 + n)."""
    slots: list[int] = []
    for thread in range(32):
        col = thread // 4
        rows = (2 * (thread % 4), 2 * (thread % 4) + 1, 2 * (thread % 4) + 8, 2 * (thread % 4) + 9)
        # a thread's 8 values of one 16x16 block: its 4 rows of column `col`, then of column `col` + 8
        per_block = [16 * r + col + 8 * half for half in (0, 1) for r in rows]
        for block in range(4):
            values = [256 * block + p for p in per_block]
            order = _WORD_ORDER[num_bits]
            for start in range(0, 8, len(order)):
                slots.extend(values[start + i] for i in order)
    return torch.tensor(slots)


def marlin_pack(q: torch.Tensor, num_bits: int) -> torch.Tensor:
    """Codes q [K, N] (K % 16 == 0, N % 64 == 0) -> Marlin words [K/16, N*16*bits/32] int32."""
    k, n = q.shape
    tiles = q.reshape(k // TILE_K, TILE_K, n // TILE_N, 4, 16).permute(0, 2, 3, 1, 4)  # (kt, nt, block, k, n)
    natural = tiles.reshape(k // TILE_K, n // TILE_N, TILE_K * TILE_N)
    slotted = natural[..., _tile_slot_order(num_bits).to(q.device)]
    return pack_last(slotted.reshape(k // TILE_K, n * TILE_K), num_bits)


def marlin_unpack(words: torch.Tensor, size_k: int, size_n: int, num_bits: int) -> torch.Tensor:
    """Inverse of marlin_pack: Marlin words -> codes [K, N] (int64)."""
    slotted = unpack_last(words, num_bits).reshape(size_k // TILE_K, size_n // TILE_N, TILE_K * TILE_N)
    natural = slotted[..., torch.argsort(_tile_slot_order(num_bits)).to(words.device)]
    tiles = natural.reshape(size_k // TILE_K, size_n // TILE_N, 4, TILE_K, 16).permute(0, 3, 1, 2, 4)
    return tiles.reshape(size_k, size_n)


def _scale_order(grouped: bool) -> torch.Tensor:
    if grouped:  # 8x8 transpose of each run of 64 scales
        return torch.tensor([i + 8 * j for i in range(8) for j in range(8)])
    return torch.tensor([2 * i + j for i in range(4) for j in (0, 1, 8, 9, 16, 17, 24, 25)])


def marlin_permute_scales(s: torch.Tensor, size_n: int, grouped: bool) -> torch.Tensor:
    """Scales [G, N] -> Marlin's order; `grouped` = more than one group along K (the GEMM decides the same
    way: one row of scales means channelwise)."""
    order = _scale_order(grouped).to(s.device)
    return s.reshape(-1, order.numel())[:, order].reshape(-1, size_n).contiguous()


def marlin_unpermute_scales(s: torch.Tensor, size_n: int, grouped: bool) -> torch.Tensor:
    order = torch.argsort(_scale_order(grouped)).to(s.device)
    return s.reshape(-1, order.numel())[:, order].reshape(-1, size_n).contiguous()
