"""Reads of the leaderboard app. Views, the API and the CSV/JSON downloads all call these, so a table and its
download always hold the same rows.

The leaderboards read LeaderboardEntry (a few rows per submission, see models.py) and add its sums up in the
database; the percentages and geometric means are then derived in leaderboard.metrics. Who may see a
submission is decided here once (visible_submissions), and the CSV/JSON downloads are flattened here too
(the *_export functions), so a page and its download cannot drift apart.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Max, Prefetch, Q, QuerySet, Sum
from rest_framework.authtoken.models import Token

from evaluator.models import Chip, Evaluation, EvaluationJob
from evaluator.vocabulary import TERMINAL_JOB_STATES, VERDICT_RANK, JobState, Tier, Verdict
from kgsite.errors import NotFound
from leaderboard import metrics
from leaderboard.models import Attempt, LeaderboardEntry, ReportedResult, Submission
from leaderboard.vocabulary import OPEN_SUBMISSION_STATUSES, SOURCE_SETS, OperatorSet, SubmissionStatus
from operators.models import Operator

Viewer = AbstractBaseUser | AnonymousUser | None

SUM_FIELDS = (
    "operators_attempted",
    "operators_evaluated",
    "operators_compiled",
    "operators_correct",
    "operators_fast1",
    "operators_held_out",
    "hidden_cases_passed",
    "samples",
    "samples_correct",
    "speedup_log_sum",
    "speedup_count",
    "sol_sum",
    "sol_count",
    "pass1_sum",
    "pass5_sum",
    "pass10_sum",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "wall_time_s",
)
TOTALS_FIELDS = tuple(metrics.Totals.__dataclass_fields__)
SOURCE_CHOICES = [
    ("all", "All sources"),
    *[(s, OperatorSet.labels[s]) for s in SOURCE_SETS],
    (OperatorSet.MC, "MC set (ATen)"),
]


@dataclass(frozen=True)
class LeaderboardFilters:
    source: str = "all"  # all | aten | vllm13 | cublas | mc
    chip: str = ""  # chip slug, "" = every chip
    model: int | None = None
    scaffold: int | None = None
    track: str = ""
    demo: str = "include"  # include | exclude | only
    preliminary: bool = True  # show rows marked preliminary
    held_out: bool = False  # only held-out-verified rows
    q: str = ""
    sort: str = "accuracy_pct"
    desc: bool = True


@dataclass
class LeaderboardRow:
    submission_id: str
    name: str
    model: str
    provider: str
    scaffold: str
    scaffold_kind: str
    track: str
    chip: str
    chip_name: str
    status: str
    is_demo: bool
    is_public: bool
    operators_attempted: int
    operators_evaluated: int
    compiled_pct: float | None
    accuracy_pct: float | None
    fast1_pct: float | None
    speedup: float | None
    mean_sol_pct: float | None
    pass1_pct: float | None
    pass5_pct: float | None
    pass10_pct: float | None
    samples: int
    samples_per_operator: int
    total_tokens: int
    tokens_per_success: float | None
    cost_usd: float | None
    cost_per_success_usd: float | None
    wall_time_h: float | None
    held_out: bool
    hidden_cases_passed: int
    held_out_label: str  # "" or "held-out verified (secret seed + N hidden shapes)"
    preliminary: bool
    pareto: bool = False
    model_id: int | None = None
    scaffold_id: int | None = None

    def as_dict(self) -> dict:
        # shallow on purpose: every field is a scalar, and dataclasses.asdict's deep copy dominated the downloads
        return {name: getattr(self, name) for name in ROW_FIELDS}

    def as_export(self) -> dict:
        """The row as downloads and the API give it (without the internal model and scaffold ids)."""
        return {name: getattr(self, name) for name in EXPORT_FIELDS}


ROW_FIELDS = tuple(LeaderboardRow.__dataclass_fields__)


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    kind: str  # text | int | pct | ratio | tokens | usd | hours
    help: str = ""


LEADERBOARD_COLUMNS = [
    Column("operators_evaluated", "Ops", "int", "operators evaluated (of attempted)"),
    Column("compiled_pct", "Compiled", "pct", "operators with at least one sample that compiled and ran"),
    Column("accuracy_pct", "Accuracy", "pct", "operators with at least one sample passing every case"),
    Column("fast1_pct", "fast₁", "pct", "correct and at least as fast as the baseline (– where the chip is not timed)"),
    Column("speedup", "Speedup", "ratio", "geometric mean over cases, then over correct operators"),
    Column("mean_sol_pct", "%SOL", "pct", "mean speed-of-light percentage of correct operators"),
    Column("pass1_pct", "pass@1", "pct", "unbiased pass@1 (shown when operators have several samples)"),
    Column("pass5_pct", "pass@5", "pct", "unbiased pass@5 (needs ≥ 5 samples per operator)"),
    Column("total_tokens", "Tokens", "tokens", "prompt + completion tokens"),
    Column("tokens_per_success", "Tok/success", "tokens", "tokens per correct operator"),
    Column("cost_per_success_usd", "$/success", "usd", "cost at the model's list prices per correct operator"),
    Column("wall_time_h", "Wall", "hours", "summed agent/generation wall time"),
    Column("samples", "Samples", "int", "evaluated samples (samples per operator in the tooltip)"),
]
SORT_KEYS = {c.key for c in LEADERBOARD_COLUMNS} | {"name", "model", "scaffold", "chip", "cost_usd", "pass10_pct"}
EXPORT_FIELDS = [f for f in LeaderboardRow.__dataclass_fields__ if f not in ("model_id", "scaffold_id")]


def visible_submissions(viewer: Viewer) -> Q:
    """The visibility rule: public submissions, plus the viewer's own private ones (staff see everything)."""
    if viewer is not None and getattr(viewer, "is_staff", False):
        return Q()
    if viewer is not None and viewer.is_authenticated:
        return Q(is_public=True) | Q(uploader=viewer)
    return Q(is_public=True)


