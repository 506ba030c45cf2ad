"""Fixtures of the evaluator tests. Every test here sees a recording stand-in for the site's Celery
send_task, so nothing reaches a broker unless a test brings its own."""

from __future__ import annotations

import pytest

from evaluator import services
from evaluator.models import EvaluationJob
from tests.factories import AttemptFactory, ChipFactory, SubmissionFactory, UserFactory


class SentTasks(list):
    """Records (name, args, kwargs) and whether the job row already existed when it was sent."""

    def __call__(self, name, args=None, kwargs=None, **options):
        job_id = args[0]
        self.append(
            {
                "name": name,
                "args": args,
                "options": options,
                "job_existed": EvaluationJob.objects.filter(pk=job_id).exists(),
            }
        )


@pytest.fixture(autouse=True)
def sent_tasks(monkeypatch) -> SentTasks:
    recorder = SentTasks()
    monkeypatch.setattr(services.celery_app, "send_task", recorder)
    return recorder


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    # the factories set a password per user; the production hasher costs ~0.5 s each
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def chip(db):
    return ChipFactory(slug="h200", device_type="cuda")


@pytest.fixture
def cpu_chip(db):
    return ChipFactory(slug="cpu", device_type="cpu", timing_meaningful=False)


@pytest.fixture
def staff(db):
    return UserFactory(username="staff", is_staff=True, is_superuser=True)


@pytest.fixture
def credentials(chip, staff) -> services.RunnerCredentials:
    """A runner registered as the admin page does: token and Ed25519 signing key pair."""
    return services.enroll_runner(chip=chip, name="gpu-box-1", user=staff)


@pytest.fixture
def runner_and_token(credentials):
    return credentials.runner, credentials.token


def sign_bundle(bundle: dict, private_key_pem: str) -> dict:
    """The bundle with an Ed25519 signature by that key, as `python -m evaluator bundle sign` makes it."""
    from evaluator.harness import signing

    signed = dict(bundle)
    signed["signature"] = signing.sign_document(signed, signing.load_private_key(private_key_pem.encode()))
    return signed


@pytest.fixture
def submission(chip):
    return SubmissionFactory(target_chip=chip)


def make_attempts(submission, count: int) -> list:
    return [AttemptFactory(submission=submission) for _ in range(count)]


def good_result(operator: str, tier: str = "full", **overrides) -> dict:
    result = {
        "schema": "kgb.result/1",
        "verdict": "correct",
        "reason": "all cases match",
        "operator": operator,
        "tier": tier,
        "cases": [{"name": "c0", "passed": True}, {"name": "c1", "passed": True}, {"name": "c2", "passed": False}],
        "timing": {"speedup": 1.7, "median_us": 12.5},
        "sol_pct": 41.0,
        "findings": [],
        "environment": {"harness_version": "0.1", "device": "NVIDIA H200"},
        "stderr_tail": "",
        "duration_s": 3.2,
    }
    result.update(overrides)
    return result
