import io
import json
import re

import pytest

from evaluator import services
from evaluator.harness import signing
from evaluator.models import Evaluation, JobEvent, Runner, RunnerAuditEvent, RunnerState
from tests.evaluator.conftest import good_result, make_attempts, sign_bundle
from tests.factories import UserFactory


@pytest.mark.parametrize("who", ["anonymous", "user"])
def test_runners_page_is_staff_only(client, db, who):
    if who == "user":
        client.force_login(UserFactory())
    assert client.get("/runners/").status_code == 403
    assert client.post("/runners/import/").status_code == 403


def test_runners_page_shows_fleet_queues_and_jobs_in_flight(client, staff, runner_and_token, submission, chip):
    runner, _ = runner_and_token
    services.record_heartbeat(runner=runner, environment={"hostname": "gpu-host-7", "versions": {"triton": "3.9.0"}})
    jobs = services.create_jobs(attempts=make_attempts(submission, 3), chip=chip, tier="full")
    services.claim_job(runner=runner, job_id=jobs[0].id)
    client.force_login(staff)
    page = client.get("/runners/").content.decode()
    assert "gpu-box-1" in page and "online" in page and "gpu-host-7" in page and "triton 3.9.0" in page
    assert str(jobs[0].id) in page  # current job and in flight
    assert re.search(r"chip\.h200</code></td><td>2</td><td>1</td>", page)


def test_upload_imports_a_signed_results_file(client, staff, credentials, submission, chip):
    runner = credentials.runner
    job = services.create_jobs(attempts=make_attempts(submission, 1), chip=chip, tier="full")[0]
    results = [{"job_id": str(job.id), "result": good_result(job.attempt.operator_id)}]
    bundle = sign_bundle({"schema": "kgb.results/1", "chip": "h200", "results": results}, credentials.signing_key)
    client.force_login(staff)
    upload = io.BytesIO(json.dumps(bundle).encode())
    upload.name = "results.json"
    response = client.post("/runners/import/", {"results_file": upload}, follow=True)
    assert "1 recorded" in response.content.decode()
    assert Evaluation.objects.get(job=job).runner == runner
    tampered = dict(
        bundle, results=[{"job_id": str(job.id), "result": good_result(job.attempt.operator_id, verdict="incorrect")}]
    )
    upload = io.BytesIO(json.dumps(tampered).encode())
    upload.name = "results.json"
    response = client.post("/runners/import/", {"results_file": upload}, follow=True)
    assert "Refused" in response.content.decode()


PEM = re.compile(r"-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----")


def test_admin_register_shows_the_token_and_signing_key_once_and_stores_neither(client, staff, chip):
    client.force_login(staff)
    assert client.get("/admin/evaluator/runner/add/").status_code == 302
    response = client.post("/admin/evaluator/runner/register/", {"chip": chip.pk, "name": "new-box"})
    page = response.content.decode()
    token = re.search(r"kgbr_[0-9a-f]{8}_[A-Za-z0-9_-]+", page).group(0)
    private_key = PEM.search(page).group(0)
    assert "no-store" in response["Cache-Control"]
    runner = Runner.objects.get(name="new-box")
    assert services.runner_for_token(token) == runner
    assert runner.signing_public_key == signing.public_key_of(private_key.encode())
    change_page = client.get(f"/admin/evaluator/runner/{runner.pk}/change/").content.decode()
    assert token not in change_page and "PRIVATE KEY" not in change_page
    assert runner.token_hash not in change_page  # nothing on the page signs or authenticates
    assert runner.signing_public_key in change_page


def test_admin_register_takes_the_runners_own_public_key_and_shows_no_private_key(client, staff, chip):
    _, public_key = signing.generate_key_pair()
    client.force_login(staff)
    response = client.post(
        "/admin/evaluator/runner/register/", {"chip": chip.pk, "name": "own-key", "signing_public_key": public_key}
    )
    assert "PRIVATE KEY" not in response.content.decode()
    assert Runner.objects.get(name="own-key").signing_public_key == public_key
    refused = client.post(
        "/admin/evaluator/runner/register/", {"chip": chip.pk, "name": "bad-key", "signing_public_key": "ed25519:x"}
    )
    assert "public key" in refused.content.decode() and not Runner.objects.filter(name="bad-key").exists()


def test_admin_new_signing_key_action_replaces_the_public_key(client, staff, credentials):
    runner = credentials.runner
    client.force_login(staff)
    response = client.post("/admin/evaluator/runner/", {"action": "new_signing_keys", "_selected_action": [runner.pk]})
    private_key = PEM.search(response.content.decode()).group(0)
    assert "no-store" in response["Cache-Control"]
    runner.refresh_from_db()
    assert runner.signing_public_key == signing.public_key_of(private_key.encode())
    assert runner.signing_public_key in response.content.decode()
    assert private_key != credentials.signing_key


@pytest.mark.parametrize(
    ("action", "state"),
    [
        ("drain_runners", RunnerState.DRAINING),
        ("disable_runners", RunnerState.DISABLED),
        ("activate_runners", RunnerState.ACTIVE),
    ],
)
def test_admin_state_actions(client, staff, runner_and_token, action, state):
    runner, _ = runner_and_token
    client.force_login(staff)
    client.post("/admin/evaluator/runner/", {"action": action, "_selected_action": [runner.pk]})
    runner.refresh_from_db()
    assert runner.state == state
    assert RunnerAuditEvent.objects.filter(runner=runner, user=staff).exclude(action="register").exists()


def test_admin_rotate_action_shows_new_token_and_kills_the_old(client, staff, runner_and_token):
    runner, old = runner_and_token
    client.force_login(staff)
    response = client.post("/admin/evaluator/runner/", {"action": "rotate_tokens", "_selected_action": [runner.pk]})
    new = re.search(r"kgbr_[0-9a-f]{8}_[A-Za-z0-9_-]+", response.content.decode()).group(0)
    assert services.runner_for_token(new) == runner and services.runner_for_token(old) is None


def test_non_staff_cannot_reach_the_register_view(client, db):
    client.force_login(UserFactory())
    response = client.get("/admin/evaluator/runner/register/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_admin_cancel_action_is_audited_and_refuses_a_late_result(client, staff, runner_and_token, submission, chip):
    runner, _ = runner_and_token
    job = services.create_jobs(attempts=make_attempts(submission, 1), chip=chip, tier="full")[0]
    services.claim_job(runner=runner, job_id=job.id)
    client.force_login(staff)
    client.post("/admin/evaluator/evaluationjob/", {"action": "cancel_jobs", "_selected_action": [job.pk]})
    job.refresh_from_db()
    assert job.state == "cancelled"
    assert JobEvent.objects.filter(job=job, to_state="cancelled", user=staff).exists()
    with pytest.raises(services.JobConflict):
        services.record_result(runner=runner, job_id=job.id, result=good_result(job.attempt.operator_id))
    assert not Evaluation.objects.exists()
