"""The admin is no way around evaluator.services for jobs and their audit: a job cannot be added
there (it would skip the queue cap, its JobEvent and the dispatch), a job's fields cannot be edited,
and audit rows cannot be added or edited."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluator import services
from evaluator.models import EvaluationJob, JobEvent, RunnerAuditEvent
from tests.factories import AttemptFactory, ChipFactory, SubmissionFactory


@pytest.fixture
def job(world):
    submission = SubmissionFactory(target_chip=world.gpu, uploader=world.user)
    (created,) = services.create_jobs(
        attempts=[AttemptFactory(submission=submission)], chip=world.gpu, tier="full", user=world.user
    )
    return created


def test_staff_cannot_add_a_job_in_the_admin(admin_client, world, sent_tasks):
    attempt = AttemptFactory(submission=SubmissionFactory(target_chip=world.gpu, uploader=world.user))
    url = reverse("admin:evaluator_evaluationjob_add")
    assert admin_client.get(url).status_code == 403
    response = admin_client.post(
        url, {"attempt": attempt.pk, "chip": world.gpu.pk, "tier": "full", "timeout_s": "600", "state": "queued"}
    )
    assert response.status_code == 403
    assert not EvaluationJob.objects.exists() and not JobEvent.objects.exists() and not sent_tasks
    changelist = admin_client.get(reverse("admin:evaluator_evaluationjob_changelist")).content.decode()
    assert url not in changelist


def test_a_job_cannot_be_edited_in_the_admin(admin_client, job):
    other_chip = ChipFactory(slug="mi300x")
    url = reverse("admin:evaluator_evaluationjob_change", args=[job.pk])
    assert admin_client.get(url).context["adminform"].form.fields == {}
    events_before = list(JobEvent.objects.filter(job=job).values_list("pk", flat=True))
    admin_client.post(
        url,
        {
            "chip": other_chip.pk,
            "tier": "smoke",
            "timeout_s": "1",
            "error": "edited",
            # an event slipped in through the inline
            "events-TOTAL_FORMS": "1",
            "events-INITIAL_FORMS": "0",
            "events-0-from_state": "queued",
            "events-0-to_state": "done",
            "events-0-job": str(job.pk),
        },
    )
    job.refresh_from_db()
    assert (job.chip.slug, job.tier, job.timeout_s, job.error) == ("h200", "full", services.TIER_TIMEOUT_S["full"], "")
    assert list(JobEvent.objects.filter(job=job).values_list("pk", flat=True)) == events_before


def test_audit_rows_cannot_be_added_or_edited_in_the_admin(admin_client, world, job):
    event = JobEvent.objects.get(job=job)
    assert admin_client.get(reverse("admin:evaluator_jobevent_add")).status_code == 403
    change = reverse("admin:evaluator_jobevent_change", args=[event.pk])
    assert admin_client.get(change).status_code == 200  # viewable
    assert admin_client.post(change, {"job": job.pk, "to_state": "done", "detail": "forged"}).status_code == 403
    event.refresh_from_db()
    assert (event.to_state, event.detail) == ("queued", "tier=full chip=h200")

    runner, _ = services.register_runner(chip=world.gpu, name="audited", user=world.staff)
    audit = RunnerAuditEvent.objects.get(runner=runner)
    assert admin_client.get(reverse("admin:evaluator_runnerauditevent_add")).status_code == 403
    edit = reverse("admin:evaluator_runnerauditevent_change", args=[audit.pk])
    assert admin_client.post(edit, {"runner": runner.pk, "action": "forged"}).status_code == 403
    delete = reverse("admin:evaluator_runnerauditevent_delete", args=[audit.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert RunnerAuditEvent.objects.filter(pk=audit.pk, action=audit.action).exists()
