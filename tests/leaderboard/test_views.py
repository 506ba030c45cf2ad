"""Every page: status, content, filters in the URL, CSV/JSON downloads, access rules, upload by form."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest
from django.urls import reverse

from leaderboard.models import Submission
from leaderboard.services import import_reported_dir, rotate_api_token
from tests.factories import ChipFactory, OperatorFactory, UserFactory
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip
from tests.leaderboard.test_services import DATA

pytestmark = pytest.mark.django_db


def test_home_shows_the_headline_board_and_links(client, board):
    response = client.get("/")
    body = response.content.decode()
    assert response.status_code == 200
    assert "main run" in body and "secret run" not in body
    for name in ("leaderboard", "multi_source", "multi_chip", "operator_list"):
        assert reverse(name) in body


def test_leaderboard_page_marks_demo_and_preliminary_rows(client, board):
    body = client.get("/leaderboard/?source=vllm13").content.decode()
    assert "preliminary" in body  # one vLLM operator < 3
    body = client.get("/leaderboard/").content.decode()
    assert "badge-demo" in body and "[demo] run" in body
    assert "60.0%" in body  # main run's accuracy
    assert 'aria-sort="descending"' in body


def test_filters_live_in_the_url(client, board):
    body = client.get("/leaderboard/?chip=mi300x&source=aten&sort=-speedup").content.decode()
    assert "amd run" in body and "main run" not in body
    assert 'value="mi300x" selected' in body
    assert "sort=speedup" in body  # the active column's link flips the direction
    assert "format=csv" in body and "chip=mi300x" in body  # downloads keep the filters


def test_invalid_filter_values_fall_back_instead_of_failing(client, board):
    response = client.get("/leaderboard/?source=nope&model=abc&sort=;drop")
    assert response.status_code == 200


def test_csv_download_has_the_same_rows_as_the_page(client, board):
    response = client.get("/leaderboard/?chip=h200&demo=exclude&format=csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["name"] for r in rows] == ["main run"]
    assert float(rows[0]["accuracy_pct"]) == pytest.approx(60.0)


def test_json_download(client, board):
    data = json.loads(client.get("/leaderboard/?format=json&source=aten&chip=").content)  # chip=: every chip
    names = {r["name"] for r in data["results"]}
    assert data["count"] == len(data["results"]) and names == {"main run", "amd run", "[demo] run"}
    # the default view's download holds the default view's rows: the flagship chip's
    data = json.loads(client.get("/leaderboard/?format=json&source=aten").content)
    assert {(r["name"], r["chip"]) for r in data["results"]} == {("main run", "h200"), ("[demo] run", "h200")}


@pytest.mark.parametrize(
    "url", ["/leaderboard/multi-source/?chip=h200", "/leaderboard/multi-chip/", "/leaderboard/reported/"]
)
def test_analytical_views_render_and_download(client, board, url):
    import_reported_dir(path=DATA)
    response = client.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    assert "badge-reported" in body
    sep = "&" if "?" in url else "?"
    assert client.get(f"{url}{sep}format=csv").status_code == 200
    data = json.loads(client.get(f"{url}{sep}format=json").content)
    assert data["count"] >= 1


def test_multi_chip_shows_the_drop_and_heatmap(client, board):
    body = client.get("/leaderboard/multi-chip/").content.decode()
    assert "-33.3 pts" in body
    assert 'id="heatmap-data"' in body and "plotly.min.js" in body


def test_multi_source_download_columns(client, board):
    rows = list(
        csv.DictReader(io.StringIO(client.get("/leaderboard/multi-source/?chip=h200&format=csv").content.decode()))
    )
    main = next(r for r in rows if r["scaffold"].startswith("agent-a"))
    assert float(main["all_accuracy_pct"]) == pytest.approx(60.0)
    assert float(main["aten_accuracy_pct"]) == pytest.approx(200 / 3)


def test_leaderboard_charts_are_embedded_as_json(client, board):
    body = client.get("/leaderboard/?chip=h200").content.decode()
    assert 'id="pareto-data"' in body and 'id="speedup-data"' in body and "Pareto front" in body


def test_private_submission_is_hidden_from_everyone_but_its_owner(client, board):
    url = reverse("submission_detail", args=[board.private.pk])
    assert client.get(url).status_code == 404
    client.force_login(board.owner)
    assert client.get(url).status_code == 404
    client.force_login(board.other)
    assert client.get(url).status_code == 200
    attempt = board.private.attempts.first()
    client.logout()
    assert client.get(reverse("attempt_detail", args=[attempt.pk])).status_code == 404
    assert client.get(reverse("submission_progress", args=[board.private.pk])).status_code == 404


def test_submission_page_shows_summary_operator_table_and_downloads(client, board):
    url = reverse("submission_detail", args=[board.main.pk])
    body = client.get(url).content.decode()
    assert "verdict-compile_error" in body and "aten::add" in body and 'id="progress"' in body
    assert "hx-get" not in body  # finished: no polling
    rows = list(csv.DictReader(io.StringIO(client.get(url + "?format=csv").content.decode())))
    assert {r["operator"] for r in rows} == {
        "aten::add",
        "aten::mul",
        "aten::sin",
        "vllm13::rms_norm",
        "cublas::cublasSaxpy_v2",
    }


def test_progress_fragment_polls_while_jobs_are_pending(client, board):
    from evaluator.models import EvaluationJob
    from tests.factories import AttemptFactory, EvaluationJobFactory

    board.main.status = "evaluating"
    board.main.save()
    EvaluationJobFactory(attempt=AttemptFactory(submission=board.main, operator=board.ops["a1"], sample_index=1))
    body = client.get(reverse("submission_progress", args=[board.main.pk])).content.decode()
    assert 'hx-trigger="every 2s"' in body and "5 of 6 jobs finished" in body
    EvaluationJob.objects.filter(state="queued").update(state="done")
    board.main.status = "complete"
    board.main.save()
    assert "hx-get" not in client.get(reverse("submission_progress", args=[board.main.pk])).content.decode()


def test_attempt_page_highlights_source_and_shows_results(client, board):
    attempt = board.main.attempts.get(operator=board.ops["a1"])
    body = client.get(reverse("attempt_detail", args=[attempt.pk])).content.decode()
    assert 'class="highlight"' in body and "verdict-correct" in body and "prompt" in body


def test_attempt_page_says_when_a_timing_is_not_ranked(client, board):
    from evaluator.models import Evaluation

    attempt = board.main.attempts.get(operator=board.ops["a1"])
    evaluation = Evaluation.objects.filter(attempt=attempt).select_related("chip").first()
    assert evaluation.chip.timing_meaningful
    url = reverse("attempt_detail", args=[attempt.pk])
    evaluation.timing = {"speedup": 1.4, "method": "events"}
    evaluation.environment = {"l2_flush": "write", "timing_clock": "events"}
    evaluation.save()
    assert "not ranked" not in client.get(url).content.decode()
    evaluation.environment = {"l2_flush": "read", "timing_clock": "kernel"}
    evaluation.save()
    body = client.get(url).content.decode()
    assert "Timed under the read:kernel protocol: not ranked (the leaderboard ranks write:events timings)" in body


def test_operator_pages(client, board, monkeypatch):
    monkeypatch.setattr("leaderboard.views._spec", lambda operator_id: None)  # loading the whole catalog costs seconds
    body = client.get(reverse("operator_detail", args=["aten::add"])).content.decode()
    assert "Best solutions per chip" in body and "2.00×" in body and "3.00×" not in body
    assert client.get(reverse("operator_detail", args=["aten::nope"])).status_code == 404
    listing = client.get("/operators/?source=vllm13").content.decode()
    assert "vllm13::rms_norm" in listing and "aten::add" not in listing
    assert client.get("/operators/?format=json").status_code == 200


def test_delete_needs_post_and_ownership(client, board):
    url = reverse("submission_delete", args=[board.main.pk])
    client.force_login(board.other)
    assert client.get(url).status_code == 405
    assert client.post(url).status_code == 403
    client.force_login(board.owner)
    assert client.post(url).status_code == 302
    assert not Submission.objects.filter(pk=board.main.pk).exists()


def test_signup_login_logout(client, db, settings):
    response = client.post(
        "/accounts/signup/",
        {"username": "newbie", "email": "", "password1": "a-long-passphrase-42", "password2": "a-long-passphrase-42"},
    )
    assert response.status_code == 302 and response.url == reverse("account")
    assert client.get("/accounts/").status_code == 200
    assert client.get("/accounts/logout/").status_code == 405  # log-out is a POST
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/accounts/").status_code == 302
    assert (
        client.post("/accounts/login/", {"username": "newbie", "password": "a-long-passphrase-42"}).status_code == 302
    )


def test_account_token_is_shown_once_then_masked(client, db):
    user = UserFactory()
    client.force_login(user)
    assert client.post("/accounts/token/").status_code == 302
    key = user.auth_token.key if hasattr(user, "auth_token") else type(user).objects.get(pk=user.pk).auth_token.key
    assert key in client.get("/accounts/").content.decode()
    second = client.get("/accounts/").content.decode()
    assert key not in second and key[:6] in second


def test_forms_need_csrf(db):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(UserFactory())
    assert strict.post("/accounts/token/").status_code == 403


@pytest.fixture
def upload_ready(db):
    ChipFactory(slug="cpu", device_type="cpu", family="cpu", timing_meaningful=False)
    OperatorFactory(source="aten", name="add")
    user = UserFactory()
    return user


def test_upload_needs_login(client, upload_ready):
    response = client.get("/submissions/new/")
    assert response.status_code == 302 and "/accounts/login/" in response.url


def test_upload_form_stores_and_redirects(client, upload_ready, sent_tasks, django_capture_on_commit_callbacks):
    client.force_login(upload_ready)
    archive = io.BytesIO(make_zip({"aten__add.py": KERNEL}))
    archive.name = "solutions.zip"
    metadata = io.BytesIO(make_metadata())
    metadata.name = "metadata.json"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/submissions/new/", {"archive": archive, "metadata": metadata})
    submission = Submission.objects.get()
    assert response.status_code == 302 and response.url == reverse("submission_detail", args=[submission.pk])
    assert len(sent_tasks) == 1


def test_upload_form_shows_every_error_and_stores_nothing(client, upload_ready):
    client.force_login(upload_ready)
    archive = io.BytesIO(make_zip({"../evil.py": KERNEL, "aten__nope.py": KERNEL}))
    archive.name = "s.zip"
    metadata = io.BytesIO(make_metadata(operators={}, track="x"))
    metadata.name = "m.json"
    response = client.post("/submissions/new/", {"archive": archive, "metadata": metadata})
    body = response.content.decode()
    assert response.status_code == 400
    assert (
        "../evil.py: nested directories" in body
        and "unknown operator &#x27;aten::nope&#x27;" in body
        and "track" in body
    )
    assert not Submission.objects.exists()


def test_upload_form_is_rate_limited(client, upload_ready, settings):
    from django.core.cache import cache

    cache.clear()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "submissions": "1/hour"},
    }
    try:
        client.force_login(upload_ready)
        statuses = []
        for _ in range(2):
            archive = io.BytesIO(b"not a zip")
            archive.name = "a.zip"
            metadata = io.BytesIO(make_metadata())
            metadata.name = "m.json"
            statuses.append(client.post("/submissions/new/", {"archive": archive, "metadata": metadata}).status_code)
        assert statuses == [400, 429]
    finally:
        cache.clear()


def test_api_docs_page_uses_vendored_swagger(client, db):
    body = client.get("/api/docs/").content.decode()
    assert "vendor/swagger-ui/swagger-ui-bundle.js" in body and "/api/schema/" in body
    assert "cdn" not in body.lower()


def test_token_helper_available_to_cli_users(db):
    assert len(rotate_api_token(user=UserFactory()).key) == 40


def test_operator_page_shows_the_catalog_reference_and_prompt(client, board, monkeypatch):
    from types import SimpleNamespace

    def reference_add(a, b):
        return a + b

    spec = SimpleNamespace(reference=reference_add, reference_impl=None, cases={}, compare=None, exact=False)
    monkeypatch.setattr("leaderboard.views._spec", lambda operator_id: spec)
    # a stand-in prompts module: the real one imports the catalog (seconds)
    monkeypatch.setitem(
        sys.modules,
        "operators.prompts",
        SimpleNamespace(render_prompt=lambda s: "Write a Triton kernel for aten::add."),
    )
    body = client.get(reverse("operator_detail", args=["aten::add"])).content.decode()
    assert "reference_add" in body and "Write a Triton kernel for aten::add." in body
