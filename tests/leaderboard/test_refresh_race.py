"""A leaderboard refresh (run after each recorded result) and a delete of the same submission at the same
moment: the refresh finds the submission gone and writes nothing, instead of inserting rows for it
that fail their foreign key at commit. Two real transactions on two connections, so PostgreSQL only
(SQLite's in-memory test database cannot hold two writers waiting on each other)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.db.models.signals import post_delete

from leaderboard import services
from leaderboard.models import Attempt, LeaderboardEntry, Submission
from tests.factories import AttemptFactory, EvaluationFactory, SubmissionFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def blocked_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


def in_thread(work, outcome: dict, name: str) -> threading.Thread:
    def run() -> None:
        try:
            outcome[name] = work()
        except BaseException as error:  # reported by the test
            outcome[name] = error
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=run, name=name)
    thread.start()
    return thread


def test_a_refresh_racing_the_delete_of_its_submission_refreshes_nothing_and_fails_nothing():
    if connection.vendor != "postgresql":
        pytest.skip("needs two concurrent transactions (PostgreSQL)")
    owner = UserFactory()
    submission = SubmissionFactory(uploader=owner)
    EvaluationFactory(job__attempt=AttemptFactory(submission=submission))
    services.refresh_leaderboard_entries(submission_id=submission.pk)
    assert LeaderboardEntry.objects.filter(submission=submission).exists()

    deleting, finish = threading.Event(), threading.Event()

    def hold_the_delete_open(**kwargs) -> None:
        # past its jobs, evaluations and leaderboard rows, not yet committed
        deleting.set()
        finish.wait(timeout=30)

    outcome: dict = {}
    post_delete.connect(hold_the_delete_open, sender=Attempt, dispatch_uid="test-refresh-race")
    try:
        delete = in_thread(lambda: services.delete_submission(submission=submission, user=owner), outcome, "delete")
        assert deleting.wait(timeout=30)
        refresh = in_thread(
            lambda: services.refresh_leaderboard_entries(submission_id=submission.pk), outcome, "refresh"
        )
        deadline = time.monotonic() + 10
        while not blocked_on_a_lock() and time.monotonic() < deadline:
            time.sleep(0.05)
        finish.set()
        delete.join(timeout=30)
        refresh.join(timeout=30)
    finally:
        finish.set()
        post_delete.disconnect(sender=Attempt, dispatch_uid="test-refresh-race")
    assert outcome == {"delete": None, "refresh": 0}
    assert not Submission.objects.filter(pk=submission.pk).exists()
    assert not LeaderboardEntry.objects.filter(submission_id=submission.pk).exists()
