"""Marlin layouts of the vLLM 0.13 catalog (operators/catalog/vllm13/_marlin.py): the references checked
against independent formulations taken from vLLM's kernels and tests (thread-by-thread index arithmetic of
the repack kernel, vLLM's own test packings), plus round trips."""

from __future__ import annotations

import pytest
import torch

from operators.catalog.vllm13._marlin import marlin_pack, marlin_permute_scales, marlin_unpack, marlin_unpermute_scales
from operators.catalog.vllm13._support import UINT4B8
from operators.catalog.vllm13.qgemm import gptq_marlin_gemm
from operators.catalog.vllm13.repack import awq_marlin_moe_repack, gptq_marlin_moe_repack, marlin_int4_fp8_preprocess
from operators.spec import Rng


def _marlin_words_by_thread(q: torch.Tensor, bits: int) -> torch.Tensor:
    """Marlin words computed the way vLLM's gptq_marlin_repack.cu repack_tile does, thread by thread: per
    16x64 tile, warp w (16 columns) and lane th read rows 2*(th%4) + (0, 1, 8, 9) of columns 16w + th//4 and
    +8, and write them in FasterTransformer's interleaved order to word th*4 + w (4-bit) or th*8 + 2w + (0, 1)."""
    k, n = q.shape
    per_word = 32 // bits
    tile_words = 16 * 64 // per_word
    out = [[0] * (n // 64 * tile_words) for _ in range(k // 16)]
    for kt in range(k // 16):
        for nt in range(n // 64):
            for warp in range(4):
                for th in range(32):
                    col = nt * 64 + warp * 16 + th // 4
                    rows = [kt * 16 + (th % 4) * 2 + off for off in (0, 1, 8, 9)]
                    vals = [int(q[r, col]) for r in rows] + [int(q[r, col + 8]) for r in rows]
                    base = nt * tile_words
                    if bits == 4:
                        out[kt][base + th * 4 + warp] = sum(
                            vals[i] << (4 * s) for s, i in enumerate((0, 2, 4, 6, 1, 3, 5, 7))
                        )
                    else:
                        for half in (0, 1):
                            word = sum(vals[4 * half + i] << (8 * s) for s, i in enumerate((0, 2, 1, 3)))
                            out[kt][base + th * 8 + warp * 2 + half] = word
    words = torch.tensor(out, dtype=torch.int64)
    return torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)


@pytest.mark.parametrize("bits", [4, 8])
def test_marlin_pack_matches_the_repack_kernels_thread_arithmetic(bits: int) -> None:
    q = Rng(21).randint(0, 1 << bits, (32, 128))
    packed = marlin_pack(q, bits)
    assert packed.shape == (2, 128 * 16 * bits // 32)
    assert torch.equal(packed, _marlin_words_by_thread(q, bits))
    assert torch.equal(marlin_unpack(packed, 32, 128, bits), q)


def test_marlin_scale_permutations() -> None:
    s = torch.arange(2 * 128, dtype=torch.float32).reshape(2, 128)
    grouped = marlin_permute_scales(s, 128, grouped=True)
    # every run of 64 scales is stored as its 8x8 transpose
    assert torch.equal(grouped.reshape(-1, 64), s.reshape(-1, 8, 8).transpose(1, 2).reshape(-1, 64))
    single = marlin_permute_scales(s[:1], 128, grouped=False)
    order = [2 * i + j for i in range(4) for j in (0, 1, 8, 9, 16, 17, 24, 25)]
    assert single[0, :32].tolist() == [float(o) for o in order] and single[0, 32].item() == 32 + order[0]
    assert torch.equal(marlin_unpermute_scales(grouped, 128, grouped=True), s)
    assert torch.equal(marlin_unpermute_scales(single, 128, grouped=False), s[:1])


@pytest.mark.parametrize("bits", [4, 8])
def test_marlin_moe_repacks_give_back_the_codes(bits: int) -> None:
    rng = Rng(22)
    experts, k, n = 2, 32, 64
    per_word = 32 // bits
    codes = rng.randint(0, 1 << bits, (experts, k, n))
    perm = torch.stack([rng.randperm(k) for _ in range(experts)]).to(torch.int32)
    # GPTQ: 32/bits consecutive rows per word, row r of a word at bits r*bits
    gptq = sum(codes[:, i::per_word].long() << (bits * i) for i in range(per_word))
    gptq = torch.where(gptq >= 2**31, gptq - 2**32, gptq).to(torch.int32)
    out = gptq_marlin_moe_repack(gptq, perm, k, n, bits)
    for e in range(experts):
        assert torch.equal(marlin_unpack(out[e], k, n, bits), codes[e][perm[e].long()])
    # AWQ as vLLM's test awq_pack builds it: interleave each run of columns, then pack 32/bits per word in order
    interleave = [0, 2, 4, 6, 1, 3, 5, 7] if bits == 4 else [0, 2, 1, 3]
    shuffled = codes.reshape(experts, k, n // per_word, per_word)[..., interleave]
    awq = (shuffled.long() << (torch.arange(per_word) * bits)).sum(-1)
    awq = torch.where(awq >= 2**31, awq - 2**32, awq).to(torch.int32)
    identity = torch.arange(k, dtype=torch.int32).expand(experts, k).contiguous()
    awq_out = awq_marlin_moe_repack(awq, perm, k, n, bits)
    assert torch.equal(awq_out, gptq_marlin_moe_repack(gptq, identity, k, n, bits))
    assert torch.equal(awq_out, awq_marlin_moe_repack(awq, identity, k, n, bits))  # perm is ignored


def _two_codes_per_byte(codes: torch.Tensor) -> torch.Tensor:
    """vLLM's test packing: columns 2j (high nibble) and 2j+1 (low nibble) in byte j, bytes viewed as int32."""
    return (codes[:, ::2] * 16 + codes[:, 1::2]).to(torch.uint8).view(torch.int32)


def test_marlin_int4_fp8_preprocess_matches_vllms_test_formulation() -> None:
    rng = Rng(23)
    codes = rng.randint(0, 16, (64, 64))
    expected = _two_codes_per_byte(torch.where(codes >= 8, codes - 8, 15 - codes))
    assert torch.equal(marlin_int4_fp8_preprocess(_two_codes_per_byte(codes)), expected)
    qweight = _two_codes_per_byte(codes)
    assert marlin_int4_fp8_preprocess(qweight, None, True) is qweight and torch.equal(qweight, expected)
    # AWQ branch: per-group zero points of the same nibble
    zeros = rng.randint(0, 16, (2, 64))
    repeated = zeros.repeat_interleave(32, 0)
    folded = torch.where(codes - repeated >= 0, codes - repeated, 15 - codes)
    out = marlin_int4_fp8_preprocess(_two_codes_per_byte(codes), _two_codes_per_byte(zeros))
    assert torch.equal(out, _two_codes_per_byte(folded))


@pytest.mark.parametrize("k", [128, 256])  # one group (channelwise scale order) and two groups
def test_gptq_marlin_gemm_equals_explicit_dequantisation(k: int) -> None:
    rng = Rng(24)
    m, n, group = 3, 128, 128
    codes, scales = rng.randint(0, 16, (k, n)), rng.uniform((k // group, n), 0.01, 0.02, "float16")
    a = rng.randn((m, k), "float16")
    empty = torch.empty(0, dtype=torch.int32)
    out = gptq_marlin_gemm(
        a, None, marlin_pack(codes, 4), None, marlin_permute_scales(scales, n, grouped=k > group), None, None,
        empty, empty, empty, torch.zeros(n, dtype=torch.int32), UINT4B8, m, n, k,
    )  # fmt: skip
    w = torch.stack([(codes[r] - 8).half() * scales[r // group] for r in range(k)])
    torch.testing.assert_close(out, (a.float() @ w.float()).half(), atol=0, rtol=0)
