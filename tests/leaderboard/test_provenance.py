"""A run's provenance on its row and page: tokens metered by the kgb client apart from self-reported ones, and the
verifier calls the run used, site-counted (test-mode checks tagged with the run's id) apart from client-reported."""

from __future__ import annotations

import pytest

from evaluator.models import VerifyJob
from leaderboard import selectors, services
from leaderboard.provenance import run_provenance
from leaderboard.services import refresh_leaderboard_entries
from leaderboard.vocabulary import TokenSource
from tests.factories import ChipFactory, EvaluationFactory, OperatorFactory, UserFactory
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip

pytestmark = pytest.mark.django_db
RUN_ID = "0b7c2c1e-5a4e-4c69-9b1e-2f4f0a6d9e11"


@pytest.mark.parametrize(
    ("notes", "expected"),
    [
        ({"kgb": {"tokens": "metered", "verify_calls": 7, "run_id": RUN_ID}}, ("metered", 7, RUN_ID)),
        ({"kgb": {"tokens": "agent-log"}}, ("agent-log", None, "")),
        ({"kgb": {"tokens": "made up", "verify_calls": -1, "run_id": "a b"}}, ("self-reported", None, "")),
        ({"kgb": {"tokens": "metered", "verify_calls": True}}, ("metered", None, "")),
        ("free text", ("self-reported", None, "")),
        (None, ("self-reported", None, "")),
    ],
)
def test_run_provenance_believes_only_well_formed_kgb_notes(notes, expected):
    run = run_provenance({"notes": notes} if notes is not None else {})
    assert (run.token_source, run.verify_calls_reported, run.run_id) == expected


def _check(owner, chip, operator, run_label):
    return VerifyJob.objects.create(
        owner=owner,
        chip=chip,
        operator=operator,
        tier="smoke",
        source="x",
        source_sha256="0",
        seed=1,
        timeout_s=1,
        run_label=run_label,
    )


def test_a_metered_run_shows_its_badge_and_who_counted_its_verify_calls(client):
    chip = ChipFactory(slug="cpu", device_type="cpu", family="cpu", timing_meaningful=False)
    add = OperatorFactory(source="aten", name="add")
    uploader, stranger = UserFactory(), UserFactory()
    for _ in range(2):
        _check(uploader, chip, add, RUN_ID)
    _check(stranger, chip, add, RUN_ID)  # another user's checks under the same label are not this run's
    _check(uploader, chip, add, "another-run")
    notes = {"kgb": {"tokens": "metered", "verify_calls": 7, "run_id": RUN_ID}}
    metered = services.create_submission(
        uploader=uploader, archive_bytes=make_zip({"aten__add.py": KERNEL}), metadata_bytes=make_metadata(notes=notes)
    )
    reported = services.create_submission(
        uploader=uploader,
        archive_bytes=make_zip({"aten__add.py": KERNEL}),
        metadata_bytes=make_metadata(name="self-reported run"),
    )
    assert (metered.token_source, metered.verify_calls_reported, metered.verify_calls_counted) == ("metered", 7, 2)
    assert (reported.token_source, reported.verify_calls_reported, reported.verify_calls_counted) == (
        TokenSource.SELF_REPORTED,
        None,
        None,
    )
    for submission in (metered, reported):
        EvaluationFactory(job__attempt=submission.attempts.get(), job__chip=chip, verdict="correct")
        refresh_leaderboard_entries(submission_id=submission.pk)

    rows = {row.name: row for row in selectors.leaderboard_rows(filters=selectors.LeaderboardFilters(chip="cpu"))}
    assert rows["test run"].tokens_metered and not rows["self-reported run"].tokens_metered
    assert rows["test run"].as_export()["token_source"] == "metered"
    page = client.get("/leaderboard/?chip=cpu&preliminary=1").content.decode()
    assert page.count(">metered</span>") == 1
    assert "2 test-mode checks (site) · 7 verifier calls (client-reported)" in page
    detail = client.get(f"/submissions/{metered.pk}/").content.decode()
    assert "metered by the kgb client" in detail and "7 verifier calls (client-reported)" in detail
    assert "self-reported by the uploader" in client.get(f"/submissions/{reported.pk}/").content.decode()
