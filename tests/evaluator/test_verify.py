"""Test mode (POST /api/v1/verify/): checks recorded apart from any leaderboard, run by the chip's runners through
the runner API from the test queue, refused whole on bad input and past the hourly quota."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from evaluator import services
from evaluator.models import Evaluation, EvaluationJob, VerifyJob, VerifyQuota
from evaluator.services import dispatch
from leaderboard.models import Attempt, LeaderboardEntry
from tests.factories import ChipFactory, OperatorFactory, UserFactory

KERNEL = "import triton\n\ndef add_Tensor(a, b, alpha=1):\n    return a\n"


@pytest.fixture
def operator(db):
    return OperatorFactory(source="aten", name="add")


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def client(user) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


def runner_api(token: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    return api


@pytest.fixture
def ask(django_capture_on_commit_callbacks):
    """POST /api/v1/verify/ as `api`, running what the site does after commit (the test never commits)."""

    def post(api, **overrides):
        body = {"operator": "aten::add", "chip": "h200", "tier": "smoke", "source": KERNEL, **overrides}
        with django_capture_on_commit_callbacks(execute=True):
            return api.post("/api/v1/verify/", body, format="json")

    return post


def harness_result(payload: dict, **overrides) -> dict:
    result = {
        "schema": "kgb.result/1",
        "verdict": "incorrect",
        "reason": "case 1 differs",
        "operator": payload["operator"],
        "tier": payload["tier"],
        "seed_kind": "public",
        "seed": payload["seed"],
        "cases": [
            {"params": {"shape": [4]}, "passed": True, "max_abs_err": 0.0},
            {"params": {"shape": [7]}, "passed": False, "max_abs_err": 3.5, "reason": "mismatch at [2]"},
        ],
        "findings": [{"layer": "static", "detail": "torch arithmetic outside a kernel"}],
        "timing": {"speedup": 1.2, "candidate_median_us": 8.0},
    }
    result.update(overrides)
    return result


def test_a_check_runs_on_the_test_queue_and_answers_the_harness_feedback(
    ask, client, operator, runner_and_token, sent_tasks
):
    runner, token = runner_and_token
    answer = ask(client, run="run-1")
    assert answer.status_code == 202, answer.json()
    body = answer.json()
    assert body["status"] == "queued" and body["ranked"] is False and answer["Location"] == body["status_url"]
    assert body["quota"] == {"per_hour": 30, "used": 1}
    (sent,) = sent_tasks
    assert sent["name"] == services.TASK_NAME and sent["args"] == [body["id"]]
    assert sent["options"]["queue"] == "chip.h200.test"

    payload = runner_api(token).post(f"/api/runner/jobs/{body['id']}/claim", format="json").json()
    # public cases under a public seed of its own: never the ranked run's seed, a secret seed or hidden cases
    assert payload["secret_seed"] is False and "hidden_cases" not in payload
    assert payload["seed"] == body["seed"] != dispatch.public_seed("aten::add", "smoke")
    assert payload["solution"]["source"] == KERNEL and payload["solution"]["file_name"] == "aten__add.py"
    assert client.get(body["status_url"]).json()["status"] == "running"

    lease = payload["lease"]["id"]
    renewed = runner_api(token).post(f"/api/runner/jobs/{body['id']}/lease", {"lease": lease}, format="json")
    assert renewed.status_code == 200
    posted = runner_api(token).post(
        f"/api/runner/jobs/{body['id']}/result", {"result": harness_result(payload), "lease": lease}, format="json"
    )
    assert posted.status_code == 201 and posted.json() == {
        "job_id": body["id"],
        "evaluation_id": None,
        "verdict": "incorrect",
        "duplicate": False,
    }
    done = client.get(body["status_url"]).json()
    assert done["status"] == "done" and done["result"]["cases"][1]["reason"] == "mismatch at [2]"
    assert done["result"]["findings"] and done["result"]["timing"]["speedup"] == 1.2
    # never ranked: no attempt, job, evaluation or leaderboard row came of it
    assert not (Evaluation.objects.exists() or EvaluationJob.objects.exists() or Attempt.objects.exists())
    assert not LeaderboardEntry.objects.exists()
    again = runner_api(token).post(
        f"/api/runner/jobs/{body['id']}/result", {"result": harness_result(payload), "lease": lease}, format="json"
    )
    assert again.status_code == 200 and again.json()["duplicate"] is True


@pytest.mark.parametrize(
    ("overrides", "status", "where"),
    [
        ({"operator": "aten::nope"}, 400, "operator"),
        ({"chip": "mi300"}, 400, "chip"),
        ({"chip": "idle"}, 409, "chip"),  # a chip whose only runner is draining
        ({"tier": "edge"}, 400, "tier"),
        ({"tier": "perf"}, 400, "tier"),
        ({"source": "x" * (256 * 1024 + 1)}, 400, "source"),
        ({"source": "   \n"}, 400, "source"),
        ({"source": "import triton\n\x00"}, 400, "source"),
        ({"run": "run id with spaces"}, 400, "run"),
        ({"source": None}, 400, "source"),
    ],
)
def test_bad_input_is_refused_and_stores_nothing(
    ask, client, operator, runner_and_token, sent_tasks, overrides, status, where
):
    idle = ChipFactory(slug="idle")
    services.drain_runner(runner=services.register_runner(chip=idle, name="r", user=None)[0], user=None)
    answer = ask(client, **overrides)
    assert answer.status_code == status, answer.content
    assert answer.json()["errors"][0]["where"] == where
    assert not VerifyJob.objects.exists() and not sent_tasks


def test_a_source_with_a_lone_surrogate_is_refused(client, operator, runner_and_token):
    # JSON may escape one (\\ud800); neither the database nor a runner could take the text
    raw = '{"operator": "aten::add", "chip": "h200", "source": "import triton  # \\ud800"}'
    answer = client.post("/api/v1/verify/", raw, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["errors"][0]["where"] == "source"
    assert not VerifyJob.objects.exists()


def test_anonymous_callers_and_other_users_get_nothing(ask, client, operator, runner_and_token):
    assert APIClient().post("/api/v1/verify/", {}, format="json").status_code in (401, 403)
    url = ask(client).json()["status_url"]
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=UserFactory()).key}")
    assert stranger.get(url).status_code == 404
    assert APIClient().get(url).status_code in (401, 403)


def test_the_hourly_quota_per_user_and_chip(ask, client, user, operator, runner_and_token, settings, sent_tasks):
    settings.KGB_VERIFY_PER_HOUR = 2
    other_chip = ChipFactory(slug="cpu", device_type="cpu")
    services.register_runner(chip=other_chip, name="cpu-1", user=None)
    assert [ask(client).status_code for _ in range(2)] == [202, 202]
    refused = ask(client)
    assert refused.status_code == 429 and refused.json()["error"] == "verify_quota"
    assert "2 of 2 checks per hour on h200" in refused.json()["detail"]
    assert 3590 <= int(refused["Retry-After"]) <= 3600
    assert VerifyJob.objects.count() == 2 and len(sent_tasks) == 2
    assert ask(client, chip="cpu").status_code == 202  # another chip has its own quota
    # an admin raises the user's quota on every chip, and cuts it on one
    VerifyQuota.objects.create(user=user, chip=None, per_hour=3)
    assert ask(client).status_code == 202 and ask(client).status_code == 429
    VerifyQuota.objects.create(user=user, chip=other_chip, per_hour=1)
    assert ask(client, chip="cpu").status_code == 429
    # a check older than an hour no longer counts
    VerifyJob.objects.filter(chip__slug="h200").update(created_at=timezone.now() - timedelta(seconds=3601))
    assert ask(client).status_code == 202


def test_a_result_claiming_secret_inputs_is_refused_and_the_failure_is_the_checks(
    ask, client, operator, runner_and_token
):
    _, token = runner_and_token
    check = ask(client).json()
    payload = runner_api(token).post(f"/api/runner/jobs/{check['id']}/claim", format="json").json()
    lease = payload["lease"]["id"]
    hidden = harness_result(payload, cases=[{"params": {}, "passed": True, "hidden": True}])
    for result in (
        harness_result(payload, seed_kind="secret", seed=None),
        hidden,
        harness_result(payload, tier="full"),
    ):
        url = f"/api/runner/jobs/{check['id']}/result"
        assert runner_api(token).post(url, {"result": result, "lease": lease}, format="json").status_code == 400
    assert client.get(check["status_url"]).json()["status"] == "running"
    failed = runner_api(token).post(
        f"/api/runner/jobs/{check['id']}/fail", {"error": "harness error: boom", "lease": lease}, format="json"
    )
    assert failed.status_code == 200 and failed.json()["state"] == "failed"
    status = client.get(check["status_url"]).json()
    assert status["status"] == "failed" and "boom" in status["error"] and "result" not in status
    claim = runner_api(token).post(f"/api/runner/jobs/{check['id']}/claim", format="json")
    assert claim.status_code == 409 and claim.json()["error"] == "job_failed"


def test_runners_of_other_chips_and_duplicate_messages_are_refused(ask, client, operator, runner_and_token, settings):
    _, token = runner_and_token
    other_token = services.register_runner(chip=ChipFactory(slug="cpu"), name="cpu-1", user=None)[1]
    check = ask(client).json()
    url = f"/api/runner/jobs/{check['id']}/claim"
    assert runner_api(other_token).post(url, format="json").status_code == 403
    assert runner_api(token).post(url, format="json").status_code == 200
    duplicate = runner_api(token).post(url, format="json")
    assert duplicate.status_code == 409 and duplicate.json()["error"] == "leased"
    # a lease that ran out is taken over by the next delivery
    VerifyJob.objects.filter(pk=check["id"]).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    again = runner_api(token).post(url, format="json")
    assert again.status_code == 200 and VerifyJob.objects.get(pk=check["id"]).deliveries == 2


def test_a_check_no_runner_finished_in_time_is_given_up(ask, client, operator, runner_and_token, settings):
    check = ask(client).json()
    VerifyJob.objects.filter(pk=check["id"]).update(
        created_at=timezone.now() - timedelta(seconds=settings.KGB_VERIFY_EXPIRE_S + 1)
    )
    status = client.get(check["status_url"]).json()
    assert status["status"] == "failed" and "given up" in status["error"]
    claim = runner_api(runner_and_token[1]).post(f"/api/runner/jobs/{check['id']}/claim", format="json")
    assert claim.status_code == 409 and claim.json()["error"] == "job_failed"


def test_runners_consume_the_test_queue_after_the_ranked_one(runner_and_token, settings):
    settings.CELERY_BROKER_URL = "redis://broker.example:6379/0"
    config = runner_api(runner_and_token[1]).get("/api/runner/config").json()
    assert config["queues"] == ["chip.h200", "chip.h200.test"]
    assert config["broker_transport_options"] == {"queue_order_strategy": "priority"}
