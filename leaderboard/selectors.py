"""Reads of the leaderboard app. Views, the API and the CSV/JSON downloads all call these, so a table and its
download always hold the same rows.

The leaderboards read LeaderboardEntry (a few rows per submission, see models.py) and add its sums up in the
database; the percentages and geometric means are then derived in leaderboard.metrics. Who may see a
submission is decided here once (visible_submissions), and the CSV/JSON downloads are flattened here too
(the *_export functions), so a page and its download cannot drift apart.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace
from difflib import SequenceMatcher

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.db.models import Count, Max, Prefetch, Q, QuerySet, Sum
from rest_framework.authtoken.models import Token

from evaluator import selectors as evaluator_selectors
from evaluator.models import Chip, Evaluation, EvaluationJob
from evaluator.vocabulary import TERMINAL_JOB_STATES, VERDICT_RANK, JobState, Tier, Verdict
from kgsite.errors import Invalid, NotFound
from leaderboard import metrics
from leaderboard.models import Attempt, LeaderboardEntry, LLMModel, ReportedResult, Scaffold, Submission
from leaderboard.vocabulary import (
    CATALOG_PROMPT_SET,
    MIXED,
    OPEN_SUBMISSION_STATUSES,
    SOURCE_SETS,
    UNTIMED,
    OperatorSet,
    SubmissionStatus,
    TokenSource,
)
from operators.models import Operator, OperatorSource

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
    tier: str = ""  # the tier of the rows' verdicts (LeaderboardEntry.tier), "" = every tier
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
    # what the row is comparable on (Cohort): its chip, and these three
    chip_family: str = ""
    tier: str = ""
    timing_protocol: str = ""
    prompt_set: str = CATALOG_PROMPT_SET
    # the row's rank among the rows of its cohort in the view's order; None with the reason when it has none
    rank: int | None = None
    unranked_reason: str = ""
    pareto: bool = False
    model_id: int | None = None
    scaffold_id: int | None = None
    # the run's provenance (leaderboard.provenance): where its tokens come from, and its verifier calls
    token_source: str = ""
    verify_calls_counted: int | None = None  # test-mode checks the site counted for the run's id
    verify_calls_reported: int | None = None  # verifier calls as the run's client reported them

    def as_dict(self) -> dict:
        # shallow on purpose: every field is a scalar, and dataclasses.asdict's deep copy dominated the downloads
        return {name: getattr(self, name) for name in ROW_FIELDS}

    def as_export(self) -> dict:
        """The row as downloads and the API give it (without the internal model and scaffold ids)."""
        return {name: getattr(self, name) for name in EXPORT_FIELDS}

    @property
    def cohort_key(self) -> tuple[str, str, str, str]:
        return (self.chip, self.tier, self.timing_protocol, self.prompt_set)

    @property
    def tokens_metered(self) -> bool:
        """Tokens recorded by the kgb client from the usage blocks the model's API returned (not self-reported)."""
        return self.token_source == TokenSource.METERED


ROW_FIELDS = tuple(LeaderboardRow.__dataclass_fields__)


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    kind: str  # text | int | pct | ratio | tokens | usd | hours
    help: str = ""
    default: bool = True  # shown until the reader picks the columns (the column chooser, `?cols=`)
    essential: bool = False  # one of the key figures still shown on a phone-wide screen

    @property
    def css(self) -> str:
        """The classes of the column's cells: `col-<key>` (hidden by a `hide-<key>` on the table) and `col-wide`
        on the columns a narrow screen leaves out unless the reader picked them."""
        return f"col-{self.key}" if self.essential else f"col-{self.key} col-wide"


# Default columns fit a 1400 px screen with the token and cost figures (the paper's headline) in view; the others
# are one click away in the column chooser.
LEADERBOARD_COLUMNS = [
    Column("operators_evaluated", "Ops", "int", "operators evaluated (of attempted)"),
    Column("compiled_pct", "Compiled", "pct", "operators with at least one sample that compiled and ran", False),
    Column("accuracy_pct", "Accuracy", "pct", "operators with at least one sample passing every case", essential=True),
    Column("fast1_pct", "fast₁", "pct", "correct and at least as fast as the baseline (– where the chip is not timed)"),
    Column("speedup", "Speedup", "ratio", "geometric mean over cases, then over correct operators", essential=True),
    Column("mean_sol_pct", "%SOL", "pct", "mean speed-of-light percentage of correct operators", False),
    Column("pass1_pct", "pass@1", "pct", "unbiased pass@1 (shown when operators have several samples)", False),
    Column("pass5_pct", "pass@5", "pct", "unbiased pass@5 (needs ≥ 5 samples per operator)", False),
    Column("total_tokens", "Tokens", "tokens", "prompt + completion tokens"),
    Column("tokens_per_success", "Tok/success", "tokens", "tokens per correct operator", essential=True),
    Column("cost_per_success_usd", "$/success", "usd", "cost at the model's list prices per correct operator"),
    Column("wall_time_h", "Wall", "hours", "summed agent/generation wall time"),
    Column("samples", "Samples", "int", "evaluated samples (samples per operator in the tooltip)", False),
]
# the chip column: left out by default where the view is one chip (the page names it)
CHIP_COLUMN = Column("chip", "Chip", "text", "the chip the row was evaluated on")
SORT_KEYS = {c.key for c in LEADERBOARD_COLUMNS} | {"name", "model", "scaffold", "chip", "cost_usd", "pass10_pct"}
SORT_LABELS = {
    **{c.key: c.label for c in LEADERBOARD_COLUMNS},
    "name": "name",
    "model": "model",
    "scaffold": "scaffold",
    "chip": "chip",
    "cost_usd": "cost",
    "pass10_pct": "pass@10",
}


