"""Failed logins are throttled (site and admin login) so that guessing is bounded and a stranger
cannot lock an owner out (issue 15 item 7; leaderboard/login_throttle.py, docs/accounts.md): past a
budget a try is refused with 429 and a message, without the password being checked. Budgets: per
username at one address or on one device; for strangers (neither a usual address nor a device of
the account) also per address and per account."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from leaderboard.login_throttle import DEVICE_COOKIE
from tests.factories import UserFactory

PASSWORD = "correct horse battery staple"
LOGIN = "/accounts/login/"


@pytest.fixture
def limits(settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 3
    settings.LOGIN_FAILURES_PER_ADDRESS = 5
    settings.LOGIN_FAILURES_PER_ACCOUNT = 6
    settings.LOGIN_FAILURE_WINDOW_S = 600
    return settings


def from_address(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def fail(client: Client, username: str, path: str = LOGIN) -> int:
    return client.post(path, {"username": username, "password": "wrong guess"}).status_code


def log_in(client: Client, username: str) -> int:
    status = client.post(LOGIN, {"username": username, "password": PASSWORD}).status_code
    if status == 302:
        client.post("/accounts/logout/")
    return status


def test_failures_lock_the_username_at_that_address_even_with_the_right_password(db, limits):
    UserFactory(username="alice")
    attacker = from_address("10.0.0.1")
    assert [fail(attacker, "alice") for _ in range(3)] == [200, 200, 200]
    response = attacker.post(LOGIN, {"username": "ALICE ", "password": PASSWORD})  # the name in another case
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in attacker.session


def test_failures_elsewhere_never_lock_the_owner_out_of_their_usual_address(db, limits):
    """Five wrong passwords from anyone used to lock the real owner out everywhere."""
    UserFactory(username="alice")
    assert log_in(from_address("10.0.0.2"), "alice") == 302  # 10.0.0.2 becomes a usual address of alice
    attacker = from_address("10.0.0.1")
    assert [fail(attacker, "alice") for _ in range(5)] == [200, 200, 200, 429, 429]
    # the owner, from their usual address (a fresh browser: no device cookie), with the right password
    assert log_in(from_address("10.0.0.2"), "alice") == 302
    # and from a new address too, while the account's own budget is not used up
    assert log_in(from_address("10.0.0.3"), "alice") == 302


def test_a_guess_from_many_addresses_locks_strangers_out_but_not_the_owner(db, limits):
    UserFactory(username="bob")
    owner_browser = from_address("10.1.0.1")
    assert log_in(owner_browser, "bob") == 302  # a usual address, and a device cookie in this browser
    assert owner_browser.cookies.get(DEVICE_COOKIE)
    for n in range(3):  # 3 addresses x 2 failures: the account's budget of 6 for strangers
        attacker = from_address(f"192.0.2.{n}")
        assert [fail(attacker, "bob") for _ in range(2)] == [200, 200]
    assert log_in(from_address("192.0.2.200"), "bob") == 429  # a stranger, even with the right password
    assert log_in(from_address("10.1.0.1"), "bob") == 302  # the usual address
    owner_browser.defaults["REMOTE_ADDR"] = "203.0.113.50"  # the owner's own browser, travelling
    assert log_in(owner_browser, "bob") == 302


def test_behind_one_shared_address_failures_do_not_lock_out_returning_users(db, limits):
    """20 failures used to lock a whole address: behind a proxy the site does not know, the whole site."""
    UserFactory(username="carol")
    UserFactory(username="newcomer")
    proxy = "10.9.9.9"
    assert log_in(from_address(proxy), "carol") == 302
    stuffer = from_address(proxy)
    assert [fail(stuffer, f"guess{n}") for n in range(6)] == [200] * 5 + [429]
    assert log_in(from_address(proxy), "newcomer") == 429  # the trade-off: a first login there waits
    assert log_in(from_address(proxy), "carol") == 302  # a returning user does not


def test_an_attacker_at_the_owners_own_address_cannot_lock_out_the_owners_browser(db, limits):
    UserFactory(username="dave")
    owner_browser = from_address("10.2.0.1")
    assert log_in(owner_browser, "dave") == 302
    attacker = from_address("10.2.0.1")  # the same address (a shared NAT)
    assert [fail(attacker, "dave") for _ in range(4)] == [200, 200, 200, 429]
    assert log_in(attacker, "dave") == 429
    assert log_in(owner_browser, "dave") == 302


def test_a_forged_or_foreign_device_cookie_counts_for_nothing(db, limits):
    UserFactory(username="erin")
    UserFactory(username="mallory")
    mallory = from_address("10.3.0.1")
    assert log_in(mallory, "mallory") == 302  # a real device cookie, for mallory
    assert [fail(mallory, "erin") for _ in range(4)] == [200, 200, 200, 429]
    forged = from_address("10.3.0.2")
    forged.cookies[DEVICE_COOKIE] = "not-a-signed-value"
    assert [fail(forged, "erin") for _ in range(4)] == [200, 200, 200, 429]


def test_an_address_is_locked_for_strangers_after_its_failures_across_usernames(db, limits):
    UserFactory(username="frank")
    attacker = from_address("10.0.0.4")
    assert [fail(attacker, f"guess{n}") for n in range(5)] == [200] * 5
    assert attacker.post(LOGIN, {"username": "frank", "password": PASSWORD}).status_code == 429
    assert from_address("10.0.0.5").post(LOGIN, {"username": "frank", "password": PASSWORD}).status_code == 302


def test_a_successful_login_resets_the_count_at_that_address_but_not_the_address_count(db, limits):
    UserFactory(username="gina")
    client = from_address("10.0.0.6")
    assert [fail(client, "gina") for _ in range(2)] == [200, 200]
    assert log_in(client, "gina") == 302
    assert [fail(client, "gina") for _ in range(2)] == [200, 200]  # would be the 4th failure without the reset
    # logging in to one's own account buys no more guesses at others: the address has 2 stranger failures
    assert [fail(client, f"other{n}") for n in range(4)] == [200, 200, 200, 429]
    assert log_in(client, "gina") == 302


def test_the_admin_login_is_throttled_too(db, limits):
    UserFactory(username="root", is_staff=True, is_superuser=True)
    attacker = from_address("10.0.0.7")
    for _ in range(3):
        fail(attacker, "root", path="/admin/login/")
    response = attacker.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 200  # the admin's own view renders the form again
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in attacker.session


def test_failures_expire_with_the_window(db, limits):
    limits.LOGIN_FAILURE_WINDOW_S = 1
    UserFactory(username="hank")
    client = from_address("10.0.0.8")
    for _ in range(3):
        fail(client, "hank")
    assert client.post(LOGIN, {"username": "hank", "password": PASSWORD}).status_code == 429
    time.sleep(1.2)
    assert client.post(LOGIN, {"username": "hank", "password": PASSWORD}).status_code == 302
