"""Reads of the evaluator: the runner fleet and queues (staff pages, admin), the queue cap's count,
and the chip ceilings the site ranks with."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from evaluator.models import Chip, EvaluationJob, Runner, VerifyJob
from evaluator.vocabulary import PENDING_JOB_STATES, JobState, RunnerState

# the chip registry's dtype names (evaluator/chips.py) -> the torch dtype names the harness looks up
# (evaluator.harness.backends.Peaks.flops_for); tfloat32 is a matmul mode, not a dtype
_HARNESS_DTYPES = {"float8": ("float8_e4m3fn", "float8_e5m2"), "tfloat32": ()}


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


@dataclass(frozen=True)
class ChipAvailability:
    """What an uploader needs to know of a chip before and after sending it work."""

    chip: Chip
    runners_online: int  # active (not draining or disabled) and heard from within KGB_RUNNER_OFFLINE_AFTER_S
    queued: int
    running: int
    typical_job_s: float | None  # median duration of its recent jobs; None before any finished

    def wait_s(self, *, jobs: int, ahead: int | None = None) -> float | None:
        """About how long `jobs` jobs take to finish behind `ahead` others (by default all the chip holds);
        None when no runner is online (they wait until one connects) or nothing has run there yet."""
        if not self.runners_online or self.typical_job_s is None:
            return None
        ahead = self.queued + self.running if ahead is None else ahead
        rounds = -(-(ahead + jobs) // self.runners_online)  # ceiling division
        return rounds * self.typical_job_s


RECENT_JOBS_FOR_ESTIMATE = 50


def _typical_job_s(chip: Chip) -> float | None:
    durations = sorted(
        (finished - started).total_seconds()
        for started, finished in EvaluationJob.objects.filter(
            chip=chip, state=JobState.DONE, started_at__isnull=False, finished_at__isnull=False
        )
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT_JOBS_FOR_ESTIMATE]
    )
    return durations[len(durations) // 2] if durations else None


def chip_availability(*, chips: Iterable[Chip] | None = None) -> list[ChipAvailability]:
    """Per chip (the active ones unless given): its online runners, its queue and its typical job time."""
    chips = list(Chip.objects.filter(active=True).order_by("vendor", "name") if chips is None else chips)
    since = timezone.now() - timedelta(seconds=settings.KGB_RUNNER_OFFLINE_AFTER_S)
    online = dict(
        Runner.objects.filter(chip__in=chips, state=RunnerState.ACTIVE, last_heartbeat_at__gte=since)
        .values_list("chip_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    depth = {row["chip"].pk: row for row in queue_depth_per_chip()}
    return [
        ChipAvailability(
            chip=chip,
            runners_online=online.get(chip.pk, 0),
            queued=depth.get(chip.pk, {}).get("queued", 0),
            running=depth.get(chip.pk, {}).get("running", 0),
            typical_job_s=_typical_job_s(chip),
        )
        for chip in chips
    ]


def jobs_ahead(*, chip: Chip, job_ids: QuerySet | list) -> int:
    """Jobs of other work on `chip` queued before the first of `job_ids` still queued, or running: what
    stands between them and a runner (fair sharing may let some of them through sooner). `job_ids` may be
    a queryset of ids (a subquery)."""
    ids = job_ids
    first = (
        EvaluationJob.objects.filter(pk__in=ids, chip=chip, state=JobState.QUEUED)
        .order_by("queued_at")
        .values_list("queued_at", flat=True)
        .first()
    )
    if first is None:
        return 0
    return (
        EvaluationJob.objects.filter(chip=chip)
        .filter(Q(state=JobState.RUNNING) | Q(state=JobState.QUEUED, queued_at__lt=first))
        .exclude(pk__in=ids)
        .count()
    )


def jobs_in_flight(*, limit: int = 200) -> QuerySet[EvaluationJob]:
    return (
        EvaluationJob.objects.filter(state=JobState.RUNNING)
        .select_related("chip", "runner", "attempt__operator", "attempt__submission")
        .order_by("started_at")[:limit]
    )


def active_chips() -> QuerySet[Chip]:
    """The chips submissions may target."""
    return Chip.objects.filter(active=True)


def chip_for_slug(*, slug: str) -> Chip | None:
    return Chip.objects.filter(slug=slug).first() if slug else None


def pending_job_count(*, owner_id: int) -> int:
    """The owner's queued and running jobs: what the queue cap counts (index job_owner_state_idx)."""
    return EvaluationJob.objects.filter(owner_id=owner_id, state__in=PENDING_JOB_STATES).count()


def _flops_per_s(tflops: dict) -> dict[str, float]:
    rates: dict[str, float] = {}
    for dtype, value in tflops.items():
        if isinstance(value, int | float) and value > 0:
            for name in _HARNESS_DTYPES.get(dtype, (dtype,)):
                rates[name] = float(value) * 1e12
    return rates


def chip_ceilings(*, chip: Chip) -> dict | None:
    """The ceilings the site ranks a chip with: per figure our measurement where we have one, else
    the datasheet's (a datasheet peak is rarely reached, so %SOL against it reads low). In the
    format of the harness CLI's `--peaks FILE`, with `basis` saying where each figure comes from and
    `datasheet` the published figures beside them. None for a chip without any figure (the CPU
    interpreter): the harness then uses its backend's own defaults."""
    datasheet_bw = chip.peak_bandwidth_gbs * 1e9 if chip.peak_bandwidth_gbs else None
    measured_bw = chip.measured_bandwidth_gbs * 1e9 if chip.measured_bandwidth_gbs else None
    datasheet_flops = _flops_per_s(chip.peak_tflops or {})
    measured_flops = _flops_per_s(chip.measured_tflops or {})
    if datasheet_bw is None and measured_bw is None and not datasheet_flops and not measured_flops:
        return None
    flops = {**datasheet_flops, **measured_flops}
    if "float32" in flops:
        flops["default"] = flops["float32"]  # dtypes not listed (integers, float64 on some chips)
    return {
        "bandwidth_bytes_per_s": measured_bw or datasheet_bw or 0.0,
        "flops_per_s": flops,
        "l2_bytes": chip.l2_bytes or 0,
        "basis": {
            "bandwidth": "measured" if measured_bw else ("datasheet" if datasheet_bw else "unknown"),
            "flops_per_s": {name: "measured" if name in measured_flops else "datasheet" for name in flops},
        },
        "datasheet": {"bandwidth_bytes_per_s": datasheet_bw, "flops_per_s": datasheet_flops},
    }


def verify_call_count(*, owner_id: int, run_label: str) -> int:
    """The test-mode checks a user tagged with one client run id (index verifyjob_owner_run_idx)."""
    return VerifyJob.objects.filter(owner_id=owner_id, run_label=run_label).count() if run_label else 0
