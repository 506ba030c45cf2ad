"""Rate limits on submissions (the same "submissions" scope of settings.REST_FRAMEWORK for the API and the
form) and on sign-ups (the "signups" scope, per client address)."""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from kgsite.client_address import client_address


class SubmissionRateThrottle(SimpleRateThrottle):
    """Per user (and per IP for anyone not logged in) over the "submissions" rate."""

    scope = "submissions"

    def get_rate(self) -> str | None:
        # read at request time (DRF binds THROTTLE_RATES at import), so settings overrides apply
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view) -> str:
        user = getattr(request, "user", None)
        ident = f"user-{user.pk}" if user is not None and user.is_authenticated else f"ip-{client_address(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class SubmissionIpRateThrottle(SubmissionRateThrottle):
    """Per address, whoever is logged in there: new accounts cost nothing, so they must not multiply the
    budget. The rate is "submissions_ip" when configured, else the per-user "submissions" rate."""

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        return rates.get("submissions_ip") or rates.get(self.scope)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": "submissions_ip", "ident": client_address(request)}


SUBMISSION_THROTTLES = (SubmissionRateThrottle, SubmissionIpRateThrottle)


def submission_throttle_allows(request: HttpRequest) -> bool:
    """For plain Django views (the upload form): counts one submission when allowed."""
    return all(throttle().allow_request(request, None) for throttle in SUBMISSION_THROTTLES)


class SignUpRateThrottle(SimpleRateThrottle):
    """Sign-ups per client address over the "signups" rate: accounts cost nothing, and every per-user budget
    (submissions, the queue cap, API calls) is multiplied by the accounts one address can open."""

    scope = "signups"

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}


def signup_throttle_allows(request: HttpRequest) -> bool:
    """For the sign-up view: counts one try (valid or not) when allowed."""
    return SignUpRateThrottle().allow_request(request, None)
