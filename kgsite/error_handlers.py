"""Where application errors (kgsite.errors) become responses: one handler for the REST APIs, one
middleware for the HTML pages. Views never catch them to convert them."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from kgsite.errors import ApplicationError, ErrorItem


def _items(detail, where: str = "") -> list[ErrorItem]:
    """DRF's nested validation details as a flat list of (where, message)."""
    if isinstance(detail, dict):
        return [item for key, value in detail.items() for item in _items(value, f"{where}.{key}" if where else key)]
    if isinstance(detail, list):
        return [item for value in detail for item in _items(value, where)]
    return [ErrorItem(where if where != "non_field_errors" else "", str(detail))]


def _code(exc: Exception) -> str:
    if isinstance(exc, Http404):
        return "not_found"
    if isinstance(exc, PermissionDenied):
        return "permission_denied"
    if isinstance(exc, exceptions.ValidationError):
        return "invalid"
    return getattr(exc, "default_code", "error")


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    """Every refusal of every API as `{"error": code, "detail": message[, "errors": [...]]}`."""
    if isinstance(exc, ApplicationError):
        # a refusal that ends by itself (a quota) says when, as DRF's throttles do
        retry_after = getattr(exc, "retry_after_s", None)
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        return Response(exc.as_dict(), status=exc.status, headers=headers)
    # a body over a size limit, refused before it was read whole (kgsite.uploads)
    if isinstance(exc, RequestDataTooBig):
        return Response({"error": "too_large", "detail": str(exc)}, status=413)
    response = drf_exception_handler(exc, context)  # keeps DRF's statuses and headers (WWW-Authenticate, Retry-After)
    if response is None:
        return None
    detail = exc.detail if isinstance(exc, exceptions.APIException) else response.data.get("detail", "")
    items = _items(detail) if isinstance(exc, exceptions.ValidationError) else []
    body: dict = {"error": _code(exc), "detail": "; ".join(map(str, items)) if items else str(detail)}
    if items:
        body["errors"] = [{"where": item.where, "message": item.message} for item in items]
    response.data = body
    return response


class ApplicationErrorMiddleware:
    """An application error escaping an HTML view: the error page, with the error's status."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, ApplicationError):
            return None
        return render(request, "error.html", {"error": exception}, status=exception.status)


class ErrorItemSerializer(serializers.Serializer):
    where = serializers.CharField(help_text="the field, or the file inside an upload; empty for the whole request")
    message = serializers.CharField()


class ErrorResponseSerializer(serializers.Serializer):
    """The body of every 4xx/5xx answer of the APIs (for the OpenAPI schema)."""

    error = serializers.CharField(help_text="a stable code, e.g. invalid, not_found, already_recorded")
    detail = serializers.CharField(help_text="what went wrong, for a person")
    errors = ErrorItemSerializer(many=True, required=False, help_text="each problem, when there are several")
