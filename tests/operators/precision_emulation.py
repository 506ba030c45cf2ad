"""CPU emulations of reduced-precision arithmetic for tests/operators/test_precision.py (no GPU needed).

Matrix products (every function returns the product the way the named arithmetic would give it):
- `tf32`: inputs rounded to TF32 (10 explicit mantissa bits, round to nearest even on the fp32 bit
  pattern, as cvt.rn.tf32.f32), products summed exactly (float64) and rounded once to fp32: the most
  accurate TF32 result there can be; real tensor cores (truncating conversions, fp32 accumulation) are worse.
- `tf32x3`: a = hi + lo with hi = tf32(a), lo = tf32(a - hi); hi*hi + hi*lo + lo*hi in fp32 (CUTLASS's
  3xTF32, Triton's input_precision="tf32x3").
- `bf16x3`: the same split with bfloat16 halves (16 significant bits of each input).
- honest IEEE fp32 orders: `torch_fp32` (the CPU BLAS: blocked, vectorised FMA), `reversed_k` (the
  same with K reversed), `split_k` (fp32 partial products over K chunks, added in fp32),
  `sequential_fma` (one FMA per k in order: Triton's input_precision="ieee" FMA loop; an FMA is emulated
  exactly by float64 product + sum rounded once to fp32), `sequential_mul_add` (rounded product, then
  rounded add: no FMA).

Elementwise fast-math approximations (PTX ISA "Floating Point Instructions" and the CUDA C
Programming Guide's intrinsic-function error tables describe the behaviour emulated here):
- `sin_approx` / `cos_approx`: sin.approx.f32 reduces the argument with a single-precision 2*pi, i.e.
  x - 2*pi_f32 * rint(x / (2*pi_f32)) in fp32, then evaluates accurately (abs error ~2^-21 on [-pi, pi]):
  outside [-pi, pi] the error grows like |x| * 2^-24 * 2pi (2.4e-4 at 1e3, 3e-3 at 1e4).
- `exp_approx` (__expf = ex2.approx(x * log2(e)) in fp32): the rounding of x*log2e is amplified by |x|:
  relative error ~|x| * 2^-24 * ln2 plus ex2.approx's 2 ulp; and ex2.approx.ftz flushes subnormal results.
- `rsqrt_approx_ftz`: rsqrt.approx.ftz.f32 flushes subnormal inputs to zero (+inf instead of ~1e19-1e22).
- `tanh_approx`: tanh.approx.f32, max relative error 2^-10.987 (emulated as the worst case, a
  relative perturbation of 2^-11 of the accurate value).
"""

from __future__ import annotations

import math

import torch

TF32_MANTISSA = 10
BF16_MANTISSA = 7


def round_mantissa(x: torch.Tensor, bits: int) -> torch.Tensor:
    """fp32 x rounded to `bits` explicit mantissa bits, round to nearest even on the bit pattern."""
    assert x.dtype == torch.float32
    drop = 23 - bits
    x = x.contiguous()
    i = x.view(torch.int32).to(torch.int64) & 0xFFFFFFFF  # the bit pattern, unsigned: sign | exponent | mantissa
    half = (1 << (drop - 1)) - 1
    lsb = (i >> drop) & 1
    r = ((i + half + lsb) >> drop) << drop  # a carry out of the mantissa bumps the exponent, as it should
    r = torch.where(torch.isfinite(x), r, i)  # leave inf/NaN alone
    r = ((r + 2**31) % 2**32) - 2**31
    return r.to(torch.int32).view(torch.float32).reshape(x.shape)


def to_tf32(x: torch.Tensor) -> torch.Tensor:
    return round_mantissa(x, TF32_MANTISSA)


def _real_parts(x: torch.Tensor, fn) -> torch.Tensor:
    if x.is_complex():
        return torch.complex(fn(x.real.contiguous()), fn(x.imag.contiguous()))
    return fn(x)


def tf32_inputs(x: torch.Tensor) -> torch.Tensor:
    return _real_parts(x, to_tf32)


def bf16_inputs(x: torch.Tensor) -> torch.Tensor:
    return _real_parts(x, lambda t: t.to(torch.bfloat16).to(torch.float32))


def _wide(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.complex128 if x.is_complex() else torch.float64)


