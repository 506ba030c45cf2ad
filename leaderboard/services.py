"""Writes of the leaderboard app: submissions and their status, the leaderboard summary table, API
tokens, reported results.

The leaderboard sits above the evaluator: it hands attempts to evaluator.services to be evaluated
and learns what happened through the evaluator's signals (leaderboard.receivers). It alone writes
a submission's status (sync_submission_status) and its LeaderboardEntry rows
(refresh_leaderboard_entries).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token

from evaluator import selectors as evaluator_selectors
from evaluator import services as evaluator_services
from evaluator.errors import QueueLimitExceeded
from evaluator.models import Chip, Evaluation, EvaluationJob
from evaluator.vocabulary import COMPILED_VERDICTS, PENDING_JOB_STATES, TERMINAL_JOB_STATES, Verdict
from kgsite.errors import Conflict, Forbidden, Invalid
from leaderboard import metrics, selectors
from leaderboard.models import (
    Attempt,
    LeaderboardEntry,
    LLMModel,
    ReportedResult,
    Scaffold,
    Submission,
)
from leaderboard.provenance import run_provenance
from leaderboard.upload import UploadError, UploadInvalid, ValidatedUpload, validate_upload
from leaderboard.vocabulary import (
    COUNTED_TIERS,
    MIXED,
    OPEN_SUBMISSION_STATUSES,
    UNTIMED,
    OperatorSet,
    ScaffoldKind,
    SubmissionStatus,
)
from operators.models import Operator


@dataclass
class _Sample:
    tier_rank: int
    evaluation_id: int
    verdict: str
    speedup: float | None
    sol_pct: float | None
    held_out: bool
    hidden_cases_passed: int
    tier: str = ""
    protocol: str = ""  # FLUSH:CLOCK of its timing (evaluator.services.timing_protocol)


@dataclass
class _Counted:
    """What the counted evaluations of a submission hold: per (chip id, operator id) the operator's outcome, and
    per chip the tiers of the counted verdicts and the protocols of the counted speedups (a row's comparability)."""

    outcomes: dict[tuple[int, str], metrics.OperatorOutcome]
    tiers: dict[int, set[str]]
    protocols: dict[int, set[str]]


def _outcomes_per_chip(submission_id) -> _Counted:
    """(chip id, operator id) -> the operator's outcome on that chip, from the counted evaluation of each sample."""
    # rejected results (evaluator.services.result_checks) count nowhere: filtered here, the one feed of the rows
    counted = Evaluation.objects.ranked().filter(attempt__submission_id=submission_id, tier__in=list(COUNTED_TIERS))
    rows = counted.values_list(
        "id",
        "attempt_id",
        "attempt__operator_id",
        "chip_id",
        "tier",
        "verdict",
        "speedup",
        "sol_pct",
        "held_out",
        "hidden_cases_passed",
        "environment__l2_flush",
        "environment__timing_clock",
    )
    chosen: dict[tuple[int, int], tuple[str, _Sample]] = {}
    for eid, attempt_id, op_id, chip_id, tier, verdict, speedup, sol, held_out, hidden_passed, flush, clock in rows:
        protocol = evaluator_services.timing_protocol({"l2_flush": flush, "timing_clock": clock})
        sample = _Sample(COUNTED_TIERS[tier], eid, verdict, speedup, sol, held_out, hidden_passed, tier, protocol)
        key = (attempt_id, chip_id)
        current = chosen.get(key)
        # one verdict per sample and chip: the highest tier, then the latest evaluation
        if current is None or (sample.tier_rank, sample.evaluation_id) > (
            current[1].tier_rank,
            current[1].evaluation_id,
        ):
            chosen[key] = (op_id, sample)
    per_operator: dict[tuple[int, str], list[_Sample]] = defaultdict(list)
    tiers: dict[int, set[str]] = defaultdict(set)
    protocols: dict[int, set[str]] = defaultdict(set)
    for (_attempt_id, chip_id), (op_id, sample) in chosen.items():
        per_operator[(chip_id, op_id)].append(sample)
        tiers[chip_id].add(sample.tier)
        if sample.speedup is not None:
            protocols[chip_id].add(sample.protocol)
    outcomes = {}
    for key, samples in per_operator.items():
        correct = [s for s in samples if s.verdict == Verdict.CORRECT]
        speedups = [s.speedup for s in correct if s.speedup]
        sols = [s.sol_pct for s in correct if s.sol_pct is not None]
        outcomes[key] = metrics.OperatorOutcome(
            samples=len(samples),
            samples_correct=len(correct),
            compiled=any(s.verdict in COMPILED_VERDICTS for s in samples),
            correct=bool(correct),
            best_speedup=max(speedups) if speedups else None,
            best_sol_pct=max(sols) if sols else None,
            held_out=all(s.held_out for s in samples),
            hidden_cases_passed=max(s.hidden_cases_passed for s in samples),
        )
    return _Counted(outcomes, tiers, protocols)


def _comparability(chip: Chip, tiers: set[str], protocols: set[str]) -> tuple[str, str]:
    """(tier, timing protocol) of a row on `chip` whose counted verdicts (and pending jobs) are of `tiers` and
    whose speedups were timed under `protocols`: the one value, MIXED for several; with none yet, the chip's
    default tier and the ranked protocol (what its jobs are sent with); UNTIMED where timings mean nothing."""
    tier = MIXED if len(tiers) > 1 else next(iter(tiers), None) or evaluator_services.default_tier(chip)
    if not chip.timing_meaningful:
        protocol = UNTIMED
    elif len(protocols) > 1:
        protocol = MIXED
    else:
        protocol = next(iter(protocols), None) or settings.KGB_RANKED_TIMING_PROTOCOL
    return tier, protocol


def refresh_leaderboard_entries(*, submission_id) -> int:
    """Rebuild the submission's LeaderboardEntry rows from its attempts and evaluations. Returns the row count.

    Cheap (one submission: at most a few thousand evaluations) and idempotent, so it runs after every
    recorded result (leaderboard.receivers); the target chip always gets rows so a submission shows up
    while it is evaluated.

    A submission deleted before or during the refresh leaves nothing to refresh (returns 0): the
    refresh first locks the submission's jobs, as delete_submission does in the same order, so the
    two run one after the other. Interleaved, the rows written here would point at a deleted
    submission: an IntegrityError at commit, after the result that triggered the refresh was saved.
    """
    with transaction.atomic():
        jobs = _lock_jobs(submission_id)
        submission = Submission.objects.filter(pk=submission_id).values("target_chip_id").first()
        if submission is None:
            return 0
        pending = defaultdict(set)  # chip id -> tiers of counted jobs still to report: the row's tier to come
        for chip_id, tier, state in jobs:
            if state in PENDING_JOB_STATES and tier in COUNTED_TIERS:
                pending[chip_id].add(tier)
        entries = _entries(submission_id, submission["target_chip_id"], pending_tiers=pending)
        LeaderboardEntry.objects.filter(submission_id=submission_id).delete()
        LeaderboardEntry.objects.bulk_create(entries)
    return len(entries)


def _lock_jobs(submission_id) -> list[tuple[int, str, str]]:
    """Lock the submission's jobs; returns their (chip id, tier, state)."""
    return list(
        EvaluationJob.objects.select_for_update(of=("self",))
        .filter(attempt__submission_id=submission_id)
        .order_by("pk")  # delete_submission's order: the two cannot deadlock
        .values_list("chip_id", "tier", "state")
    )


def _entries(submission_id, target_chip_id, *, pending_tiers: dict[int, set[str]]) -> list[LeaderboardEntry]:
    """The submission's LeaderboardEntry rows (unsaved), per chip and operator set."""
    operators = {
        op_id: (source, mc)
        for op_id, source, mc in Operator.objects.filter(attempts__submission_id=submission_id)
        .values_list("id", "source", "mc")
        .distinct()
    }
    tokens: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    attempted: dict[str, set[str]] = defaultdict(set)
    for op_id, p, c, cached, reasoning, wall in Attempt.objects.filter(submission_id=submission_id).values_list(
        "operator_id", "prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens", "wall_time_s"
    ):
        source, mc = operators[op_id]
        for op_set in (OperatorSet.ALL, source, OperatorSet.MC) if mc else (OperatorSet.ALL, source):
            bucket = tokens[op_set]
            bucket["prompt_tokens"] += p
            bucket["completion_tokens"] += c
            bucket["cached_tokens"] += cached
            bucket["reasoning_tokens"] += reasoning
            bucket["wall_time_s"] += wall or 0.0
            attempted[op_set].add(op_id)
    counted = _outcomes_per_chip(submission_id)
    outcomes = counted.outcomes
    chips = {chip_id for chip_id, _ in outcomes} | {target_chip_id}
    entries = []
    for chip in Chip.objects.filter(pk__in=chips):
        chip_id = chip.pk
        tier, protocol = _comparability(
            chip, counted.tiers.get(chip_id, set()) | pending_tiers.get(chip_id, set()), counted.protocols[chip_id]
        )
        for op_set in attempted:
            in_set = [
                outcome
                for (c_id, op_id), outcome in outcomes.items()
                if c_id == chip_id
                and (
                    op_set == OperatorSet.ALL
                    or operators[op_id][0] == op_set
                    or (op_set == OperatorSet.MC and operators[op_id][1])
                )
            ]
            totals = metrics.totals_from_outcomes(in_set, operators_attempted=len(attempted[op_set]))
            bucket = tokens[op_set]
            entries.append(
                LeaderboardEntry(
                    submission_id=submission_id,
                    chip_id=chip_id,
                    operator_set=op_set,
                    **{name: getattr(totals, name) for name in metrics.Totals.__dataclass_fields__},
                    prompt_tokens=int(bucket["prompt_tokens"]),
                    completion_tokens=int(bucket["completion_tokens"]),
                    cached_tokens=int(bucket["cached_tokens"]),
                    reasoning_tokens=int(bucket["reasoning_tokens"]),
                    wall_time_s=bucket["wall_time_s"],
                    tier=tier,
                    timing_protocol=protocol,
                )
            )
    return entries


def rebuild_all_entries(*, submission_ids: Iterable | None = None) -> int:
    """Rebuild the LeaderboardEntry rows of the given submissions (all of them by default): after a
    change to how the rows are computed, or to repair them (`manage.py rebuild_entries`)."""
    ids = list(submission_ids) if submission_ids is not None else list(Submission.objects.values_list("id", flat=True))
    return sum(refresh_leaderboard_entries(submission_id=sid) for sid in ids)


# --- a submission's status: one writer ---------------------------------------------------------------------


@transaction.atomic
def sync_submission_status(*, submission_id) -> str | None:
    """Bring the submission's status in line with its jobs, and return it (None: no such submission).

    The one writer of Submission.status, apart from withdraw_submission. A received or evaluating
    submission is evaluating while any of its jobs is queued or running, and complete once it has
    jobs and all of them have settled (a job that failed without a verdict has settled too: the
    submission is complete, with that operator unevaluated). A complete or withdrawn submission
    stays as it is. Called when jobs are created (enqueue_submission) and whenever one settles
    (the evaluator's job_settled signal), inside that transaction. The submission row is locked
    first: two jobs of one submission settling at once are counted one after the other, so the
    second sees the first one settled.
    """
    status = (
        Submission.objects.select_for_update(of=("self",)).filter(pk=submission_id).values_list("status", flat=True)
    ).first()
    if status is None or status not in OPEN_SUBMISSION_STATUSES:
        return status
    states = set(EvaluationJob.objects.filter(attempt__submission_id=submission_id).values_list("state", flat=True))
    if not states:
        return status
    new = SubmissionStatus.COMPLETE if states <= set(TERMINAL_JOB_STATES) else SubmissionStatus.EVALUATING
    if new != status:
        Submission.objects.filter(pk=submission_id).update(status=new)
    return new


@transaction.atomic
def withdraw_submission(*, submission: Submission, user: AbstractBaseUser) -> None:
    """Take a submission off every board and list, keeping its records (staff only)."""
    if not user.is_staff:
        raise Forbidden("only staff can withdraw a submission")
    Submission.objects.filter(pk=submission.pk).update(status=SubmissionStatus.WITHDRAWN)
    submission.status = SubmissionStatus.WITHDRAWN


# --- submissions ---------------------------------------------------------------------------------------------


def _known_operators(ids):
    return set(Operator.objects.filter(id__in=list(ids), in_catalog=True).values_list("id", flat=True))


@transaction.atomic
def enqueue_submission(
    *, submission: Submission, tier: str | None = None, user: AbstractBaseUser | None = None
) -> list[EvaluationJob]:
    """Jobs for every attempt of a submission on its target chip (smoke on cpu, full elsewhere), held
    out when the submission is; the submission is then evaluating. Raises QueueLimitExceeded when
    the uploader's queue has no room for them (nothing is created)."""
    chip = submission.target_chip
    attempts = list(submission.attempts.select_related("submission"))
    jobs = evaluator_services.create_jobs(
        attempts=attempts,
        chip=chip,
        tier=tier or evaluator_services.default_tier(chip),
        held_out=submission.held_out,
        user=user,
    )
    status = sync_submission_status(submission_id=submission.pk)
    if status is not None:
        submission.status = status
    return jobs


@dataclass(frozen=True)
class UploadChoices:
    """What an uploader chose beside the metadata file (the upload form's and the API's fields). A registered
    model or scaffold picked by id replaces the metadata's section (which may then be left out); new_model and
    new_scaffold confirm that a name the metadata gives, close to a known one, is really another."""

    model_id: int | None = None
    scaffold_id: int | None = None
    new_model: bool = False
    new_scaffold: bool = False

    @property
    def picked(self) -> tuple[str, ...]:
        return tuple(name for name, pk in (("model", self.model_id), ("scaffold", self.scaffold_id)) if pk is not None)


def _check_owner(submission: Submission, user: AbstractBaseUser, doing: str) -> None:
    if not (user.is_staff or submission.uploader_id == user.pk):
        raise Forbidden(f"only the uploader can {doing} this submission")


def _pending_jobs(submission: Submission):
    return (
        EvaluationJob.objects.select_for_update(of=("self",))
        .filter(attempt__submission=submission, state__in=PENDING_JOB_STATES)
        .order_by("pk")  # the order delete_submission locks in: no deadlock between the two
    )


@transaction.atomic
def cancel_submission(*, submission: Submission, user: AbstractBaseUser) -> int:
    """The uploader (or staff) stops a submission's evaluation: its queued and running jobs are cancelled (a
    result that arrives later for one is a duplicate); verdicts already recorded stay. Returns how many."""
    _check_owner(submission, user, "cancel")
    jobs = list(_pending_jobs(submission))
    for job in jobs:
        evaluator_services.cancel_job(job=job, user=user, detail="cancelled by the uploader")
    submission.status = sync_submission_status(submission_id=submission.pk) or submission.status
    return len(jobs)


@transaction.atomic
def retarget_submission(*, submission: Submission, chip_slug: str, user: AbstractBaseUser) -> list[EvaluationJob]:
    """The uploader (or staff) sends a submission still evaluating to another active chip: every attempt is
    queued on the new chip (its default tier), which becomes the submission's target, then the jobs still
    pending on the old chip are cancelled; verdicts already recorded there stay (and its rows on that chip).
    The new jobs are created first, so the submission never looks settled in between (the old ones still
    count against the uploader's queue cap at that moment: QueueLimitExceeded undoes everything)."""
    _check_owner(submission, user, "re-target")
    if submission.status not in OPEN_SUBMISSION_STATUSES:
        raise Conflict(f"the submission is {submission.status}: only one still evaluating can be re-targeted")
    chip = Chip.objects.filter(slug=chip_slug, active=True).first()
    if chip is None:
        raise Invalid(f"no active chip {chip_slug[:40]!r}")
    if chip.pk == submission.target_chip_id:
        raise Conflict(f"the submission already targets {chip.name}")
    waiting = list(_pending_jobs(submission))  # locked before anything changes
    Submission.objects.filter(pk=submission.pk).update(target_chip=chip)
    submission.target_chip = chip
    jobs = enqueue_submission(submission=submission, user=user)
    for job in waiting:
        evaluator_services.cancel_job(job=job, user=user, detail=f"re-targeted to {chip.slug}")
    transaction.on_commit(lambda: refresh_leaderboard_entries(submission_id=submission.pk), robust=True)
    return jobs


def create_submission(
    *,
    uploader: AbstractBaseUser,
    archive_bytes: bytes,
    metadata_bytes: bytes,
    choices: UploadChoices = UploadChoices(),  # frozen: one shared default is safe
) -> Submission:
    """Validate an upload completely, store it and enqueue its evaluation, in one transaction.

    Raises UploadInvalid (nothing stored) for any bad input, including an upload whose jobs would
    not fit in the uploader's queue (the evaluator's cap, checked once, in create_jobs), a picked
    model or scaffold the uploader may not pick, and an unconfirmed new name close to a known one.
    """
    chips = set(Chip.objects.filter(active=True).values_list("slug", flat=True))
    upload = validate_upload(
        archive_bytes, metadata_bytes, known_operators=_known_operators, known_chips=chips, picked=choices.picked
    )
    try:
        with transaction.atomic():
            submission = _store(uploader=uploader, upload=upload, choices=choices)
            enqueue_submission(submission=submission, user=uploader)
            transaction.on_commit(lambda: refresh_leaderboard_entries(submission_id=submission.pk), robust=True)
    except QueueLimitExceeded as exc:  # an upload's refusals are listed per part of the upload
        raise UploadInvalid([UploadError("archive", exc.message)]) from exc
    return submission


def _refuse_near_duplicates(*, what: str, label: str, close: list[str]) -> None:
    if close:
        raise UploadInvalid(
            [
                UploadError(
                    f"metadata: {what}",
                    f"{label!r} is not registered, but close to {'; '.join(close)}: pick it (the upload form's "
                    f"{what.capitalize()} field, the API's '{what}' id), or confirm that it is another {what} "
                    f"(the form's 'New {what}' box, the API's 'new_{what}')",
                )
            ]
        )


def _model_for(*, uploader: AbstractBaseUser, named: dict[str, str], choices: UploadChoices) -> LLMModel:
    """The model an upload is filed under: the registered one it picked, else the one its metadata names
    (created on first use, unless it is close to a model the uploader may know of and not confirmed new)."""
    if choices.model_id is not None:
        picked = selectors.registered_models().filter(pk=choices.model_id).first()
        if picked is None:
            raise UploadInvalid([UploadError("model", f"no registered model has id {choices.model_id}")])
        return picked
    identity = {"provider": named["provider"], "name": named["name"], "version": named.get("version", "")}
    existing = LLMModel.objects.filter(**identity).first()
    if existing is not None:
        return existing
    if not choices.new_model:
        close = selectors.near_duplicate_models(name=identity["name"], version=identity["version"], viewer=uploader)
        _refuse_near_duplicates(
            what="model",
            label=f"{identity['name']} {identity['version']}".strip(),
            close=[selectors.model_label(m) for m in close],
        )
    # a model is its identity, shared: the upload sets nothing else on it (prices and the rest are staff's)
    model, _ = LLMModel.objects.get_or_create(**identity, defaults={"created_by": uploader})
    return model


def _scaffold_for(*, uploader: AbstractBaseUser, named: dict[str, str], choices: UploadChoices) -> Scaffold:
    if choices.scaffold_id is not None:
        picked = selectors.registered_scaffolds(viewer=uploader).filter(pk=choices.scaffold_id).first()
        if picked is None:
            raise UploadInvalid(
                [UploadError("scaffold", f"no reviewed scaffold nor one of yours has id {choices.scaffold_id}")]
            )
        return picked
    return resolve_scaffold(
        uploader=uploader,
        name=named["name"],
        version=named.get("version", ""),
        kind=named.get("kind") or ScaffoldKind.AGENT,
        url=named.get("url", ""),
        confirmed_new=choices.new_scaffold,
    )


def resolve_scaffold(
    *, uploader: AbstractBaseUser | None, name: str, version: str, kind: str, url: str, confirmed_new: bool = False
) -> Scaffold:
    """The scaffold an upload of `uploader` naming (name, version) with this kind and URL is filed under.

    The reviewed scaffold of that name and version when there is one: the upload must then declare its kind
    (and its URL, or none). Otherwise the uploader's own, created on first use with what the upload declares;
    later uploads must declare the same kind (and URL: an empty one may be filled in once). Another user's
    unreviewed scaffold is never used nor changed, whatever its name: two uploaders of one name get one
    scaffold each until staff review one (the admin). Raises UploadInvalid naming the recorded kind and URL,
    or, for a new name close to a reviewed scaffold or one of the uploader's own, naming those (unless
    `confirmed_new`).
    """
    label = f"{name} {version}".strip()
    reviewed = Scaffold.objects.filter(reviewed=True, name=name, version=version).first()
    if reviewed is not None:
        if kind != reviewed.kind or (url and url != reviewed.url):
            recorded = f"kind {reviewed.kind!r}" + (f" and URL {reviewed.url}" if reviewed.url else " and no URL")
            raise UploadInvalid(
                [
                    UploadError(
                        "metadata: scaffold",
                        f"{label!r} is a reviewed scaffold with {recorded}: declare those (the URL may be left out), "
                        "or use another name for another scaffold",
                    )
                ]
            )
        return reviewed
    mine = Scaffold.objects.filter(owner=uploader, reviewed=False, name=name, version=version)
    if not confirmed_new and not mine.exists():
        close = selectors.near_duplicate_scaffolds(name=name, version=version, viewer=uploader)
        _refuse_near_duplicates(what="scaffold", label=label, close=[selectors.scaffold_label(s) for s in close])
    own, created = Scaffold.objects.get_or_create(
        owner=uploader, reviewed=False, name=name, version=version, defaults={"kind": kind, "url": url}
    )
    if created:
        return own
    if kind != own.kind or (url and own.url and url != own.url):
        recorded = f"kind {own.kind!r}" + (f" and URL {own.url}" if own.url else "")
        raise UploadInvalid(
            [
                UploadError(
                    "metadata: scaffold",
                    f"your scaffold {label!r} is recorded with {recorded}, which your earlier submissions show: "
                    "declare the same, or give the changed scaffold a new version",
                )
            ]
        )
    if url and not own.url:
        Scaffold.objects.filter(pk=own.pk).update(url=url)
        own.url = url
    return own


@transaction.atomic
def review_scaffold(*, scaffold: Scaffold, user: AbstractBaseUser) -> Scaffold:
    """Staff: make this scaffold the one every upload naming its name and version uses (with its kind and
    URL). Refused while another scaffold of that name and version is reviewed."""
    if not user.is_staff:
        raise Forbidden("only staff can review a scaffold")
    clash = Scaffold.objects.filter(reviewed=True, name=scaffold.name, version=scaffold.version).exclude(pk=scaffold.pk)
    if clash.exists():
        raise Conflict(f"another scaffold {str(scaffold)!r} is already reviewed: un-review it first")
    Scaffold.objects.filter(pk=scaffold.pk).update(reviewed=True)
    scaffold.reviewed = True
    return scaffold


def _store(*, uploader, upload: ValidatedUpload, choices: UploadChoices) -> Submission:
    meta = upload.metadata
    model = _model_for(uploader=uploader, named=meta.model, choices=choices)
    scaffold = _scaffold_for(uploader=uploader, named=meta.scaffold, choices=choices)
    run = run_provenance(meta.extra)
    submission = Submission.objects.create(
        name=meta.name,
        model=model,
        scaffold=scaffold,
        track=meta.track,
        uploader=uploader,
        target_chip=Chip.objects.get(slug=meta.target_chip),
        metadata={"schema": "kgb-submission/1", **meta.extra, "files": len(upload.files)},
        is_public=meta.public,
        token_source=run.token_source,
        verify_calls_reported=run.verify_calls_reported,
        # the uploader's test-mode checks tagged with the run's id: counted by the site, not the client
        verify_calls_counted=(
            evaluator_selectors.verify_call_count(owner_id=uploader.pk, run_label=run.run_id) if run.run_id else None
        ),
    )
    attempts = []
    for solution in upload.files:
        usage = meta.usage.get((solution.operator_id, solution.sample_index))
        attempts.append(
            Attempt(
                submission=submission,
                operator_id=solution.operator_id,
                sample_index=solution.sample_index,
                file_name=solution.file_name,
                source=solution.source,
                source_sha256=solution.sha256,
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
                cached_tokens=usage.cached_tokens if usage else 0,
                reasoning_tokens=usage.reasoning_tokens if usage else 0,
                turns=usage.turns if usage else None,
                wall_time_s=usage.wall_time_s if usage else None,
                transcript=usage.transcript if usage else "",
            )
        )
    Attempt.objects.bulk_create(attempts, batch_size=500)
    return submission


def merge_models(*, keep: LLMModel, duplicates: Iterable[LLMModel], user: AbstractBaseUser) -> int:
    """Staff: file every submission of the duplicates under `keep` and delete the duplicates (an upload that
    names a duplicate again is then asked whether it means `keep`). Returns how many submissions moved."""
    return _merge_into(keep=keep, duplicates=duplicates, user=user, field="model", noun="model")


def merge_scaffolds(*, keep: Scaffold, duplicates: Iterable[Scaffold], user: AbstractBaseUser) -> int:
    """Staff: file every submission of the duplicate scaffolds under the reviewed `keep` and delete them."""
    return _merge_into(keep=keep, duplicates=duplicates, user=user, field="scaffold", noun="scaffold")


@transaction.atomic
def _merge_into(
    *, keep: LLMModel | Scaffold, duplicates: Iterable, user: AbstractBaseUser, field: str, noun: str
) -> int:
    if not user.is_staff:
        raise Forbidden(f"only staff can merge {noun}s")
    if not keep.reviewed:
        raise Conflict(f"{keep} is not reviewed: merge duplicates into a reviewed {noun}")
    ids = [d.pk for d in duplicates if d.pk != keep.pk]
    moved = Submission.objects.filter(**{f"{field}_id__in": ids}).update(**{field: keep})
    type(keep).objects.filter(pk__in=ids).delete()
    return moved


@transaction.atomic
def delete_submission(*, submission: Submission, user: AbstractBaseUser) -> None:
    """Owners delete their own submissions (staff any). One transaction: the submission, its attempts
    (the solution sources), their jobs with the jobs' events, the evaluations and the leaderboard
    rows all go (cascade), or after any failure all stay. The jobs are locked first, as recording a
    result locks its job: a result recorded just before goes with its job, one just after finds the
    job gone, and none can leave an evaluation behind."""
    if not (user.is_staff or submission.uploader_id == user.pk):
        raise Forbidden("Only the uploader can delete this submission.")
    owners = set(
        EvaluationJob.objects.select_for_update(of=("self",))
        .filter(attempt__submission=submission)
        .order_by("pk")  # one order for every locker: two deletes of one submission cannot deadlock
        .values_list("owner_id", flat=True)
    )
    submission.delete()
    # the deleted jobs' places in their owners' fair share of each chip go to the owners' next waiting jobs
    evaluator_services.send_waiting_jobs(owner_ids=owners)


def rotate_api_token(*, user: AbstractBaseUser) -> Token:
    """Create the user's API token, or replace it (the old one stops working at once)."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def revoke_api_tokens(*, user: AbstractBaseUser) -> int:
    """Delete the user's API token (on a password change: a token taken with the old password dies
    with it); returns how many were deleted. A new one is made on the account page."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted


