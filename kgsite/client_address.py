"""The client address that every per-address limit counts against (login failures, submissions per
address, refused runner tokens), read the way DRF's own throttles read it with NUM_PROXIES set.

X-Forwarded-For is written by whoever sends the request; only the entries appended by proxies the
site runs behind (settings.KGB_TRUSTED_PROXIES of them) can be believed. Trusting the header with no
proxy, or trusting more of it than the proxies wrote, lets a client pick a fresh address per request
and so escape every per-address limit."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from rest_framework.request import Request


def client_address(request: HttpRequest | Request) -> str:
    """REMOTE_ADDR when no proxy is trusted; behind N trusted proxies, the N-th X-Forwarded-For entry
    from the right (the address the outermost trusted proxy saw), or the leftmost if there are fewer."""
    remote_address = request.META.get("REMOTE_ADDR", "")
    trusted_proxies = settings.KGB_TRUSTED_PROXIES
    forwarded_for = request.META.get("HTTP_X_FORWARDED_FOR")
    if trusted_proxies == 0 or forwarded_for is None:
        return remote_address
    addresses = forwarded_for.split(",")
    return addresses[-min(trusted_proxies, len(addresses))].strip()