@dataclass(frozen=True)
class ColumnChoice:
    """Which columns a table shows: all are rendered, the others hidden (so the chooser toggles them at once)."""

    columns: list[Column]  # every metric column, in order
    hidden: frozenset[str]  # keys of hidden columns (metric keys and "chip")
    explicit: bool  # the reader picked them (`?cols=`): a narrow screen then leaves none out

    @property
    def table_classes(self) -> str:
        classes = [f"hide-{key}" for key in sorted(self.hidden)]
        return " ".join([*classes, "cols-explicit"] if self.explicit else classes)

    def shown(self, key: str) -> bool:
        return key not in self.hidden

    @property
    def options(self) -> list[tuple[Column, bool]]:
        """What the column chooser lists: the chip column and every metric column, each with whether it is shown."""
        return [(column, self.shown(column.key)) for column in (CHIP_COLUMN, *self.columns)]

    @property
    def requested(self) -> list[str]:
        """The `cols` values that keep this choice in a URL ([] for the defaults)."""
        return [column.key for column, shown in self.options if shown] if self.explicit else []


def leaderboard_columns(*, requested: list[str], one_chip: bool) -> ColumnChoice:
    """The columns of the leaderboard table: `requested` (the `cols` values, repeated or comma-separated; unknown
    keys ignored), or the defaults, with the chip column where the view spans several chips."""
    keys = {key.strip() for value in requested for key in value.split(",") if key.strip()}
    known = {c.key for c in LEADERBOARD_COLUMNS} | {CHIP_COLUMN.key}
    chosen = keys & known
    if chosen:
        hidden = known - chosen
    else:
        hidden = {c.key for c in LEADERBOARD_COLUMNS if not c.default} | ({CHIP_COLUMN.key} if one_chip else set())
    return ColumnChoice(columns=LEADERBOARD_COLUMNS, hidden=frozenset(hidden), explicit=bool(chosen))


EXPORT_FIELDS = [f for f in LeaderboardRow.__dataclass_fields__ if f not in ("model_id", "scaffold_id", "chip_family")]


def visible_submissions(viewer: Viewer) -> Q:
    """The visibility rule: public submissions that are not withdrawn, plus the viewer's own ones (private
    or withdrawn: their uploader still reaches them from the account page); staff see everything."""
    if viewer is not None and getattr(viewer, "is_staff", False):
        return Q()
    public = Q(is_public=True) & ~Q(status=SubmissionStatus.WITHDRAWN)
    if viewer is not None and viewer.is_authenticated:
        return public | Q(uploader=viewer)
    return public


def submissions_visible_to(viewer: Viewer) -> QuerySet[Submission]:
    """What lists and boards show: the visible submissions, without withdrawn ones."""
    return Submission.objects.filter(visible_submissions(viewer)).exclude(status=SubmissionStatus.WITHDRAWN)


@dataclass(frozen=True)
class FilterChoices:
    models: list[LLMModel]
    scaffolds: list[Scaffold]


def filter_choices(*, viewer: Viewer) -> FilterChoices:
    """The models and scaffolds the leaderboard filters offer: those of submissions the viewer may see (a
    model or scaffold used only by someone else's private or withdrawn submission is not named)."""
    visible = submissions_visible_to(viewer)
    return FilterChoices(
        models=list(LLMModel.objects.filter(pk__in=visible.values("model_id"))),
        scaffolds=list(Scaffold.objects.filter(pk__in=visible.values("scaffold_id"))),
    )


def registered_models() -> QuerySet[LLMModel]:
    """The models an upload may pick (the form's and the API's choice): those staff reviewed, with their prices
    and release dates."""
    return LLMModel.objects.filter(reviewed=True)


def registered_scaffolds(*, viewer: Viewer) -> QuerySet[Scaffold]:
    """The scaffolds an upload of `viewer` may pick: the reviewed ones and the viewer's own."""
    own = Q(owner=viewer) if viewer is not None and viewer.is_authenticated else Q(pk__in=[])
    return Scaffold.objects.filter(Q(reviewed=True) | own)


