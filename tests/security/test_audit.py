"""Issue 9, audit: every state change of a job is a JobEvent saying who (a user or a runner) and
when; every admin action on runners is a RunnerAuditEvent with the staff user. Driven through the
real doors: the REST APIs, the upload API and the Django admin."""

from __future__ import annotations

import datetime
import io

import pytest
from django.urls import reverse
from django.utils.timezone import now as django_now
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from evaluator import services
from evaluator.models import EvaluationJob, JobEvent, JobState, Runner, RunnerAuditEvent, RunnerState
from tests.factories import AttemptFactory, SubmissionFactory
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip

pytestmark = pytest.mark.django_db


def runner_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    return client


def result(job) -> dict:
    return {"schema": "kgb.result/1", "verdict": "correct", "operator": job.attempt.operator_id, "tier": job.tier}


def assert_complete_history(job: EvaluationJob) -> list[JobEvent]:
    """The events chain from nothing to the job's current state, each naming who caused it."""
    job.refresh_from_db()
    events = list(JobEvent.objects.filter(job=job).order_by("at", "id"))
    assert events, f"job {job.id} has no events"
    previous = ""
    for event in events:
        assert event.from_state == previous, [(e.from_state, e.to_state) for e in events]
        assert event.runner_id or event.user_id, f"{event} names nobody"
        assert event.at is not None
        previous = event.to_state
    assert previous == job.state
    return events


def test_every_transition_of_a_job_through_the_runner_api_is_logged_with_its_runner(world, settings):
    settings.KGB_MAX_JOB_DELIVERIES = 3
    runner, token = services.register_runner(chip=world.gpu, name="gpu-1", user=world.staff)
    attempt = AttemptFactory(submission=SubmissionFactory(target_chip=world.gpu, uploader=world.user))
    (job,) = services.create_jobs(attempts=[attempt], chip=world.gpu, tier="full", user=world.staff)
    client = runner_client(token)
    assert client.post(f"/api/runner/jobs/{job.id}/claim").status_code == 200
    assert client.post(f"/api/runner/jobs/{job.id}/fail", {"error": "device lost"}, format="json").status_code == 200
    assert client.post(f"/api/runner/jobs/{job.id}/claim").status_code == 200
    assert client.post(f"/api/runner/jobs/{job.id}/result", {"result": result(job)}, format="json").status_code == 201
    # a duplicate post changes nothing, so it logs nothing
    assert client.post(f"/api/runner/jobs/{job.id}/result", {"result": result(job)}, format="json").status_code == 200
    events = assert_complete_history(job)
    assert [(e.from_state, e.to_state) for e in events] == [
        ("", "queued"),
        ("queued", "running"),
        ("running", "queued"),
        ("queued", "running"),
        ("running", "done"),
    ]
    assert events[0].user == world.staff
    assert all(e.runner == runner for e in events[1:])
    assert "device lost" in events[2].detail and "verdict=correct" in events[4].detail


def test_a_poison_pill_job_and_a_cancelled_job_are_logged(world, settings):
    settings.KGB_MAX_JOB_DELIVERIES = 1
    _, token = services.register_runner(chip=world.gpu, name="gpu-1", user=world.staff)
    submission = SubmissionFactory(target_chip=world.gpu, uploader=world.user)
    poison, cancelled = services.create_jobs(
        attempts=[AttemptFactory(submission=submission), AttemptFactory(submission=submission)],
        chip=world.gpu,
        tier="full",
        user=world.staff,
    )
    client = runner_client(token)
    assert client.post(f"/api/runner/jobs/{poison.id}/claim").status_code == 200
    # its runner is lost (the lease runs out): redelivered past the limit, the job fails
    EvaluationJob.objects.filter(pk=poison.pk).update(lease_expires_at=django_now() - datetime.timedelta(seconds=1))
    assert client.post(f"/api/runner/jobs/{poison.id}/claim").json()["error"] == "job_failed"
    services.cancel_job(job=cancelled, user=world.user, detail="changed my mind")
    assert assert_complete_history(poison)[-1].to_state == JobState.FAILED
    last = assert_complete_history(cancelled)[-1]
    assert (last.to_state, last.user) == (JobState.CANCELLED, world.user)


def test_jobs_queued_by_an_upload_name_the_uploader(world, django_capture_on_commit_callbacks):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=world.user).key}")
    archive, metadata = io.BytesIO(make_zip({"aten__add.py": KERNEL})), io.BytesIO(make_metadata())
    archive.name, metadata.name = "s.zip", "m.json"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/submissions/", {"archive": archive, "metadata": metadata}, format="multipart")
    assert response.status_code == 201
    (job,) = EvaluationJob.objects.all()
    (event,) = assert_complete_history(job)
    assert event.user == world.user


