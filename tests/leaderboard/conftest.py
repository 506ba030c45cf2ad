"""Fixtures of the leaderboard tests: a small board whose figures are computed by hand in the tests."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from evaluator import services as evaluator_services
from evaluator.models import Chip
from leaderboard.models import Submission
from leaderboard.services import refresh_leaderboard_entries
from operators.models import Operator
from tests.factories import (
    AttemptFactory,
    ChipFactory,
    EvaluationFactory,
    LLMModelFactory,
    OperatorFactory,
    ScaffoldFactory,
    SubmissionFactory,
    UserFactory,
)


@pytest.fixture(autouse=True)
def sent_tasks(monkeypatch) -> list:
    """Celery's send_task recorded instead of reaching a broker."""
    sent: list = []
    monkeypatch.setattr(
        evaluator_services.celery_app,
        "send_task",
        lambda name, args=None, kwargs=None, **opts: sent.append((name, args, opts)),
    )
    return sent


@pytest.fixture(autouse=True)
def _fast_tests(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.KGB_PRELIMINARY_MIN_OPERATORS = 3
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "submissions": "1000/hour"},
    }


@dataclass
class Board:
    h200: Chip
    mi300x: Chip
    cpu: Chip
    ops: dict[str, Operator]
    main: Submission  # h200, 5 operators: 3 correct (2.0x, 0.5x, 1.0x), 1 incorrect, 1 compile error
    amd: Submission  # same method on mi300x, ATen only: 1 of 3 correct
    private: Submission  # another user's private submission
    demo: Submission
    owner: object
    other: object


def evaluate(submission, operator, chip, verdict="correct", speedup=None, sample_index=0, **extra):
    attempt = AttemptFactory(
        submission=submission,
        operator=operator,
        sample_index=sample_index,
        prompt_tokens=extra.pop("prompt_tokens", 1000),
        completion_tokens=extra.pop("completion_tokens", 500),
        wall_time_s=extra.pop("wall_time_s", 60.0),
    )
    return EvaluationFactory(
        job__attempt=attempt,
        job__chip=chip,
        verdict=verdict,
        speedup=speedup,
        cases_passed=4 if verdict == "correct" else 0,
        **extra,
    )


@pytest.fixture
def board(db) -> Board:
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    mi300x = ChipFactory(slug="mi300x", name="AMD MI300X", vendor="AMD", family="amd")
    cpu = ChipFactory(slug="cpu", name="CPU", vendor="any", family="cpu", device_type="cpu", timing_meaningful=False)
    ops = {
        "a1": OperatorFactory(source="aten", name="add"),
        "a2": OperatorFactory(source="aten", name="mul"),
        "a3": OperatorFactory(source="aten", name="sin"),
        "v1": OperatorFactory(source="vllm13", name="rms_norm"),
        "c1": OperatorFactory(source="cublas", name="cublasSaxpy_v2"),
    }
    owner, other = UserFactory(username="owner"), UserFactory(username="other")
    model = LLMModelFactory(name="model-a", price_input_per_mtok=3, price_output_per_mtok=15)
    scaffold = ScaffoldFactory(name="agent-a")
    main = SubmissionFactory(
        name="main run", model=model, scaffold=scaffold, target_chip=h200, uploader=owner, status="complete"
    )
    evaluate(main, ops["a1"], h200, speedup=2.0, sol_pct=40.0)
    evaluate(main, ops["a2"], h200, speedup=0.5, sol_pct=20.0)
    evaluate(main, ops["a3"], h200, verdict="incorrect")
    evaluate(main, ops["v1"], h200, speedup=1.0)
    evaluate(main, ops["c1"], h200, verdict="compile_error")
    amd = SubmissionFactory(
        name="amd run", model=model, scaffold=scaffold, target_chip=mi300x, uploader=owner, status="complete"
    )
    evaluate(amd, ops["a1"], mi300x, speedup=1.5)
    evaluate(amd, ops["a2"], mi300x, verdict="incorrect")
    evaluate(amd, ops["a3"], mi300x, verdict="runtime_error")
    private = SubmissionFactory(name="secret run", target_chip=h200, uploader=other, is_public=False, status="complete")
    for key in ("a1", "a2", "a3"):
        evaluate(private, ops[key], h200, speedup=3.0)
    demo = SubmissionFactory(name="[demo] run", target_chip=h200, uploader=owner, is_demo=True, status="complete")
    for key in ("a1", "a2", "a3"):
        evaluate(demo, ops[key], h200, verdict="incorrect")
    for submission in (main, amd, private, demo):
        refresh_leaderboard_entries(submission_id=submission.pk)
    return Board(h200, mi300x, cpu, ops, main, amd, private, demo, owner, other)
