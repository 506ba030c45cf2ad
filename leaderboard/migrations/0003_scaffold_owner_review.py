"""Scaffolds get an owner and a review step, models their creator and a review step (issue 15, item 8).

Until now the first uploader of a scaffold name fixed its kind and URL for everyone. Existing rows: a scaffold or
model named by submissions belongs to (was created by) the uploader of its earliest submission and is unreviewed,
so other users' next uploads get scaffolds of their own; one that only demo submissions or none name was made by
the site (`seed_demo`, the admin, a script) and counts as reviewed. Names also refuse control, bidi and invisible characters.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import leaderboard.models


def owners_from_first_submissions(apps, schema_editor):
    Submission = apps.get_model("leaderboard", "Submission")
    for model_name, fk, owner_field in (("Scaffold", "scaffold", "owner"), ("LLMModel", "model", "created_by")):
        Model = apps.get_model("leaderboard", model_name)
        for row in Model.objects.all():
            first = (
                Submission.objects.filter(**{fk: row})
                .order_by("created_at")
                .values_list("uploader_id", flat=True)
                .first()
            )
            # `seed_demo`'s rows are the site's own, as are rows no submission names
            used = Submission.objects.filter(**{fk: row}, is_demo=False).exists()
            setattr(row, f"{owner_field}_id", first)
            row.reviewed = not used
            row.save(update_fields=[owner_field, "reviewed"])


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0002_entry_tier_timing_protocol"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="scaffold",
            name="scaffold_unique_name_version",
        ),
        migrations.AddField(
            model_name="llmmodel",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                help_text="Whose upload first named this model (empty: created by staff).",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="llmmodel",
            name="reviewed",
            field=models.BooleanField(default=False, help_text="Staff checked its identity and prices."),
        ),
        migrations.AddField(
            model_name="scaffold",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                help_text="Who declared it; until it is reviewed only their uploads use it.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="scaffolds",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="scaffold",
            name="reviewed",
            field=models.BooleanField(
                default=False, help_text="Checked by staff: every upload naming it uses it, with its kind and URL."
            ),
        ),
        migrations.AlterField(
            model_name="llmmodel",
            name="name",
            field=models.CharField(max_length=100, validators=[leaderboard.models.validate_plain_name]),
        ),
        migrations.AlterField(
            model_name="llmmodel",
            name="provider",
            field=models.CharField(max_length=60, validators=[leaderboard.models.validate_plain_name]),
        ),
        migrations.AlterField(
            model_name="llmmodel",
            name="version",
            field=models.CharField(blank=True, max_length=60, validators=[leaderboard.models.validate_plain_name]),
        ),
        migrations.AlterField(
            model_name="scaffold",
            name="name",
            field=models.CharField(max_length=100, validators=[leaderboard.models.validate_plain_name]),
        ),
        migrations.AlterField(
            model_name="scaffold",
            name="version",
            field=models.CharField(blank=True, max_length=60, validators=[leaderboard.models.validate_plain_name]),
        ),
        migrations.AlterField(
            model_name="submission",
            name="name",
            field=models.CharField(
                help_text="A short label shown on leaderboards.",
                max_length=120,
                validators=[leaderboard.models.validate_plain_name],
            ),
        ),
        migrations.RunPython(owners_from_first_submissions, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="scaffold",
            constraint=models.UniqueConstraint(
                condition=models.Q(("reviewed", True)), fields=("name", "version"), name="scaffold_unique_reviewed"
            ),
        ),
        migrations.AddConstraint(
            model_name="scaffold",
            constraint=models.UniqueConstraint(
                condition=models.Q(("reviewed", False)),
                fields=("owner", "name", "version"),
                name="scaffold_unique_per_owner",
            ),
        ),
    ]
