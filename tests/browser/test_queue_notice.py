"""Issue 21 item 5 in Chromium: before and after an upload the site says which chips have a runner online, how
many jobs are ahead and about how long they take; the uploader re-targets a waiting submission or cancels it."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from evaluator.models import EvaluationJob, JobState
from leaderboard.models import Submission
from tests.browser.helpers import log_in
from tests.factories import (
    AttemptFactory,
    ChipFactory,
    EvaluationJobFactory,
    OperatorFactory,
    RunnerFactory,
    SubmissionFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fleet(live_server):
    """cpu: one runner online whose jobs took 30 s; h200: no runner, one job of someone else already queued."""
    cpu = ChipFactory(slug="cpu", name="CPU", vendor="any", family="cpu", device_type="cpu", timing_meaningful=False)
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    RunnerFactory(chip=cpu, last_heartbeat_at=timezone.now())
    RunnerFactory(chip=h200, last_heartbeat_at=timezone.now() - datetime.timedelta(hours=2))  # offline
    add, mul = OperatorFactory(source="aten", name="add"), OperatorFactory(source="aten", name="mul")
    started = timezone.now() - datetime.timedelta(minutes=5)
    EvaluationJobFactory(
        chip=cpu, state=JobState.DONE, started_at=started, finished_at=started + datetime.timedelta(seconds=30)
    )
    EvaluationJobFactory(chip=h200, queued_at=timezone.now() - datetime.timedelta(minutes=1))
    owner = UserFactory()
    submission = SubmissionFactory(name="waiting", target_chip=h200, status="evaluating", uploader=owner)
    for op in (add, mul):
        EvaluationJobFactory(attempt=AttemptFactory(submission=submission, operator=op), chip=h200, owner=owner)
    return live_server.url, submission, owner


def test_chips_without_runners_are_named_and_a_waiting_submission_is_retargeted_or_cancelled(page, fleet):
    url, submission, owner = fleet
    log_in(page, url, owner.username, next_path="/submissions/new/")
    chips = page.locator("#chip-availability")
    assert "no runner" in chips.locator("tr[data-chip=h200]").inner_text()
    assert "no runner" not in chips.locator("tr[data-chip=cpu]").inner_text()
    assert "30 s" in chips.locator("tr[data-chip=cpu]").inner_text()
    assert '"target_chip": "cpu"' in page.locator("pre").first.inner_text()  # the example names a chip that runs

    page.goto(f"{url}/submissions/{submission.pk}/")
    notice = page.get_by_test_id("queue-notice")
    assert "No runner for NVIDIA H200 is online: 2 jobs wait until one connects (1 other ahead)" in notice.inner_text()
    page.select_option("#retarget-chip", "cpu")
    page.get_by_role("button", name="Re-target").click()
    page.wait_for_url(f"**/submissions/{submission.pk}/")
    submission.refresh_from_db()
    assert submission.target_chip.slug == "cpu"
    states = dict(EvaluationJob.objects.filter(attempt__submission=submission).values_list("chip__slug", "state"))
    assert states == {"h200": JobState.CANCELLED, "cpu": JobState.QUEUED}
    assert "2 jobs queued on CPU behind 0 others; 1 runner online: done in about 60 s" in (
        page.get_by_test_id("queue-notice").inner_text()
    )

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Cancel the evaluation").click()
    page.wait_for_url(f"**/submissions/{submission.pk}/")
    assert "Cancelled 2 pending jobs." in page.locator("body").inner_text()
    assert not EvaluationJob.objects.filter(attempt__submission=submission, state=JobState.QUEUED).exists()
    assert Submission.objects.get(pk=submission.pk).status == "complete"
    assert page.get_by_test_id("queue-notice").count() == 0


def test_only_the_uploader_may_retarget_or_cancel(client, fleet):
    _, submission, _ = fleet
    client.force_login(UserFactory())
    assert client.post(f"/submissions/{submission.pk}/cancel/").status_code == 403
    assert client.post(f"/submissions/{submission.pk}/retarget/", {"chip": "cpu"}).status_code == 403
    client.force_login(submission.uploader)
    assert client.post(f"/submissions/{submission.pk}/retarget/", {"chip": "nope"}).status_code == 400
    assert client.post(f"/submissions/{submission.pk}/retarget/", {"chip": "h200"}).status_code == 409
    assert EvaluationJob.objects.filter(attempt__submission=submission, state=JobState.QUEUED).count() == 2
