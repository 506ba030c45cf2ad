"""Failed logins throttled per client address and per username, counted in Django's cache: after
too many failures within the window, further tries are refused (HTTP 429 on the site's login page)
without the password being checked. Limits: settings.LOGIN_FAILURES_PER_ADDRESS,
LOGIN_FAILURES_PER_USERNAME and LOGIN_FAILURE_WINDOW_S (environment KGB_LOGIN_*)."""

from __future__ import annotations

import hashlib
import math
from typing import Any

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from kgsite.client_address import client_address

THROTTLED = "throttled"  # the ValidationError code of a refused try


def _key(kind: str, value: str) -> str:
    # hashed: a username may hold characters a cache backend refuses in keys
    return f"login-failures:{kind}:{hashlib.sha256(value.encode('utf-8', 'replace')).hexdigest()}"


def _username_key(username: str) -> str:
    return _key("username", username.strip().casefold())  # "Alice " and "alice" share one budget


def login_blocked(address: str, username: str) -> bool:
    """Whether this address or this username has used up its failed logins for the window."""
    by_address = cache.get(_key("address", address), 0)
    by_username = cache.get(_username_key(username), 0)
    return by_address >= settings.LOGIN_FAILURES_PER_ADDRESS or by_username >= settings.LOGIN_FAILURES_PER_USERNAME


def record_login_failure(address: str, username: str) -> None:
    """Count one failed login against both; a count expires a window after its first failure."""
    for key in (_key("address", address), _username_key(username)):
        if not cache.add(key, 1, timeout=settings.LOGIN_FAILURE_WINDOW_S):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=settings.LOGIN_FAILURE_WINDOW_S)


def clear_username_failures(username: str) -> None:
    """A successful login resets its username's count (not its address's: logging in to one's own
    account must not buy more guesses at others)."""
    cache.delete(_username_key(username))


def throttled_message() -> str:
    minutes = math.ceil(settings.LOGIN_FAILURE_WINDOW_S / 60)
    return f"Too many failed logins from this address or for this account: try again in up to {minutes} minutes."


class ThrottledLoginMixin:
    """For AuthenticationForm subclasses: refuse while throttled, count each failure."""

    request: HttpRequest | None
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        address = client_address(self.request) if self.request is not None else ""
        username = self.cleaned_data.get("username") or ""
        if login_blocked(address, username):
            raise ValidationError(throttled_message(), code=THROTTLED)
        try:
            cleaned = super().clean()  # type: ignore[misc]
        except ValidationError:
            record_login_failure(address, username)
            raise
        clear_username_failures(username)
        return cleaned


class ThrottledAuthenticationForm(ThrottledLoginMixin, AuthenticationForm):
    """The site's login form."""


class ThrottledAdminAuthenticationForm(ThrottledLoginMixin, AdminAuthenticationForm):
    """The admin's login form (staff accounts are worth the most guesses)."""
