"""One error tree, mapped once: an application error raised by a service or selector becomes the
same response wherever it is raised, `{"error", "detail"[, "errors"]}` from the APIs and the error
page with its status from HTML views; no view converts it by hand."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from kgsite.errors import ApplicationError, Conflict, ErrorItem, Forbidden, Invalid, NotFound, Unavailable
from leaderboard.upload import UploadInvalid
from tests.factories import SubmissionFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_every_refusal_has_a_code_a_status_and_a_message():
    for error, status in ((Invalid("x"), 400), (Forbidden("x"), 403), (NotFound("x"), 404)):
        assert error.status == status and error.as_dict() == {"error": error.code, "detail": "x"}
    assert (Conflict("x").status, Unavailable("x").status) == (409, 503)
    upload = UploadInvalid([ErrorItem("archive", "too big"), ErrorItem("metadata: name", "is required")])
    assert isinstance(upload, ApplicationError) and upload.status == 400
    assert upload.as_dict() == {
        "error": "invalid_upload",
        "detail": "archive: too big; metadata: name: is required",
        "errors": [{"where": "archive", "message": "too big"}, {"where": "metadata: name", "message": "is required"}],
    }


def test_the_api_answers_a_service_refusal_and_a_selector_refusal_alike():
    owner, other = UserFactory(), UserFactory()
    mine = SubmissionFactory(uploader=owner)
    private = SubmissionFactory(uploader=owner, is_public=False)
    api = APIClient()
    api.force_authenticate(other)
    forbidden = api.delete(f"/api/v1/submissions/{mine.pk}/")  # refused by leaderboard.services
    assert forbidden.status_code == 403
    assert forbidden.json() == {"error": "forbidden", "detail": "Only the uploader can delete this submission."}
    hidden = api.get(f"/api/v1/submissions/{private.pk}/")  # refused by leaderboard.selectors
    assert hidden.status_code == 404 and hidden.json() == {"error": "not_found", "detail": "No such submission."}


def test_drf_refusals_take_the_same_shape():
    anonymous = APIClient().delete(f"/api/v1/submissions/{SubmissionFactory().pk}/")
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "not_authenticated"
    runner = APIClient().get("/api/runner/config", HTTP_AUTHORIZATION="Runner kgbr_00000000_" + "x" * 40)
    assert runner.status_code == 401 and set(runner.json()) == {"error", "detail"}


def test_html_views_render_the_error_page_with_the_errors_status(client):
    owner, other = UserFactory(), UserFactory()
    submission = SubmissionFactory(uploader=owner)
    client.force_login(other)
    response = client.post(reverse("submission_delete", args=[submission.pk]))
    assert response.status_code == 403
    assert "Only the uploader can delete this submission." in response.content.decode()
    assert [t.name for t in response.templates][0] == "error.html"
    missing = client.get(reverse("submission_detail", args=[SubmissionFactory(is_public=False).pk]))
    assert missing.status_code == 404 and "No such submission." in missing.content.decode()
