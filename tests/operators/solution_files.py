"""Load a reference solution file (or a bench script) as a fresh module, in this test process.

Its Triton kernels run in the interpreter: tests/conftest.py sets TRITON_INTERPRET for the whole
session before anything imports triton."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from operators import registry


def load_module(path: Path, name: str | None = None) -> ModuleType:
    module_spec = importlib.util.spec_from_file_location(name or f"loaded_{path.stem}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def load_reference_solution(file_stem: str) -> ModuleType:
    """`file_stem` as the upstream file name without .py, e.g. "aten__amin" or "cublas__cublasSdot_v2"."""
    return load_module(Path(registry.REFERENCE_SOLUTIONS_DIR) / f"{file_stem}.py", f"solution_{file_stem}")