def submissions_visible_to(viewer: Viewer) -> QuerySet[Submission]:
    """What lists and boards show: the visible submissions, without withdrawn ones."""
    return Submission.objects.filter(visible_submissions(viewer)).exclude(status=SubmissionStatus.WITHDRAWN)


def submission_for_viewer(*, pk, viewer: Viewer) -> Submission:
    """One submission for its page or API detail; NotFound when absent or private to someone else
    (a private submission does not reveal that it exists)."""
    submission = (
        Submission.objects.filter(visible_submissions(viewer))
        .select_related("model", "scaffold", "target_chip", "uploader")
        .annotate(attempt_count=Count("attempts"))
        .filter(pk=pk)
        .first()
    )
    if submission is None:
        raise NotFound("No such submission.")
    return submission


def attempt_for_viewer(*, pk: int, viewer: Viewer) -> Attempt:
    """One attempt of a visible submission (NotFound otherwise), with its submission, operator and
    evaluations (newest first, with their chip and runner)."""
    evaluations = Evaluation.objects.select_related("chip", "runner").order_by("-created_at")
    attempt = (
        Attempt.objects.filter(submission__in=Submission.objects.filter(visible_submissions(viewer)).values("pk"))
        .select_related("submission", "operator")
        .prefetch_related(Prefetch("evaluations", queryset=evaluations))
        .filter(pk=pk)
        .first()
    )
    if attempt is None:
        raise NotFound("No such attempt.")
    return attempt


def attempt_evaluations(*, attempt: Attempt) -> list[Evaluation]:
    """The attempt's evaluations, newest first (prefetched by attempt_for_viewer)."""
    return list(attempt.evaluations.all())


def can_delete(*, submission: Submission, viewer: Viewer) -> bool:
    """Who may delete a submission: its uploader and staff (leaderboard.services.delete_submission)."""
    return bool(
        viewer is not None
        and viewer.is_authenticated
        and (getattr(viewer, "is_staff", False) or submission.uploader_id == viewer.pk)
    )


def submission_list(*, viewer: Viewer, mine: bool = False) -> QuerySet[Submission]:
    """The API's submission list: visible submissions, newest first (only the viewer's with `mine`)."""
    queryset = (
        submissions_visible_to(viewer)
        .select_related("model", "scaffold", "target_chip", "uploader")
        .annotate(attempt_count=Count("attempts"))
    )
    if mine and viewer is not None and viewer.is_authenticated:
        queryset = queryset.filter(uploader=viewer)
    return queryset.order_by("-created_at")


@dataclass(frozen=True)
class AccountPage:
    token: Token | None
    submissions: QuerySet[Submission]


def account_page(*, user: AbstractBaseUser) -> AccountPage:
    """A user's API token (if any) and every submission they uploaded, withdrawn ones included."""
    return AccountPage(
        token=Token.objects.filter(user=user).first(),
        submissions=Submission.objects.filter(uploader=user).select_related("model", "scaffold", "target_chip"),
    )


