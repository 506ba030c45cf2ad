import base64
import copy
import hashlib
import hmac
import json
import os
import stat

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from django.conf import settings
from django.core.management import CommandError, call_command

from evaluator import services
from evaluator.harness import signing
from evaluator.models import Evaluation, EvaluationJob, JobState, Runner, RunnerAuditEvent
from kgsite.errors import ApplicationError
from tests.evaluator.conftest import good_result, make_attempts, sign_bundle
from tests.factories import ChipFactory


@pytest.fixture
def jobs(submission, chip):
    return services.create_jobs(attempts=make_attempts(submission, 3), chip=chip, tier="full")


def unsigned_bundle(jobs, chip_slug: str = "h200", **result_overrides) -> dict:
    results = [
        {"job_id": str(job.id), "result": good_result(job.attempt.operator_id, **result_overrides)} for job in jobs
    ]
    return {"schema": "kgb.results/1", "chip": chip_slug, "environment": {}, "results": results, "signature": None}


def signed_bundle(jobs, signing_key: str, chip_slug: str = "h200", **result_overrides) -> dict:
    return sign_bundle(unsigned_bundle(jobs, chip_slug, **result_overrides), signing_key)


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


def test_import_records_results_attributed_to_the_signing_runner_and_is_idempotent(jobs, credentials, tmp_path):
    runner = credentials.runner
    path = tmp_path / "results.json"
    path.write_text(json.dumps(signed_bundle(jobs, credentials.signing_key), indent=1))  # as `bundle run` writes it
    call_command("import_results", str(path))
    assert Evaluation.objects.filter(runner=runner).count() == 3
    assert set(EvaluationJob.objects.values_list("state", flat=True)) == {JobState.DONE}
    call_command("import_results", str(path), "--runner", runner.name)
    assert Evaluation.objects.count() == 3
    assert RunnerAuditEvent.objects.filter(runner=runner, action="import_results").count() == 2


def test_a_tampered_file_is_rejected_whole(jobs, credentials):
    bundle = signed_bundle(jobs, credentials.signing_key, verdict="incorrect")
    tampered = copy.deepcopy(bundle)
    tampered["results"][1]["result"]["verdict"] = "correct"
    with pytest.raises(ApplicationError, match="signature does not match"):
        services.import_results(bundle=tampered)
    # the signature covers the whole file, not only the results
    relabelled = copy.deepcopy(bundle) | {"environment": {"device": "NVIDIA H200", "note": "edited"}}
    with pytest.raises(ApplicationError, match="signature does not match"):
        services.import_results(bundle=relabelled)
    assert not Evaluation.objects.exists()


def forged_relabelled_bundle(jobs) -> dict:
    """A wrong kernel relabelled correct at 250x: what the review made of a bundle with the token hash."""
    return unsigned_bundle(jobs, timing={"speedup": 250.0, "median_us": 1.0}, reason="all cases match")


def old_hmac_signature(bundle: dict, runner: Runner) -> dict:
    """The retired scheme: HMAC-SHA256 over the results, keyed by the token hash the site stores and showed."""
    canonical = json.dumps(bundle["results"], sort_keys=True, separators=(",", ":")).encode()
    digest = hmac.new(runner.token_hash.encode(), canonical, hashlib.sha256).hexdigest()
    return {"token_id": runner.token_id, "hmac_sha256": digest}


def ed25519_signature(bundle: dict, seed: bytes, key_id: str) -> dict:
    """An Ed25519 signature by a key made from `seed`, claiming to be `key_id`'s."""
    private = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest())
    value = base64.b64encode(private.sign(signing.signed_message(bundle))).decode()
    return {"scheme": "ed25519", "key_id": key_id, "value": value}


def test_a_bundle_signed_with_anything_the_site_stores_or_shows_is_refused(jobs, credentials):
    """Issue 15 item 2: the HMAC key was the token hash, stored by the site and shown on the admin page. Now a
    wrong kernel relabelled `correct 250x` cannot be imported, whatever the site knows is used to sign it."""
    runner = Runner.objects.get(pk=credentials.runner.pk)
    known = {
        "token_hash": runner.token_hash.encode(),
        "token_id": runner.token_id.encode(),
        "public_key": runner.signing_public_key.encode(),
        "key_id": runner.signing_key_id.encode(),
        "SECRET_KEY": settings.SECRET_KEY.encode(),
    }
    bundle = forged_relabelled_bundle(jobs)
    with pytest.raises(ApplicationError, match="retired HMAC") as refused:
        services.import_results(bundle=bundle | {"signature": old_hmac_signature(bundle, runner)})
    assert refused.value.code == "retired_signature" and "bundle sign" in refused.value.message
    for name, secret in known.items():
        forged = bundle | {"signature": ed25519_signature(bundle, secret, runner.signing_key_id)}
        with pytest.raises(ApplicationError, match="signature does not match") as refused:
            services.import_results(bundle=forged)
        assert refused.value.code == "bad_signature", name
    # nor a key pair of the attacker's own, registered for nobody
    own_pem, _ = signing.generate_key_pair()
    with pytest.raises(ApplicationError, match="no runner's"):
        services.import_results(bundle=sign_bundle(bundle, own_pem.decode()))
    assert not Evaluation.objects.exists()
    assert set(EvaluationJob.objects.values_list("state", flat=True)) == {JobState.QUEUED}
    # the runner's own key, which only the runner holds, does import it
    assert services.import_results(bundle=sign_bundle(bundle, credentials.signing_key)).recorded == 3


