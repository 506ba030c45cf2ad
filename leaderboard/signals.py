"""Keep the leaderboard summary table in step with recorded results, whoever records them (the runner API,
an imported results bundle, the admin): after the transaction that saved an Evaluation commits, the
submission's LeaderboardEntry rows are rebuilt."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from evaluator.models import Evaluation


def _schedule_refresh(submission_id) -> None:
    from leaderboard.services import refresh_leaderboard_entries

    transaction.on_commit(lambda: refresh_leaderboard_entries(submission_id=submission_id))


@receiver(post_save, sender=Evaluation, dispatch_uid="leaderboard_refresh_on_evaluation_save")
def refresh_on_evaluation(sender, instance: Evaluation, **kwargs) -> None:
    _schedule_refresh(instance.attempt.submission_id)
