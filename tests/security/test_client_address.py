"""Per-address limits count the connection's address: X-Forwarded-For is written by the client unless
a proxy of ours appended to it, so it is believed only as far as KGB_TRUSTED_PROXIES says (default 0:
not at all). A client that forges the header gets no fresh budget per request."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, RequestFactory
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from kgsite.client_address import client_address
from tests.factories import UserFactory
from tests.leaderboard.helpers import make_metadata
from tests.security.conftest import throttle_rates

ROOT = Path(__file__).resolve().parents[2]
LOGIN = "/accounts/login/"
PROXY = "10.0.0.1"  # the reverse proxy's own address: REMOTE_ADDR of every request that came through it
PASSWORD = "correct horse battery staple"


def forged(n: int) -> str:
    return f"203.0.113.{n}"


@pytest.fixture
def behind_one_proxy(settings):
    """KGB_TRUSTED_PROXIES=1 as settings.py applies it: to the helper and to DRF's NUM_PROXIES."""
    settings.KGB_TRUSTED_PROXIES = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    return settings


@pytest.fixture
def login_limits(settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    settings.LOGIN_FAILURES_PER_USERNAME = 100
    settings.LOGIN_FAILURE_WINDOW_S = 600


@pytest.mark.parametrize(
    ("trusted_proxies", "forwarded_for", "expected"),
    [
        (0, None, PROXY),
        (0, "198.51.100.5", PROXY),
        (1, None, PROXY),
        (1, "6.6.6.6, 198.51.100.5", "198.51.100.5"),
        (2, "6.6.6.6, 198.51.100.5, 10.0.0.8", "198.51.100.5"),
        (3, "198.51.100.5", "198.51.100.5"),  # fewer entries than proxies: the leftmost
    ],
)
def test_client_address_believes_only_the_trusted_end_of_x_forwarded_for(
    settings, trusted_proxies: int, forwarded_for: str | None, expected: str
):
    settings.KGB_TRUSTED_PROXIES = trusted_proxies
    headers = {} if forwarded_for is None else {"HTTP_X_FORWARDED_FOR": forwarded_for}
    assert client_address(RequestFactory().get("/", REMOTE_ADDR=PROXY, **headers)) == expected


def test_the_setting_comes_from_the_environment_and_sets_drf_num_proxies():
    script = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.KGB_TRUSTED_PROXIES, settings.REST_FRAMEWORK['NUM_PROXIES'])"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "kgsite.test_settings"}
    env.pop("KGB_TRUSTED_PROXIES", None)

    def read(**extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env={**env, **extra}, capture_output=True, text=True, timeout=120
        )

    assert read().stdout.split() == ["0", "0"]
    assert read(KGB_TRUSTED_PROXIES="2").stdout.split() == ["2", "2"]
    refused = read(KGB_TRUSTED_PROXIES="-1")
    assert refused.returncode != 0 and "KGB_TRUSTED_PROXIES=-1 must be at least 0" in refused.stderr


# --- no trusted proxy (the default): the header is ignored ------------------------------------------------


def fail_login(client: Client, username: str, forwarded_for: str) -> int:
    return client.post(
        LOGIN, {"username": username, "password": "wrong guess"}, HTTP_X_FORWARDED_FOR=forwarded_for
    ).status_code


def test_forging_x_forwarded_for_does_not_escape_the_login_throttle(db, login_limits):
    UserFactory(username="carol")
    attacker = Client(REMOTE_ADDR="192.0.2.50")
    assert [fail_login(attacker, f"guess{n}", forged(n)) for n in range(3)] == [200, 200, 200]
    assert fail_login(attacker, "carol", forged(99)) == 429
    # another connection is not affected
    assert Client(REMOTE_ADDR="192.0.2.51").post(LOGIN, {"username": "carol", "password": PASSWORD}).status_code == 302


def upload(user, *, remote_addr: str, forwarded_for: str) -> int:
    client = APIClient(REMOTE_ADDR=remote_addr, HTTP_X_FORWARDED_FOR=forwarded_for)
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    archive, metadata = io.BytesIO(b"not a zip"), io.BytesIO(make_metadata())  # refused uploads count too
    archive.name, metadata.name = "s.zip", "m.json"
    return client.post(
        "/api/v1/submissions/", {"archive": archive, "metadata": metadata}, format="multipart"
    ).status_code


def test_forging_x_forwarded_for_does_not_escape_the_per_address_submission_throttle(world, settings, monkeypatch):
    throttle_rates(settings, monkeypatch, submissions="10/hour", submissions_ip="2/hour")
    statuses = [
        upload(user, remote_addr="192.0.2.60", forwarded_for=forged(n))
        for n, user in enumerate([world.user, world.other, world.staff])
    ]
    assert statuses == [400, 400, 429]


def test_forging_x_forwarded_for_does_not_escape_the_anonymous_api_throttle(world, settings, monkeypatch):
    throttle_rates(settings, monkeypatch, anon="2/min")
    caller = APIClient(REMOTE_ADDR="192.0.2.70")
    statuses = [caller.get("/api/v1/leaderboard/", HTTP_X_FORWARDED_FOR=forged(n)).status_code for n in range(3)]
    assert statuses == [200, 200, 429]


def test_forging_x_forwarded_for_does_not_escape_the_refused_runner_token_throttle(world, settings, monkeypatch):
    throttle_rates(settings, monkeypatch, anon="3/min")
    guesser = APIClient(REMOTE_ADDR="192.0.2.80")
    guesser.credentials(HTTP_AUTHORIZATION="Runner kgbr_0badc0de_" + "x" * 43)
    statuses = [guesser.get("/api/runner/config", HTTP_X_FORWARDED_FOR=forged(n)).status_code for n in range(4)]
    assert statuses == [401, 401, 401, 429]


# --- behind one trusted proxy: the address that proxy appended counts ------------------------------------


def through_proxy(client_ip: str, forged_part: str) -> str:
    """What the proxy passes on: whatever the client sent, then the address it saw."""
    return f"{forged_part}, {client_ip}"


def test_behind_a_trusted_proxy_login_failures_count_per_real_client(db, login_limits, behind_one_proxy):
    UserFactory(username="dave")
    proxy = Client(REMOTE_ADDR=PROXY)
    attacker = "198.51.100.1"
    assert [fail_login(proxy, f"guess{n}", through_proxy(attacker, forged(n))) for n in range(3)] == [200] * 3
    assert fail_login(proxy, "dave", through_proxy(attacker, forged(99))) == 429
    # another client behind the same proxy has its own budget
    response = proxy.post(
        LOGIN, {"username": "dave", "password": PASSWORD}, HTTP_X_FORWARDED_FOR=through_proxy("198.51.100.2", "x")
    )
    assert response.status_code == 302


def test_behind_a_trusted_proxy_submissions_count_per_real_client(world, settings, monkeypatch, behind_one_proxy):
    throttle_rates(settings, monkeypatch, submissions="10/hour", submissions_ip="2/hour")
    attacker = "198.51.100.3"
    statuses = [
        upload(user, remote_addr=PROXY, forwarded_for=through_proxy(attacker, forged(n)))
        for n, user in enumerate([world.user, world.other, world.staff])
    ]
    assert statuses == [400, 400, 429]
    bystander = upload(UserFactory(username="erin"), remote_addr=PROXY, forwarded_for="198.51.100.4")
    assert bystander == 400  # refused as not a zip, not throttled