def _dollars(value) -> str:
    return f"${value.normalize():f}"


def model_label(model: LLMModel) -> str:
    """A model as a choice names it: identity, id, prices and release date (what tells near names apart)."""
    facts = [f"id {model.pk}", "reviewed" if model.reviewed else "not reviewed"]
    if model.price_input_per_mtok is not None and model.price_output_per_mtok is not None:
        facts.append(
            f"{_dollars(model.price_input_per_mtok)}/{_dollars(model.price_output_per_mtok)} per M in/out tokens"
        )
    if model.release_date:
        facts.append(f"released {model.release_date:%Y-%m-%d}")
    return f"{model.provider} {model} ({', '.join(facts)})"


def scaffold_label(scaffold: Scaffold) -> str:
    facts = [f"id {scaffold.pk}", scaffold.kind, "reviewed" if scaffold.reviewed else "yours, not reviewed"]
    return f"{scaffold} ({', '.join(facts)})"


def _name_key(*parts: str) -> str:
    """A name as a near-duplicate check compares it: case, spaces and punctuation left out, a word said twice
    counted once ("Claude Opus 4.6" version "4.6" is "Claude Opus" version "4.6")."""
    words = re.findall(r"[a-z0-9]+", " ".join(parts).casefold())
    return "".join(dict.fromkeys(words))


NEAR_NAME_RATIO = 0.88  # "claudeopus" and "claudeopvs" are 0.9 apart; "claudecode" and "codex" 0.53


def _near(name: str, version: str, other_name: str, other_version: str) -> bool:
    """The same name and version spelled differently, or a misspelt name of the same version."""
    if _name_key(name, version) == _name_key(other_name, other_version):
        return True
    same_version = _name_key(version) == _name_key(other_version)
    return same_version and SequenceMatcher(None, _name_key(name), _name_key(other_name)).ratio() >= NEAR_NAME_RATIO


def near_duplicate_models(*, name: str, version: str, viewer: Viewer) -> list[LLMModel]:
    """Models close to (name, version) that the uploader may know of (the reviewed ones, those of submissions
    they may see, their own): an upload naming a new model this close is asked whether it means one of them."""
    known = Q(reviewed=True) | Q(pk__in=submissions_visible_to(viewer).values("model_id"))
    if viewer is not None and viewer.is_authenticated:
        known |= Q(created_by=viewer)
    candidates = LLMModel.objects.filter(known)
    return [m for m in candidates if _near(name, version, m.name, m.version)]


def near_duplicate_scaffolds(*, name: str, version: str, viewer: Viewer) -> list[Scaffold]:
    """Scaffolds close to (name, version) among those the uploader may pick."""
    return [s for s in registered_scaffolds(viewer=viewer) if _near(name, version, s.name, s.version)]


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


@dataclass(frozen=True)
class ChipFigures:
    best_speedup: float | None
    correct_submissions: int


@dataclass(frozen=True)
class OperatorRow:
    operator: Operator
    per_chip: dict[str, ChipFigures]  # chip slug -> figures over public submissions

    @property
    def best_speedup(self) -> float | None:
        return max((f.best_speedup for f in self.per_chip.values() if f.best_speedup is not None), default=None)

    @property
    def correct_submissions(self) -> int:
        return sum(f.correct_submissions for f in self.per_chip.values())


OPERATOR_SORTS = {
    "id": lambda r: r.operator.id,
    "source": lambda r: (r.operator.source, r.operator.id),
    "category": lambda r: (r.operator.category, r.operator.id),
    "best_speedup": lambda r: (r.best_speedup is not None, r.best_speedup or 0.0),
    "correct": lambda r: r.correct_submissions,
}
OPERATOR_FIGURES_CACHE_S = 60


def _operator_figures() -> dict[tuple[str, str], ChipFigures]:
    """Per (operator, chip): the best ranked speedup of a correct sample and how many public submissions got it
    correct. Grouping every correct evaluation costs too much per request at a million evaluations, so the
    figures are cached for a minute (keyed by the newest evaluation: a new result shows at once)."""
    newest = Evaluation.objects.aggregate(newest=Max("id"))["newest"]
    key = f"operator-figures:{newest}"
    figures = cache.get(key)
    if figures is None:
        rows = (
            Evaluation.objects.ranked()
            .filter(verdict=Verdict.CORRECT, attempt__submission__in=submissions_visible_to(None).values("pk"))
            .values("attempt__operator_id", "chip__slug")
            .annotate(best=Max("speedup"), submissions=Count("attempt__submission_id", distinct=True))
            .order_by()
        )
        figures = {(r["attempt__operator_id"], r["chip__slug"]): ChipFigures(r["best"], r["submissions"]) for r in rows}
        cache.set(key, figures, OPERATOR_FIGURES_CACHE_S)
    return figures


