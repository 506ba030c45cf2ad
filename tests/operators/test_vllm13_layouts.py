"""Independent formulations of the vLLM 0.13 layout/index operators whose references were once
provisional: each test recomputes the operator a second way (brute force, exact arithmetic) and
compares it with the catalog reference over every tier's inputs plus random ones."""

from __future__ import annotations

from fractions import Fraction

import pytest
import torch

from operators import registry
from operators.catalog.vllm13.quant import cutlass_pack_scale_fp8, every_finite_e4m3
from operators.spec import Rng

SPECS = {s.name: s for s in registry.all_specs("vllm13")}


def _all_cases(name: str) -> list[dict]:
    spec = SPECS[name]
    return [case for tier in ("smoke", "full", "edge") for case in spec.tier(tier)]


# ---------------------------------------------------------------- cutlass_pack_scale_fp8


def _e4m3_value(code: int) -> Fraction:
    """Exact value of a finite e4m3fn byte (bias 7, 3 mantissa bits, subnormals below 2^-6)."""
    sign = -1 if code & 0x80 else 1
    exponent, mantissa = (code >> 3) & 0xF, code & 0x7
    if exponent == 0:
        return sign * Fraction(mantissa, 8) * Fraction(1, 64)
    return sign * (1 + Fraction(mantissa, 8)) * Fraction(2) ** (exponent - 7)


# the non-negative finite grid, ordered by value; the mantissa's low bit is the code's low bit
_GRID = sorted(((code, _e4m3_value(code)) for code in range(0x7F)), key=lambda cv: cv[1])


def _nearest_e4m3_byte(target: Fraction, negative: bool) -> int:
    """Round to nearest, ties to the even code, saturate at 448: CUTLASS's host float -> e4m3 rule."""
    magnitude = abs(target)
    best_code, best_value = _GRID[-1]
    if magnitude < best_value:
        best_code, best_value = min(
            _GRID, key=lambda cv: (abs(cv[1] - magnitude), cv[0] & 1)
        )  # a tie prefers the even code
    return best_code | (0x80 if negative else 0)


def _packed_bytes_of(code: int) -> list[int]:
    value, negative_scale = _e4m3_value(code), bool(code & 0x80)
    # s*-8 first, -s last; the product's sign is the opposite of the scale's (also for zeros: -0.0 * -k = +0.0)
    return [_nearest_e4m3_byte(value * -k, negative=not negative_scale) for k in range(8, 0, -1)]


_PACKED_BYTES = {code: _packed_bytes_of(code) for code in range(256) if code & 0x7F != 0x7F}


def _packed_bytes_brute_force(scales: torch.Tensor) -> torch.Tensor:
    codes = scales.reshape(-1).view(torch.uint8).tolist()
    return torch.tensor([b for code in codes for b in _PACKED_BYTES[code]], dtype=torch.uint8)


def test_pack_scale_matches_exact_rounding_over_every_finite_e4m3() -> None:
    scales = every_finite_e4m3()
    assert scales.numel() == 254
    got = cutlass_pack_scale_fp8(scales).view(torch.uint8)
    assert torch.equal(got, _packed_bytes_brute_force(scales))
    # spot values: 1.0 -> (-8, ..., -1); 448 saturates to -448 everywhere
    one = cutlass_pack_scale_fp8(torch.tensor([1.0]).to(torch.float8_e4m3fn)).float()
    assert one.tolist() == [-8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0]
    top = cutlass_pack_scale_fp8(torch.tensor([448.0]).to(torch.float8_e4m3fn)).float()
    assert top.tolist() == [-448.0] * 8


@pytest.mark.parametrize("seed", [0, 1])
def test_pack_scale_every_tier_matches_brute_force(seed: int) -> None:
    spec = SPECS["cutlass_pack_scale_fp8"]
    for case in _all_cases("cutlass_pack_scale_fp8"):
        scales = spec.make_inputs(case, Rng(seed))["scales"]
        got = spec.run_reference(spec.make_inputs(case, Rng(seed)))
        assert got.shape == (8 * scales.numel(),) and got.dtype == torch.float8_e4m3fn
        assert torch.equal(got.view(torch.uint8), _packed_bytes_brute_force(scales)), case
