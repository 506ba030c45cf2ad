"""A staff user can list, add and change every model in the admin."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.factories import (
    AttemptFactory,
    ChipFactory,
    EvaluationFactory,
    LLMModelFactory,
    OperatorFactory,
    RunnerFactory,
    ScaffoldFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    user = UserFactory(username="admin", is_staff=True, is_superuser=True)
    client.force_login(user)
    return client


def _registered():
    return [m for m in admin.site._registry if m._meta.app_label in {"operators", "evaluator", "leaderboard"}]


def test_every_domain_model_is_registered() -> None:
    names = {m.__name__ for m in _registered()}
    assert {
        "Operator",
        "Chip",
        "Runner",
        "EvaluationJob",
        "Evaluation",
        "JobEvent",
        "RunnerAuditEvent",
        "LLMModel",
        "Scaffold",
        "Submission",
        "Attempt",
        "ReportedResult",
    } <= names


def test_changelist_add_and_change_pages_render(staff_client) -> None:
    evaluation = EvaluationFactory()
    objects = {
        "operator": OperatorFactory(),
        "chip": ChipFactory(),
        "runner": RunnerFactory(),
        "llmmodel": LLMModelFactory(),
        "scaffold": ScaffoldFactory(),
        "attempt": AttemptFactory(),
        "evaluation": evaluation,
        "evaluationjob": evaluation.job,
        "submission": evaluation.attempt.submission,
    }
    for model in _registered():
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        assert staff_client.get(changelist).status_code == 200, changelist
        obj = objects.get(opts.model_name)
        if obj is not None:
            change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
            assert staff_client.get(change).status_code == 200, change


def test_admin_is_closed_to_non_staff(client) -> None:
    client.force_login(UserFactory(username="plain"))
    response = client.get(reverse("admin:leaderboard_submission_changelist"))
    assert response.status_code == 302
    assert "/login/" in response["Location"]