def operator_rows(*, source: str = "", q: str = "", sort: str = "id") -> tuple[list[str], list[OperatorRow]]:
    """The operator list: the catalog's operators (of one source; whose id, name or category holds `q`), each
    with its figures per chip, sorted by `sort` (a key of OPERATOR_SORTS, '-' first for descending; Invalid
    otherwise). Returns the chips that have figures, and the rows."""
    key = sort.removeprefix("-")
    if key not in OPERATOR_SORTS:
        raise Invalid(f"unknown sort {sort[:40]!r}; sorts: {', '.join(OPERATOR_SORTS)}")
    if source and source not in OperatorSource.values:
        raise Invalid(f"unknown source {source[:40]!r}")
    if "\x00" in q:  # no text column can hold it (PostgreSQL refuses the query outright)
        raise Invalid("the search text contains a NUL character")
    operators = operator_list(source=source)
    if q:
        operators = operators.filter(Q(id__icontains=q) | Q(name__icontains=q) | Q(category__icontains=q))
    figures = _operator_figures()
    chips = sorted({chip for _, chip in figures})
    rows = [
        OperatorRow(op, {chip: figures[(op.id, chip)] for chip in chips if (op.id, chip) in figures})
        for op in operators
    ]
    rows.sort(key=OPERATOR_SORTS[key], reverse=sort.startswith("-"))
    return chips, rows


OPERATOR_EXPORT_FIELDS = ["id", "source", "name", "category", "mc", "provisional"]


def operator_list_export(*, source: str = "") -> list[dict]:
    return list(operator_list(source=source).values(*OPERATOR_EXPORT_FIELDS))


@dataclass(frozen=True)
class TierCases:
    """One tier of an operator's input cases as a table: a column per case parameter (shape, dtype, ...)."""

    tier: str
    columns: list[str]
    rows: list[list[str]]
    total: int  # cases in the tier; the table holds the first CASES_SHOWN


CASES_SHOWN = 200


def _case_value(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, separators=(", ", ": "))
    return str(value)


def catalog_cases(*, spec) -> list[TierCases]:
    """The cases of each tier of a catalog spec (operators.spec.OperatorSpec), as the operator page shows them."""
    tables = []
    for tier, cases in spec.cases.items():
        columns = list(dict.fromkeys(key for case in cases for key in case))
        rows = [[_case_value(case.get(key)) for key in columns] for case in list(cases)[:CASES_SHOWN]]
        tables.append(TierCases(tier=tier, columns=columns, rows=rows, total=len(cases)))
    return tables


@dataclass(frozen=True)
class ToleranceSummary:
    exact: bool  # outputs must match bit for bit
    rtol: list[tuple[str, float]]  # the default check's rtol per floating dtype among the cases
    atol: float  # the default check's atol per unit of reduction length
    check: str  # what the operator's own comparison says it checks ("" when it uses the default)


def tolerance_summary(*, spec) -> ToleranceSummary:
    import torch

    from operators import tolerance

    dtypes = dict.fromkeys(
        case["dtype"] for cases in spec.cases.values() for case in cases if isinstance(case.get("dtype"), str)
    )
    rtol = []
    for name in dtypes:
        dtype = getattr(torch, name, None)
        if isinstance(dtype, torch.dtype) and (dtype.is_floating_point or dtype.is_complex):
            rtol.append((name, tolerance.tolerances(dtype)[1]))
    check = ""
    if spec.compare is not None:
        doc = inspect.getdoc(spec.compare)
        named = spec.compare.__qualname__.split(".")[0].strip("_").replace("_", " ")
        check = doc.split("\n\n")[0].replace("\n", " ") if doc else f"its own comparison ({named})"
    return ToleranceSummary(exact=spec.exact, rtol=rtol, atol=tolerance.BASE_ATOL, check=check)


# The newest run of bench/cublas_vendor_check.py on the H200 (BENCHMARKS.md, "cuBLAS vendor baseline on the H200"):
# every cuBLAS routine's reference against real cuBLAS, case by case. A later run replaces this path.
CUBLAS_VENDOR_CHECK = "bench/results/h200-2026-11-30-call5/vendor/cublas_vendor.json"
CUBLAS_VENDOR_CHECK_RUN = "NVIDIA H200, cuBLAS 13 (libcublas.so.13 as torch 2.11.0+cu130 ships it), 2026-11-30"
# a sentence of the catalog's fidelity notes written for the team, not for the reader (superseded by the run above)
_INTERNAL_NOTE = "still to be run by the lead"
_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z])")


@dataclass(frozen=True)
class VendorCheck:
    """What the check of an operator's reference against the vendor library found, per status."""

    run: str  # where and when it ran
    cases: int
    agree: int  # "pass"
    nan_read: int  # agree once the NaN fill BLAS must not read is taken out (cuBLAS may read it)
    other: list[dict]  # every other row: a disagreement or an error, with its reason

    @property
    def source(self) -> str:
        return CUBLAS_VENDOR_CHECK