@dataclass(frozen=True)
class SiteStats:
    operators: int
    chips: int
    submissions: int
    evaluations: int


def site_stats(*, viewer: Viewer) -> SiteStats:
    """The home page's counts."""
    return SiteStats(
        operators=Operator.objects.filter(in_catalog=True).count(),
        chips=Chip.objects.filter(active=True).count(),
        submissions=submissions_visible_to(viewer).count(),
        # evaluated kernels from the summary table: COUNT(*) over a million evaluations would cost the page ~100 ms
        evaluations=LeaderboardEntry.objects.filter(operator_set=OperatorSet.ALL).aggregate(n=Sum("samples"))["n"] or 0,
    )


def busiest_chip_slug() -> str:
    """The chip with the most leaderboard rows ("" with none): the Multi-Source view's default chip."""
    busiest = LeaderboardEntry.objects.values("chip__slug").annotate(n=Count("id")).order_by("-n").first()
    return busiest["chip__slug"] if busiest else ""


def catalog_operator(*, pk: str) -> Operator:
    """One operator for its page (retired ones too: old submissions link to them)."""
    operator = Operator.objects.filter(pk=pk).first()
    if operator is None:
        raise NotFound("No such operator.")
    return operator


def operator_list(*, source: str = "") -> QuerySet[Operator]:
    """The catalog's operators, of one source when given."""
    operators = Operator.objects.filter(in_catalog=True)
    return operators.filter(source=source) if source else operators


OPERATOR_EXPORT_FIELDS = ["id", "source", "name", "category", "mc", "provisional"]


def operator_list_export(*, source: str = "") -> list[dict]:
    return list(operator_list(source=source).values(*OPERATOR_EXPORT_FIELDS))


def operator_tiers(*, operator: Operator) -> list[tuple[str, int]]:
    """The operator's case counts per tier, in the tiers' order (unknown tiers last)."""
    order = {tier: index for index, tier in enumerate(Tier.values)}
    return sorted(operator.case_counts.items(), key=lambda item: order.get(item[0], len(order)))


def _entry_queryset(
    filters: LeaderboardFilters, viewer: Viewer, *, operator_sets: list[str]
) -> QuerySet[LeaderboardEntry]:
    visible = submissions_visible_to(viewer)
    if filters.model:
        visible = visible.filter(model_id=filters.model)
    if filters.scaffold:
        visible = visible.filter(scaffold_id=filters.scaffold)
    if filters.track:
        visible = visible.filter(track=filters.track)
    if filters.demo == "exclude":
        visible = visible.filter(is_demo=False)
    elif filters.demo == "only":
        visible = visible.filter(is_demo=True)
    if filters.q:
        visible = visible.filter(
            Q(name__icontains=filters.q) | Q(model__name__icontains=filters.q) | Q(scaffold__name__icontains=filters.q)
        )
    entries = LeaderboardEntry.objects.filter(operator_set__in=operator_sets, submission__in=visible.values("pk"))
    if filters.chip:
        entries = entries.filter(chip__slug=filters.chip)
    return entries


def _operator_sets(source: str) -> list[str]:
    return [OperatorSet.ALL] if source in ("", OperatorSet.ALL) else [source]


def _price(value) -> float | None:
    return None if value is None else float(value)