def test_cancelling_jobs_in_the_admin_is_logged_with_the_staff_user(admin_client, world):
    submission = SubmissionFactory(target_chip=world.gpu, uploader=world.user)
    (job,) = services.create_jobs(attempts=[AttemptFactory(submission=submission)], chip=world.gpu, tier="full")
    response = admin_client.post(
        reverse("admin:evaluator_evaluationjob_changelist"),
        {"action": "cancel_jobs", "_selected_action": [str(job.pk)]},
    )
    assert response.status_code == 302
    last = JobEvent.objects.filter(job=job).last()
    assert (last.from_state, last.to_state, last.user) == ("queued", "cancelled", world.staff)


def test_a_job_state_cannot_change_in_the_admin_without_an_event(admin_client, world):
    """The job change form must not be a way around the log: either the state is read-only there,
    or changing it writes a JobEvent."""
    submission = SubmissionFactory(target_chip=world.gpu, uploader=world.user)
    (job,) = services.create_jobs(
        attempts=[AttemptFactory(submission=submission)], chip=world.gpu, tier="full", user=world.user
    )
    url = reverse("admin:evaluator_evaluationjob_change", args=[job.pk])
    form = admin_client.get(url).context["adminform"].form
    if "state" not in form.fields:
        return  # read-only in the admin: the services are the only way to change it
    data = {**_empty_inline("events"), "state": "done"}
    for name in form.fields:
        value = form[name].value()
        if isinstance(value, datetime.datetime):  # the admin splits date and time
            data[f"{name}_0"], data[f"{name}_1"] = value.date().isoformat(), value.time().strftime("%H:%M:%S")
        elif value is not None and name != "state":
            data[name] = value
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    job.refresh_from_db()
    assert job.state == JobState.DONE
    assert_complete_history(job)


def _empty_inline(prefix: str) -> dict:
    return {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}


def test_every_admin_action_on_runners_is_audited_with_the_staff_user(admin_client, world):
    response = admin_client.post(
        reverse("admin:evaluator_runner_register"), {"chip": world.gpu.pk, "name": "from-the-admin"}
    )
    assert response.status_code == 200 and "kgbr_" in response.content.decode()
    runner = Runner.objects.get(name="from-the-admin")
    changelist = reverse("admin:evaluator_runner_changelist")
    for action, state in (
        ("drain_runners", RunnerState.DRAINING),
        ("disable_runners", RunnerState.DISABLED),
        ("activate_runners", RunnerState.ACTIVE),
        ("rotate_tokens", RunnerState.ACTIVE),
        ("new_signing_keys", RunnerState.ACTIVE),
    ):
        response = admin_client.post(changelist, {"action": action, "_selected_action": [runner.pk]})
        assert response.status_code in (200, 302), action
        runner.refresh_from_db()
        assert runner.state == state
    events = list(RunnerAuditEvent.objects.filter(runner=runner).order_by("at", "id"))
    assert [e.action for e in events] == [
        "register",
        "set_signing_key",  # the key pair made at registration (only its public key is kept)
        "drain",
        "disable",
        "activate",
        "rotate_token",
        "set_signing_key",
    ]
    assert all(e.user == world.staff and e.at is not None for e in events)
    assert "active -> draining" in events[2].detail


def test_editing_a_runner_in_the_admin_is_audited(admin_client, world):
    runner, _ = services.register_runner(chip=world.gpu, name="before", user=world.staff)
    url = reverse("admin:evaluator_runner_change", args=[runner.pk])
    response = admin_client.post(url, {"name": "after", **_empty_inline("audit_events")})
    assert response.status_code == 302, response.content[:500]
    runner.refresh_from_db()
    assert runner.name == "after"
    assert RunnerAuditEvent.objects.filter(runner=runner).exclude(action="register").exists()


def test_deleting_a_runner_in_the_admin_keeps_its_audit_trail(admin_client, world):
    runner, _ = services.register_runner(chip=world.gpu, name="doomed", user=world.staff)
    services.disable_runner(runner=runner, user=world.staff)
    response = admin_client.post(reverse("admin:evaluator_runner_delete", args=[runner.pk]), {"post": "yes"})
    assert response.status_code in (302, 403)
    if response.status_code == 302:
        assert not Runner.objects.filter(pk=runner.pk).exists()
    assert RunnerAuditEvent.objects.filter(action="disable").exists(), "the audit trail went with the runner"
