"""Issue 9, hidden shapes of held-out runs: the site operator's private cases (KGB_HIDDEN_CASES_FILE)
go to runners with held-out `full` jobs only, never with public ones; how many an evaluation passed
is recorded, and the held-out badge says "held-out verified (secret seed + N hidden shapes)"."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from evaluator import services
from evaluator.models import Evaluation, EvaluationJob, JobState
from leaderboard import metrics
from leaderboard.services import refresh_leaderboard_entries
from tests.evaluator.result_docs import honest_result
from tests.factories import AttemptFactory, SubmissionFactory

# in the format of the catalog's aten::add full-tier cases; 913 appears in nothing else
HIDDEN = {"shape": [5, 913], "alpha": 0.5, "dtype": "float32", "variant": "Tensor"}


def write(tmp_path, content) -> str:
    path = tmp_path / "hidden.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


# --- check_hidden_cases ---------------------------------------------------------------------------


def test_a_valid_file_passes_and_large_cases_are_only_key_checked(tmp_path, capsys):
    path = write(tmp_path, {"aten::add": [HIDDEN, {**HIDDEN, "shape": [2, 3], "scalar": 1.5}]})
    call_command("check_hidden_cases", path)
    assert "2 hidden case(s) valid; inputs built for 2, 0 over --max-bytes" in capsys.readouterr().out
    call_command("check_hidden_cases", path, "--max-bytes", "1000")  # 2 x 5 x 913 float32 inputs: 36 KB
    assert "inputs built for 1, 1 over --max-bytes" in capsys.readouterr().out


def test_the_configured_file_is_checked_by_default(tmp_path, settings, capsys):
    settings.KGB_HIDDEN_CASES_FILE = write(tmp_path, {"aten::add": [HIDDEN]})
    call_command("check_hidden_cases")
    assert "1 hidden case(s) valid" in capsys.readouterr().out


def test_without_a_path_or_setting_the_command_says_what_to_give(settings):
    settings.KGB_HIDDEN_CASES_FILE = ""
    with pytest.raises(CommandError, match="KGB_HIDDEN_CASES_FILE"):
        call_command("check_hidden_cases")


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        ("{not json", ["not JSON"]),
        ([HIDDEN], ["one object"]),
        ({"aten::no_such_op": [HIDDEN]}, ["unknown operator 'aten::no_such_op'"]),
        ({"aten::add": HIDDEN}, ["must be a list"]),
        (
            {"aten::add": [HIDDEN, {"shape": [4], "dtype": "float32"}, {**HIDDEN, "stride": [1]}]},
            ["aten::add case 1: keys [dtype, shape] differ", "aten::add case 2: keys [alpha, dtype, shape, stride,"],
        ),
        ({"aten::add": [HIDDEN, {**HIDDEN, "dtype": "float99"}]}, ["aten::add case 1: inputs cannot be built"]),
        ({"aten::add": [{**HIDDEN, "shape": [-5, 3]}]}, ["aten::add case 0: inputs cannot be built"]),
    ],
    ids=["not-json", "not-an-object", "unknown-operator", "cases-not-a-list", "wrong-keys", "bad-dtype", "bad-shape"],
)
def test_a_bad_file_fails_with_every_problem_named(tmp_path, capsys, content, needles):
    with pytest.raises(CommandError, match="problem"):
        call_command("check_hidden_cases", write(tmp_path, content))
    errors = capsys.readouterr().err
    for needle in needles:
        assert needle in errors


# --- payloads to runners ----------------------------------------------------------------------------


@pytest.fixture
def hidden_file(tmp_path, settings) -> str:
    settings.KGB_HIDDEN_CASES_FILE = write(tmp_path, {"aten::add": [HIDDEN]})
    return settings.KGB_HIDDEN_CASES_FILE


def jobs(world, *, held_out: bool, tier: str = "full", operator: str = "add") -> EvaluationJob:
    submission = SubmissionFactory(target_chip=world.gpu, uploader=world.user, held_out=held_out)
    attempt = AttemptFactory(submission=submission, operator=world.operators[operator])
    (job,) = services.create_jobs(attempts=[attempt], chip=world.gpu, tier=tier, held_out=held_out)
    return job


def runner_client(world) -> APIClient:
    _, token = services.register_runner(chip=world.gpu, name="gpu-1", user=world.staff)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    return client


@pytest.mark.django_db
def test_only_held_out_full_jobs_carry_hidden_cases_and_public_payloads_hold_no_secret(world, hidden_file, capsys):
    held_out, public = jobs(world, held_out=True), jobs(world, held_out=False)
    held_out_smoke = jobs(world, held_out=True, tier="smoke")
    runner = runner_client(world)
    claimed = {
        job: runner.post(f"/api/runner/jobs/{job.id}/claim").json() for job in (held_out, public, held_out_smoke)
    }
    assert claimed[held_out]["hidden_cases"] == [HIDDEN] and claimed[held_out]["seed"] == held_out.secret_seed
    for job in (public, held_out_smoke):
        assert "hidden_cases" not in claimed[job] and "913" not in json.dumps(claimed[job])
    assert str(held_out.secret_seed) not in json.dumps(claimed[public])
    assert claimed[public]["secret_seed"] is False

    for job in EvaluationJob.objects.all():  # the air-gapped path exports queued jobs the same way
        job.state, job.lease_expires_at = JobState.QUEUED, None  # as a requeue leaves it (no live lease)
        job.save(update_fields=["state", "lease_expires_at"])
    call_command("export_jobs", "--chip", "h200")
    exported = {entry["job_id"]: entry for entry in json.loads(capsys.readouterr().out)["jobs"]}
    assert exported[str(held_out.id)]["hidden_cases"] == [HIDDEN]
    assert "hidden_cases" not in exported[str(public.id)] and "913" not in json.dumps(exported[str(public.id)])
    assert str(held_out.secret_seed) not in json.dumps(exported[str(public.id)])


@pytest.mark.django_db
def test_without_the_setting_no_job_carries_hidden_cases(world, settings):
    settings.KGB_HIDDEN_CASES_FILE = ""
    assert "hidden_cases" not in services.job_payload(jobs(world, held_out=True))


@pytest.mark.django_db
def test_a_broken_file_holds_held_out_jobs_back_and_leaves_public_ones_alone(world, tmp_path, settings):
    settings.KGB_HIDDEN_CASES_FILE = write(tmp_path, {"aten::add": [{"shape": [5, 913]}]})
    held_out, public = jobs(world, held_out=True), jobs(world, held_out=False)
    runner = runner_client(world)
    refused = runner.post(f"/api/runner/jobs/{held_out.id}/claim")
    assert refused.status_code == 503 and refused.json()["error"] == "hidden_cases_unavailable"
    assert "keys [shape] differ" in refused.json()["detail"] and "913" not in refused.content.decode()
    held_out.refresh_from_db()
    assert held_out.state == JobState.QUEUED and held_out.deliveries == 0  # the claim was rolled back
    assert runner.post(f"/api/runner/jobs/{public.id}/claim").status_code == 200
    with pytest.raises(CommandError, match="KGB_HIDDEN_CASES_FILE"):
        call_command("export_jobs", "--chip", "h200")


# --- recorded results and the leaderboard -----------------------------------------------------------


def harness_result(job: EvaluationJob, hidden_passed: list[bool]) -> dict:
    """What the harness reports for a job with hidden cases: public entries, then hidden ones."""
    hidden = [{"params": {"hidden": True}, "hidden": True, "passed": ok, "reason": ""} for ok in hidden_passed]
    result = honest_result(
        job.attempt.operator_id, job.tier, timed=False, seed_kind="secret" if job.held_out else "public"
    )
    result.update(
        verdict="correct" if all(hidden_passed) else "incorrect",
        cases=result["cases"] + hidden,
        hidden_cases=len(hidden),
    )
    return result


@pytest.mark.django_db
def test_hidden_cases_passed_are_recorded_for_held_out_jobs_only(world, hidden_file):
    runner = runner_client(world)
    counted = {}
    for label, held_out, passed in (("ranked", True, [True, False, True]), ("public", False, [True])):
        job = jobs(world, held_out=held_out)
        runner.post(f"/api/runner/jobs/{job.id}/claim")
        response = runner.post(
            f"/api/runner/jobs/{job.id}/result", {"result": harness_result(job, passed)}, format="json"
        )
        assert response.status_code == 201
        counted[label] = Evaluation.objects.get(job=job).hidden_cases_passed
    assert counted == {"ranked": 2, "public": 0}  # a public result cannot claim hidden verification


@pytest.mark.django_db
def test_the_held_out_badge_says_how_many_hidden_shapes_were_verified(world, tmp_path, settings, client):
    settings.KGB_HIDDEN_CASES_FILE = write(tmp_path, {"aten::add": [HIDDEN, {**HIDDEN, "alpha": 0.5}]})
    runner = runner_client(world)
    submissions = {}
    for label, held_out in (("ranked", True), ("public", False)):
        job = jobs(world, held_out=held_out)
        runner.post(f"/api/runner/jobs/{job.id}/claim")
        # as the harness reports: hidden entries only for the hidden cases the job was sent
        posted = runner.post(
            f"/api/runner/jobs/{job.id}/result",
            {"result": harness_result(job, [True, True] if held_out else [])},
            format="json",
        )
        assert posted.status_code == 201
        refresh_leaderboard_entries(submission_id=job.attempt.submission_id)
        submissions[label] = (job.attempt.submission, job.attempt)
    label = "held-out verified (secret seed + 2 hidden shapes)"
    ranked, attempt = submissions["ranked"]

    rows = {row["submission_id"]: row for row in client.get("/api/v1/leaderboard/").json()["results"]}
    assert rows[str(ranked.pk)]["held_out_label"] == label and rows[str(ranked.pk)]["hidden_cases_passed"] == 2
    public_row = rows[str(submissions["public"][0].pk)]
    assert public_row["held_out_label"] == "" and public_row["hidden_cases_passed"] == 0

    page = client.get("/leaderboard/").content.decode()
    start = page.index(f'data-submission="{ranked.pk}"')
    assert f'title="{label}"' in page[start : page.index("</tr>", start)]

    client.force_login(world.user)
    (evaluation,) = client.get(f"/api/v1/attempts/{attempt.pk}/").json()["evaluations"]
    assert evaluation["hidden_cases_passed"] == 2 and evaluation["held_out_label"] == label
    assert f'title="{label}"' in client.get(f"/attempts/{attempt.pk}/").content.decode()


def test_the_badge_text_without_hidden_shapes_and_for_one():
    assert metrics.held_out_label(False, 3) == ""
    assert metrics.held_out_label(True, 0) == "held-out verified (secret seed)"
    assert metrics.held_out_label(True, 1) == "held-out verified (secret seed + 1 hidden shape)"
