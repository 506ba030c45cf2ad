"""The leaderboard's answers to the evaluator's signals (evaluator.signals), connected in
LeaderboardConfig.ready. Whoever records a result (the runner API, an imported results bundle),
the same two things follow:

- a job settled: the submission's status follows its jobs, in the same transaction;
- an evaluation recorded: the submission's LeaderboardEntry rows are rebuilt after the commit
  (robust: a failed rebuild is logged and leaves the recorded result in place; `manage.py
  rebuild_entries` repairs the rows).
"""

from __future__ import annotations

from django.db import transaction
from django.dispatch import receiver

from evaluator.models import Evaluation, EvaluationJob
from evaluator.signals import evaluation_recorded, job_settled
from leaderboard import services


@receiver(job_settled, sender=EvaluationJob, dispatch_uid="leaderboard_status_on_job_settled")
def status_on_job_settled(sender, job: EvaluationJob, **kwargs) -> None:
    services.sync_submission_status(submission_id=job.attempt.submission_id)


@receiver(evaluation_recorded, sender=Evaluation, dispatch_uid="leaderboard_refresh_on_evaluation_recorded")
def refresh_on_evaluation_recorded(sender, evaluation: Evaluation, **kwargs) -> None:
    submission_id = evaluation.job.attempt.submission_id
    transaction.on_commit(lambda: services.refresh_leaderboard_entries(submission_id=submission_id), robust=True)