@functools.lru_cache(maxsize=1)
def _vendor_rows() -> dict[str, list[dict]]:
    path = settings.BASE_DIR / CUBLAS_VENDOR_CHECK
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    by_routine: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("operator"), str):
            by_routine[row["operator"]].append(row)
    return by_routine


def vendor_check(*, operator: Operator) -> VendorCheck | None:
    """The recorded check of a cuBLAS operator's reference against real cuBLAS (None: not a cuBLAS operator, or no
    row of the run names it)."""
    if operator.source != OperatorSource.CUBLAS:
        return None
    rows = _vendor_rows().get(operator.name)
    if not rows:
        return None
    statuses = [row.get("status") for row in rows]
    return VendorCheck(
        run=CUBLAS_VENDOR_CHECK_RUN,
        cases=len(rows),
        agree=statuses.count("pass"),
        nan_read=statuses.count("nan-read"),
        other=[row for row in rows if row.get("status") not in ("pass", "nan-read")],
    )


def public_fidelity(*, operator: Operator, checked: VendorCheck | None) -> str:
    """The operator's fidelity note as the reader sees it: a note addressed to the team ("still to be run by the
    lead") is left out where the run it asks for is recorded (`checked`, shown beside it)."""
    text = operator.fidelity or ""
    if not checked:
        return text
    return " ".join(s for s in _SENTENCE_END.split(text) if _INTERNAL_NOTE not in s)


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
    if filters.tier:
        entries = entries.filter(tier=filters.tier)
    return entries


def _operator_sets(source: str) -> list[str]:
    return [OperatorSet.ALL] if source in ("", OperatorSet.ALL) else [source]


def _operator_set(source: str) -> str:
    return OperatorSet.ALL if source in ("", OperatorSet.ALL) else source


@dataclass(frozen=True)
class OperatorSetSizes:
    operators: dict[str, int]  # operator set -> operators of the catalog in it
    minimums: dict[str, int]  # operator set -> the fewest evaluated operators a ranked row of it needs


def operator_set_sizes() -> OperatorSetSizes:
    """The catalog's operators per operator set and the preliminary threshold of a view of each: the catalog-wide
    KGB_PRELIMINARY_MIN_OPERATORS scaled to the set (metrics.preliminary_minimum). One query over the catalog."""
    counts = Operator.objects.filter(in_catalog=True).aggregate(
        **{OperatorSet.ALL: Count("id"), OperatorSet.MC: Count("id", filter=Q(mc=True))},
        **{source: Count("id", filter=Q(source=source)) for source in SOURCE_SETS},
    )
    minimum = settings.KGB_PRELIMINARY_MIN_OPERATORS
    return OperatorSetSizes(
        operators=counts,
        minimums={
            op_set: metrics.preliminary_minimum(
                catalog_minimum=minimum, catalog_operators=counts[OperatorSet.ALL], set_operators=counts[op_set]
            )
            for op_set in counts
        },
    )


def _price(value) -> float | None:
    return None if value is None else float(value)


def _row_from_sums(values: dict, *, minimum: int) -> LeaderboardRow:
    """One row from its entry's sums; `minimum`: the evaluated operators below which it is preliminary."""
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
        preliminary=metrics.is_preliminary(m.operators_evaluated, minimum),
        tier=values["tier"],
        chip_family=values["chip__family"],
        timing_protocol=values["timing_protocol"],
        model_id=values["submission__model_id"],
        scaffold_id=values["submission__scaffold_id"],
        token_source=values["submission__token_source"],
        verify_calls_counted=values["submission__verify_calls_counted"],
        verify_calls_reported=values["submission__verify_calls_reported"],
    )


GROUP_FIELDS = (
    "submission_id",
    "chip_id",
    "chip__slug",
    "chip__name",
    "chip__timing_meaningful",
    "chip__family",
    "tier",
    "timing_protocol",
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
    "submission__token_source",
    "submission__verify_calls_counted",
    "submission__verify_calls_reported",
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


# --- comparability: which rows a rank may compare -----------------------------------------------------------

# the platform's reference GPU (DESIGN.md: results of the lent H200): the default view opens on it where it has
# ranked rows
FLAGSHIP_CHIPS = ("h200",)


@dataclass(frozen=True)
class Cohort:
    """Rows a rank may compare: evaluated on one chip, with verdicts of one tier, speedups timed under one
    protocol, kernels generated from one prompt set. Of these, the complete and not preliminary rows are ranked."""

    chip: str
    chip_name: str
    chip_family: str
    tier: str
    timing_protocol: str
    prompt_set: str = CATALOG_PROMPT_SET
    rows: int = 0
    ranked_rows: int = 0  # complete, not preliminary
    verified_rows: int = 0  # ranked rows that are not demo data

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.chip, self.tier, self.timing_protocol, self.prompt_set)

    @property
    def comparable(self) -> bool:
        """False for the leftovers of several tiers or protocols (MIXED): shown, never ranked."""
        return MIXED not in (self.tier, self.timing_protocol)

    @property
    def tier_label(self) -> str:
        return "verdicts of several tiers" if self.tier == MIXED else f"{self.tier} tier"

    @property
    def timing_label(self) -> str:
        if self.timing_protocol == UNTIMED:
            return "untimed (correctness only)"
        if self.timing_protocol == MIXED:
            return "speedups of several timing protocols"
        return f"timed {self.timing_protocol}"

    @property
    def label(self) -> str:
        return f"{self.chip_name} · {self.tier_label} · {self.timing_label}"

    @property
    def preference(self) -> tuple:
        """The order cohorts are offered in, the default view's first: one with ranked rows that are not demo
        data, comparable, timed, at the full tier (the upstream benchmark's coverage), the flagship chip, NVIDIA
        (the paper's reference vendor), then the most ranked rows."""
        return (
            self.verified_rows > 0,
            self.ranked_rows > 0,
            self.comparable,
            self.timing_protocol != UNTIMED,
            self.tier == Tier.FULL,
            self.chip in FLAGSHIP_CHIPS,
            self.chip_family == "nvidia",
            self.verified_rows,
            self.ranked_rows,
            self.rows,
        )


