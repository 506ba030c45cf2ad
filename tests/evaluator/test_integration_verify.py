"""Test mode through Redis and a real runner agent (fake harness): the chip's runner serves ranked jobs and
test-mode checks from one worker, ranked ones first; `kgb verify`'s RemoteVerifier gets the feedback; the
hourly quota answers 429 with Retry-After. Needs Redis, as tests/evaluator/test_integration_dispatch.py."""

from __future__ import annotations

import pytest
import requests
from kombu import Connection
from rest_framework.authtoken.models import Token

from evaluator.models import Evaluation, JobState, VerifyJob
from kgb.errors import SiteError
from kgb.verify import RemoteVerifier, SiteClient
from tests.evaluator.test_integration_dispatch import (  # noqa: F401 (fleet is a fixture)
    REDIS_URL,
    enqueue_new_submission,
    fleet,
    requires_redis,
    retry_locked,
    wait_for,
)
from tests.factories import OperatorFactory, UserFactory

KERNEL = "import triton\n"


@pytest.fixture
def test_queue(fleet):  # noqa: F811
    yield fleet
    with Connection(REDIS_URL) as connection:  # leave no messages behind in a shared Redis
        connection.default_channel.queue_delete(fleet["chip"].test_queue_name)


@pytest.mark.integration
@requires_redis
def test_one_runner_serves_ranked_jobs_first_then_checks_within_the_quota(test_queue, live_server, settings, tmp_path):
    settings.KGB_VERIFY_PER_HOUR = 4
    chip = test_queue["chip"]
    OperatorFactory(source="aten", name="add")
    token = Token.objects.create(user=UserFactory()).key
    site = SiteClient(live_server.url, token, retries=0)

    def ask() -> requests.Response:
        body = {"operator": "aten::add", "chip": chip.slug, "tier": "smoke", "source": KERNEL}
        return requests.post(f"{live_server.url}/api/v1/verify/", json=body, headers=site.headers(), timeout=30)

    # three checks queued before a ranked submission, while no runner is up
    checks = [ask().json()["id"] for _ in range(3)]
    _, jobs = enqueue_new_submission(chip, 2)
    run_log = tmp_path / "runs.log"
    test_queue["start_agent"](KGB_FAKE_HARNESS_RUN_LOG=str(run_log))
    wait_for(
        lambda: (
            VerifyJob.objects.filter(pk__in=checks, state=JobState.DONE).count() == 3
            and Evaluation.objects.filter(job__in=jobs).count() == 2
        ),
        90,
        "two ranked jobs and three checks",
    )
    order = [line.split()[0] for line in run_log.read_text().splitlines()]
    assert sorted(order[:2]) == sorted(str(job.pk) for job in jobs) and sorted(order[2:]) == sorted(checks)
    # never ranked: the checks left no evaluation beside the ranked jobs'
    assert retry_locked(lambda: Evaluation.objects.count()) == 2

    # the client's test mode, polling its check to the end
    verifier = RemoteVerifier(client=site, chip=chip.slug, tier="smoke", poll_s=0.2, max_wait_s=60)
    result = verifier.verify("aten::add", KERNEL)
    assert result["verdict"] == "correct" and result["seed_kind"] == "public" and result["operator"] == "aten::add"
    # the fifth check of the hour is refused, saying when the next one is allowed
    refused = ask()
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 3600
    with pytest.raises(SiteError, match="quota"):
        verifier.verify("aten::add", KERNEL)
    assert retry_locked(lambda: VerifyJob.objects.count()) == 4
