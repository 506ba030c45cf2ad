"""cuBLAS through ctypes as the timing baseline (placeholder until the bindings land)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def vendor_for(name: str) -> Callable[[str], Callable[..., Any] | None]:
    def baseline(device_type: str) -> Callable[..., Any] | None:
        return None

    return baseline
