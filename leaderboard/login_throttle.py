"""Failed logins throttled so that guessing is bounded and a stranger cannot lock an owner out.

Every try is classed by who is asking (docs/accounts.md explains the trade-off):

- **device**: the browser shows a device cookie for this username, which the site signs and sets on a
  successful login (`kgb_device`, kept LOGIN_USUAL_ADDRESS_DAYS). Its failures count against that
  device alone: nothing anyone else does can lock it.
- **usual**: no such cookie, but this username logged in successfully from this address within
  LOGIN_USUAL_ADDRESS_DAYS. Its failures count against the username at this address only.
- **stranger**: anything else. Its failures count against the username at this address, against the
  address (across usernames: credential stuffing) and against the username (across addresses: a
  distributed guess at one account).

A try is refused (HTTP 429 on the site's login page), without the password being checked, once its
own budgets are used up within the window: LOGIN_FAILURES_PER_USERNAME per username at one address
(or on one device), and for strangers LOGIN_FAILURES_PER_ADDRESS per address and
LOGIN_FAILURES_PER_ACCOUNT per username. So failures from elsewhere, however many, never refuse the
owner's correct password from their usual address or device; behind one shared address (a proxy the
site does not know about) only strangers share the address budget.

Counts live in Django's cache (settings.CACHES: Redis in production, so every process shares them).
"""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core import signing
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse

from kgsite.client_address import client_address

THROTTLED = "throttled"  # the ValidationError code of a refused try
DEVICE_COOKIE = "kgb_device"
_DEVICE_SALT = "kgb.login.device"

DEVICE, USUAL, STRANGER = "device", "usual", "stranger"


def _digest(value: str) -> str:
    # hashed: a username may hold characters a cache backend refuses in keys
    return hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


def _username_digest(username: str) -> str:
    return _digest(username.strip().casefold())  # "Alice " and "alice" share one budget


def _usual_days_s() -> int:
    return settings.LOGIN_USUAL_ADDRESS_DAYS * 24 * 3600


@dataclass(frozen=True)
class LoginTry:
    """Who is trying to log in as whom: the username (as a digest), the client address, and the device
    cookie's nonce when the browser holds a valid one for this username."""

    user: str
    address: str
    device: str | None

    @property
    def kind(self) -> str:
        if self.device is not None:
            return DEVICE
        if cache.get(self.usual_key()) is not None:
            return USUAL
        return STRANGER

    def usual_key(self) -> str:
        return f"login-usual:{self.user}:{_digest(self.address)}"

    def pair_key(self) -> str:
        return f"login-failures:pair:{self.user}:{_digest(self.address)}"

    def device_key(self) -> str:
        return f"login-failures:device:{self.user}:{self.device}"

    def address_key(self) -> str:
        return f"login-failures:address:{_digest(self.address)}"

    def account_key(self) -> str:
        return f"login-failures:account:{self.user}"

    def budgets(self) -> list[tuple[str, int]]:
        """The (cache key, limit) pairs this try counts against, by its kind."""
        per_username = settings.LOGIN_FAILURES_PER_USERNAME
        kind = self.kind
        if kind == DEVICE:
            return [(self.device_key(), per_username)]
        if kind == USUAL:
            return [(self.pair_key(), per_username)]
        return [
            (self.pair_key(), per_username),
            (self.address_key(), settings.LOGIN_FAILURES_PER_ADDRESS),
            (self.account_key(), settings.LOGIN_FAILURES_PER_ACCOUNT),
        ]


def _device_nonce(request: HttpRequest, user: str) -> str | None:
    raw = request.COOKIES.get(DEVICE_COOKIE)
    if not raw:
        return None
    try:
        value = signing.loads(raw, salt=_DEVICE_SALT, max_age=_usual_days_s())
    except signing.BadSignature:  # also an expired one (SignatureExpired)
        return None
    if not isinstance(value, dict) or value.get("u") != user or not isinstance(value.get("n"), str):
        return None
    return value["n"]


def login_try(request: HttpRequest | None, username: str) -> LoginTry:
    user = _username_digest(username)
    if request is None:
        return LoginTry(user=user, address="", device=None)
    return LoginTry(user=user, address=client_address(request), device=_device_nonce(request, user))


def login_blocked(attempt: LoginTry) -> bool:
    """Whether any budget of this try is used up for the window."""
    return any(cache.get(key, 0) >= limit for key, limit in attempt.budgets())


def record_login_failure(attempt: LoginTry) -> None:
    """Count one failed login against each of the try's budgets; a count expires a window after its first failure."""
    for key, _limit in attempt.budgets():
        if not cache.add(key, 1, timeout=settings.LOGIN_FAILURE_WINDOW_S):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=settings.LOGIN_FAILURE_WINDOW_S)


def record_login_success(attempt: LoginTry) -> None:
    """The owner is in: their count at this address (and on this device) starts again, and the address is
    one of their usual ones. The address's and the account's stranger counts stay: logging in to one's own
    account must not buy more guesses at others, nor reset a guess at this account from elsewhere."""
    cache.delete_many([attempt.pair_key(), *([attempt.device_key()] if attempt.device else [])])
    cache.set(attempt.usual_key(), 1, timeout=_usual_days_s())


def set_device_cookie(response: HttpResponse, *, username: str) -> None:
    """After a successful login: a signed cookie naming this browser as a device of the username."""
    value = signing.dumps({"u": _username_digest(username), "n": secrets.token_urlsafe(16)}, salt=_DEVICE_SALT)
    response.set_cookie(
        DEVICE_COOKIE,
        value,
        max_age=_usual_days_s(),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def throttled_message() -> str:
    minutes = math.ceil(settings.LOGIN_FAILURE_WINDOW_S / 60)
    return f"Too many failed logins from this address or for this account: try again in up to {minutes} minutes."


class ThrottledLoginMixin:
    """For AuthenticationForm subclasses: refuse while throttled, count each failure."""

    request: HttpRequest | None
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        attempt = login_try(self.request, self.cleaned_data.get("username") or "")
        if login_blocked(attempt):
            raise ValidationError(throttled_message(), code=THROTTLED)
        try:
            cleaned = super().clean()  # type: ignore[misc]
        except ValidationError:
            record_login_failure(attempt)
            raise
        record_login_success(attempt)
        return cleaned


class ThrottledAuthenticationForm(ThrottledLoginMixin, AuthenticationForm):
    """The site's login form."""


class ThrottledAdminAuthenticationForm(ThrottledLoginMixin, AdminAuthenticationForm):
    """The admin's login form (staff accounts are worth the most guesses)."""
