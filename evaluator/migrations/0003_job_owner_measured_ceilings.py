"""Jobs carry their owner (the queue cap counts a user's jobs without joining through the
leaderboard's tables); chips carry their measured ceilings beside the datasheet's.

The data steps use the historical models of this migration (apps.get_model), never today's code,
so the migration runs the same on any later checkout.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def backfill(apps, schema_editor) -> None:
    EvaluationJob = apps.get_model("evaluator", "EvaluationJob")
    Chip = apps.get_model("evaluator", "Chip")
    # the owner of an existing job is the uploader of its attempt's submission
    for job in EvaluationJob.objects.filter(owner__isnull=True).select_related("attempt__submission").iterator():
        uploader_id = job.attempt.submission.uploader_id
        if uploader_id is not None:
            EvaluationJob.objects.filter(pk=job.pk).update(owner_id=uploader_id)
    # the measurements recorded so far as notes (evaluator/chips.py's `measured`) become the figures
    for chip in Chip.objects.all():
        notes = chip.measured or {}
        bandwidth = notes.get("copy_bandwidth_gbs")
        bf16 = notes.get("bf16_matmul_tflops")
        changed = []
        if chip.measured_bandwidth_gbs is None and isinstance(bandwidth, int | float) and bandwidth > 0:
            chip.measured_bandwidth_gbs = float(bandwidth)
            changed.append("measured_bandwidth_gbs")
        if not chip.measured_tflops and isinstance(bf16, int | float) and bf16 > 0:
            chip.measured_tflops = {"bfloat16": float(bf16)}
            changed.append("measured_tflops")
        if changed:
            chip.save(update_fields=changed)


class Migration(migrations.Migration):
    dependencies = [
        ("evaluator", "0002_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="chip",
            name="measured_bandwidth_gbs",
            field=models.FloatField(
                blank=True, help_text="Memory bandwidth we measured on the chip (large device copy), GB/s.", null=True
            ),
        ),
        migrations.AddField(
            model_name="chip",
            name="measured_tflops",
            field=models.JSONField(
                blank=True, default=dict, help_text="Dense rates per dtype we measured on the chip, TFLOP/s."
            ),
        ),
        migrations.AddField(
            model_name="evaluationjob",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="evaluation_jobs",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddIndex(
            model_name="evaluationjob",
            index=models.Index(fields=["owner", "state"], name="job_owner_state_idx"),
        ),
        migrations.AddConstraint(
            model_name="chip",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("measured_bandwidth_gbs__isnull", True), ("measured_bandwidth_gbs__gt", 0), _connector="OR"
                ),
                name="chip_measured_bandwidth_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="chip",
            constraint=models.CheckConstraint(
                condition=models.Q(("device_type__in", ("cuda", "cpu", "npu", "musa", "xpu", "mlu"))),
                name="chip_device_type_valid",
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