def test_the_site_keeps_only_the_public_key(credentials):
    runner = Runner.objects.get(pk=credentials.runner.pk)
    private = credentials.signing_key
    assert private.startswith("-----BEGIN PRIVATE KEY-----")
    assert runner.signing_public_key == signing.public_key_of(private.encode())
    assert runner.signing_key_id == signing.key_id(signing.parse_public_key(runner.signing_public_key))
    body = private.split("-----")[2].strip()
    stored = json.dumps(list(Runner.objects.values()), default=str) + json.dumps(
        list(RunnerAuditEvent.objects.values()), default=str
    )
    assert body[:40] not in stored and body.replace("\n", "")[-40:] not in stored


def test_a_runner_may_bring_its_own_public_key(jobs, staff, chip):
    pem, public_key = signing.generate_key_pair()  # `python -m evaluator bundle keygen` on the runner's side
    issued = services.enroll_runner(chip=chip, name="own-key", user=staff, signing_public_key=public_key)
    assert issued.signing_key is None and issued.runner.signing_public_key == public_key
    assert services.import_results(bundle=signed_bundle(jobs, pem.decode())).runner == issued.runner
    with pytest.raises(ApplicationError, match="another runner"):
        services.enroll_runner(chip=chip, name="copycat", user=staff, signing_public_key=public_key)
    with pytest.raises(ApplicationError, match="public key"):
        services.enroll_runner(chip=chip, name="bad", user=staff, signing_public_key="ed25519:AAAA")


def test_unsigned_replaced_and_foreign_signatures_are_rejected(jobs, credentials, staff):
    runner = credentials.runner
    with pytest.raises(ApplicationError, match="not signed") as refused:
        services.import_results(bundle=unsigned_bundle(jobs))
    assert "bundle sign" in refused.value.message
    bundle = signed_bundle(jobs, credentials.signing_key)
    services.rotate_token(runner=runner, user=staff)  # the signing key is a credential of its own
    assert services.import_results(bundle=signed_bundle(jobs[:1], credentials.signing_key)).recorded == 1
    services.issue_signing_key(runner=runner, user=staff)  # a new key pair: the old key signs for nobody
    with pytest.raises(ApplicationError, match="no runner's"):
        services.import_results(bundle=bundle)
    other = services.enroll_runner(chip=ChipFactory(slug="mi300x"), name="amd", user=staff)
    with pytest.raises(ApplicationError, match="chip"):
        services.import_results(bundle=signed_bundle(jobs, other.signing_key, chip_slug="h200"))
    with pytest.raises(ApplicationError, match="another chip"):
        services.import_results(bundle=signed_bundle(jobs[1:], other.signing_key, chip_slug="mi300x"))
    assert Evaluation.objects.count() == 1
    assert RunnerAuditEvent.objects.filter(runner=runner, action="set_signing_key").count() == 2


def test_a_named_runner_must_be_the_signer(jobs, credentials):
    with pytest.raises(ApplicationError, match="not 'someone-else'"):
        services.import_results(bundle=signed_bundle(jobs, credentials.signing_key), runner_name="someone-else")


def test_one_malformed_result_rejects_the_whole_file(jobs, credentials):
    bundle = unsigned_bundle(jobs)
    bundle["results"][2]["result"]["verdict"] = "excellent"
    with pytest.raises(ApplicationError, match=r"results\[2\].verdict"):
        services.import_results(bundle=sign_bundle(bundle, credentials.signing_key))
    assert not Evaluation.objects.exists()


def test_runner_failures_without_a_verdict_leave_the_job_queued(jobs, credentials):
    results = [{"job_id": str(jobs[0].id), "result": {"error": "device lost"}}]
    bundle = sign_bundle({"schema": "kgb.results/1", "chip": "h200", "results": results}, credentials.signing_key)
    summary = services.import_results(bundle=bundle)
    assert summary.recorded == 0 and len(summary.runner_failures) == 1
    assert EvaluationJob.objects.get(pk=jobs[0].pk).state == JobState.QUEUED


def test_import_after_a_live_runner_recorded_the_job_is_a_duplicate(jobs, credentials):
    runner = credentials.runner
    services.claim_job(runner=runner, job_id=jobs[0].id)
    services.record_result(
        runner=runner, job_id=jobs[0].id, result=good_result(jobs[0].attempt.operator_id, verdict="incorrect")
    )
    summary = services.import_results(bundle=signed_bundle(jobs, credentials.signing_key))
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
