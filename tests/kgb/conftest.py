"""Fixtures of the client's tests: the fake model servers, and `kgb` run in-process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgb.cli import main
from tests.kgb.fakes import FakeAnthropic, FakeOpenAI


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def anthropic_server() -> Iterator[FakeAnthropic]:
    server = FakeAnthropic().start()
    yield server
    server.stop()


@pytest.fixture
def kgb(monkeypatch):
    """Run `kgb ARGS` in-process; returns the exit status. Keys come from the environment as for a user."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")

    def run(*args: str) -> int:
        return main([str(a) for a in args])

    return run


FAST = ("--retry-backoff-s", "0.01", "--no-progress")