def _row_from_sums(values: dict) -> LeaderboardRow:
    totals = metrics.Totals(**{name: values[name] or 0 for name in TOTALS_FIELDS})
    m = metrics.row_metrics(totals)
    total_tokens = (values["prompt_tokens"] or 0) + (values["completion_tokens"] or 0)
    correct = totals.operators_correct
    cost = metrics.cost_usd(
        prompt_tokens=values["prompt_tokens"] or 0,
        completion_tokens=values["completion_tokens"] or 0,
        cached_tokens=values["cached_tokens"] or 0,
        price_input_per_mtok=_price(values["submission__model__price_input_per_mtok"]),
        price_output_per_mtok=_price(values["submission__model__price_output_per_mtok"]),
        price_cached_input_per_mtok=_price(values["submission__model__price_cached_input_per_mtok"]),
    )
    model = " ".join(filter(None, [values["submission__model__name"], values["submission__model__version"]]))
    scaffold = " ".join(filter(None, [values["submission__scaffold__name"], values["submission__scaffold__version"]]))
    return LeaderboardRow(
        submission_id=str(values["submission_id"]),
        name=values["submission__name"],
        model=model or "—",
        provider=values["submission__model__provider"] or "",
        scaffold=scaffold or "—",
        scaffold_kind=values["submission__scaffold__kind"] or "",
        track=values["submission__track"],
        chip=values["chip__slug"],
        chip_name=values["chip__name"],
        status=values["submission__status"],
        is_demo=values["submission__is_demo"],
        is_public=values["submission__is_public"],
        operators_attempted=m.operators_attempted,
        operators_evaluated=m.operators_evaluated,
        compiled_pct=m.compiled_pct,
        accuracy_pct=m.accuracy_pct,
        # fast_1 needs timings: on a chip whose timings mean nothing (the CPU interpreter) it is not measured,
        # which is not the same as 0% of operators being fast
        fast1_pct=m.fast1_pct if values["chip__timing_meaningful"] else None,
        speedup=m.speedup,
        mean_sol_pct=m.mean_sol_pct,
        pass1_pct=m.pass_at[1] if m.max_samples > 1 else None,
        pass5_pct=m.pass_at[5],
        pass10_pct=m.pass_at[10],
        samples=m.samples,
        samples_per_operator=m.max_samples,
        total_tokens=total_tokens,
        tokens_per_success=metrics.ratio(total_tokens, correct) if total_tokens else None,
        cost_usd=cost,
        cost_per_success_usd=metrics.ratio(cost, correct),
        wall_time_h=(values["wall_time_s"] or 0) / 3600 if values["wall_time_s"] else None,
        held_out=m.held_out,
        hidden_cases_passed=m.hidden_cases_passed,
        held_out_label=metrics.held_out_label(m.held_out, m.hidden_cases_passed),
        preliminary=metrics.is_preliminary(m.operators_evaluated, settings.KGB_PRELIMINARY_MIN_OPERATORS),
        model_id=values["submission__model_id"],
        scaffold_id=values["submission__scaffold_id"],
    )


GROUP_FIELDS = (
    "submission_id",
    "chip_id",
    "chip__slug",
    "chip__name",
    "chip__timing_meaningful",
    "submission__name",
    "submission__track",
    "submission__status",
    "submission__is_demo",
    "submission__is_public",
    "submission__model_id",
    "submission__model__name",
    "submission__model__version",
    "submission__model__provider",
    "submission__model__price_input_per_mtok",
    "submission__model__price_output_per_mtok",
    "submission__model__price_cached_input_per_mtok",
    "submission__scaffold_id",
    "submission__scaffold__name",
    "submission__scaffold__version",
    "submission__scaffold__kind",
)


def _rows_values(entries: QuerySet[LeaderboardEntry], extra: tuple[str, ...] = ()) -> list[dict]:
    """Entries with their submission, model, scaffold and chip fields: one row each, no grouping needed because
    every (submission, chip, operator set) has its own precomputed entry."""
    return list(entries.values(*GROUP_FIELDS, *SUM_FIELDS, "max_samples", *extra).order_by())


def _sort(rows: list, key: str, desc: bool) -> list:
    def sort_key(row):
        value = getattr(row, key, None)
        missing = value is None or (isinstance(value, float) and math.isnan(value))
        # missing values always sink to the bottom, whatever the direction
        if isinstance(value, str):
            value = value.lower()
        return (missing, value if not missing else 0)

    present = [r for r in rows if not sort_key(r)[0]]
    missing = [r for r in rows if sort_key(r)[0]]
    present.sort(key=lambda r: sort_key(r)[1], reverse=desc)
    return present + missing


def leaderboard_rows(*, filters: LeaderboardFilters, viewer: Viewer = None) -> list[LeaderboardRow]:
    """One row per (submission, chip) over the chosen operator set(s), filtered and sorted as asked.

    Preliminary rows (too few evaluated operators) sort below complete ones so they never take first place.
    """
    entries = _entry_queryset(filters, viewer, operator_sets=_operator_sets(filters.source))
    rows = [_row_from_sums(values) for values in _rows_values(entries)]
    if not filters.preliminary:
        rows = [r for r in rows if not r.preliminary]
    if filters.held_out:
        rows = [r for r in rows if r.held_out]
    mark_pareto(rows)
    sort = filters.sort if filters.sort in SORT_KEYS else "accuracy_pct"
    rows = _sort(rows, sort, filters.desc)
    return [r for r in rows if not r.preliminary] + [r for r in rows if r.preliminary]