def _preferred_first(cohorts: list[Cohort]) -> list[Cohort]:
    return sorted(cohorts, key=lambda c: (tuple(-int(v) for v in c.preference), c.chip_name, c.tier))


def leaderboard_cohorts(*, filters: LeaderboardFilters, viewer: Viewer = None, minimum: int) -> list[Cohort]:
    """The cohorts a view's rows fall in over every chip and tier (the other filters applied), the preferred first.
    `minimum`: the view's preliminary threshold. One grouped query over the summary rows of the view's set."""
    entries = _entry_queryset(replace(filters, chip="", tier=""), viewer, operator_sets=_operator_sets(filters.source))
    ranked = (
        Q(submission__status=SubmissionStatus.COMPLETE, operators_evaluated__gte=minimum)
        & ~Q(tier=MIXED)
        & ~Q(timing_protocol=MIXED)
    )
    values = (
        entries.values("chip__slug", "chip__name", "chip__family", "tier", "timing_protocol")
        .annotate(
            n=Count("id"),
            ranked=Count("id", filter=ranked),
            verified=Count("id", filter=ranked & Q(submission__is_demo=False)),
        )
        .order_by()
    )
    return _preferred_first(
        [
            Cohort(
                chip=v["chip__slug"],
                chip_name=v["chip__name"],
                chip_family=v["chip__family"],
                tier=v["tier"],
                timing_protocol=v["timing_protocol"],
                rows=v["n"],
                ranked_rows=v["ranked"],
                verified_rows=v["verified"],
            )
            for v in values
        ]
    )


def _cohorts_of(rows: list[LeaderboardRow]) -> list[Cohort]:
    """The cohorts of ranked rows, the preferred first (leaderboard_cohorts, counted from the rows themselves)."""
    stats: dict[tuple, dict] = {}
    for row in rows:
        item = stats.setdefault(row.cohort_key, {"row": row, "rows": 0, "ranked": 0, "verified": 0})
        item["rows"] += 1
        item["ranked"] += row.rank is not None
        item["verified"] += row.rank is not None and not row.is_demo
    return _preferred_first(
        [
            Cohort(
                chip=item["row"].chip,
                chip_name=item["row"].chip_name,
                chip_family=item["row"].chip_family,
                tier=item["row"].tier,
                timing_protocol=item["row"].timing_protocol,
                prompt_set=item["row"].prompt_set,
                rows=item["rows"],
                ranked_rows=item["ranked"],
                verified_rows=item["verified"],
            )
            for item in stats.values()
        ]
    )


def _unranked_reason(row: LeaderboardRow, minimum: int) -> str:
    """Why a row may not be ranked whatever the order ("" when it may)."""
    if row.status != SubmissionStatus.COMPLETE:
        return "still evaluating" if row.status in OPEN_SUBMISSION_STATUSES else f"submission {row.status}"
    if row.tier == MIXED:
        return "its operators' verdicts come from several tiers"
    if row.timing_protocol == MIXED:
        return "its speedups were timed under several protocols"
    if row.preliminary:
        return f"preliminary: {row.operators_evaluated} of the {minimum} evaluated operators a rank needs"
    return ""


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _assign_ranks(rows: list[LeaderboardRow], sort: str) -> None:
    """Rank the rows (already in display order) within each cohort; rows without the sorted figure get none."""
    members: dict[tuple, list[LeaderboardRow]] = defaultdict(list)
    for row in rows:
        if row.unranked_reason:
            continue
        if _missing(getattr(row, sort, None)):
            row.unranked_reason = f"no {SORT_LABELS.get(sort, sort)}"
            continue
        members[row.cohort_key].append(row)
    for group in members.values():
        values = [getattr(r, sort) for r in group]
        for row, rank in zip(group, metrics.competition_ranks(values), strict=True):
            row.rank = rank


