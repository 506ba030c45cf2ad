"""Fixtures of the security tests: nothing reaches a broker, passwords hash fast, throttle
counters start empty, and a small world of chips, users, runners and catalog operators."""

from __future__ import annotations

import dataclasses

import pytest
from django.core.cache import cache

from evaluator import services as evaluator_services
from tests.factories import ChipFactory, OperatorFactory, UserFactory


@pytest.fixture(autouse=True)
def sent_tasks(monkeypatch) -> list:
    """Celery's send_task recorded instead of reaching a broker (integration tests bring their own)."""
    sent: list = []
    monkeypatch.setattr(
        evaluator_services.celery_app,
        "send_task",
        lambda name, args=None, kwargs=None, **options: sent.append((name, args, options)),
    )
    return sent


@pytest.fixture(autouse=True)
def _fast_hashing_and_fresh_throttles(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()  # DRF throttles count in the default cache


def throttle_rates(settings, monkeypatch, **rates: str) -> None:
    """Override some DRF throttle rates for one test. DRF's throttle classes bind the rates dict at
    import (SimpleRateThrottle.THROTTLE_RATES), so that is patched as well as the setting."""
    from rest_framework.throttling import SimpleRateThrottle

    merged = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": merged}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", merged)
    cache.clear()


@dataclasses.dataclass
class World:
    cpu: object
    gpu: object
    user: object
    other: object
    staff: object
    operators: dict


@pytest.fixture
def world(db) -> World:
    cpu = ChipFactory(slug="cpu", device_type="cpu", family="cpu", timing_meaningful=False)
    gpu = ChipFactory(slug="h200", device_type="cuda")
    operators = {
        name: OperatorFactory(source=source, name=name)
        for source, name in (("aten", "add"), ("aten", "mul"), ("vllm13", "rms_norm"))
    }
    return World(
        cpu=cpu,
        gpu=gpu,
        user=UserFactory(username="alice"),
        other=UserFactory(username="bob"),
        staff=UserFactory(username="root", is_staff=True, is_superuser=True),
        operators=operators,
    )


@pytest.fixture
def admin_client(client, world):
    """The test client logged in as the world's staff user (instead of pytest-django's own admin)."""
    client.force_login(world.staff)
    return client
