"""Issue 15, item 9: query values that made the site answer 500. Each must be a clean 4xx, or be ignored
(a page falls back to its default view, with a message where the visitor asked for something).

The cases need rows: DRF answers an empty list before it slices, so the huge LIMIT reached the database
only with something to list."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from leaderboard.models import ReportedResult
from leaderboard.services import refresh_leaderboard_entries
from tests.factories import SubmissionFactory
from tests.leaderboard.conftest import evaluate

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999999"  # past a 64-bit integer
BEYOND_BIGINT = str(2**63)


@pytest.fixture
def rows(world):
    submission = SubmissionFactory(name="a run", target_chip=world.gpu, uploader=world.user, status="complete")
    evaluate(submission, world.operators["add"], world.gpu, speedup=1.2)
    refresh_leaderboard_entries(submission_id=submission.pk)
    ReportedResult.objects.create(
        source_name="paper",
        table="multi_source",
        method="m",
        model_name="x",
        chip_label="NVIDIA A100",
        operator_set="overall",
        accuracy_pct=50.0,
    )
    return submission


@pytest.fixture
def api(rows):
    client = APIClient()
    client.raise_request_exception = False
    return client


@pytest.mark.parametrize("url", ["/api/v1/submissions/", "/api/v1/reported/"])
@pytest.mark.parametrize(
    "query",
    [
        f"limit={HUGE}",
        f"limit={BEYOND_BIGINT}",
        f"limit={2**63 - 1}&offset=1",
        f"offset={HUGE}",
        f"limit={HUGE}&offset={HUGE}",
    ],
)
def test_huge_limit_and_offset_on_list_endpoints_never_500(api, url, query):
    response = api.get(f"{url}?{query}")
    assert response.status_code == 200, (url, query, response.status_code)
    body = response.json()
    assert body["count"] == 1
    assert len(body["results"]) == (0 if "offset=9999" in query or "offset=1" in query else 1)


def test_a_limit_past_the_largest_page_gives_the_largest_page(api, world):
    from kgsite.pagination import MAX_PAGE_SIZE

    for index in range(3):
        SubmissionFactory(name=f"more {index}", target_chip=world.gpu)
    response = api.get(f"/api/v1/submissions/?limit={HUGE}")
    assert response.status_code == 200 and len(response.json()["results"]) == 4
    assert MAX_PAGE_SIZE == 1000
    response = api.get("/api/v1/submissions/?limit=2")
    assert len(response.json()["results"]) == 2 and "offset=2" in response.json()["next"]


@pytest.mark.parametrize("field", ["model", "scaffold"])
@pytest.mark.parametrize("value", [HUGE, BEYOND_BIGINT, "-" + HUGE])
def test_huge_model_and_scaffold_ids_never_500(api, field, value):
    response = api.get(f"/api/v1/leaderboard/?{field}={value}")
    assert response.status_code == 400, response.content
    assert field in str(response.json())
    for url in ("/leaderboard/", "/leaderboard/multi-chip/", "/leaderboard/multi-source/"):
        for fmt in ("", "&format=csv"):
            response = api.get(f"{url}?{field}={value}{fmt}")
            assert response.status_code == 200, (url, fmt, response.status_code)  # ignored: the unfiltered view


CRLF_CHIPS = ["h200\r\nX-Injected: 1", "a\rb", "a\nb", "\r\n", "h200%0d%0a"]


@pytest.mark.parametrize("chip", CRLF_CHIPS)
def test_cr_lf_in_chip_never_500(api, chip):
    response = api.get("/api/v1/leaderboard/", {"chip": chip})
    # refused, or blank once DRF trims the whitespace (then: every chip)
    assert response.status_code == (400 if chip.strip() else 200), response.content
    for url in ("/leaderboard/", "/leaderboard/multi-chip/", "/leaderboard/multi-source/"):
        for fmt in ("", "csv", "json"):
            response = api.get(url, {"chip": chip, "reference": chip, **({"format": fmt} if fmt else {})})
            assert response.status_code == 200, (url, fmt, response.status_code)
            assert "X-Injected" not in response


def test_an_unknown_chip_on_the_multi_source_view_is_ignored_with_a_message(client, rows):
    message = "The chip in this link is not known; showing the chip with the most results."
    response = client.get("/leaderboard/multi-source/", {"chip": "a\r\nb"})
    assert response.status_code == 200
    assert response.context["filters"].chip == "h200"  # the chip with the most results instead
    assert message in response.content.decode()
    response = client.get("/leaderboard/multi-source/", {"chip": "h200"})
    assert response.context["filters"].chip == "h200" and message not in response.content.decode()
