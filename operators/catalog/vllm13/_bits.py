"""Sub-word integer packing shared by the quantised-weight specs: 32/bits codes per int32 word, the
code at position j of a group in bit slot order[j] (default j, low bits first)."""

from __future__ import annotations

import torch


def to_int32(words: torch.Tensor) -> torch.Tensor:
    """int64 holding unsigned 32-bit patterns -> int32 with the same bits."""
    return torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)


def _shifts(bits: int, order: list[int] | None, device: torch.device) -> torch.Tensor:
    slots = order or list(range(32 // bits))
    return torch.tensor([bits * slot for slot in slots], device=device)


def pack_last(values: torch.Tensor, bits: int, order: list[int] | None = None) -> torch.Tensor:
    """[..., W * 32/bits] codes -> [..., W] int32: consecutive codes along the last dim share a word."""
    per_word = 32 // bits
    v = values.long().reshape(*values.shape[:-1], values.shape[-1] // per_word, per_word)
    return to_int32((v << _shifts(bits, order, values.device)).sum(dim=-1))


def unpack_last(words: torch.Tensor, bits: int, order: list[int] | None = None) -> torch.Tensor:
    """Inverse of pack_last: [..., W] int32 -> [..., W * 32/bits] codes (int64)."""
    v = (words.long()[..., None] >> _shifts(bits, order, words.device)) & ((1 << bits) - 1)
    return v.reshape(*words.shape[:-1], words.shape[-1] * (32 // bits))


def pack_rows(values: torch.Tensor, bits: int) -> torch.Tensor:
    """GPTQ packing: [K, N] codes -> [K * bits/32, N] int32, 32/bits consecutive rows per word, row r of a
    group at bit offset r*bits."""
    return pack_last(values.t(), bits).t().contiguous()


def unpack_rows(words: torch.Tensor, bits: int) -> torch.Tensor:
    """Inverse of pack_rows: [K * bits/32, N] int32 -> [K, N] codes (int64)."""
    return unpack_last(words.t(), bits).t().contiguous()
