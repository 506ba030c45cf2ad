"""LeaderboardEntry.tier and .timing_protocol: what a row is comparable on besides its chip (issue 21).

Existing rows get the values every job the site has created so far had: the chip's default tier (smoke on the CPU
interpreter, full elsewhere: evaluator.services.default_tier, the only tier create_jobs was ever called with) and,
for speedups, the ranked protocol (a result timed under another one is rejected, never ranked) or "untimed" on a
chip whose timings mean nothing. `manage.py rebuild_entries` recomputes both from the evaluations themselves."""

from django.conf import settings
from django.db import migrations, models


def fill(apps, schema_editor):
    Entry = apps.get_model("leaderboard", "LeaderboardEntry")
    Entry.objects.filter(chip__device_type="cpu").update(tier="smoke")
    Entry.objects.exclude(chip__device_type="cpu").update(tier="full")
    Entry.objects.filter(chip__timing_meaningful=False).update(timing_protocol="untimed")
    Entry.objects.filter(chip__timing_meaningful=True).update(
        timing_protocol=getattr(settings, "KGB_RANKED_TIMING_PROTOCOL", "write:events")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("evaluator", "0004_evaluation_rejected_reason"),
        ("leaderboard", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="leaderboardentry",
            name="tier",
            field=models.CharField(blank=True, default="", max_length=10),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="timing_protocol",
            field=models.CharField(blank=True, default="", max_length=20),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
