"""Degenerate solution files for any operator: they define every entrypoint the spec asks for and
return zeros, uninitialised memory, a constant or a copy of the first input. A healthy harness and
catalog rank none of them correct (unless the spec's constant_output_ok says why it may)."""

from __future__ import annotations

from operators.spec import OperatorSpec

BODIES = {
    "zeros": "return _out(args, kwargs, lambda t: torch.zeros_like(t))",
    "empty": "return _out(args, kwargs, lambda t: torch.empty_like(t))",
    "constant": "return _out(args, kwargs, lambda t: torch.full_like(t, 3))",
    "input_copy": "return _out(args, kwargs, lambda t: t)",
}

PRELUDE = """import torch
import triton


def _first_tensor(args, kwargs):
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            return value
        if isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, torch.Tensor):
                    return item
    return None


def _out(args, kwargs, make):
    first = _first_tensor(args, kwargs)
    if first is None:
        return None
    return make(first)
"""


def degenerate_source(spec: OperatorSpec, kind: str) -> str:
    body = BODIES[kind]
    defs = "\n".join(f"\n\ndef {name}(*args, **kwargs):\n    {body}\n" for name in spec.entrypoints)
    return PRELUDE + defs
