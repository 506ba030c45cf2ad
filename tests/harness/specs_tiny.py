"""aten::add with a single tiny smoke case: the adversarial suite runs ~60 attempts, so each must be cheap."""

from __future__ import annotations

import dataclasses

from tests.harness.specs import ADD

ADD_ONE_CASE = dataclasses.replace(
    ADD, cases={**ADD.cases, "smoke": [{"shape": [7], "dtype": "float32", "alpha": 1.5}]}
)

SPECS = [ADD_ONE_CASE]
