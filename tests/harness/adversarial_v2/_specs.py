"""Specs for the second adversarial suite (tests/harness/test_adversarial_v2.py): each with one tiny
case, so that every attempt stays cheap on the Triton interpreter. The child process loads them from
this module (`SPECS`), as it loads tests/harness/specs_tiny.py."""

from __future__ import annotations

import dataclasses

from operators import registry
from tests.harness.specs import ADD, SAXPY

ONE = {"shape": [7], "dtype": "float32", "alpha": 1.5}
ADD_ONE_FULL = dataclasses.replace(ADD, cases={"smoke": [ONE], "full": [ONE]})
ADD_2D = dataclasses.replace(ADD, cases={"smoke": [{"shape": [3, 5], "dtype": "float32", "alpha": -0.75}]})
SAXPY_ONE = dataclasses.replace(SAXPY, cases={"smoke": [{"n": 37, "alpha": 1.5}]})


def _first_smoke(operator_id: str) -> object:
    spec = registry.get(operator_id)
    return dataclasses.replace(spec, cases={**spec.cases, "smoke": [spec.tier("smoke")[0]]})


CAT_ONE = _first_smoke("aten::cat")
CLONE_ONE = _first_smoke("aten::clone")
REFLECTION_PAD1D_BACKWARD_ONE = _first_smoke("aten::reflection_pad1d_backward")
UPSAMPLE_NEAREST2D_BACKWARD_ONE = _first_smoke("aten::upsample_nearest2d_backward")

SPECS = [
    ADD_ONE_FULL,
    ADD_2D,
    SAXPY_ONE,
    CAT_ONE,
    CLONE_ONE,
    REFLECTION_PAD1D_BACKWARD_ONE,
    UPSAMPLE_NEAREST2D_BACKWARD_ONE,
]
