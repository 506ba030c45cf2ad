"""Issue 21 item 4 in Chromium: the submission page lists every attempt with its verdict, findings and reason (the
progress bar's verdict counts lead to them), and its tables follow the evaluation without a reload."""

from __future__ import annotations

import pytest

from evaluator.models import EvaluationJob, JobState
from leaderboard.models import Submission
from leaderboard.services import refresh_leaderboard_entries
from tests.factories import (
    AttemptFactory,
    ChipFactory,
    EvaluationFactory,
    EvaluationJobFactory,
    OperatorFactory,
    SubmissionFactory,
)
from tests.leaderboard.conftest import evaluate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHEAT_REASON = "a launch-written buffer was read on the host"


@pytest.fixture
def evaluating(live_server):
    cpu = ChipFactory(slug="cpu", name="CPU", vendor="any", family="cpu", device_type="cpu", timing_meaningful=False)
    add, mul = OperatorFactory(source="aten", name="add"), OperatorFactory(source="aten", name="mul_")
    submission = SubmissionFactory(name="two samples", target_chip=cpu, status="evaluating")
    evaluate(submission, add, cpu, job__tier="smoke")
    evaluate(
        submission,
        add,
        cpu,
        verdict="cheat_detected",
        sample_index=1,
        reason=CHEAT_REASON,
        findings=[{"layer": "trace", "detail": "host read of out[0:4]"}, {"layer": "static", "detail": "ctypes"}],
        job__tier="smoke",
    )
    pending = EvaluationJobFactory(attempt=AttemptFactory(submission=submission, operator=mul), chip=cpu, tier="smoke")
    refresh_leaderboard_entries(submission_id=submission.pk)
    return live_server.url, submission, pending


def test_every_attempt_is_listed_and_the_tables_update_without_a_reload(page, evaluating):
    url, submission, pending = evaluating
    page.goto(f"{url}/submissions/{submission.pk}/")
    page.evaluate("window.__marker = 'same page'")
    attempts = page.locator("#attempt-results tbody tr")
    assert attempts.count() == 3
    cheat = page.locator("#attempt-results tbody tr[data-verdict=cheat_detected]")
    assert "aten::add" in cheat.inner_text() and CHEAT_REASON in cheat.inner_text()
    assert "trace: host read of out[0:4]" in cheat.inner_text() and "static: ctypes" in cheat.inner_text()
    assert cheat.get_by_role("link", name="cheat_detected").get_attribute("href").endswith(
        f"/attempts/{submission.attempts.get(sample_index=1, operator_id='aten::add').pk}/"
    )
    assert "queued" in page.locator("#attempt-results tbody tr", has_text="aten::mul_").inner_text()
    assert "evaluating" in page.locator("#submission-results table.leaderboard tbody tr").first.inner_text()

    # the job still pending finishes: its verdict and the final tables appear in place
    EvaluationFactory(job=pending, verdict="incorrect", cases_passed=1, reason="3 of 4 cases differ")
    EvaluationJob.objects.filter(pk=pending.pk).update(state=JobState.DONE)
    Submission.objects.filter(pk=submission.pk).update(status="complete")
    refresh_leaderboard_entries(submission_id=submission.pk)
    page.wait_for_function(
        "() => document.querySelector('#attempt-results').textContent.includes('3 of 4 cases differ')",
        timeout=15_000,
    )
    assert page.evaluate("window.__marker") == "same page"
    operator_row = page.locator("#operator-results tbody tr", has_text="aten::mul_")
    assert "incorrect" in operator_row.inner_text() and "pending" not in operator_row.inner_text()
    summary = page.locator("#submission-results table.leaderboard tbody tr").first.inner_text()
    assert "evaluating" not in summary and "still evaluating" not in summary  # the summary row is final too

    # the progress bar's count of a verdict leads to the attempts that got it
    page.get_by_test_id("progress-verdict-cheat_detected").click()
    page.wait_for_url("**verdict=cheat_detected**")
    assert attempts.count() == 1 and CHEAT_REASON in attempts.first.inner_text()
    assert page.goto(f"{url}/submissions/{submission.pk}/?verdict=nonsense").status == 400
