"""Failed logins are throttled per client address and per username (site and admin login): past the
limit a try is refused with 429 and a message, without the password being checked."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from tests.factories import UserFactory

PASSWORD = "correct horse battery staple"
LOGIN = "/accounts/login/"


@pytest.fixture
def limits(settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 3
    settings.LOGIN_FAILURES_PER_ADDRESS = 5
    settings.LOGIN_FAILURE_WINDOW_S = 600
    return settings


def from_address(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def fail(client: Client, username: str, path: str = LOGIN) -> int:
    return client.post(path, {"username": username, "password": "wrong guess"}).status_code


def test_a_username_is_locked_after_its_failures_even_with_the_right_password(db, limits):
    UserFactory(username="alice")
    attacker = from_address("10.0.0.1")
    assert [fail(attacker, "alice") for _ in range(3)] == [200, 200, 200]
    # from another address, with the right password and the name in another case: still refused
    owner = from_address("10.0.0.2")
    response = owner.post(LOGIN, {"username": "ALICE ", "password": PASSWORD})
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in owner.session
    # other accounts are not affected
    UserFactory(username="bob")
    assert owner.post(LOGIN, {"username": "bob", "password": PASSWORD}).status_code == 302


def test_an_address_is_locked_after_its_failures_across_usernames(db, limits):
    UserFactory(username="carol")
    attacker = from_address("10.0.0.3")
    assert [fail(attacker, f"guess{n}") for n in range(5)] == [200] * 5
    assert attacker.post(LOGIN, {"username": "carol", "password": PASSWORD}).status_code == 429
    assert from_address("10.0.0.4").post(LOGIN, {"username": "carol", "password": PASSWORD}).status_code == 302


def test_a_successful_login_resets_the_username_count_but_not_the_address_count(db, limits):
    UserFactory(username="dave")
    client = from_address("10.0.0.5")
    assert [fail(client, "dave") for _ in range(2)] == [200, 200]
    assert client.post(LOGIN, {"username": "dave", "password": PASSWORD}).status_code == 302
    client.post("/accounts/logout/")
    assert [fail(client, "dave") for _ in range(2)] == [200, 200]  # would be the 4th failure without the reset
    assert fail(client, "someone") == 200  # 5th failure from this address
    assert client.post(LOGIN, {"username": "dave", "password": PASSWORD}).status_code == 429


def test_the_admin_login_is_throttled_too(db, limits):
    UserFactory(username="root", is_staff=True, is_superuser=True)
    attacker = from_address("10.0.0.6")
    for _ in range(3):
        fail(attacker, "root", path="/admin/login/")
    response = attacker.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 200  # the admin's own view renders the form again
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in attacker.session


def test_failures_expire_with_the_window(db, limits):
    limits.LOGIN_FAILURE_WINDOW_S = 1
    UserFactory(username="erin")
    client = from_address("10.0.0.7")
    for _ in range(3):
        fail(client, "erin")
    assert client.post(LOGIN, {"username": "erin", "password": PASSWORD}).status_code == 429
    time.sleep(1.2)
    assert client.post(LOGIN, {"username": "erin", "password": PASSWORD}).status_code == 302