def submission_rows(*, submission_id) -> list[LeaderboardRow]:
    """The submission's leaderboard rows (one per chip, all sources); the caller checked visibility."""
    entries = LeaderboardEntry.objects.filter(submission_id=submission_id, operator_set__in=_operator_sets("all"))
    return [_row_from_sums(values) for values in _rows_values(entries)]


def mark_pareto(rows: list[LeaderboardRow]) -> None:
    """Flag rows on the accuracy-vs-tokens-per-success front (within each chip: costs differ per chip)."""
    by_chip: dict[str, list[LeaderboardRow]] = defaultdict(list)
    for row in rows:
        if row.tokens_per_success is not None and row.accuracy_pct is not None and not row.preliminary:
            by_chip[row.chip].append(row)
    for chip_rows in by_chip.values():
        points = [metrics.ParetoPoint(str(i), r.tokens_per_success, r.accuracy_pct) for i, r in enumerate(chip_rows)]
        for point in metrics.pareto_front(points):
            chip_rows[int(point.key)].pareto = True


# --- Multi-Source and Multi-Chip views --------------------------------------------------------------------


@dataclass
class Cell:
    accuracy_pct: float | None
    speedup: float | None
    operators_evaluated: int
    submission_id: str
    preliminary: bool
    accuracy_drop: float | None = None  # MC view: points lost against the reference chip
    speedup_ratio: float | None = None  # MC view: speedup relative to the reference chip


@dataclass
class MethodRow:
    method: str  # scaffold (model)
    model: str
    scaffold: str
    track: str
    is_demo: bool
    cells: dict[str, Cell] = field(default_factory=dict)


def _method_key(row: LeaderboardRow) -> tuple:
    return (row.model_id, row.scaffold_id, row.track)


def _better(a: LeaderboardRow, b: LeaderboardRow | None) -> bool:
    if b is None:
        return True
    if a.preliminary != b.preliminary:
        return not a.preliminary
    return (a.accuracy_pct or 0, a.speedup or 0) > (b.accuracy_pct or 0, b.speedup or 0)


def _method_rows(rows_by_column: dict[str, list[LeaderboardRow]]) -> list[MethodRow]:
    """Pivot: one row per method (model x scaffold x track); per column the method's best submission."""
    methods: dict[tuple, MethodRow] = {}
    best: dict[tuple, dict[str, LeaderboardRow]] = defaultdict(dict)
    for column, rows in rows_by_column.items():
        for row in rows:
            key = _method_key(row)
            if key not in methods:
                methods[key] = MethodRow(
                    method=f"{row.scaffold} ({row.model})",
                    model=row.model,
                    scaffold=row.scaffold,
                    track=row.track,
                    is_demo=row.is_demo,
                )
            methods[key].is_demo = methods[key].is_demo and row.is_demo
            if _better(row, best[key].get(column)):
                best[key][column] = row
    for key, columns in best.items():
        for column, row in columns.items():
            methods[key].cells[column] = Cell(
                accuracy_pct=row.accuracy_pct,
                speedup=row.speedup,
                operators_evaluated=row.operators_evaluated,
                submission_id=row.submission_id,
                preliminary=row.preliminary,
            )
    return list(methods.values())


def _rows_by(
    filters: LeaderboardFilters, viewer: Viewer, *, operator_sets: list[str], column_field: str
) -> dict[str, list[LeaderboardRow]]:
    entries = _entry_queryset(filters, viewer, operator_sets=operator_sets)
    by_column: dict[str, list[LeaderboardRow]] = defaultdict(list)
    for values in _rows_values(entries, extra=("operator_set",)):
        row = _row_from_sums(values)
        by_column[values[column_field]].append(row)
    return by_column


def multi_source(*, filters: LeaderboardFilters, viewer: Viewer = None) -> tuple[list[str], list[MethodRow]]:
    """Methods x {overall, aten, vllm13, cublas} on one chip (filters.chip; required by the caller)."""
    by_source = _rows_by(filters, viewer, operator_sets=list(SOURCE_SETS), column_field="operator_set")
    overall = leaderboard_rows(filters=LeaderboardFilters(**{**asdict(filters), "source": "all"}), viewer=viewer)
    columns = [OperatorSet.ALL, *SOURCE_SETS]
    rows = _method_rows({"all": overall, **by_source})
    rows.sort(key=lambda r: -(r.cells.get("all").accuracy_pct or 0) if r.cells.get("all") else 0)
    return columns, rows