# --- reported (published) results --------------------------------------------------------------------------

PAPER_SOURCE = "KernelGenBench paper (flagos-ai/KernelGenBench docs/exp.md)"
PAPER_URL = "https://github.com/flagos-ai/KernelGenBench"
# The paper anonymises its non-NVIDIA platforms; its abstract identifies Platform E as Iluvatar CoreX
# (AutoKernel GLM-5.0: 87% on NVIDIA -> 25% on Iluvatar CoreX, exactly Table 3's Platform E cell).
PAPER_CHIP_LABELS = {"Platform E": "Platform E (Iluvatar CoreX)"}
PAPER_CHIP_SLUGS = {
    "NVIDIA A100": ("a100", "a100-40gb", "a100-80gb"),
    "Platform E": ("iluvatar-bi-v150", "iluvatar-bi150", "iluvatar"),
}


@dataclass(frozen=True)
class ImportReport:
    created: int
    updated: int


def _float(value: str) -> float | None:
    value = (value or "").strip()
    return float(value) if value else None


def _chip_for(label: str) -> Chip | None:
    slugs = PAPER_CHIP_SLUGS.get(label, ())
    return Chip.objects.filter(slug__in=slugs).order_by("slug").first() if slugs else None


def import_reported(*, results_csv: str | None = None, cost_csv: str | None = None, user=None) -> ImportReport:
    """Import the paper's tables (CSV text as in leaderboard/data/) as reported rows. Idempotent: a cell is keyed by
    (source, table, method, model, chip, operator set) and updated in place."""
    rows: list[tuple[dict, dict]] = []
    if results_csv:
        for row in csv.DictReader(io.StringIO(results_csv)):
            chip_label = row["chip"].strip()
            source = row["source"].strip()
            key = {
                "table": row["table"].strip(),
                "method": row["method"].strip(),
                "model_name": row["model"].strip(),
                "chip_label": PAPER_CHIP_LABELS.get(chip_label, chip_label),
                "operator_set": "overall" if source == "all" else source,
            }
            note = "Table 3 counts the 110 ATen operators." if key["table"] == "multi_chip" else ""
            rows.append(
                (
                    key,
                    {
                        "accuracy_pct": _float(row["accuracy_pct"]),
                        "speedup": _float(row["speedup"]),
                        "chip": _chip_for(chip_label),
                        "note": note,
                    },
                )
            )
    if cost_csv:
        for row in csv.DictReader(io.StringIO(cost_csv)):
            chip_label = row["chip"].strip()
            key = {
                "table": "cost",
                "method": row["method"].strip(),
                "model_name": row["model"].strip(),
                "chip_label": PAPER_CHIP_LABELS.get(chip_label, chip_label),
                "operator_set": "overall",
            }
            rows.append(
                (
                    key,
                    {
                        "total_tokens_m": _float(row["total_tokens_m"]),
                        "tokens_per_success_m": _float(row["tokens_per_success_m"]),
                        "total_time_h": _float(row["total_time_h"]),
                        "chip": _chip_for(chip_label),
                        "note": f"{row.get('operators', '').strip()} operators",
                    },
                )
            )
    key_fields = ("table", "method", "model_name", "chip_label", "operator_set")
    value_fields = [
        "accuracy_pct",
        "speedup",
        "total_tokens_m",
        "tokens_per_success_m",
        "total_time_h",
        "chip",
        "note",
        "source_url",
        "imported_by",
    ]
    with transaction.atomic():
        existing = {
            tuple(getattr(r, f) for f in key_fields): r
            for r in ReportedResult.objects.select_for_update().filter(source_name=PAPER_SOURCE)
        }
        to_create, to_update = [], []
        for key, values in rows:
            values = {**values, "source_url": PAPER_URL, "imported_by": user}
            row = existing.get(tuple(key[f] for f in key_fields))
            if row is None:
                to_create.append(ReportedResult(source_name=PAPER_SOURCE, **key, **values))
            else:
                for name, value in values.items():
                    setattr(row, name, value)
                to_update.append(row)
        ReportedResult.objects.bulk_create(to_create)
        ReportedResult.objects.bulk_update(to_update, [f for f in value_fields if f != "chip"] + ["chip"])
        created, updated = len(to_create), len(to_update)
    return ImportReport(created=created, updated=updated)


def import_reported_dir(*, path: Path, user=None) -> ImportReport:
    """Import kgb_paper_results.csv and kgb_paper_cost.csv from a directory (or one of the files)."""
    path = Path(path)
    files = [path] if path.is_file() else [path / "kgb_paper_results.csv", path / "kgb_paper_cost.csv"]
    results = cost = None
    for file in files:
        if not file.exists():
            continue
        text = file.read_text(encoding="utf-8")
        if text.startswith("table,"):
            results = text
        elif text.startswith("method,"):
            cost = text
        else:
            raise ValueError(f"{file}: not one of the paper's tables (expected a 'table,...' or 'method,...' header)")
    if results is None and cost is None:
        raise FileNotFoundError(f"no paper tables found at {path}")
    return import_reported(results_csv=results, cost_csv=cost, user=user)
