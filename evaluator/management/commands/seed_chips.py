"""Create or update the chip registry from evaluator/chips.py (idempotent: by slug)."""

from django.core.management.base import BaseCommand
from django.db import transaction

from evaluator.chips import CHIPS
from evaluator.models import Chip


class Command(BaseCommand):
    help = "Create or update the chips of evaluator/chips.py (update_or_create by slug)."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        created_count = 0
        for row in CHIPS:
            fields = {key: value for key, value in row.items() if key != "slug"}
            _, created = Chip.objects.update_or_create(slug=row["slug"], defaults=fields)
            created_count += created
        self.stdout.write(f"chips: {created_count} created, {len(CHIPS) - created_count} updated")
