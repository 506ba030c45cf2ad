from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.harness import Harness

HERE = Path(__file__).resolve().parent
# the device the harness suites run on: cpu (CI, the Triton interpreter) or, on a GPU machine,
# KGB_TEST_DEVICE=cuda to run the same hostile files and honest controls against the real backend
TEST_DEVICE = os.environ.get("KGB_TEST_DEVICE", "cpu")
SOLUTIONS = HERE / "solutions"
ADVERSARIAL = HERE / "adversarial"


@pytest.fixture(scope="session")
def harness() -> Iterator[Harness]:
    with Harness(device=TEST_DEVICE, pool_size=1) as h:
        yield h


@pytest.fixture(scope="session")
def runtime_only_harness() -> Iterator[Harness]:
    """The static layer off: proves the runtime layers stop each exploit on their own."""
    with Harness(device=TEST_DEVICE, pool_size=1, static_policy=False) as h:
        yield h


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")
