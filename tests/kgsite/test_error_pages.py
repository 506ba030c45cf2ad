"""The status pages (issue 21): 400, 403 (and a refused CSRF token), 404 and 500 come in the site's own style —
its header, stylesheet and navigation, nothing from another origin — with DEBUG off (the test client's), and an
unknown address under /api/ answers the APIs' JSON error body instead of a page."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client, override_settings
from django.urls import include, path

pytestmark = pytest.mark.django_db


def _boom(request):
    raise RuntimeError("an unhandled failure")


def _refuse(request):
    raise PermissionDenied("not yours")


urlpatterns = [
    path("boom/", _boom),
    path("api/v1/boom/", _boom),
    path("refuse/", _refuse),
    path("", include("kgsite.urls")),
]
handler404 = "leaderboard.views.page_not_found"
handler500 = "leaderboard.views.server_error"


def _assert_site_styled(body: str) -> None:
    assert 'class="site-header"' in body and "KernelGenBench" in body
    assert re.search(r'<link rel="stylesheet" href="/static/css/site\.css"', body)
    assert 'class="error-links"' in body and 'href="/leaderboard/"' in body
    # nothing loaded from anywhere else (no CDN): every src/href to a resource is the site's own
    for url in re.findall(r'(?:src|href)="([^"]+)"', body):
        assert not re.match(r"(https?:)?//", url) or "github.com/flagos-ai" in url, url
    assert "Traceback" not in body and "an unhandled failure" not in body


def test_an_unknown_address_is_the_styled_404_page(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert [t.name for t in response.templates][:2] == ["404.html", "errors/page.html"]
    body = response.content.decode()
    _assert_site_styled(body)
    assert "Page not found" in body and "/no/such/page/" in body
    assert 'action="/operators/"' in body  # the operator search, a way on from a mistyped operator link


def test_the_404_page_escapes_the_address():
    body = Client().get("/%3Cscript%3Ealert(1)%3C/script%3E/").content.decode()
    assert "<script>alert(1)" not in body and "&lt;script&gt;" in body


def test_an_unknown_api_address_answers_json(client):
    response = client.get("/api/v1/no-such-endpoint/")
    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")
    assert response.json() == {"error": "not_found", "detail": "No such API endpoint."}


@override_settings(ROOT_URLCONF=__name__)
def test_an_unhandled_exception_is_the_styled_500_page():
    client = Client(raise_request_exception=False)
    response = client.get("/boom/")
    assert response.status_code == 500
    body = response.content.decode()
    _assert_site_styled(body)
    assert "Something went wrong on our side" in body
    assert "Log in" not in body  # rendered without the request: no account links that may be wrong
    api = client.get("/api/v1/boom/")
    assert api.status_code == 500 and api.json()["error"] == "server_error"


@override_settings(ROOT_URLCONF=__name__)
def test_a_permission_denied_is_the_styled_403_page(client):
    response = client.get("/refuse/")
    assert response.status_code == 403
    body = response.content.decode()
    _assert_site_styled(body)
    assert "Not allowed" in body and "/accounts/login/?next=/refuse/" in body


def test_a_refused_csrf_token_is_the_styled_403_page():
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    body = response.content.decode()
    _assert_site_styled(body)
    assert "The form could not be accepted" in body and "Nothing was saved" in body


def test_a_disallowed_host_is_the_styled_400_page():
    response = Client(HTTP_HOST="evil.example").get("/")
    assert response.status_code == 400
    body = response.content.decode()
    _assert_site_styled(body)
    assert "Bad request" in body
