"""The evaluator's links to the attempts it evaluates (leaderboard.Attempt, by string foreign key),
with the indexes that read through them: job_attempt_state_idx (a submission's progress and
whether all its jobs have settled) and evaluation_chip_attempt_idx (leaderboard aggregation).
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("evaluator", "0001_initial"),
        ("leaderboard", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="evaluation",
            name="attempt",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="evaluations", to="leaderboard.attempt"
            ),
        ),
        migrations.AddField(
            model_name="evaluationjob",
            name="attempt",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="jobs", to="leaderboard.attempt"
            ),
        ),
        migrations.AddIndex(
            model_name="evaluationjob",
            index=models.Index(fields=["attempt", "state"], name="job_attempt_state_idx"),
        ),
        migrations.AddIndex(
            model_name="evaluation",
            index=models.Index(fields=["chip", "attempt"], name="evaluation_chip_attempt_idx"),
        ),
    ]
