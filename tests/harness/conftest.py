from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.harness import Harness

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
ADVERSARIAL = HERE / "adversarial"


@pytest.fixture(scope="session")
def harness() -> Iterator[Harness]:
    with Harness(device="cpu", pool_size=1) as h:
        yield h


@pytest.fixture(scope="session")
def runtime_only_harness() -> Iterator[Harness]:
    """The static layer off: proves the runtime layers stop each exploit on their own."""
    with Harness(device="cpu", pool_size=1, static_policy=False) as h:
        yield h


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")