def leaderboard_rows(
    *, filters: LeaderboardFilters, viewer: Viewer = None, sizes: OperatorSetSizes | None = None
) -> list[LeaderboardRow]:
    """One row per (submission, chip) over the chosen operator set, filtered and sorted as asked, grouped by cohort
    (the preferred first), ranked rows first within each.

    A rank exists only among the rows of one cohort (same chip, tier, timing protocol and prompt set) whose
    submission is complete and which are not preliminary (fewer evaluated operators than the view's threshold, which
    scales with the operator set: operator_set_sizes); every other row is shown with the reason it has no rank.
    """
    sizes = sizes or operator_set_sizes()
    minimum = sizes.minimums[_operator_set(filters.source)]
    entries = _entry_queryset(filters, viewer, operator_sets=_operator_sets(filters.source))
    rows = [_row_from_sums(values, minimum=minimum) for values in _rows_values(entries)]
    if not filters.preliminary:
        rows = [r for r in rows if not r.preliminary]
    if filters.held_out:
        rows = [r for r in rows if r.held_out]
    for row in rows:
        row.unranked_reason = _unranked_reason(row, minimum)
    mark_pareto(rows)
    sort = filters.sort if filters.sort in SORT_KEYS else "accuracy_pct"
    rows = _sort(rows, sort, filters.desc)
    _assign_ranks(rows, sort)
    order = {cohort.key: index for index, cohort in enumerate(_cohorts_of(rows))}
    rows.sort(key=lambda r: (order[r.cohort_key], r.rank is None))  # stable: the sorted order within each part
    return rows


@dataclass(frozen=True)
class LeaderboardView:
    """What the leaderboard page and the home page's board show."""

    filters: LeaderboardFilters  # as shown: with the default cohort's chip and tier where the reader named no chip
    rows: list[LeaderboardRow]
    cohorts: list[Cohort]  # every cohort of the view over all chips and tiers, the preferred first
    current: Cohort | None  # the one cohort shown, when the chip and tier pin it down
    by_default: bool  # the site picked the chip and tier (the flagship cohort), not the reader
    operator_set: str
    set_operators: int  # operators of the catalog in the view's set
    preliminary_minimum: int  # the fewest evaluated operators a ranked row of this view has

    @property
    def one_chip(self) -> bool:
        return bool(self.filters.chip)

    @property
    def chip_name(self) -> str:
        """The name of the one chip shown ("" for every chip)."""
        names = [c.chip_name for c in self.cohorts if c.chip == self.filters.chip]
        return names[0] if names else self.filters.chip

    @property
    def prompt_set(self) -> str:
        return CATALOG_PROMPT_SET


def leaderboard_view(
    *, filters: LeaderboardFilters, viewer: Viewer = None, chip_chosen: bool, tier_chosen: bool = False
) -> LeaderboardView:
    """The rows of a leaderboard view and the cohorts around it. Where the reader named no chip (`chip_chosen`
    False: no `chip` in the URL; `chip=` means every chip), the view opens on the preferred cohort, the flagship
    verified chip at its tier (Cohort.preference), and says so (by_default)."""
    sizes = operator_set_sizes()
    op_set = _operator_set(filters.source)
    minimum = sizes.minimums[op_set]
    cohorts = leaderboard_cohorts(filters=filters, viewer=viewer, minimum=minimum)
    by_default = not chip_chosen and bool(cohorts)
    if by_default:
        first = cohorts[0]
        filters = replace(filters, chip=first.chip, tier=filters.tier if tier_chosen else first.tier)
    rows = leaderboard_rows(filters=filters, viewer=viewer, sizes=sizes)
    matching = [
        c for c in cohorts if filters.chip and c.chip == filters.chip and (not filters.tier or c.tier == filters.tier)
    ]
    return LeaderboardView(
        filters=filters,
        rows=rows,
        cohorts=cohorts,
        current=matching[0] if len(matching) == 1 else None,
        by_default=by_default,
        operator_set=op_set,
        set_operators=sizes.operators[op_set],
        preliminary_minimum=minimum,
    )


def submission_rows(*, submission_id) -> list[LeaderboardRow]:
    """The submission's leaderboard rows (one per chip, all sources); the caller checked visibility."""
    minimum = operator_set_sizes().minimums[OperatorSet.ALL]
    entries = LeaderboardEntry.objects.filter(submission_id=submission_id, operator_set__in=_operator_sets("all"))
    return [_row_from_sums(values, minimum=minimum) for values in _rows_values(entries)]


