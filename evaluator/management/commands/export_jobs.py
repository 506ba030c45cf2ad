"""Write a job bundle (kgb.jobs/1) of a chip's queued jobs for an air-gapped runner."""

import json

from django.core.management.base import BaseCommand, CommandError

from evaluator import services
from evaluator.models import Chip
from kgsite.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Print a job bundle of the chip's queued jobs (oldest first) to stdout. Claims nothing: the jobs "
        "stay queued. Held-out jobs carry their secret seed (and hidden cases): treat the file as a secret."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--chip", required=True, help="chip slug")
        parser.add_argument("--limit", type=int, default=None, help="at most this many jobs")

    def handle(self, *args, chip: str, limit: int | None, **options) -> None:
        try:
            chip_row = Chip.objects.get(slug=chip)
        except Chip.DoesNotExist:
            raise CommandError(f"no chip {chip!r}") from None
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1")
        try:
            bundle = services.export_jobs(chip=chip_row, limit=limit)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(json.dumps(bundle, indent=1))
        self.stderr.write(f"exported {len(bundle['jobs'])} queued job(s) for {chip}")