def reference_chip(chips: list[Chip], methods_per_chip: dict[str, int]) -> Chip | None:
    """The chip the MC view measures drops against: the NVIDIA chip with the most methods (the paper uses NVIDIA)."""
    candidates = [c for c in chips if c.family == "nvidia"] or chips
    if not candidates:
        return None
    return max(candidates, key=lambda c: (methods_per_chip.get(c.slug, 0), c.slug == "h200", c.name))


def multi_chip(
    *, filters: LeaderboardFilters, viewer: Viewer = None, reference: str = ""
) -> tuple[list[Chip], Chip | None, list[MethodRow]]:
    """Methods x chips over the MC operator set; each cell carries its drop against the reference chip."""
    mc_filters = LeaderboardFilters(**{**asdict(filters), "chip": "", "source": OperatorSet.MC})
    by_chip = _rows_by(mc_filters, viewer, operator_sets=[OperatorSet.MC], column_field="chip__slug")
    chips = sorted(Chip.objects.filter(slug__in=list(by_chip)), key=lambda c: (c.family != "nvidia", c.vendor, c.name))
    ref = next((c for c in chips if c.slug == reference), None) or reference_chip(
        chips, {slug: len(rows) for slug, rows in by_chip.items()}
    )
    rows = _method_rows(by_chip)
    for row in rows:
        base = row.cells.get(ref.slug) if ref else None
        for slug, cell in row.cells.items():
            if base is not None and slug != ref.slug:
                cell.accuracy_drop = metrics.drop(base.accuracy_pct, cell.accuracy_pct)
                cell.speedup_ratio = metrics.ratio(cell.speedup, base.speedup)
    rows.sort(key=lambda r: -((r.cells.get(ref.slug).accuracy_pct or 0) if ref and r.cells.get(ref.slug) else 0))
    return chips, ref, rows


# --- reported results -------------------------------------------------------------------------------------


def reported_rows(*, table: str, operator_set: str = "", chip_label: str = "") -> list[ReportedResult]:
    rows = ReportedResult.objects.filter(table=table)
    if operator_set:
        rows = rows.filter(operator_set=operator_set)
    if chip_label:
        rows = rows.filter(chip_label=chip_label)
    return list(rows.order_by("method", "model_name"))


def reported_for_leaderboard(*, source: str) -> list[dict]:
    """The paper's multi-source rows for one source, joined with its cost table (same method and model)."""
    operator_set = "overall" if source in ("", "all") else source
    if operator_set == OperatorSet.MC:
        results = reported_rows(table="multi_chip", chip_label="NVIDIA A100")
    else:
        results = reported_rows(table="multi_source", operator_set=operator_set)
    cost = {(r.method, r.model_name): r for r in reported_rows(table="cost")} if operator_set == "overall" else {}
    out = []
    for r in results:
        c = cost.get((r.method, r.model_name))
        out.append(
            {
                "method": r.method,
                "model": r.model_name,
                "chip": r.chip_label,
                "operator_set": r.operator_set,
                "accuracy_pct": r.accuracy_pct,
                "speedup": r.speedup,
                "total_tokens_m": c.total_tokens_m if c else None,
                "tokens_per_success_m": c.tokens_per_success_m if c else None,
                "total_time_h": c.total_time_h if c else None,
                "source": r.source_name,
            }
        )
    out.sort(key=lambda d: -(d["accuracy_pct"] or 0))
    return out


def reported_pivot(*, table: str) -> tuple[list[str], list[dict]]:
    """The paper's table as published: rows method (model), columns sources (MS) or chips (MC)."""
    results = reported_rows(table=table)
    column_field = "operator_set" if table == "multi_source" else "chip_label"
    columns: list[str] = []
    rows: dict[tuple[str, str], dict] = {}
    for r in results:
        column = getattr(r, column_field)
        if column not in columns:
            columns.append(column)
        row = rows.setdefault((r.method, r.model_name), {"method": r.method, "model": r.model_name, "cells": {}})
        row["cells"][column] = {"accuracy_pct": r.accuracy_pct, "speedup": r.speedup}
    if table == "multi_source":
        order = ["overall", "aten", "vllm13", "cublas"]
        columns.sort(key=lambda c: order.index(c) if c in order else 99)
    else:
        columns.sort(key=lambda c: (not c.startswith("NVIDIA"), c))
    return columns, list(rows.values())


# --- downloads: every table flattened to rows of scalars, with its columns -------------------------------


@dataclass(frozen=True)
class Export:
    rows: list[dict]
    fields: list[str]
    filename: str


