"""What the evaluator announces, for apps above it (the leaderboard) to act on without the
evaluator importing them. Sent by evaluator.services, inside the transaction that made the change,
so a receiver's writes commit or roll back with it; work that should wait for the commit is the
receiver's to defer (transaction.on_commit).

- `evaluation_recorded(sender=Evaluation, evaluation=...)`: a verdict was stored for a job (once
  per job: repeated posts of the same result send nothing).
- `job_settled(sender=EvaluationJob, job=...)`: a job reached a terminal state (done, failed or
  cancelled; evaluator.vocabulary.TERMINAL_JOB_STATES) and will not change again.
"""

from __future__ import annotations

from django.dispatch import Signal

evaluation_recorded = Signal()
job_settled = Signal()
