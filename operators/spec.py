"""The operator specification format: one `OperatorSpec` per benchmark problem.

Pure Python on torch only (no Django, no triton): the harness imports this on runner machines,
and the site reads the same objects to mirror the catalog into its database.

A spec answers, for one operator:
- which functions a solution must define (`entrypoints`) and how the operator is called
  (`invoke`), for the candidate and for our reference alike;
- which cases exist per tier (`cases`), how to build a case's inputs from a seeded generator
  (`make_inputs`), what the correct output is (`reference`) and how close is close enough
  (`compare`, by default the dtype tolerances of `operators.tolerance`);
- what the case costs at the very least (`cost`: FLOPs and bytes), for speed-of-light;
- what a model is told (`description`, `signature`) and how the reference was checked (`fidelity`).

Conventions
- Case parameters are plain JSON (`dict[str, str | int | float | bool | list | None]`); dtypes
  are written by name ("float16", "bfloat16", "float32", ...; see `DTYPES`).
- Inputs are a `dict[str, Any]` of tensors, lists of tensors, Python scalars and strings, built
  on the target device by `make_inputs(case, rng)`. The harness clones them per consumer.
- `invoke(impl, inputs)` performs one call of the operator and returns its outputs: the return
  value, or for in-place operators the mutated tensors (whose input names are in `mutates`; every
  other input must come back unchanged). For ATen operators `impl` is ignored: the call goes
  through the ordinary torch op and the dispatcher decides whose kernel runs. For vLLM/cuBLAS
  operators `impl` is the function with the baseline's name and parameters: the candidate's, or
  our `reference_impl`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch.utils.weak import WeakIdKeyDictionary

SOURCES = ("aten", "vllm13", "cublas")
TIERS = ("smoke", "full", "edge", "perf")
CATEGORIES = (
    "elementwise",
    "reduction",
    "softmax_scan",
    "indexing",
    "matmul",
    "layout",
    "creation",
    "loss",
    "random",
    "normalization",
    "quantization",
    "attention",
    "moe",
    "cache",
    "blas1",
    "blas2",
    "blas3",
)

DTYPES: dict[str, torch.dtype] = {
    "bool": torch.bool,
    "uint8": torch.uint8,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
    "float8_e4m3fn": torch.float8_e4m3fn,
}

Case = dict[str, Any]
Inputs = dict[str, Any]


def dtype_of(name: str) -> torch.dtype:
    try:
        return DTYPES[name]
    except KeyError:
        raise ValueError(f"unknown dtype name {name!r}; known: {', '.join(DTYPES)}") from None


class Rng:
    """Seeded input generator on one device. Everything a case builds comes from here, so the
    same (seed, case) gives the same inputs on every run of the same device type."""

    def __init__(self, seed: int, device: str | torch.device = "cpu") -> None:
        self.device = torch.device(device)
        self.seed = seed
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(seed)

    def randn(
        self, shape: Sequence[int], dtype: str | torch.dtype = "float32", *, scale: float = 1.0, shift: float = 0.0
    ) -> torch.Tensor:
        dt = dtype_of(dtype) if isinstance(dtype, str) else dtype
        work = torch.float64 if dt in (torch.float64, torch.complex128) else torch.float32
        if dt.is_complex:
            real = torch.randn(tuple(shape), generator=self.generator, device=self.device, dtype=work)
            imag = torch.randn(tuple(shape), generator=self.generator, device=self.device, dtype=work)
            return (torch.complex(real, imag) * scale + shift).to(dt)
        x = torch.randn(tuple(shape), generator=self.generator, device=self.device, dtype=work)
        return (x * scale + shift).to(dt)

    def uniform(
        self, shape: Sequence[int], low: float, high: float, dtype: str | torch.dtype = "float32"
    ) -> torch.Tensor:
        dt = dtype_of(dtype) if isinstance(dtype, str) else dtype
        work = torch.float64 if dt == torch.float64 else torch.float32
        x = torch.rand(tuple(shape), generator=self.generator, device=self.device, dtype=work)
        return (x * (high - low) + low).to(dt)

    def randint(self, low: int, high: int, shape: Sequence[int], dtype: str | torch.dtype = "int64") -> torch.Tensor:
        dt = dtype_of(dtype) if isinstance(dtype, str) else dtype
        return torch.randint(low, high, tuple(shape), generator=self.generator, device=self.device, dtype=dt)

    def bernoulli(self, shape: Sequence[int], p: float = 0.5) -> torch.Tensor:
        return self.uniform(shape, 0.0, 1.0) < p

    def randperm(self, n: int, dtype: str | torch.dtype = "int64") -> torch.Tensor:
        dt = dtype_of(dtype) if isinstance(dtype, str) else dtype
        return torch.randperm(n, generator=self.generator, device=self.device, dtype=dt)

    def choice(self, options: Sequence[Any]) -> Any:
        i = int(torch.randint(0, len(options), (1,), generator=self.generator, device=self.device).item())
        return options[i]


@dataclasses.dataclass(frozen=True)
class Comparison:
    """The outcome of comparing one candidate output with the reference for one case."""

    passed: bool
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    reason: str = ""


@dataclasses.dataclass(frozen=True)
class Cost:
    """The least work a case needs: floating-point operations and bytes moved through device
    memory (each input read once, each output written once). Speed-of-light time is
    max(flops / peak_flops[dtype], bytes / peak_bandwidth)."""

    flops: float
    bytes: float
    dtype: str = "float32"  # the dtype whose compute peak applies


# pointer arrays per input set, keyed by the set's first tensor (weakly: the array lives as long as
# the tensors it points at, so a captured graph never replays a freed one)
_POINTER_ARRAYS: WeakIdKeyDictionary = WeakIdKeyDictionary()


def pointer_array(tensors: Sequence[torch.Tensor]) -> torch.Tensor:
    """An int64 tensor of the tensors' device addresses on their device (upstream's batched-routine
    argument, `torch.tensor([t.data_ptr() for t in ...])`). Built in the process that calls, from the
    tensors that process holds, so it never points into another process's memory; cached per list
    while the addresses stay the same, so a repeated call (a timed one) copies nothing to the device."""
    if not tensors:
        raise ValueError("a pointer array needs at least one tensor (batched inputs keep one past batchCount)")
    addresses = tuple(t.data_ptr() for t in tensors)
    cached = _POINTER_ARRAYS.get(tensors[0])
    if cached is not None and cached[0] == addresses:
        return cached[1]
    array = torch.tensor(addresses, dtype=torch.int64, device=tensors[0].device)
    _POINTER_ARRAYS[tensors[0]] = (addresses, array)
    return array


def _default_invoke(impl: Callable[..., Any] | None, inputs: Inputs) -> Any:
    raise NotImplementedError("this spec defines no invoke()")


@dataclasses.dataclass(frozen=True)
class OperatorSpec:
    # identity
    id: str  # "aten::add", "vllm13::rms_norm", "cublas::cublasSgemm_v2" (upstream names exactly)
    category: str
    description: str  # one paragraph: what the operator computes, for people and for the prompt
    signature: str  # the callable contract shown in the prompt (ATen schema(s) or baseline def)
    entrypoints: tuple[str, ...]  # defs a solution must contain: ("add_Tensor", "add_Scalar") / ("rms_norm",)
    invoke: Callable[[Callable[..., Any] | None, Inputs], Any]
    cases: Mapping[str, Sequence[Case]]  # tier -> cases (each tier in TIERS; smoke and perf required)
    make_inputs: Callable[[Case, Rng], Inputs]
    fidelity: str  # how the reference was checked against the real library
    # the reference: for vLLM/cuBLAS a function with the baseline's signature; for ATen None means
    # "the built-in torch op through invoke()", or a callable(inputs) -> outputs computed otherwise.
    reference_impl: Callable[..., Any] | None = None
    reference: Callable[[Inputs], Any] | None = None  # ATen only: overrides the built-in op
    # the vendor library to time against, by torch device type ("cuda" -> cuBLAS through ctypes):
    # returns an impl with the baseline's signature, or None to time the reference instead
    vendor_baseline: Callable[[str], Callable[..., Any] | None] | None = None
    compare: Callable[[Any, Any, Case, Inputs], Comparison] | None = None  # None: operators.tolerance.compare_outputs
    reduce_dim: Callable[[Case], int] | None = None  # reduction length R for atol = 1e-4 * R
    exact: bool = False  # outputs must match bit for bit (indices, copies, layout, comparisons)
    mutates: tuple[str, ...] = ()  # input names the call writes into (in-place outputs)
    # inputs held as lists of tensors that the call passes as `pointer_array(list)` (upstream's int64
    # device array of addresses); the reference, which cannot follow an address, gets the list itself.
    # make_inputs binds each list's array once per set, so only a set that crossed processes by value
    # (the child's correctness inputs) builds its own at its first call
    pointer_arrays: tuple[str, ...] = ()
    stochastic: bool = False  # random operator: compare() checks statistics, not values
    cost: Callable[[Case, Inputs], Cost] | None = None  # None: bytes of inputs + outputs, 0 FLOPs
    constant_output_ok: str = ""  # non-empty = why zeros/constant outputs are legitimately correct here
    provisional: str = ""  # non-empty = why this reference is not yet verified (excluded from headlines)
    mc: bool = False  # member of the multi-chip set
    notes: str = ""  # extra rules for the prompt (semantics that are easy to get wrong)

    @property
    def source(self) -> str:
        return self.id.split("::", 1)[0]

    @property
    def name(self) -> str:
        return self.id.split("::", 1)[1]

    @property
    def file_name(self) -> str:
        """The upstream solution file name: `<ns>__<op>.py`."""
        return f"{self.source}__{self.name}.py"

    def tier(self, tier: str) -> Sequence[Case]:
        if tier not in TIERS:
            raise ValueError(f"unknown tier {tier!r}; known: {', '.join(TIERS)}")
        return self.cases.get(tier, ())

    def run_reference(self, inputs: Inputs) -> Any:
        """The reference output for one set of inputs (mutates them when the op is in-place)."""
        if self.source == "aten":
            if self.reference is not None:
                return self.reference(inputs)
            return self.invoke(None, inputs)
        if self.reference_impl is None:
            raise ValueError(f"{self.id}: a vLLM/cuBLAS spec needs reference_impl")
        return self.invoke(self.reference_impl, inputs)

    def validate(self) -> None:
        """Raise ValueError when the spec itself is malformed."""
        if self.source not in SOURCES or "::" not in self.id:
            raise ValueError(f"{self.id}: id must be '<source>::<name>' with source in {SOURCES}")
        if self.category not in CATEGORIES:
            raise ValueError(f"{self.id}: unknown category {self.category!r}")
        for tier in self.cases:
            if tier not in TIERS:
                raise ValueError(f"{self.id}: unknown tier {tier!r}")
        for tier in ("smoke", "perf"):
            if not self.cases.get(tier):
                raise ValueError(f"{self.id}: tier {tier!r} has no cases")
        if not self.entrypoints:
            raise ValueError(f"{self.id}: no entrypoints")
        if self.source != "aten" and self.reference_impl is None:
            raise ValueError(f"{self.id}: vLLM/cuBLAS specs need reference_impl")
        if not self.fidelity.strip():
            raise ValueError(f"{self.id}: fidelity note is empty")
