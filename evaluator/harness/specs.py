"""Finding an operator spec by id, or by object, in a way the candidate process can repeat.

The parent sends the child a locator, never the spec object (specs hold lambdas): either a
catalog id (`operators.registry.get`) or the module whose `SPECS` list holds the spec, so test
fixtures and catalog entries load the same way on both sides.
"""

from __future__ import annotations

import importlib
import sys

from operators.spec import OperatorSpec

Locator = tuple[str, str, str]  # ("registry", "", id) or ("module", module name, id)


def resolve(operator: str | OperatorSpec) -> tuple[OperatorSpec, Locator]:
    if isinstance(operator, OperatorSpec):
        return operator, _locate(operator)
    from operators import registry

    spec = registry.get(operator)
    return spec, ("registry", "", spec.id)


def _locate(spec: OperatorSpec) -> Locator:
    for name, module in list(sys.modules.items()):
        if name in ("__main__", "__mp_main__"):  # a script that imported SPECS: the child cannot import it back
            continue
        specs = getattr(module, "SPECS", None)
        if isinstance(specs, (list, tuple)) and any(s is spec for s in specs):
            if name.startswith("operators.catalog."):
                return ("registry", "", spec.id)
            return ("module", name, spec.id)
    raise ValueError(
        f"{spec.id}: a spec object must sit in some module's SPECS list so the candidate process can load it too"
    )


def load(locator: Locator) -> OperatorSpec:
    kind, module_name, spec_id = locator
    if kind == "registry":
        from operators import registry

        return registry.get(spec_id)
    module = importlib.import_module(module_name)
    for spec in module.SPECS:
        if spec.id == spec_id:
            return spec
    raise LookupError(f"{spec_id} not in {module_name}.SPECS")
