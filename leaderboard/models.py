"""LLM models, agent scaffolds, submissions and their attempts; reported (published) results; the
leaderboard summary table. The words (tracks, statuses, operator sets) come from
leaderboard.vocabulary."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from kgsite.text import unsafe_characters_message
from leaderboard.vocabulary import OperatorSet, ScaffoldKind, SubmissionStatus, TokenSource, Track


def validate_plain_name(value: str) -> None:
    """A name people read (model, scaffold, submission) holds no control, bidi or invisible character."""
    problem = unsafe_characters_message(value)
    if problem:
        raise ValidationError(f"The name {problem}.", code="unsafe_characters")


class LLMModel(models.Model):
    """A model is its identity (provider, name, version), shared by every submission that names it: nothing
    an upload says about a model besides its name is stored, so one user's upload cannot change what another's
    shows. Prices, URL and release date are set by staff, who mark the record reviewed once checked."""

    provider = models.CharField(max_length=60, validators=[validate_plain_name])
    name = models.CharField(max_length=100, validators=[validate_plain_name])
    version = models.CharField(max_length=60, blank=True, validators=[validate_plain_name])
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Whose upload first named this model (empty: created by staff).",
    )
    reviewed = models.BooleanField(default=False, help_text="Staff checked its identity and prices.")
    release_date = models.DateField(null=True, blank=True)
    price_input_per_mtok = models.DecimalField(
        "price per million input tokens (USD)", max_digits=10, decimal_places=4, null=True, blank=True
    )
    price_output_per_mtok = models.DecimalField(
        "price per million output tokens (USD)", max_digits=10, decimal_places=4, null=True, blank=True
    )
    price_cached_input_per_mtok = models.DecimalField(
        "price per million cached input tokens (USD)", max_digits=10, decimal_places=4, null=True, blank=True
    )
    url = models.URLField(blank=True)

    class Meta:
        ordering = ["provider", "name", "version"]
        verbose_name = "LLM model"
        constraints = [
            models.UniqueConstraint(fields=["provider", "name", "version"], name="llmmodel_unique_identity"),
            models.CheckConstraint(
                condition=models.Q(price_input_per_mtok__isnull=True) | models.Q(price_input_per_mtok__gte=0),
                name="llmmodel_input_price_nonnegative",
            ),
            models.CheckConstraint(
                condition=models.Q(price_output_per_mtok__isnull=True) | models.Q(price_output_per_mtok__gte=0),
                name="llmmodel_output_price_nonnegative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}".strip()


class Scaffold(models.Model):
    """An agent scaffold as one uploader declared it (its kind and URL are theirs), or, once staff reviewed
    it, as the site shows it to everyone. An upload uses the reviewed scaffold of its name and version (and
    must then declare its kind and URL), else its uploader's own, created on first use: another user's upload
    never changes, nor is filed under, a stranger's unreviewed scaffold (leaderboard.services.resolve_scaffold)."""

    name = models.CharField(max_length=100, validators=[validate_plain_name])
    kind = models.CharField(max_length=10, choices=ScaffoldKind.choices)
    version = models.CharField(max_length=60, blank=True, validators=[validate_plain_name])
    url = models.URLField(blank=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="scaffolds",
        help_text="Who declared it; until it is reviewed only their uploads use it.",
    )
    reviewed = models.BooleanField(
        default=False, help_text="Checked by staff: every upload naming it uses it, with its kind and URL."
    )

    class Meta:
        ordering = ["name", "version"]
        constraints = [
            # one reviewed scaffold per name and version: what an upload naming it resolves to
            models.UniqueConstraint(
                fields=["name", "version"], condition=models.Q(reviewed=True), name="scaffold_unique_reviewed"
            ),
            # and one per owner among the unreviewed ones: an uploader's own, resolved next
            models.UniqueConstraint(
                fields=["owner", "name", "version"],
                condition=models.Q(reviewed=False),
                name="scaffold_unique_per_owner",
            ),
            models.CheckConstraint(condition=models.Q(kind__in=ScaffoldKind.values), name="scaffold_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}".strip()


class Submission(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(
        max_length=120, help_text="A short label shown on leaderboards.", validators=[validate_plain_name]
    )
    model = models.ForeignKey(LLMModel, on_delete=models.PROTECT, related_name="submissions", null=True, blank=True)
    scaffold = models.ForeignKey(Scaffold, on_delete=models.PROTECT, related_name="submissions", null=True, blank=True)
    track = models.CharField(max_length=10, choices=Track.choices)
    uploader = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="submissions", null=True, blank=True
    )
    target_chip = models.ForeignKey("evaluator.Chip", on_delete=models.PROTECT, related_name="submissions")
    metadata = models.JSONField(default=dict, blank=True)
    # derived from the submission's jobs; written only by leaderboard.services (sync_submission_status)
    status = models.CharField(max_length=12, choices=SubmissionStatus.choices, default=SubmissionStatus.RECEIVED)
    is_public = models.BooleanField(default=True)
    is_demo = models.BooleanField(default=False, help_text="Demo data from `seed_demo`: labelled as such on the site.")
    held_out = models.BooleanField(default=False, help_text="Evaluated with secret seeds (ranked runs).")
    # the run's provenance, read once from the upload's notes.kgb (leaderboard.provenance) for the rows
    token_source = models.CharField(max_length=20, choices=TokenSource.choices, default=TokenSource.SELF_REPORTED)
    verify_calls_reported = models.PositiveIntegerField(
        null=True, blank=True, help_text="Verifier calls of the run as its client reported them (local or remote)."
    )
    verify_calls_counted = models.PositiveIntegerField(
        null=True, blank=True, help_text="Test-mode checks the site counted for the run's id, at upload."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(track__in=Track.values), name="submission_track_valid"),
            models.CheckConstraint(
                condition=models.Q(token_source__in=TokenSource.values), name="submission_token_source_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=SubmissionStatus.values), name="submission_status_valid"
            ),
        ]
        indexes = [
            # the leaderboard lists public submissions per chip, newest first
            models.Index(fields=["target_chip", "is_public", "status"], name="submission_board_idx"),
            # the account page: a user's submissions, newest first
            models.Index(fields=["uploader", "created_at"], name="submission_uploader_idx"),
        ]

    def __str__(self) -> str:
        return self.name


class Attempt(models.Model):
    """One generated solution file: submission x operator x sample index (pass@k samples)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="attempts")
    operator = models.ForeignKey("operators.Operator", on_delete=models.PROTECT, related_name="attempts")
    sample_index = models.PositiveSmallIntegerField(default=0)
    file_name = models.CharField(max_length=160)
    source = models.TextField()
    source_sha256 = models.CharField(max_length=64)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    cached_tokens = models.PositiveBigIntegerField(default=0)
    reasoning_tokens = models.PositiveBigIntegerField(default=0)
    turns = models.PositiveIntegerField(null=True, blank=True)
    wall_time_s = models.FloatField(null=True, blank=True)
    transcript = models.TextField(blank=True)

    class Meta:
        ordering = ["submission", "operator", "sample_index"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "operator", "sample_index"], name="attempt_unique_sample"),
            models.CheckConstraint(
                condition=models.Q(wall_time_s__isnull=True) | models.Q(wall_time_s__gte=0),
                name="attempt_wall_time_nonnegative",
            ),
        ]
        indexes = [
            # per-operator pages: best attempts for one operator
            models.Index(fields=["operator", "submission"], name="attempt_operator_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.submission} / {self.operator_id} #{self.sample_index}"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ReportedResult(models.Model):
    """A published figure (e.g. the KernelGenBench paper's tables): shown as 'reported', never as verified."""

    source_name = models.CharField(max_length=200, help_text="Where the figure was published.")
    source_url = models.URLField(blank=True)
    table = models.CharField(max_length=60, help_text="e.g. 'multi_source', 'multi_chip', 'cost'.")
    method = models.CharField(max_length=120, help_text="Scaffold or method as published, e.g. 'Claude Code'.")
    model_name = models.CharField(max_length=100)
    chip_label = models.CharField(max_length=60, help_text="Chip as published, e.g. 'NVIDIA A100' or 'Platform E'.")
    chip = models.ForeignKey("evaluator.Chip", null=True, blank=True, on_delete=models.SET_NULL)
    operator_set = models.CharField(max_length=30, help_text="overall, aten, vllm13, cublas, mc ...")
    accuracy_pct = models.FloatField(null=True, blank=True)
    speedup = models.FloatField(null=True, blank=True)
    total_tokens_m = models.FloatField(null=True, blank=True)
    tokens_per_success_m = models.FloatField(null=True, blank=True)
    total_time_h = models.FloatField(null=True, blank=True)
    note = models.TextField(blank=True)
    imported_at = models.DateTimeField(auto_now_add=True)
    imported_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["table", "method", "model_name", "chip_label", "operator_set"]
        constraints = [
            models.UniqueConstraint(
                fields=["source_name", "table", "method", "model_name", "chip_label", "operator_set"],
                name="reported_unique_cell",
            ),
            models.CheckConstraint(
                condition=models.Q(accuracy_pct__isnull=True)
                | (models.Q(accuracy_pct__gte=0) & models.Q(accuracy_pct__lte=100)),
                name="reported_accuracy_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.method} ({self.model_name}) {self.chip_label} {self.operator_set}"


class LeaderboardEntry(models.Model):
    """Additive per-(submission, chip, operator set) sums, rebuilt from Evaluation rows whenever a result of
    the submission is recorded (leaderboard.services.refresh_leaderboard_entries, on the evaluator's
    evaluation_recorded signal; `manage.py rebuild_entries` rebuilds them all).

    Why a summary table: the leaderboard must render in well under 200 ms over a million evaluations; it reads
    these few rows (submissions x chips x 4) and adds them up instead of grouping the evaluations per request.
    One row per set: each source, the MC set and "all" (every operator), so a leaderboard query reads rows as they
    are, with no GROUP BY; every field is a sum (or a max) over the set's operators.
    """

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="entries")
    chip = models.ForeignKey("evaluator.Chip", on_delete=models.CASCADE, related_name="leaderboard_entries")
    operator_set = models.CharField(max_length=10, choices=OperatorSet.choices)
    operators_attempted = models.PositiveIntegerField(default=0)
    operators_evaluated = models.PositiveIntegerField(default=0)
    operators_compiled = models.PositiveIntegerField(default=0)
    operators_correct = models.PositiveIntegerField(default=0)
    operators_fast1 = models.PositiveIntegerField(default=0)
    operators_held_out = models.PositiveIntegerField(default=0)
    # over the set's operators: the hidden cases (held-out runs) their best sample passed
    hidden_cases_passed = models.PositiveIntegerField(default=0)
    samples = models.PositiveIntegerField(default=0)
    samples_correct = models.PositiveIntegerField(default=0)
    max_samples = models.PositiveIntegerField(default=0)
    speedup_log_sum = models.FloatField(default=0.0)
    speedup_count = models.PositiveIntegerField(default=0)
    sol_sum = models.FloatField(default=0.0)
    sol_count = models.PositiveIntegerField(default=0)
    pass1_sum = models.FloatField(default=0.0)
    pass5_sum = models.FloatField(default=0.0)
    pass10_sum = models.FloatField(default=0.0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    cached_tokens = models.PositiveBigIntegerField(default=0)
    reasoning_tokens = models.PositiveBigIntegerField(default=0)
    wall_time_s = models.FloatField(default=0.0)
    # what the row is comparable on besides its chip (leaderboard.vocabulary): the tier its operators' counted
    # verdicts come from ("mixed" when several) and the FLUSH:CLOCK protocol of its speedups ("untimed" on a chip
    # whose timings mean nothing, "mixed" when several); a leaderboard ranks only rows that agree on both
    tier = models.CharField(max_length=10, blank=True, default="")
    timing_protocol = models.CharField(max_length=20, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["submission", "chip", "operator_set"]
        verbose_name_plural = "leaderboard entries"
        constraints = [
            models.UniqueConstraint(fields=["submission", "chip", "operator_set"], name="entry_unique_cell"),
            models.CheckConstraint(
                condition=models.Q(operator_set__in=OperatorSet.values), name="entry_operator_set_valid"
            ),
        ]
        indexes = [
            # the leaderboard reads every entry of one chip and operator set (or all chips of a set)
            models.Index(fields=["operator_set", "chip"], name="entry_set_chip_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.submission} on {self.chip_id} ({self.operator_set})"
