"""The prompt a model receives for one operator, rendered per chip family.

Pure Python (torch only; no Django). The facts mirror upstream KernelGenBench's templates
(research/upstream_kgb.md §3.4): one wrapper per ATen overload named `<op>_<overload>`, the exact
baseline signature for vLLM/cuBLAS, broadcasting and non-contiguous inputs, fp32 accumulation for
half types, one ```python block, no test code. We add the reference source, the example shapes of
the smoke and full tiers, and the device notes of the target chip family.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import textwrap
from collections.abc import Callable
from typing import Any

from operators.spec import OperatorSpec


@dataclasses.dataclass(frozen=True)
class ChipFamily:
    name: str
    device: str  # the torch device string kernels run on
    backend: str  # the Triton backend, in words
    notes: tuple[str, ...] = ()


CHIP_FAMILIES: dict[str, ChipFamily] = {
    "nvidia": ChipFamily("nvidia", "cuda", "Triton's NVIDIA (PTX) backend", ("Tensors live on device 'cuda'.",)),
    "amd": ChipFamily(
        "amd",
        "cuda",
        "Triton's AMD (ROCm/HIP) backend",
        (
            "PyTorch for ROCm exposes the GPU as device 'cuda' (HIP_VISIBLE_DEVICES selects it).",
            "A wavefront has 64 lanes: prefer num_warps 4-8 and BLOCK sizes that are multiples of 64.",
        ),
    ),
    "ascend": ChipFamily(
        "ascend",
        "npu",
        "the Triton-Ascend backend",
        (
            "`import torch` must be immediately followed by `import torch_npu`.",
            "Tensors live on device 'npu' (ASCEND_RT_VISIBLE_DEVICES selects it).",
            "Prefer 1-D grids of a few dozen programs (one per AI core) that loop over blocks.",
        ),
    ),
    "moore_threads": ChipFamily(
        "moore_threads",
        "musa",
        "the Triton backend for MUSA",
        ("`import torch_musa` after `import torch`; tensors live on device 'musa' (MUSA_VISIBLE_DEVICES selects it).",),
    ),
    "hygon": ChipFamily(
        "hygon",
        "cuda",
        "Triton's DCU (HIP) backend",
        ("The DCU is exposed as device 'cuda' (HIP_VISIBLE_DEVICES selects it); 64-lane wavefronts.",),
    ),
    "iluvatar": ChipFamily(
        "iluvatar",
        "cuda",
        "the Iluvatar CoreX Triton backend",
        ("The GPU is exposed as device 'cuda' (CUDA_VISIBLE_DEVICES selects it).",),
    ),
    "metax": ChipFamily(
        "metax",
        "cuda",
        "the MetaX MACA Triton backend",
        ("The GPU is exposed as device 'cuda' (MACA_VISIBLE_DEVICES selects it).",),
    ),
    "cpu": ChipFamily(
        "cpu",
        "cpu",
        "the Triton CPU interpreter (TRITON_INTERPRET=1)",
        (
            "Tensors live on device 'cpu' and kernels run in the Triton interpreter: correctness only, "
            "no timing. The interpreter's fp32->bf16 cast truncates instead of rounding.",
        ),
    ),
}

MAX_EXAMPLE_CASES = 6


def chip_family(name: str) -> ChipFamily:
    try:
        return CHIP_FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown chip family {name!r}; known: {', '.join(CHIP_FAMILIES)}") from None


def _source_of(fn: Callable[..., Any] | None) -> str | None:
    """The source of a reference function, or None where there is none to show (built-ins, lambdas
    built by factories whose source would only show the factory's plumbing)."""
    if fn is None:
        return None
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None


def _example_cases(spec: OperatorSpec) -> list[str]:
    """A few cases from the smoke and full tiers, as JSON lines."""
    picked: list[dict[str, Any]] = []
    for tier in ("smoke", "full"):
        cases = list(spec.tier(tier))
        if not cases:
            continue
        step = max(1, len(cases) // (MAX_EXAMPLE_CASES // 2))
        picked.extend(cases[::step][: MAX_EXAMPLE_CASES // 2])
    return [json.dumps(c, sort_keys=True, default=repr) for c in picked]


def _reference_block(spec: OperatorSpec) -> str:
    if spec.source == "aten":
        custom = _source_of(spec.reference)
        if custom:
            return f"The reference output is computed by:\n```python\n{custom}```\n"
        call = _source_of(spec.invoke) or ""
        # factory-built invokes name the overload packet `packet`
        alias = f" (`packet` is `torch.ops.aten.{spec.name}`)" if "packet" in call else ""
        return (
            f"The reference is PyTorch's own `torch.ops.aten.{spec.name}` in the input dtype on the same "
            f"device; each case calls it (and your wrapper) like this{alias}:\n```python\n{call}```\n"
        )
    source = _source_of(spec.reference_impl)
    return f"Baseline (reference) implementation, with the exact signature to match:\n```python\n{source or ''}```\n"


def _contract_block(spec: OperatorSpec) -> str:
    names = ", ".join(f"`{n}`" for n in spec.entrypoints)
    if spec.source == "aten":
        lines = [
            f"Define one Python wrapper per ATen overload exercised: {names}.",
            "Wrapper names are the overload names with '.' replaced by '_' (`add.Tensor` -> `add_Tensor`; the "
            "default overload is the bare operator name). The wrappers are registered into the PyTorch dispatcher "
            "for this device, so they receive the overload's arguments exactly as in the schema below, and calling "
            f"`torch.{spec.name}` (or `torch.ops.aten.{spec.name}`) from inside a wrapper recurses forever.",
        ]
        if spec.mutates:
            lines.append(f"In-place operator: write the result into {', '.join(spec.mutates)} and return it.")
    else:
        lines = [
            f"Define the function {names} with exactly the baseline's name, parameter names and parameter "
            "order; respect its in-place semantics (write into the given output buffers)."
        ]
    return "\n".join(f"- {line}" for line in lines)


def render_prompt(spec: OperatorSpec, chip: str = "nvidia") -> str:
    """The full prompt text for one operator on one chip family."""
    family = chip_family(chip)
    device_notes = "\n".join(f"- {n}" for n in family.notes)
    examples = "\n".join(f"- {c}" for c in _example_cases(spec))
    tolerance = (
        "outputs must match the reference exactly (bit for bit)"
        if spec.exact
        else "outputs are compared with torch.testing-style tolerances: rtol = 1e-3 (fp16), 1.6e-2 (bf16), "
        "1e-5 (fp32), atol = 1e-4 x the reduction length; NaN and infinities must sit where the reference "
        "has them"
    )
    notes = f"\n## Operator notes\n{spec.notes}\n" if spec.notes else ""
    return f"""# Task: write a Triton kernel for `{spec.id}`

Target: {family.backend}; device string `'{family.device}'`.

## What it computes
{spec.description}

## Signature(s)
```
{spec.signature}
```
{notes}
## Reference
{_reference_block(spec)}
## Example cases (shapes, dtypes and parameters the evaluation uses; more in the full tier)
{examples}

## Rules
{_contract_block(spec)}
- All arithmetic must happen inside `@triton.jit` kernels. Use torch only for allocation and metadata
  (torch.empty/empty_like, .shape, .stride(), .dtype, .device, torch.result_type, broadcast shapes); no torch math
  ops, no `torch.ops` calls, no vendor libraries, no ctypes.
- Handle broadcasting, 0-d and empty tensors, and non-contiguous inputs (transposed or strided views), either by
  strided indexing inside the kernel or by copying with a Triton kernel first.
- For float16/bfloat16 inputs compute (and accumulate) in float32 inside the kernel and round once when storing;
  use `allow_tf32=False` for any `tl.dot`.
- Keep the output dtype, shape and device exactly as the reference: {tolerance}.
- Write a single self-contained file `{spec.file_name}` with the kernels and wrappers (imports at the top). Do not
  include test code, do not register anything with torch.library, and do not write files.

## Device notes
{device_notes}

## Output
Reply with the complete file in one ```python ... ``` code block.
"""
