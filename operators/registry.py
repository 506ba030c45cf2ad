"""The catalog registry: every module under operators/catalog/<source>/ contributes its `SPECS`.

Pure Python (torch only). `all_specs()` validates once and caches; ids are unique.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from pathlib import Path

from operators.spec import SOURCES, OperatorSpec

CATALOG_VERSION = "2026.11.1"
SOLUTIONS_DIR = Path(__file__).resolve().parent / "solutions"
REFERENCE_SOLUTIONS_DIR = SOLUTIONS_DIR / "triton_reference"


class UnknownOperator(KeyError):
    def __str__(self) -> str:
        return f"unknown operator {self.args[0]!r}"


@functools.cache
def _load() -> dict[str, OperatorSpec]:
    specs: dict[str, OperatorSpec] = {}
    for source in SOURCES:
        package = importlib.import_module(f"operators.catalog.{source}")
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for spec in getattr(module, "SPECS", ()):
                spec.validate()
                if spec.source != source:
                    raise ValueError(f"{spec.id} is defined under catalog/{source}/")
                if spec.id in specs:
                    raise ValueError(f"duplicate operator id {spec.id}")
                specs[spec.id] = spec
    return dict(sorted(specs.items()))


def all_specs(source: str | None = None, *, mc_only: bool = False) -> list[OperatorSpec]:
    if source is not None and source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; known: {', '.join(SOURCES)}")
    return [s for s in _load().values() if (source is None or s.source == source) and (s.mc or not mc_only)]


def get(operator_id: str) -> OperatorSpec:
    try:
        return _load()[operator_id]
    except KeyError:
        raise UnknownOperator(operator_id) from None


def reference_solution_path(spec: OperatorSpec) -> Path | None:
    path = REFERENCE_SOLUTIONS_DIR / spec.file_name
    return path if path.is_file() else None
