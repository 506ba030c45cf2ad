"""The admin is no way around the services for results and submissions: an evaluation (a verdict,
a speedup) can be viewed there but not added, edited or deleted, and deleting a submission there,
one at a time or with the bulk action, goes through leaderboard.services.delete_submission."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict
from django.urls import reverse

from evaluator.models import Evaluation, EvaluationJob, JobState
from leaderboard import admin as leaderboard_admin
from leaderboard import services
from leaderboard.models import Attempt, LeaderboardEntry, Submission
from tests.factories import AttemptFactory, EvaluationFactory, EvaluationJobFactory, SubmissionFactory


@pytest.fixture
def evaluation(world):
    return EvaluationFactory(
        job__attempt=AttemptFactory(submission=SubmissionFactory(target_chip=world.gpu, uploader=world.user)),
        verdict="incorrect",
        speedup=None,
    )


def test_an_evaluation_can_be_viewed_but_not_added_in_the_admin(admin_client, evaluation):
    add = reverse("admin:evaluator_evaluation_add")
    assert admin_client.get(add).status_code == 403
    response = admin_client.post(
        add, {"job": evaluation.job.pk, "attempt": evaluation.attempt.pk, "verdict": "correct", "speedup": "9.9"}
    )
    assert response.status_code == 403
    assert Evaluation.objects.count() == 1
    changelist = admin_client.get(reverse("admin:evaluator_evaluation_changelist"))
    assert changelist.status_code == 200 and add not in changelist.content.decode()


def test_an_evaluation_cannot_be_edited_or_deleted_in_the_admin(admin_client, evaluation):
    change = reverse("admin:evaluator_evaluation_change", args=[evaluation.pk])
    page = admin_client.get(change)
    assert page.status_code == 200 and page.context["adminform"].form.fields == {}  # shown read-only
    assert admin_client.post(change, {"verdict": "correct", "speedup": "9.9"}).status_code == 403
    delete = reverse("admin:evaluator_evaluation_delete", args=[evaluation.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    bulk = admin_client.post(
        reverse("admin:evaluator_evaluation_changelist"),
        {"action": "delete_selected", "_selected_action": [evaluation.pk], "post": "yes"},
    )
    assert bulk.status_code == 200 and not bulk.context["action_form"]  # the list again: no action offered, none run
    evaluation.refresh_from_db()
    assert (evaluation.verdict, evaluation.speedup) == ("incorrect", None)


@pytest.fixture
def service_calls(monkeypatch) -> list:
    """Calls of the service the admin is expected to delete through (it still does the deleting)."""
    calls: list = []

    def recording_delete_submission(*, submission, user) -> None:
        calls.append((submission.pk, user.pk))
        services.delete_submission(submission=submission, user=user)

    monkeypatch.setattr(leaderboard_admin, "delete_submission", recording_delete_submission)
    return calls


def evaluated_submission(world) -> Submission:
    """A submission with a finished job (its evaluation), a queued job and leaderboard rows."""
    submission = SubmissionFactory(target_chip=world.gpu, uploader=world.user)
    EvaluationFactory(job__attempt=AttemptFactory(submission=submission, operator=world.operators["add"]))
    EvaluationJobFactory(
        attempt=AttemptFactory(submission=submission, operator=world.operators["mul"]), state=JobState.QUEUED
    )
    services.refresh_leaderboard_entries(submission_id=submission.pk)
    assert LeaderboardEntry.objects.filter(submission=submission).exists()
    return submission


def left_of(submission_ids: list) -> dict:
    return {
        "submissions": Submission.objects.filter(pk__in=submission_ids).count(),
        "attempts": Attempt.objects.filter(submission_id__in=submission_ids).count(),
        "jobs": EvaluationJob.objects.filter(attempt__submission_id__in=submission_ids).count(),
        "evaluations": Evaluation.objects.filter(attempt__submission_id__in=submission_ids).count(),
        "entries": LeaderboardEntry.objects.filter(submission_id__in=submission_ids).count(),
    }


NOTHING = {"submissions": 0, "attempts": 0, "jobs": 0, "evaluations": 0, "entries": 0}


def test_deleting_a_submission_in_the_admin_goes_through_the_service(admin_client, world, service_calls):
    submission, bystander = evaluated_submission(world), evaluated_submission(world)
    before = left_of([bystander.pk])
    url = reverse("admin:leaderboard_submission_delete", args=[submission.pk])
    confirm = admin_client.get(url)
    assert confirm.status_code == 200 and not confirm.context["perms_lacking"]  # its evaluations go with it
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert service_calls == [(submission.pk, world.staff.pk)]
    assert left_of([submission.pk]) == NOTHING
    assert left_of([bystander.pk]) == before


def test_the_bulk_delete_action_goes_through_the_service(admin_client, world, service_calls):
    selected = [evaluated_submission(world), evaluated_submission(world)]
    bystander = evaluated_submission(world)
    before = left_of([bystander.pk])
    response = admin_client.post(
        reverse("admin:leaderboard_submission_changelist"),
        {"action": "delete_selected", "_selected_action": [s.pk for s in selected], "post": "yes"},
    )
    assert response.status_code == 302
    assert sorted(service_calls) == sorted((s.pk, world.staff.pk) for s in selected)
    assert left_of([s.pk for s in selected]) == NOTHING
    assert left_of([bystander.pk]) == before


@pytest.mark.parametrize("model", ["attempt", "leaderboardentry"])
def test_attempts_and_leaderboard_rows_cannot_be_added_edited_or_deleted_in_the_admin(admin_client, world, model):
    submission = evaluated_submission(world)
    row = (
        Attempt.objects.filter(submission=submission)
        if model == "attempt"
        else LeaderboardEntry.objects.filter(submission=submission)
    ).first()
    before = left_of([submission.pk])
    assert admin_client.get(reverse(f"admin:leaderboard_{model}_add")).status_code == 403
    change = reverse(f"admin:leaderboard_{model}_change", args=[row.pk])
    assert admin_client.get(change).context["adminform"].form.fields == {}  # shown read-only
    assert admin_client.post(change, {"prompt_tokens": "1", "operators_correct": "99"}).status_code == 403
    assert (
        admin_client.post(reverse(f"admin:leaderboard_{model}_delete", args=[row.pk]), {"post": "yes"}).status_code
        == 403
    )
    bulk = admin_client.post(
        reverse(f"admin:leaderboard_{model}_changelist"),
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )
    assert bulk.status_code == 200 and not bulk.context["action_form"]
    assert left_of([submission.pk]) == before
    assert model_to_dict(type(row).objects.get(pk=row.pk)) == model_to_dict(row)
