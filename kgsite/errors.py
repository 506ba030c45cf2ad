"""The one tree of application errors: a refusal with a message meant for the caller.

Services and selectors raise these; nothing converts them by hand. Two handlers turn them into
responses, each in one place: `kgsite.error_handlers.api_exception_handler` for the REST APIs
(`{"error": code, "detail": message, "errors": [...]}` with the error's status) and
`kgsite.error_handlers.ApplicationErrorMiddleware` for HTML pages (the error page with its status).
Management commands turn them into CommandError; forms that show a refusal inline read `.errors`.

Pure Python (no Django), so pure modules such as `leaderboard.upload` can raise them too.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorItem:
    """One problem of a refused request: where it is (a field, a file in an upload) and what."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ApplicationError(Exception):
    """A refused operation. `code` is a stable machine-readable word, `status` its HTTP status."""

    code = "invalid"
    status = 400

    def __init__(self, message: str, *, code: str | None = None, errors: list[ErrorItem] | None = None):
        super().__init__(message)
        self.message = message
        self.errors = list(errors or [])
        if code:
            self.code = code

    def as_dict(self) -> dict:
        body: dict = {"error": self.code, "detail": self.message}
        if self.errors:
            body["errors"] = [{"where": item.where, "message": item.message} for item in self.errors]
        return body


class Invalid(ApplicationError):
    """The input is malformed or breaks a rule (400)."""


class Forbidden(ApplicationError):
    code = "forbidden"
    status = 403


class NotFound(ApplicationError):
    """Absent, or not visible to the caller (private things answer as absent)."""

    code = "not_found"
    status = 404


class Conflict(ApplicationError):
    """The request is valid but the current state refuses it (409)."""

    code = "conflict"
    status = 409


class Unavailable(ApplicationError):
    """Temporarily impossible; the caller should retry later (503)."""

    code = "unavailable"
    status = 503
