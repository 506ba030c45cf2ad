"""The evaluator's tables: chips, runners, jobs, evaluations and their audit logs.

Depends on no other app of the site. The two links to the leaderboard's attempts (string foreign
keys: the evaluator never imports the leaderboard) come in 0002, after leaderboard 0001: the one
step where the migration graph crosses from the evaluator to the leaderboard. These files replace
the first migrations of both apps (the site held no production data then); their names are kept,
so a development database migrated to the end of the old chain needs nothing.
"""

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Evaluation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "tier",
                    models.CharField(
                        choices=[("smoke", "smoke"), ("full", "full"), ("edge", "edge"), ("perf", "perf")],
                        max_length=10,
                    ),
                ),
                ("held_out", models.BooleanField(default=False)),
                (
                    "verdict",
                    models.CharField(
                        choices=[
                            ("correct", "correct"),
                            ("incorrect", "incorrect"),
                            ("compile_error", "compile error"),
                            ("missing_entrypoint", "missing entrypoint"),
                            ("runtime_error", "runtime error"),
                            ("timeout", "timeout"),
                            ("cheat_detected", "cheat detected"),
                        ],
                        max_length=20,
                    ),
                ),
                ("reason", models.TextField(blank=True)),
                ("cases", models.JSONField(blank=True, default=list)),
                ("cases_total", models.PositiveIntegerField(default=0)),
                ("cases_passed", models.PositiveIntegerField(default=0)),
                ("hidden_cases_passed", models.PositiveIntegerField(default=0)),
                ("timing", models.JSONField(blank=True, null=True)),
                ("speedup", models.FloatField(blank=True, null=True)),
                ("sol_pct", models.FloatField(blank=True, null=True)),
                ("findings", models.JSONField(blank=True, default=list)),
                ("environment", models.JSONField(blank=True, default=dict)),
                ("harness_version", models.CharField(blank=True, max_length=40)),
                ("result_schema", models.CharField(blank=True, max_length=30)),
                ("duration_s", models.FloatField(blank=True, null=True)),
                ("stderr_tail", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="EvaluationJob",
            fields=[
                ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                (
                    "tier",
                    models.CharField(
                        choices=[("smoke", "smoke"), ("full", "full"), ("edge", "edge"), ("perf", "perf")],
                        max_length=10,
                    ),
                ),
                (
                    "state",
                    models.CharField(
                        choices=[
                            ("queued", "queued"),
                            ("running", "running"),
                            ("done", "done"),
                            ("failed", "failed (no verdict: harness or runner failure)"),
                            ("cancelled", "cancelled"),
                        ],
                        default="queued",
                        max_length=10,
                    ),
                ),
                ("secret_seed", models.BigIntegerField(blank=True, null=True)),
                ("timeout_s", models.PositiveIntegerField(default=600)),
                (
                    "deliveries",
                    models.PositiveIntegerField(default=0, help_text="How many times a runner picked this job up."),
                ),
                ("queued_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("error", models.TextField(blank=True, help_text="Why the job failed without a verdict.")),
            ],
            options={
                "ordering": ["-queued_at"],
            },
        ),
        migrations.CreateModel(
            name="JobEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("from_state", models.CharField(blank=True, max_length=10)),
                ("to_state", models.CharField(max_length=10)),
                ("detail", models.TextField(blank=True)),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "ordering": ["at", "id"],
            },
        ),
        migrations.CreateModel(
            name="Runner",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                (
                    "token_id",
                    models.CharField(help_text="Public part of the token, for lookup.", max_length=16, unique=True),
                ),
                ("token_hash", models.CharField(help_text="sha256 hex of the whole token.", max_length=64)),
                (
                    "state",
                    models.CharField(
                        choices=[
                            ("active", "active"),
                            ("draining", "draining (finishes current jobs, takes no new ones)"),
                            ("disabled", "disabled"),
                        ],
                        default="active",
                        max_length=10,
                    ),
                ),
                ("last_heartbeat_at", models.DateTimeField(blank=True, null=True)),
                ("last_environment", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("token_rotated_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["chip__slug", "name"],
            },
        ),
        migrations.CreateModel(
            name="RunnerAuditEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("action", models.CharField(max_length=30)),
                ("detail", models.TextField(blank=True)),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "ordering": ["-at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="Chip",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("slug", models.SlugField(max_length=40, unique=True)),
                ("name", models.CharField(max_length=100)),
                ("vendor", models.CharField(max_length=60)),
                (
                    "family",
                    models.CharField(
                        help_text="Chip family for prompts: nvidia, amd, ascend, moore_threads, hygon, iluvatar, metax, cpu.",
                        max_length=30,
                    ),
                ),
                (
                    "device_type",
                    models.CharField(
                        choices=[
                            ("cuda", "cuda (NVIDIA, and AMD/Hygon/Iluvatar/MetaX through CUDA-compatible torch)"),
                            ("cpu", "cpu (Triton interpreter)"),
                            ("npu", "npu (Ascend)"),
                            ("musa", "musa (Moore Threads)"),
                            ("xpu", "xpu"),
                            ("mlu", "mlu"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "triton_backend",
                    models.CharField(
                        help_text="Triton backend or fork, e.g. 'nvidia', 'amd', 'triton-ascend'.", max_length=60
                    ),
                ),
                ("l2_bytes", models.BigIntegerField(blank=True, null=True)),
                (
                    "peak_bandwidth_gbs",
                    models.FloatField(blank=True, help_text="Datasheet peak memory bandwidth, GB/s.", null=True),
                ),
                (
                    "peak_tflops",
                    models.JSONField(blank=True, default=dict, help_text="Datasheet dense peak per dtype, TFLOP/s."),
                ),
                (
                    "measured",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="How and when the measured figures were taken (date, machine, notes).",
                    ),
                ),
                ("sources", models.TextField(blank=True, help_text="Where the published figures come from.")),
                (
                    "timing_meaningful",
                    models.BooleanField(default=True, help_text="False for the CPU interpreter: no speedups."),
                ),
                ("active", models.BooleanField(default=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["vendor", "name"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            ("peak_bandwidth_gbs__isnull", True), ("peak_bandwidth_gbs__gt", 0), _connector="OR"
                        ),
                        name="chip_bandwidth_positive",
                    )
                ],
            },
        ),
        migrations.AddField(
            model_name="evaluation",
            name="chip",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="evaluations", to="evaluator.chip"
            ),
        ),
        migrations.AddField(
            model_name="evaluationjob",
            name="chip",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="jobs", to="evaluator.chip"
            ),
        ),
        migrations.AddField(
            model_name="evaluation",
            name="job",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE, related_name="evaluation", to="evaluator.evaluationjob"
            ),
        ),
        migrations.AddField(
            model_name="jobevent",
            name="job",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="events", to="evaluator.evaluationjob"
            ),
        ),
        migrations.AddField(
            model_name="jobevent",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="runner",
            name="chip",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="runners", to="evaluator.chip"
            ),
        ),
        migrations.AddField(
            model_name="runner",
            name="created_by",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AddField(
            model_name="runner",
            name="current_job",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="evaluator.evaluationjob",
            ),
        ),
        migrations.AddField(
            model_name="jobevent",
            name="runner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="evaluator.runner",
            ),
        ),
        migrations.AddField(
            model_name="evaluationjob",
            name="runner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="jobs",
                to="evaluator.runner",
            ),
        ),
        migrations.AddField(
            model_name="evaluation",
            name="runner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="evaluations",
                to="evaluator.runner",
            ),
        ),
        migrations.AddField(
            model_name="runnerauditevent",
            name="runner",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="audit_events", to="evaluator.runner"
            ),
        ),
        migrations.AddField(
            model_name="runnerauditevent",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="runner",
            constraint=models.UniqueConstraint(fields=("chip", "name"), name="runner_unique_name_per_chip"),
        ),
        migrations.AddConstraint(
            model_name="runner",
            constraint=models.CheckConstraint(
                condition=models.Q(("state__in", ("active", "draining", "disabled"))), name="runner_state_valid"
            ),
        ),
        migrations.AddIndex(
            model_name="jobevent",
            index=models.Index(fields=["job", "at"], name="jobevent_job_at_idx"),
        ),
        migrations.AddIndex(
            model_name="evaluationjob",
            index=models.Index(fields=["chip", "state"], name="job_chip_state_idx"),
        ),
        migrations.AddConstraint(
            model_name="evaluationjob",
            constraint=models.CheckConstraint(
                condition=models.Q(("state__in", ("queued", "running", "done", "failed", "cancelled"))),
                name="job_state_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluationjob",
            constraint=models.CheckConstraint(
                condition=models.Q(("tier__in", ("smoke", "full", "edge", "perf"))), name="job_tier_valid"
            ),
        ),
        migrations.AddIndex(
            model_name="evaluation",
            index=models.Index(fields=["chip", "verdict"], name="evaluation_chip_verdict_idx"),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "verdict__in",
                        (
                            "correct",
                            "incorrect",
                            "compile_error",
                            "missing_entrypoint",
                            "runtime_error",
                            "timeout",
                            "cheat_detected",
                        ),
                    )
                ),
                name="evaluation_verdict_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("speedup__isnull", True), ("speedup__gt", 0), _connector="OR"),
                name="evaluation_speedup_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(("cases_passed__lte", models.F("cases_total"))), name="evaluation_cases_consistent"
            ),
        ),
        migrations.AddConstraint(
            model_name="evaluation",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("hidden_cases_passed__lte", models.F("cases_passed")),
                    models.Q(("held_out", True), ("hidden_cases_passed", 0), _connector="OR"),
                ),
                name="evaluation_hidden_cases_consistent",
            ),
        ),
        migrations.AddIndex(
            model_name="runnerauditevent",
            index=models.Index(fields=["runner", "at"], name="runneraudit_runner_at_idx"),
        ),
    ]
