import copy
import json
import os
import stat

import pytest
from django.core.management import CommandError, call_command

from evaluator import services
from evaluator.harness.signing import sign_results
from evaluator.models import Evaluation, EvaluationJob, JobState, RunnerAuditEvent
from kgsite.errors import ApplicationError
from tests.evaluator.conftest import good_result, make_attempts
from tests.factories import ChipFactory


@pytest.fixture
def jobs(submission, chip):
    return services.create_jobs(attempts=make_attempts(submission, 3), chip=chip, tier="full")


def signed_bundle(jobs, token: str, chip_slug: str = "h200", **result_overrides) -> dict:
    results = [
        {"job_id": str(job.id), "result": good_result(job.attempt.operator_id, **result_overrides)} for job in jobs
    ]
    return {
        "schema": "kgb.results/1",
        "chip": chip_slug,
        "environment": {},
        "results": results,
        "signature": sign_results(results, token),
    }


def test_export_lists_queued_jobs_with_source_sha_and_seed_and_claims_nothing(jobs, capsys):
    call_command("export_jobs", "--chip", "h200", "--limit", "2")
    bundle = json.loads(capsys.readouterr().out)
    assert bundle["schema"] == "kgb.jobs/1" and bundle["chip"] == "h200"
    assert bundle["timing_protocol"] == "write:events"  # `bundle run` times with what the site ranks
    assert [entry["job_id"] for entry in bundle["jobs"]] == [str(job.id) for job in jobs[:2]]
    entry = bundle["jobs"][0]
    assert entry["solution"]["sha256"] == jobs[0].attempt.source_sha256
    assert isinstance(entry["seed"], int) and entry["secret_seed"] is False
    assert set(EvaluationJob.objects.values_list("state", flat=True)) == {JobState.QUEUED}


def test_export_refuses_an_unknown_chip(db):
    with pytest.raises(CommandError, match="no chip"):
        call_command("export_jobs", "--chip", "nope")


def test_import_records_results_attributed_to_the_signing_runner_and_is_idempotent(jobs, runner_and_token, tmp_path):
    runner, token = runner_and_token
    path = tmp_path / "results.json"
    path.write_text(json.dumps(signed_bundle(jobs, token)))
    call_command("import_results", str(path))
    assert Evaluation.objects.filter(runner=runner).count() == 3
    assert set(EvaluationJob.objects.values_list("state", flat=True)) == {JobState.DONE}
    call_command("import_results", str(path), "--runner", runner.name)
    assert Evaluation.objects.count() == 3
    assert RunnerAuditEvent.objects.filter(runner=runner, action="import_results").count() == 2


def test_a_tampered_file_is_rejected_whole(jobs, runner_and_token):
    _, token = runner_and_token
    bundle = signed_bundle(jobs, token, verdict="incorrect")
    tampered = copy.deepcopy(bundle)
    tampered["results"][1]["result"]["verdict"] = "correct"
    with pytest.raises(ApplicationError, match="signature does not match"):
        services.import_results(bundle=tampered)
    assert not Evaluation.objects.exists()


def test_unsigned_rotated_and_foreign_signatures_are_rejected(jobs, runner_and_token, staff):
    runner, token = runner_and_token
    unsigned = signed_bundle(jobs, token) | {"signature": None}
    with pytest.raises(ApplicationError, match="not signed"):
        services.import_results(bundle=unsigned)
    bundle = signed_bundle(jobs, token)
    services.rotate_token(runner=runner, user=staff)
    with pytest.raises(ApplicationError, match="unknown or was rotated"):
        services.import_results(bundle=bundle)
    _, other_token = services.register_runner(chip=ChipFactory(slug="mi300x"), name="amd", user=staff)
    with pytest.raises(ApplicationError, match="chip"):
        services.import_results(bundle=signed_bundle(jobs, other_token, chip_slug="h200"))
    with pytest.raises(ApplicationError, match="another chip"):
        services.import_results(bundle=signed_bundle(jobs, other_token, chip_slug="mi300x"))
    assert not Evaluation.objects.exists()


def test_a_named_runner_must_be_the_signer(jobs, runner_and_token):
    _, token = runner_and_token
    with pytest.raises(ApplicationError, match="not 'someone-else'"):
        services.import_results(bundle=signed_bundle(jobs, token), runner_name="someone-else")


def test_one_malformed_result_rejects_the_whole_file(jobs, runner_and_token):
    _, token = runner_and_token
    bundle = signed_bundle(jobs, token)
    bundle["results"][2]["result"]["verdict"] = "excellent"
    bundle["signature"] = sign_results(bundle["results"], token)
    with pytest.raises(ApplicationError, match=r"results\[2\].verdict"):
        services.import_results(bundle=bundle)
    assert not Evaluation.objects.exists()


def test_runner_failures_without_a_verdict_leave_the_job_queued(jobs, runner_and_token):
    _, token = runner_and_token
    results = [{"job_id": str(jobs[0].id), "result": {"error": "device lost"}}]
    bundle = {"schema": "kgb.results/1", "chip": "h200", "results": results, "signature": sign_results(results, token)}
    summary = services.import_results(bundle=bundle)
    assert summary.recorded == 0 and len(summary.runner_failures) == 1
    assert EvaluationJob.objects.get(pk=jobs[0].pk).state == JobState.QUEUED


def test_import_after_a_live_runner_recorded_the_job_is_a_duplicate(jobs, runner_and_token):
    runner, token = runner_and_token
    services.claim_job(runner=runner, job_id=jobs[0].id)
    services.record_result(
        runner=runner, job_id=jobs[0].id, result=good_result(jobs[0].attempt.operator_id, verdict="incorrect")
    )
    summary = services.import_results(bundle=signed_bundle(jobs, token))
    assert (summary.recorded, summary.duplicates) == (2, 1)
    assert Evaluation.objects.get(job=jobs[0]).verdict == "incorrect"


def test_run_local_runner_registers_once_and_writes_a_private_token(cpu_chip, settings, tmp_path, capsys):
    settings.VAR_DIR = tmp_path
    call_command("run_local_runner", "--print-only")
    first_command = capsys.readouterr().out
    token_path = tmp_path / "local_runner.token"
    assert stat.S_IMODE(os.stat(token_path).st_mode) == 0o600
    token = token_path.read_text().strip()
    runner = services.runner_for_token(token)
    assert runner is not None and runner.chip == cpu_chip
    call_command("run_local_runner", "--print-only")
    assert token_path.read_text().strip() == token  # still valid: reused, not rotated
    assert "--token-file" in first_command and "--chip cpu" in first_command and token not in first_command