def mark_pareto(rows: list[LeaderboardRow]) -> None:
    """Flag rows on the accuracy-vs-tokens-per-success front, within each cohort (costs differ per chip, and
    accuracy per tier) among the rows that may be ranked (complete, not preliminary)."""
    by_cohort: dict[tuple, list[LeaderboardRow]] = defaultdict(list)
    for row in rows:
        if row.tokens_per_success is not None and row.accuracy_pct is not None and not row.unranked_reason:
            by_cohort[row.cohort_key].append(row)
    for cohort_rows in by_cohort.values():
        points = [metrics.ParetoPoint(str(i), r.tokens_per_success, r.accuracy_pct) for i, r in enumerate(cohort_rows)]
        for point in metrics.pareto_front(points):
            cohort_rows[int(point.key)].pareto = True


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
    minimums = operator_set_sizes().minimums  # each set's own preliminary threshold (a vLLM cell: of 50 operators)
    by_column: dict[str, list[LeaderboardRow]] = defaultdict(list)
    for values in _rows_values(entries, extra=("operator_set",)):
        row = _row_from_sums(values, minimum=minimums[values["operator_set"]])
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


@dataclass(frozen=True)
class SubmissionQueue:
    """Where a submission's waiting jobs stand on its target chip, and every chip it could go to instead."""

    target: evaluator_selectors.ChipAvailability
    queued: int  # the submission's jobs still waiting there
    ahead: int  # other jobs before them
    wait_s: float | None  # about how long until they have finished; None: no runner online or no history
    chips: list[evaluator_selectors.ChipAvailability]


def submission_queue(*, submission: Submission) -> SubmissionQueue | None:
    """None unless some of the submission's jobs are still queued on its target chip."""
    chip = submission.target_chip
    own = EvaluationJob.objects.filter(attempt__submission=submission, chip=chip, state=JobState.QUEUED)
    queued = own.count()
    if not queued:
        return None
    chips = evaluator_selectors.chip_availability()
    target = next((c for c in chips if c.chip.pk == chip.pk), None)
    if target is None:  # a chip made inactive after the upload
        (target,) = evaluator_selectors.chip_availability(chips=[chip])
    ahead = evaluator_selectors.jobs_ahead(chip=chip, job_ids=own.values("pk"))
    return SubmissionQueue(
        target=target, queued=queued, ahead=ahead, wait_s=target.wait_s(jobs=queued, ahead=ahead), chips=chips
    )


@dataclass(frozen=True)
class AttemptResultRow:
    """One evaluation job of one attempt (a sample of an operator) as the submission page lists it: the job's
    state while it has no verdict, else its verdict, reason and findings."""

    attempt_id: int
    operator_id: str
    sample_index: int
    chip: str
    tier: str
    state: str
    verdict: str  # empty until the job has a verdict
    reason: str  # the verdict's reason, or why the job failed without one
    rejected_reason: str
    cases: str
    speedup: float | None
    findings: list[str]  # "layer: detail", the first FINDINGS_SHOWN of them
    more_findings: int


FINDINGS_SHOWN = 3


def submission_attempt_rows(*, submission: Submission, verdict: str = "") -> list[AttemptResultRow]:
    """Every evaluation job of the submission's attempts, by operator, sample and chip (only those of one
    verdict when `verdict` is given; Invalid for a verdict that does not exist)."""
    jobs = EvaluationJob.objects.filter(attempt__submission=submission)
    if verdict:
        if verdict not in Verdict.values:
            raise Invalid(f"unknown verdict {verdict[:40]!r}; verdicts: {', '.join(Verdict.values)}")
        jobs = jobs.filter(evaluation__verdict=verdict)
    values = jobs.order_by("attempt__operator_id", "attempt__sample_index", "chip__slug", "queued_at").values(
        "attempt_id",
        "attempt__operator_id",
        "attempt__sample_index",
        "chip__slug",
        "tier",
        "state",
        "error",
        "evaluation__verdict",
        "evaluation__reason",
        "evaluation__rejected_reason",
        "evaluation__findings",
        "evaluation__cases_passed",
        "evaluation__cases_total",
        "evaluation__speedup",
    )
    rows = []
    for v in values:
        findings = [
            f"{f['layer']}: {f.get('detail', '')}" if isinstance(f, dict) and f.get("layer") else str(f)
            for f in v["evaluation__findings"] or []
        ]
        has_verdict = v["evaluation__verdict"] is not None
        rows.append(
            AttemptResultRow(
                attempt_id=v["attempt_id"],
                operator_id=v["attempt__operator_id"],
                sample_index=v["attempt__sample_index"],
                chip=v["chip__slug"],
                tier=v["tier"],
                state=v["state"],
                verdict=v["evaluation__verdict"] or "",
                reason=v["evaluation__reason"] if has_verdict else v["error"],
                rejected_reason=v["evaluation__rejected_reason"] or "",
                cases=f"{v['evaluation__cases_passed']}/{v['evaluation__cases_total']}" if has_verdict else "",
                speedup=v["evaluation__speedup"],
                findings=findings[:FINDINGS_SHOWN],
                more_findings=max(0, len(findings) - FINDINGS_SHOWN),
            )
        )
    return rows


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
