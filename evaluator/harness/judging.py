"""Pure judging helpers shared by the attempt (evaluate.py) and its timed tier (timed.py):
seeds, exact clones, tensor identity, output comparison, and whether a case needs computation."""

from __future__ import annotations

import hashlib
from typing import Any

import torch

from evaluator.harness import wire
from evaluator.harness.wire import tensor_items
from operators.spec import Comparison, OperatorSpec
from operators.tolerance import compare_outputs

FILLING_CATEGORIES = ("creation",)  # operators whose computation is filling memory


def derive_seed(base: int, operator: str, tier: str, case_index: int, draw: int) -> int:
    digest = hashlib.sha256(f"{base}:{operator}:{tier}:{case_index}:{draw}".encode()).hexdigest()
    return int(digest[:15], 16)


def clone_exact(value: Any) -> Any:
    """A deep copy that keeps every tensor's strides, offset and storage size (views stay views)."""
    if isinstance(value, torch.Tensor):
        storage = value.untyped_storage().clone()
        copy = torch.empty(0, dtype=value.dtype, device=value.device)
        copy.set_(storage, value.storage_offset(), value.shape, value.stride())
        return copy
    if isinstance(value, dict):
        return {k: clone_exact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone_exact(v) for v in value]
    if isinstance(value, tuple):
        return tuple(clone_exact(v) for v in value)
    return value


def root_name(path: str) -> str:
    return path.split(".")[0].split("[")[0]


def same_tensor(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())
    return bool((a == b).all())


def rejected_reason(value: Any) -> str | None:
    if isinstance(value, (wire.RejectedTensor, wire.Unsupported)):
        return value.reason if isinstance(value, wire.RejectedTensor) else f"unsupported output: {value.what}"
    if isinstance(value, (list, tuple)):
        for v in value:
            reason = rejected_reason(v)
            if reason:
                return reason
    return None


def compare(
    spec: OperatorSpec, out: Any, ref: Any, case: dict[str, Any], inputs: dict[str, Any], interpreter: bool
) -> Comparison:
    reason = rejected_reason(out)
    if reason:
        return Comparison(False, reason=reason)
    try:
        if spec.compare is not None:
            return spec.compare(out, ref, case, inputs)
        reduce_dim = spec.reduce_dim(case) if spec.reduce_dim is not None else 1
        return compare_outputs(out, ref, exact=spec.exact, reduce_dim=reduce_dim, interpreter=interpreter)
    except Exception as exc:  # an output the comparison cannot even read is a wrong output
        return Comparison(False, reason=f"the output could not be compared: {type(exc).__name__}: {exc}"[:500])


def output_nbytes(ref: Any) -> list[int]:
    return [t.numel() * t.element_size() for t in tensor_items(ref).values()]


def _same_view(a: torch.Tensor, b: torch.Tensor) -> bool:
    return (
        a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        and a.shape == b.shape
        and a.stride() == b.stride()
        and a.storage_offset() == b.storage_offset()
        and a.dtype == b.dtype
    )


def needs_launch(spec: OperatorSpec, ref: Any, pristine: dict[str, Any], ref_inputs: dict[str, Any]) -> bool:
    """Whether a correct answer for this case needs computation at all (else no launch is fine):
    not when every output is empty, an input itself (a view), or a constant of an operator whose
    job is not to fill (argmax over a size-1 dimension is all zeros, which an allowed fill makes;
    a creation operator's fill is its computation). No operator category skips the check."""
    if spec.constant_output_ok:
        return False
    outputs = tensor_items(ref)
    if not any(t.numel() for t in outputs.values()):
        return False
    if spec.category not in FILLING_CATEGORIES and all(_is_constant(t) for t in outputs.values()):
        return False
    if spec.mutates:  # an in-place call that leaves its buffers as they were needs no kernel
        before, after = tensor_items(pristine), tensor_items(ref_inputs)
        changed = [
            k for k in after if root_name(k) in spec.mutates and k in before and not same_tensor(before[k], after[k])
        ]
        returned_fresh = any(not any(t is a for a in after.values()) for t in outputs.values())
        return bool(changed) or returned_fresh
    # a pure function whose answer is an input itself (to() to its own dtype, contiguous() of a
    # contiguous tensor) is answered correctly without a kernel
    inputs_now = list(tensor_items(ref_inputs).values())
    return not all(any(_same_view(t, a) for a in inputs_now) for t in outputs.values())


def _is_constant(t: torch.Tensor) -> bool:
    if t.numel() == 0:
        return True
    flat = t.reshape(-1)
    if t.dtype.is_floating_point or t.dtype.is_complex:
        first = flat[:1]
        return bool(((flat == first) | (torch.isnan(flat) & torch.isnan(first))).all())
    return bool((flat == flat[:1]).all())
