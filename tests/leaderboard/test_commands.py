"""Management commands: seed_demo (idempotent, labelled) and import_reported."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from leaderboard.management.commands import seed_demo
from leaderboard.models import LeaderboardEntry, ReportedResult, Submission
from tests.leaderboard.test_services import DATA

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_demo(monkeypatch):
    """A smaller demo (fewer operators and chips) without loading the real catalog, which costs seconds."""
    monkeypatch.setattr(seed_demo, "DEMO_ATEN", ["add", "mul", "sin", "cos"])
    monkeypatch.setattr(seed_demo, "DEMO_VLLM", ["rms_norm"])
    monkeypatch.setattr(seed_demo, "DEMO_CUBLAS", ["cublasSaxpy_v2"])
    monkeypatch.setattr(seed_demo, "CHIP_DIFFICULTY", {"h200": 0.0, "mi300x": 0.1, "cpu": 0.05})
    real_call_command = seed_demo.call_command

    def without_catalog(name, *args, **kwargs):
        if name == "sync_operators":
            raise RuntimeError("catalog not loaded in this test")
        return real_call_command(name, *args, **kwargs)

    monkeypatch.setattr(seed_demo, "call_command", without_catalog)


def test_seed_demo_is_idempotent_and_labelled(small_demo):
    call_command("seed_demo", stdout=None)
    submissions = Submission.objects.count()
    entries = LeaderboardEntry.objects.count()
    reported = ReportedResult.objects.count()
    assert submissions > 10 and entries > 0 and reported == 183
    call_command("seed_demo")
    assert (Submission.objects.count(), LeaderboardEntry.objects.count(), ReportedResult.objects.count()) == (
        submissions, entries, reported)
    assert all(s.is_demo and s.name.startswith("[demo]") for s in Submission.objects.all())
    statuses = set(Submission.objects.values_list("status", flat=True))
    assert {"complete", "evaluating"} <= statuses  # one submission shows live progress
    from evaluator.models import Evaluation

    verdicts = set(Evaluation.objects.values_list("verdict", flat=True))
    assert {"correct", "incorrect", "compile_error"} <= verdicts
    assert set(Evaluation.objects.values_list("chip__slug", flat=True)) == {"h200", "mi300x", "cpu"}


def test_seed_demo_reset_reloads(small_demo):
    call_command("seed_demo")
    first = set(Submission.objects.values_list("pk", flat=True))
    call_command("seed_demo", "--reset")
    assert set(Submission.objects.values_list("pk", flat=True)) == first  # stable ids: links keep working


def test_import_reported_command(tmp_path):
    call_command("import_reported", str(DATA))
    call_command("import_reported", str(DATA / "kgb_paper_cost.csv"))
    assert ReportedResult.objects.count() == 183
    with pytest.raises(CommandError):
        call_command("import_reported", str(tmp_path / "missing"))
