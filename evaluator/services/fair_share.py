"""Fair dispatch: a chip's queue is shared fairly between the users whose jobs wait for it.

A broker queue is first in, first out: one upload that sent 1,899 messages at once made the next
user's job wait behind all of them. So jobs are recorded at once (the queue cap, progress and
cancellation see them all) but each owner has at most a *window* of jobs per chip in the broker:
sent and not settled (queued with a message, or running). The others wait on the site with no
message (`sent_at` empty). Whenever one of the owner's jobs on the chip settles (dispatch.settle_job),
the owner's next waiting job is sent, behind whatever other owners' jobs are already in the broker.
The broker's queue thus interleaves owners round robin: the next user's first job waits behind at
most one window of each other user's jobs, whatever their backlog.

The window is KGB_FAIR_SHARE_WINDOW, or the chip's active runners if there are more, so that one
user alone still keeps every runner busy. This module only decides which jobs get a message now
(and marks them sent); evaluator.services.dispatch sends them, after commit.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from evaluator.models import EvaluationJob, Runner
from evaluator.vocabulary import JobState, RunnerState


def window_size(*, chip_id: int) -> int:
    """How many of one owner's jobs on this chip may be in the broker at once."""
    runners = Runner.objects.filter(chip_id=chip_id, state=RunnerState.ACTIVE).count()
    return max(settings.KGB_FAIR_SHARE_WINDOW, runners)


def _group(chip_id: int, owner_id: int | None) -> QuerySet[EvaluationJob]:
    jobs = EvaluationJob.objects.filter(chip_id=chip_id)
    return jobs.filter(owner__isnull=True) if owner_id is None else jobs.filter(owner_id=owner_id)


def _group_turns(chip_id: int, owner_id: int | None, now) -> list[EvaluationJob]:
    group = _group(chip_id, owner_id)
    in_broker = group.filter(Q(state=JobState.RUNNING) | Q(state=JobState.QUEUED, sent_at__isnull=False)).count()
    free = window_size(chip_id=chip_id) - in_broker
    if free <= 0:
        return []
    with transaction.atomic():
        # skip_locked (PostgreSQL): two settles of one owner at once each take a different next job
        ids = list(
            group.filter(state=JobState.QUEUED, sent_at__isnull=True)
            .order_by("queued_at", "id")
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)[:free]
        )
        if not ids:
            return []
        EvaluationJob.objects.filter(pk__in=ids, sent_at__isnull=True).update(sent_at=now)
        return list(EvaluationJob.objects.filter(pk__in=ids).select_related("chip").order_by("queued_at", "id"))


def take_turns(*, chip_id: int | None = None, owner_ids: Iterable[int | None] | None = None) -> list[EvaluationJob]:
    """The waiting jobs whose owner's window on their chip has room, oldest first per owner, marked sent
    (`sent_at`): the caller sends each of them now. Limited to one chip and to some owners when given
    (None in `owner_ids` is the jobs nobody owns); without limits, every waiting job of every owner
    (what a repair run, `resend_queued_jobs`, does)."""
    waiting = EvaluationJob.objects.filter(state=JobState.QUEUED, sent_at__isnull=True)
    if chip_id is not None:
        waiting = waiting.filter(chip_id=chip_id)
    groups = set(waiting.values_list("chip_id", "owner_id").distinct())
    if owner_ids is not None:
        wanted = set(owner_ids)
        groups = {(chip, owner) for chip, owner in groups if owner in wanted}
    now = timezone.now()
    turns: list[EvaluationJob] = []
    for group_chip_id, owner_id in sorted(groups, key=lambda g: (g[0], g[1] is None, g[1] or 0)):
        turns.extend(_group_turns(group_chip_id, owner_id, now))
    return turns


def fair_order(jobs: QuerySet[EvaluationJob]) -> QuerySet[EvaluationJob]:
    """The jobs ordered round robin across owners: every owner's oldest job, then every owner's second
    oldest, and so on (ties by age). For lists taken outside the broker (an air-gapped chip's bundle)."""
    turn = Window(RowNumber(), partition_by=[F("owner_id")], order_by=[F("queued_at").asc(), F("id").asc()])
    return jobs.annotate(fair_turn=turn).order_by("fair_turn", "queued_at", "id")