def leaderboard_export(*, filters: LeaderboardFilters, rows: list[LeaderboardRow]) -> Export:
    return Export(
        rows=[row.as_export() for row in rows],
        fields=EXPORT_FIELDS,
        filename=f"leaderboard-{filters.source}-{filters.chip or 'all-chips'}",
    )


METHOD_FIELDS = ["method", "model", "scaffold", "track", "demo"]


def _method_item(row: MethodRow) -> dict:
    return {"method": row.method, "model": row.model, "scaffold": row.scaffold, "track": row.track, "demo": row.is_demo}


def multi_source_export(*, chip: str, columns: list[str], rows: list[MethodRow]) -> Export:
    measures = ("accuracy_pct", "speedup", "operators")
    flat = []
    for row in rows:
        item = {**_method_item(row), "chip": chip}
        for column in columns:
            cell = row.cells.get(column)
            item[f"{column}_accuracy_pct"] = cell.accuracy_pct if cell else None
            item[f"{column}_speedup"] = cell.speedup if cell else None
            item[f"{column}_operators"] = cell.operators_evaluated if cell else None
        flat.append(item)
    fields = [*METHOD_FIELDS, "chip", *(f"{c}_{m}" for c in columns for m in measures)]
    return Export(rows=flat, fields=fields, filename=f"multi-source-{chip}")


def multi_chip_export(*, chips: list[Chip], reference: Chip | None, rows: list[MethodRow]) -> Export:
    measures = ("accuracy_pct", "speedup", "accuracy_drop", "speedup_ratio")
    flat = []
    for row in rows:
        item = {**_method_item(row), "reference_chip": reference.slug if reference else ""}
        for chip in chips:
            cell = row.cells.get(chip.slug)
            for measure in measures:
                item[f"{chip.slug}_{measure}"] = getattr(cell, measure) if cell else None
        flat.append(item)
    fields = [*METHOD_FIELDS, "reference_chip", *(f"{c.slug}_{m}" for c in chips for m in measures)]
    return Export(rows=flat, fields=fields, filename="multi-chip")


REPORTED_EXPORT_FIELDS = [
    "source_name",
    "table",
    "method",
    "model_name",
    "chip_label",
    "operator_set",
    "accuracy_pct",
    "speedup",
    "total_tokens_m",
    "tokens_per_success_m",
    "total_time_h",
    "note",
]


def reported_export(*, table: str = "") -> Export:
    """Every reported row, or one table's."""
    rows = reported_rows(table=table) if table else list(ReportedResult.objects.all())
    flat = [{name: getattr(r, name) for name in REPORTED_EXPORT_FIELDS} for r in rows]
    return Export(rows=flat, fields=REPORTED_EXPORT_FIELDS, filename="reported-results")


def submission_export(*, submission: Submission, chips: list[str], rows: list[OperatorResultRow]) -> Export:
    """The per-operator table of a submission: one row per operator and chip."""
    fields = ["operator", "source", "samples", "chip", "verdict", "speedup", "cases", "tier"]
    flat = []
    for row in rows:
        for chip in chips:
            cell = row.cells.get(chip) or {}
            flat.append(
                {
                    "operator": row.operator_id,
                    "source": row.source,
                    "samples": row.samples,
                    "chip": chip,
                    **{name: cell.get(name) for name in ("verdict", "speedup", "cases", "tier")},
                }
            )
    return Export(rows=flat, fields=fields, filename=f"submission-{submission.pk}")


def operator_export(*, source: str = "") -> Export:
    return Export(rows=operator_list_export(source=source), fields=OPERATOR_EXPORT_FIELDS, filename="operators")


# --- detail pages -------------------------------------------------------------------------------------------


