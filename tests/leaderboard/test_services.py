"""Writes: storing an upload atomically and enqueueing it, the summary table's refresh, reported imports, tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import override_settings

from evaluator import services as evaluator_services
from evaluator.models import EvaluationJob
from kgsite.errors import Forbidden
from leaderboard import services
from leaderboard.models import Attempt, LeaderboardEntry, ReportedResult, Submission
from leaderboard.upload import UploadInvalid
from tests.factories import ChipFactory, EvaluationFactory, OperatorFactory, UserFactory
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[2] / "leaderboard" / "data"


@pytest.fixture
def catalog(db):
    ChipFactory(slug="cpu", device_type="cpu", family="cpu", timing_meaningful=False)
    return [OperatorFactory(source="aten", name="add"), OperatorFactory(source="aten", name="mul")]


def test_create_submission_stores_everything_then_enqueues_after_commit(
    catalog, sent_tasks, django_capture_on_commit_callbacks
):
    user = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.create_submission(
            uploader=user,
            archive_bytes=make_zip({"aten__add.py": KERNEL, "aten__mul.py": KERNEL}),
            metadata_bytes=make_metadata(),
        )
    attempts = {a.operator_id: a for a in Attempt.objects.filter(submission=submission)}
    assert set(attempts) == {"aten::add", "aten::mul"}
    assert (attempts["aten::add"].prompt_tokens, attempts["aten::add"].cached_tokens, attempts["aten::add"].turns) == (
        1000,
        100,
        3,
    )
    assert attempts["aten::mul"].prompt_tokens == 0
    assert submission.uploader == user and submission.target_chip.slug == "cpu" and submission.model.name == "model-x"
    jobs = EvaluationJob.objects.filter(attempt__submission=submission)
    assert jobs.count() == 2 and set(jobs.values_list("tier", flat=True)) == {"smoke"}
    assert len(sent_tasks) == 2  # sent only once the transaction committed
    assert Submission.objects.get(pk=submission.pk).status == "evaluating"
    assert LeaderboardEntry.objects.filter(submission=submission, chip__slug="cpu", operator_set="aten").exists()


def test_invalid_upload_stores_nothing(catalog, sent_tasks):
    with pytest.raises(UploadInvalid):
        services.create_submission(
            uploader=UserFactory(),
            archive_bytes=make_zip({"aten__add.py": KERNEL, "aten__zzz.py": KERNEL}),
            metadata_bytes=make_metadata(),
        )
    assert not Submission.objects.exists() and not Attempt.objects.exists() and not sent_tasks


@override_settings(KGB_MAX_QUEUED_JOBS_PER_USER=1)
def test_queue_cap_refuses_the_upload_and_stores_nothing(catalog, sent_tasks):
    with pytest.raises(UploadInvalid) as caught:
        services.create_submission(
            uploader=UserFactory(),
            archive_bytes=make_zip({"aten__add.py": KERNEL, "aten__mul.py": KERNEL}),
            metadata_bytes=make_metadata(),
        )
    assert "limit of 1" in str(caught.value)
    assert not Submission.objects.exists()


def test_retired_operators_cannot_be_submitted(catalog):
    catalog[0].in_catalog = False
    catalog[0].save()
    with pytest.raises(UploadInvalid, match="unknown operator 'aten::add'"):
        services.create_submission(
            uploader=UserFactory(), archive_bytes=make_zip({"aten__add.py": KERNEL}), metadata_bytes=make_metadata()
        )


def test_recording_an_evaluation_refreshes_the_board(board, django_capture_on_commit_callbacks):
    """Through the evaluator's own path (claim, record): its evaluation_recorded signal refreshes the rows."""
    LeaderboardEntry.objects.all().delete()
    attempt = board.main.attempts.get(operator=board.ops["a3"])
    runner, _ = evaluator_services.register_runner(chip=board.mi300x, name="amd-1", user=board.owner)
    with django_capture_on_commit_callbacks(execute=True):
        (job,) = evaluator_services.create_jobs(attempts=[attempt], chip=board.mi300x, tier="full")
        evaluator_services.claim_job(runner=runner, job_id=job.pk)
        result = {"verdict": "correct", "operator": attempt.operator_id, "tier": "full", "timing": {"speedup": 1.2}}
        evaluation, _ = evaluator_services.record_result(runner=runner, job_id=job.pk, result=result)
    # the rows were refreshed; this result (no cases, an operator the catalog lacks) is rejected, so it counts nowhere
    assert evaluation.rejected_reason
    assert LeaderboardEntry.objects.filter(submission=board.main).exists()
    assert not LeaderboardEntry.objects.filter(submission=board.main, chip=board.mi300x, operators_evaluated__gt=0)


def test_saving_an_evaluation_outside_the_evaluator_refreshes_nothing(board, django_capture_on_commit_callbacks):
    """No hidden hop: only the evaluator's signal refreshes the rows (a plain ORM save does not)."""
    LeaderboardEntry.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        EvaluationFactory(job__attempt=board.main.attempts.get(operator=board.ops["a3"]), job__chip=board.mi300x)
    assert not LeaderboardEntry.objects.exists()


def test_delete_is_for_the_owner_and_staff(board):
    with pytest.raises(Forbidden):
        services.delete_submission(submission=board.main, user=board.other)
    services.delete_submission(submission=board.main, user=board.owner)
    assert not Submission.objects.filter(pk=board.main.pk).exists()
    assert not LeaderboardEntry.objects.filter(submission_id=board.main.pk).exists()


def test_rotating_the_token_replaces_it():
    user = UserFactory()
    first = services.rotate_api_token(user=user)
    second = services.rotate_api_token(user=user)
    assert first.key != second.key
    assert list(user.__class__.objects.get(pk=user.pk).auth_token.key) == list(second.key)


def test_import_reported_is_idempotent_and_names_platform_e(db):
    ChipFactory(slug="a100", name="NVIDIA A100")
    first = services.import_reported_dir(path=DATA)
    again = services.import_reported_dir(path=DATA)
    total = ReportedResult.objects.count()
    assert first.created == total == 174 + 9 and again.created == 0 and again.updated == total
    cell = ReportedResult.objects.get(
        table="multi_chip", method="AutoKernel", model_name="GLM-5.0", chip_label="Platform E (Iluvatar CoreX)"
    )
    assert (cell.accuracy_pct, cell.speedup) == (25.0, 1.01)
    assert ReportedResult.objects.filter(chip_label="Platform A").exists()  # the others stay anonymous
    claude = ReportedResult.objects.get(table="cost", method="Claude Code", model_name="Opus-4.6")
    assert (claude.total_tokens_m, claude.tokens_per_success_m, claude.total_time_h) == (263.0, 1.45, 33.0)
    assert claude.chip.slug == "a100"


def test_import_reported_refuses_an_unrelated_file(tmp_path, db):
    other = tmp_path / "x.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError):
        services.import_reported_dir(path=other)
