"""Issue 21's API additions: operators and chips endpoints (django-filter, pagination), the leaderboard's
limit/offset honoured, and filter values naming nothing refused with a 400 instead of ignored."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from leaderboard.services import refresh_leaderboard_entries
from tests.factories import ChipFactory, OperatorFactory, SubmissionFactory
from tests.leaderboard.conftest import evaluate
from tests.leaderboard.test_api import conforms, openapi  # noqa: F401 (the schema fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog(db):
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", vendor="NVIDIA", family="nvidia")
    ChipFactory(slug="cpu", name="CPU", vendor="any", family="cpu", device_type="cpu", timing_meaningful=False)
    ChipFactory(slug="retired", active=False)
    ops = [OperatorFactory(source="aten", name=n, category="pointwise") for n in ("add", "mul", "_softmax")]
    OperatorFactory(source="cublas", name="cublasSgemm_v2", category="blas3")
    for index in range(3):
        submission = SubmissionFactory(name=f"run {index}", target_chip=h200, status="complete")
        for op in ops:
            evaluate(submission, op, h200, speedup=1.0 + index)
        refresh_leaderboard_entries(submission_id=submission.pk)
    return h200


def test_operators_endpoint_filters_searches_and_pages(catalog, openapi):  # noqa: F811
    api = APIClient()
    response = api.get("/api/v1/operators/", {"source": "aten", "limit": 2})
    conforms(openapi, "/api/v1/operators/", "get", response)
    body = response.json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]
    assert [o["id"] for o in api.get("/api/v1/operators/", {"q": "softmax"}).json()["results"]] == ["aten::_softmax"]
    assert api.get("/api/v1/operators/", {"category": "blas3"}).json()["count"] == 1
    refused = api.get("/api/v1/operators/", {"source": "nonexistent"})
    assert refused.status_code == 400 and "source" in refused.content.decode()


def test_chips_endpoint_lists_active_chips(catalog, openapi):  # noqa: F811
    response = APIClient().get("/api/v1/chips/", {"family": "nvidia"})
    conforms(openapi, "/api/v1/chips/", "get", response)
    assert [c["slug"] for c in response.json()["results"]] == ["h200"]
    assert "retired" not in str(APIClient().get("/api/v1/chips/").json())


def test_leaderboard_api_honours_limit_and_offset(catalog, openapi):  # noqa: F811
    api = APIClient()
    first = api.get("/api/v1/leaderboard/", {"chip": "h200", "sort": "-speedup", "limit": 2})
    conforms(openapi, "/api/v1/leaderboard/", "get", first)
    assert first.json()["count"] == 3 and [r["name"] for r in first.json()["results"]] == ["run 2", "run 1"]
    rest = api.get(first.json()["next"]).json()
    assert [r["name"] for r in rest["results"]] == ["run 0"] and rest["next"] is None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"chip": "nonexistent"}, "chip"),
        ({"model": 999999}, "model"),
        ({"scaffold": 999999}, "scaffold"),
        ({"sort": "-nonsense"}, "sort"),
        ({"limit": 0}, "limit"),
    ],
)
def test_leaderboard_api_refuses_values_naming_nothing(catalog, query, field):
    response = APIClient().get("/api/v1/leaderboard/", query)
    assert response.status_code == 400
    assert field in response.content.decode()