def submission_progress(*, submission: Submission) -> dict:
    """Job counts by state for the progress bar (one grouped query)."""
    counts = dict(
        EvaluationJob.objects.filter(attempt__submission=submission)
        .values_list("state")
        .annotate(n=Count("id"))
        .order_by()
    )
    total = sum(counts.values())
    finished = sum(counts.get(s, 0) for s in TERMINAL_JOB_STATES)
    verdicts = dict(
        Evaluation.objects.filter(attempt__submission=submission)
        .values_list("verdict")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {
        "total": total,
        "finished": finished,
        "queued": counts.get(JobState.QUEUED, 0),
        "running": counts.get(JobState.RUNNING, 0),
        "failed": counts.get(JobState.FAILED, 0),
        "percent": round(100 * finished / total) if total else 0,
        "active": submission.status in OPEN_SUBMISSION_STATUSES and (total == 0 or finished < total),
        "verdicts": verdicts,
        "status": submission.status,
    }


@dataclass
class OperatorResultRow:
    operator_id: str
    source: str
    samples: int
    cells: dict[str, dict]  # chip slug -> {verdict, speedup, attempt_id, cases}


def submission_operator_table(*, submission: Submission) -> tuple[list[str], list[OperatorResultRow]]:
    """Per operator: best verdict per chip over its samples (correct first, then the fastest)."""
    attempts = list(
        Attempt.objects.filter(submission=submission).values_list(
            "id", "operator_id", "operator__source", "sample_index"
        )
    )
    evaluations = (
        Evaluation.objects.ranked()
        .filter(attempt__submission=submission)
        .values_list("attempt_id", "chip__slug", "verdict", "speedup", "cases_passed", "cases_total", "tier", "id")
    )
    by_attempt = {a[0]: a for a in attempts}
    rows: dict[str, OperatorResultRow] = {}
    for _attempt_id, op_id, source, _ in attempts:
        row = rows.setdefault(op_id, OperatorResultRow(op_id, source, 0, {}))
        row.samples += 1
    chips: list[str] = []
    for attempt_id, chip, verdict, speedup, passed, total, tier, _eid in evaluations:
        if chip not in chips:
            chips.append(chip)
        op_id = by_attempt[attempt_id][1]
        current = rows[op_id].cells.get(chip)
        candidate = {
            "verdict": verdict,
            "speedup": speedup,
            "attempt_id": attempt_id,
            "cases": f"{passed}/{total}",
            "tier": tier,
        }
        if current is None or (VERDICT_RANK.get(verdict, 0), speedup or 0) > (
            VERDICT_RANK.get(current["verdict"], 0),
            current["speedup"] or 0,
        ):
            rows[op_id].cells[chip] = candidate
    if submission.target_chip.slug not in chips:
        chips.insert(0, submission.target_chip.slug)
    return chips, sorted(rows.values(), key=lambda r: (r.source, r.operator_id))


def best_solutions(*, operator_id: str, viewer: Viewer = None, per_chip: int = 5) -> dict[str, list[dict]]:
    """Per chip: the fastest correct attempts of visible submissions for one operator."""
    visible = submissions_visible_to(viewer).values("pk")
    rows = (
        Evaluation.objects.ranked()
        .filter(attempt__operator_id=operator_id, verdict=Verdict.CORRECT, attempt__submission__in=visible)
        .values(
            "chip__slug",
            "chip__name",
            "speedup",
            "sol_pct",
            "attempt_id",
            "attempt__submission__name",
            "attempt__submission__model__name",
            "attempt__submission__scaffold__name",
            "attempt__submission__is_demo",
            "held_out",
            "hidden_cases_passed",
            "tier",
        )
        .order_by("chip__slug", "-speedup")[:500]
    )
    out: dict[str, list[dict]] = defaultdict(list)
    seen: set[tuple[str, int]] = set()
    for row in rows:
        key = (row["chip__slug"], row["attempt_id"])
        if key in seen or len(out[row["chip__slug"]]) >= per_chip:
            continue
        seen.add(key)
        out[row["chip__slug"]].append(row)
    return dict(out)


def speedup_distributions(*, rows: list[LeaderboardRow], source: str, limit: int = 8) -> list[dict]:
    """Per-operator best speedups (correct samples) of the top rows, for the speedup box plot."""
    top = [r for r in rows if r.speedup is not None][:limit]
    if not top:
        return []
    sources = (
        list(SOURCE_SETS)
        if source in ("", OperatorSet.ALL)
        else [source if source != OperatorSet.MC else OperatorSet.ATEN]
    )
    query = Q()
    for r in top:
        query |= Q(attempt__submission_id=r.submission_id, chip__slug=r.chip)
    values = (
        Evaluation.objects.ranked()
        .filter(query, verdict=Verdict.CORRECT, speedup__isnull=False, attempt__operator__source__in=sources)
        .values("attempt__submission_id", "chip__slug", "attempt__operator_id")
        .annotate(best=Max("speedup"))
        .order_by()
    )
    per_row: dict[tuple[str, str], list[float]] = defaultdict(list)
    for v in values:
        per_row[(str(v["attempt__submission_id"]), v["chip__slug"])].append(v["best"])
    return [
        {
            "label": f"{r.scaffold} ({r.model}) · {r.chip}",
            "speedups": sorted(per_row.get((r.submission_id, r.chip), [])),
        }
        for r in top
    ]
