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
        submissions,
        entries,
        reported,
    )
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


def test_staff_import_reported_through_the_admin(client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.factories import UserFactory

    url = "/admin/leaderboard/reportedresult/import/"
    client.force_login(UserFactory(username="plain"))
    assert client.get(url).status_code == 302  # the admin sends non-staff users to its login page
    client.force_login(UserFactory(username="boss", is_staff=True, is_superuser=True))
    assert client.get(url).status_code == 200
    upload = SimpleUploadedFile(
        "kgb_paper_cost.csv", (DATA / "kgb_paper_cost.csv").read_bytes(), content_type="text/csv"
    )
    response = client.post(url, {"cost_csv": upload})
    assert response.status_code == 302
    assert ReportedResult.objects.filter(table="cost").count() == 9
    assert ReportedResult.objects.first().imported_by.username == "boss"
    bad = SimpleUploadedFile("x.csv", b"a,b\n1,2\n", content_type="text/csv")
    assert client.post(url, {"results_csv": bad}).status_code == 200  # shown again with the error, nothing stored
    assert ReportedResult.objects.count() == 9


def test_rebuild_entries_rebuilds_the_summary_table_from_the_evaluations(board, capsys):
    before = sorted(
        LeaderboardEntry.objects.values_list("submission_id", "chip_id", "operator_set", "operators_correct")
    )
    LeaderboardEntry.objects.all().delete()
    call_command("rebuild_entries", str(board.main.pk))
    assert set(LeaderboardEntry.objects.values_list("submission_id", flat=True)) == {board.main.pk}
    call_command("rebuild_entries")
    after = sorted(
        LeaderboardEntry.objects.values_list("submission_id", "chip_id", "operator_set", "operators_correct")
    )
    assert after == before and "rows rebuilt" in capsys.readouterr().out
    with pytest.raises(CommandError, match="not a submission id"):
        call_command("rebuild_entries", "nope")
