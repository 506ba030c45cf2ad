"""Reads of the evaluator for the staff runners page and the admin."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from evaluator.models import Chip, EvaluationJob, JobState, Runner


@dataclass
class RunnerRow:
    runner: Runner
    online: bool
    jobs_done: int
    jobs_failed: int
    versions: dict


def _versions(environment: dict) -> dict:
    # the fingerprint the agent sends: {"versions": {"torch": ..., "triton": ..., ...}, ...}
    versions = environment.get("versions") if isinstance(environment, dict) else None
    return versions if isinstance(versions, dict) else {}


def runner_rows() -> list[RunnerRow]:
    now = timezone.now()
    runners = (
        Runner.objects.select_related("chip", "current_job")
        .annotate(
            done=Count("jobs", filter=Q(jobs__state=JobState.DONE)),
            failed=Count("jobs", filter=Q(jobs__state=JobState.FAILED)),
        )
        .order_by("chip__slug", "name")
    )
    return [RunnerRow(r, r.is_online(now), r.done, r.failed, _versions(r.last_environment)) for r in runners]


def queue_depth_per_chip() -> list[dict]:
    """Per active chip: queued and running jobs (uses the job (chip, state) index)."""
    counts = {
        (row["chip_id"], row["state"]): row["n"]
        for row in EvaluationJob.objects.filter(state__in=[JobState.QUEUED, JobState.RUNNING])
        .values("chip_id", "state")
        .annotate(n=Count("id"))
    }
    return [
        {
            "chip": chip,
            "queued": counts.get((chip.pk, JobState.QUEUED), 0),
            "running": counts.get((chip.pk, JobState.RUNNING), 0),
        }
        for chip in Chip.objects.filter(active=True).order_by("slug")
    ]


def jobs_in_flight(limit: int = 200) -> QuerySet[EvaluationJob]:
    return (
        EvaluationJob.objects.filter(state=JobState.RUNNING)
        .select_related("chip", "runner", "attempt__operator", "attempt__submission")
        .order_by("started_at")[:limit]
    )
