"""Issue 15 item 7: sign-up is throttled per client address (accounts cost nothing, and every
per-user budget is multiplied by the accounts one address can open)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.security.conftest import throttle_rates

pytestmark = pytest.mark.django_db

PASSWORD = "a long unusual passphrase 93"


def sign_up(username: str, address: str):
    client = Client(REMOTE_ADDR=address)
    return client.post(
        "/accounts/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD, "email": ""}
    )


def test_sign_ups_from_one_address_are_throttled(settings, monkeypatch):
    throttle_rates(settings, monkeypatch, signups="3/hour")
    statuses = [sign_up(f"mass{n}", "198.51.100.20").status_code for n in range(5)]
    assert statuses == [302, 302, 302, 429, 429], statuses
    assert get_user_model().objects.filter(username__startswith="mass").count() == 3
    refused = sign_up("mass9", "198.51.100.20")
    assert "Too many sign-ups" in refused.content.decode()
    # another address has its own budget
    assert sign_up("elsewhere", "198.51.100.21").status_code == 302


def test_refused_sign_up_forms_count_too(settings, monkeypatch):
    """Invalid forms (a taken name: account enumeration; weak passwords) are not a free service either."""
    throttle_rates(settings, monkeypatch, signups="2/hour")
    client = Client(REMOTE_ADDR="198.51.100.30")
    bad = {"username": "x", "password1": "1", "password2": "2"}
    assert [client.post("/accounts/signup/", bad).status_code for _ in range(3)] == [200, 200, 429]


def test_the_production_sign_up_rate_is_set():
    from django.conf import settings

    assert settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"].get("signups")
