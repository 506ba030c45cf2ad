"""Create or update the chip registry from evaluator/chips.py (idempotent: by slug)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.management.base import BaseCommand
from django.db import transaction

from evaluator.chips import CHIPS
from evaluator.models import Chip


@dataclass
class ChipSeedReport:
    created: list[str] = field(default_factory=list)
    updated: dict[str, list[str]] = field(default_factory=dict)  # slug -> the fields that changed
    unchanged: list[str] = field(default_factory=list)


@transaction.atomic
def seed_chips(rows: list[dict]) -> ChipSeedReport:
    """Create the missing chips and write the changed fields of the others; a chip whose fields all match its row
    is not written at all. Fields a row does not name (e.g. `active`) are left as they are."""
    report = ChipSeedReport()
    existing = Chip.objects.in_bulk([row["slug"] for row in rows], field_name="slug")
    for row in rows:
        slug = row["slug"]
        fields = {key: value for key, value in row.items() if key != "slug"}
        chip = existing.get(slug)
        if chip is None:
            Chip.objects.create(slug=slug, **fields)
            report.created.append(slug)
            continue
        changed = [name for name, value in fields.items() if getattr(chip, name) != value]
        if not changed:
            report.unchanged.append(slug)
            continue
        for name in changed:
            setattr(chip, name, fields[name])
        chip.save(update_fields=changed)
        report.updated[slug] = changed
    return report


class Command(BaseCommand):
    help = "Create or update the chips of evaluator/chips.py (by slug; reports created, updated and unchanged)."

    def handle(self, *args, **options) -> None:
        report = seed_chips(CHIPS)
        self.stdout.write(
            f"chips: {len(report.created)} created, {len(report.updated)} updated, {len(report.unchanged)} unchanged"
        )
        if options["verbosity"] >= 1:
            for slug, changed in report.updated.items():
                self.stdout.write(f"  updated {slug}: {', '.join(changed)}")
