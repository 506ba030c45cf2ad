"""The leaderboard's tables: LLM models, scaffolds, submissions, attempts, reported results and
the leaderboard summary table (LeaderboardEntry, rebuilt from evaluations by
leaderboard.services.refresh_leaderboard_entries; `manage.py rebuild_entries` rebuilds it).

Needs the evaluator's chips (evaluator 0001) and the operator catalog. Replaces the leaderboard's
first four migrations (no production data then; the name is kept, see evaluator 0001).
"""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("evaluator", "0001_initial"),
        ("operators", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LLMModel",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("provider", models.CharField(max_length=60)),
                ("name", models.CharField(max_length=100)),
                ("version", models.CharField(blank=True, max_length=60)),
                ("release_date", models.DateField(blank=True, null=True)),
                (
                    "price_input_per_mtok",
                    models.DecimalField(
                        blank=True,
                        decimal_places=4,
                        max_digits=10,
                        null=True,
                        verbose_name="price per million input tokens (USD)",
                    ),
                ),
                (
                    "price_output_per_mtok",
                    models.DecimalField(
                        blank=True,
                        decimal_places=4,
                        max_digits=10,
                        null=True,
                        verbose_name="price per million output tokens (USD)",
                    ),
                ),
                (
                    "price_cached_input_per_mtok",
                    models.DecimalField(
                        blank=True,
                        decimal_places=4,
                        max_digits=10,
                        null=True,
                        verbose_name="price per million cached input tokens (USD)",
                    ),
                ),
                ("url", models.URLField(blank=True)),
            ],
            options={
                "verbose_name": "LLM model",
                "ordering": ["provider", "name", "version"],
                "constraints": [
                    models.UniqueConstraint(fields=("provider", "name", "version"), name="llmmodel_unique_identity"),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("price_input_per_mtok__isnull", True), ("price_input_per_mtok__gte", 0), _connector="OR"
                        ),
                        name="llmmodel_input_price_nonnegative",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("price_output_per_mtok__isnull", True), ("price_output_per_mtok__gte", 0), _connector="OR"
                        ),
                        name="llmmodel_output_price_nonnegative",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="Scaffold",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                (
                    "kind",
                    models.CharField(
                        choices=[("one_shot", "one-shot LLM"), ("pass_at_k", "LLM pass@k"), ("agent", "agent")],
                        max_length=10,
                    ),
                ),
                ("version", models.CharField(blank=True, max_length=60)),
                ("url", models.URLField(blank=True)),
                ("description", models.TextField(blank=True)),
            ],
            options={
                "ordering": ["name", "version"],
                "constraints": [
                    models.UniqueConstraint(fields=("name", "version"), name="scaffold_unique_name_version"),
                    models.CheckConstraint(
                        condition=models.Q(("kind__in", ("one_shot", "pass_at_k", "agent"))), name="scaffold_kind_valid"
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="Submission",
            fields=[
                ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ("name", models.CharField(help_text="A short label shown on leaderboards.", max_length=120)),
                (
                    "track",
                    models.CharField(
                        choices=[("llm", "LLM (pass@k)"), ("agent", "agent"), ("reference", "reference Triton")],
                        max_length=10,
                    ),
                ),
                ("metadata", models.JSONField(blank=True, default=dict)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("received", "received"),
                            ("evaluating", "evaluating"),
                            ("complete", "complete"),
                            ("failed", "failed"),
                            ("withdrawn", "withdrawn"),
                        ],
                        default="received",
                        max_length=12,
                    ),
                ),
                ("is_public", models.BooleanField(default=True)),
                (
                    "is_demo",
                    models.BooleanField(
                        default=False, help_text="Demo data from `seed_demo`: labelled as such on the site."
                    ),
                ),
                (
                    "held_out",
                    models.BooleanField(default=False, help_text="Evaluated with secret seeds (ranked runs)."),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "model",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="submissions",
                        to="leaderboard.llmmodel",
                    ),
                ),
                (
                    "scaffold",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="submissions",
                        to="leaderboard.scaffold",
                    ),
                ),
                (
                    "target_chip",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="submissions", to="evaluator.chip"
                    ),
                ),
                (
                    "uploader",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="submissions",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="LeaderboardEntry",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "operator_set",
                    models.CharField(
                        choices=[
                            ("all", "all sources"),
                            ("aten", "ATen"),
                            ("vllm13", "vLLM"),
                            ("cublas", "cuBLAS"),
                            ("mc", "multi-chip set"),
                        ],
                        max_length=10,
                    ),
                ),
                ("operators_attempted", models.PositiveIntegerField(default=0)),
                ("operators_evaluated", models.PositiveIntegerField(default=0)),
                ("operators_compiled", models.PositiveIntegerField(default=0)),
                ("operators_correct", models.PositiveIntegerField(default=0)),
                ("operators_fast1", models.PositiveIntegerField(default=0)),
                ("operators_held_out", models.PositiveIntegerField(default=0)),
                ("hidden_cases_passed", models.PositiveIntegerField(default=0)),
                ("samples", models.PositiveIntegerField(default=0)),
                ("samples_correct", models.PositiveIntegerField(default=0)),
                ("max_samples", models.PositiveIntegerField(default=0)),
                ("speedup_log_sum", models.FloatField(default=0.0)),
                ("speedup_count", models.PositiveIntegerField(default=0)),
                ("sol_sum", models.FloatField(default=0.0)),
                ("sol_count", models.PositiveIntegerField(default=0)),
                ("pass1_sum", models.FloatField(default=0.0)),
                ("pass5_sum", models.FloatField(default=0.0)),
                ("pass10_sum", models.FloatField(default=0.0)),
                ("prompt_tokens", models.PositiveBigIntegerField(default=0)),
                ("completion_tokens", models.PositiveBigIntegerField(default=0)),
                ("cached_tokens", models.PositiveBigIntegerField(default=0)),
                ("reasoning_tokens", models.PositiveBigIntegerField(default=0)),
                ("wall_time_s", models.FloatField(default=0.0)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "chip",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="leaderboard_entries",
                        to="evaluator.chip",
                    ),
                ),
                (
                    "submission",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="entries", to="leaderboard.submission"
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "leaderboard entries",
                "ordering": ["submission", "chip", "operator_set"],
            },
        ),
        migrations.CreateModel(
            name="Attempt",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("sample_index", models.PositiveSmallIntegerField(default=0)),
                ("file_name", models.CharField(max_length=160)),
                ("source", models.TextField()),
                ("source_sha256", models.CharField(max_length=64)),
                ("prompt_tokens", models.PositiveBigIntegerField(default=0)),
                ("completion_tokens", models.PositiveBigIntegerField(default=0)),
                ("cached_tokens", models.PositiveBigIntegerField(default=0)),
                ("reasoning_tokens", models.PositiveBigIntegerField(default=0)),
                ("turns", models.PositiveIntegerField(blank=True, null=True)),
                ("wall_time_s", models.FloatField(blank=True, null=True)),
                ("transcript", models.TextField(blank=True)),
                (
                    "operator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="attempts", to="operators.operator"
                    ),
                ),
                (
                    "submission",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="attempts",
                        to="leaderboard.submission",
                    ),
                ),
            ],
            options={
                "ordering": ["submission", "operator", "sample_index"],
            },
        ),
        migrations.CreateModel(
            name="ReportedResult",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("source_name", models.CharField(help_text="Where the figure was published.", max_length=200)),
                ("source_url", models.URLField(blank=True)),
                ("table", models.CharField(help_text="e.g. 'multi_source', 'multi_chip', 'cost'.", max_length=60)),
                (
                    "method",
                    models.CharField(help_text="Scaffold or method as published, e.g. 'Claude Code'.", max_length=120),
                ),
                ("model_name", models.CharField(max_length=100)),
                (
                    "chip_label",
                    models.CharField(help_text="Chip as published, e.g. 'NVIDIA A100' or 'Platform E'.", max_length=60),
                ),
                ("operator_set", models.CharField(help_text="overall, aten, vllm13, cublas, mc ...", max_length=30)),
                ("accuracy_pct", models.FloatField(blank=True, null=True)),
                ("speedup", models.FloatField(blank=True, null=True)),
                ("total_tokens_m", models.FloatField(blank=True, null=True)),
                ("tokens_per_success_m", models.FloatField(blank=True, null=True)),
                ("total_time_h", models.FloatField(blank=True, null=True)),
                ("note", models.TextField(blank=True)),
                ("imported_at", models.DateTimeField(auto_now_add=True)),
                (
                    "chip",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to="evaluator.chip"
                    ),
                ),
                (
                    "imported_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "ordering": ["table", "method", "model_name", "chip_label", "operator_set"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("source_name", "table", "method", "model_name", "chip_label", "operator_set"),
                        name="reported_unique_cell",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("accuracy_pct__isnull", True),
                            models.Q(("accuracy_pct__gte", 0), ("accuracy_pct__lte", 100)),
                            _connector="OR",
                        ),
                        name="reported_accuracy_range",
                    ),
                ],
            },
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(fields=["target_chip", "is_public", "status"], name="submission_board_idx"),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(fields=["uploader", "created_at"], name="submission_uploader_idx"),
        ),
        migrations.AddConstraint(
            model_name="submission",
            constraint=models.CheckConstraint(
                condition=models.Q(("track__in", ("llm", "agent", "reference"))), name="submission_track_valid"
            ),
        ),
        migrations.AddConstraint(
            model_name="submission",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ("received", "evaluating", "complete", "failed", "withdrawn"))),
                name="submission_status_valid",
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(fields=["operator_set", "chip"], name="entry_set_chip_idx"),
        ),
        migrations.AddConstraint(
            model_name="leaderboardentry",
            constraint=models.UniqueConstraint(fields=("submission", "chip", "operator_set"), name="entry_unique_cell"),
        ),
        migrations.AddConstraint(
            model_name="leaderboardentry",
            constraint=models.CheckConstraint(
                condition=models.Q(("operator_set__in", ("all", "aten", "vllm13", "cublas", "mc"))),
                name="entry_operator_set_valid",
            ),
        ),
        migrations.AddIndex(
            model_name="attempt",
            index=models.Index(fields=["operator", "submission"], name="attempt_operator_idx"),
        ),
        migrations.AddConstraint(
            model_name="attempt",
            constraint=models.UniqueConstraint(
                fields=("submission", "operator", "sample_index"), name="attempt_unique_sample"
            ),
        ),
        migrations.AddConstraint(
            model_name="attempt",
            constraint=models.CheckConstraint(
                condition=models.Q(("wall_time_s__isnull", True), ("wall_time_s__gte", 0), _connector="OR"),
                name="attempt_wall_time_nonnegative",
            ),
        ),
    ]