def tf32(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.matmul(_wide(tf32_inputs(a)), _wide(tf32_inputs(b))).to(a.dtype)


def _split3(a: torch.Tensor, b: torch.Tensor, part) -> torch.Tensor:
    a_hi, b_hi = part(a), part(b)
    a_lo, b_lo = part(a - a_hi), part(b - b_hi)
    return torch.matmul(a_hi, b_lo) + torch.matmul(a_lo, b_hi) + torch.matmul(a_hi, b_hi)


def tf32x3(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return _split3(a, b, tf32_inputs)


def bf16x3(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return _split3(a, b, bf16_inputs)


def torch_fp32(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.matmul(a, b)


def reversed_k(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.matmul(a.flip(-1), b.flip(-2))


def split_k(a: torch.Tensor, b: torch.Tensor, chunk: int = 64) -> torch.Tensor:
    k = a.shape[-1]
    acc = None
    for start in range(0, k, chunk):
        part = torch.matmul(a[..., start : start + chunk], b[..., start : start + chunk, :])
        acc = part if acc is None else acc + part
    return acc


def sequential_fma(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """acc = fma(a[:, k], b[k, :], acc) for k = 0..K-1, each step rounded once to fp32."""
    k = a.shape[-1]
    acc = torch.zeros(torch.broadcast_shapes(a.shape[:-1] + (1,), b.shape[:-2] + (1, b.shape[-1])), dtype=a.dtype)
    wide = torch.complex128 if a.is_complex() else torch.float64
    for i in range(k):
        step = acc.to(wide) + a[..., i : i + 1].to(wide) * b[..., i : i + 1, :].to(wide)
        acc = step.to(a.dtype)
    return acc


def sequential_mul_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    k = a.shape[-1]
    acc = torch.zeros(torch.broadcast_shapes(a.shape[:-1] + (1,), b.shape[:-2] + (1, b.shape[-1])), dtype=a.dtype)
    for i in range(k):
        acc = acc + a[..., i : i + 1] * b[..., i : i + 1, :]
    return acc


HONEST_ORDERS = {
    "torch_fp32": torch_fp32,
    "reversed_k": reversed_k,
    "split_k64": split_k,
    "split_k7": lambda a, b: split_k(a, b, 7),
}
SLOW_HONEST_ORDERS = {"sequential_fma": sequential_fma, "sequential_mul_add": sequential_mul_add}
CHEATS = {"tf32": tf32, "bf16x3": bf16x3}
NEAR_FP32 = {"tf32x3": tf32x3}

# ---------------------------------------------------------------------------- elementwise approximations

TWO_PI_F32 = torch.tensor(2 * math.pi, dtype=torch.float32)


def reduce_2pi_f32(x: torch.Tensor) -> torch.Tensor:
    """x - 2*pi_f32 * rint(x / 2*pi_f32), every operation in fp32 (no extra-precision pi)."""
    x = x.to(torch.float32)
    q = torch.round(x / TWO_PI_F32)
    return x - q * TWO_PI_F32


def sin_approx(x: torch.Tensor) -> torch.Tensor:
    r = reduce_2pi_f32(x)
    return torch.sin(r.to(torch.float64)).to(torch.float32)


def cos_approx(x: torch.Tensor) -> torch.Tensor:
    r = reduce_2pi_f32(x)
    return torch.cos(r.to(torch.float64)).to(torch.float32)


def exp_approx(x: torch.Tensor) -> torch.Tensor:
    """__expf: ex2.approx.ftz(x * log2(e)) with the product rounded to fp32 and subnormals flushed."""
    t = x.to(torch.float32) * torch.tensor(math.log2(math.e), dtype=torch.float32)
    y = torch.exp2(t.to(torch.float64)).to(torch.float32)
    return torch.where(y.abs() < torch.finfo(torch.float32).tiny, torch.zeros_like(y), y)


def rsqrt_approx_ftz(x: torch.Tensor) -> torch.Tensor:
    x = x.to(torch.float32)
    flushed = torch.where(x.abs() < torch.finfo(torch.float32).tiny, torch.zeros_like(x), x)
    return torch.rsqrt(flushed.to(torch.float64)).to(torch.float32)


def tanh_approx(x: torch.Tensor) -> torch.Tensor:
    y = torch.tanh(x.to(torch.float64))
    return (y * (1 + 2.0**-11)).to(torch.float32)
