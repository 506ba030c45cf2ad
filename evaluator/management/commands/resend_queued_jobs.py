"""Send again jobs that are still queued after a while (lost messages after a broker outage)."""

from django.core.management.base import BaseCommand, CommandError

from evaluator import services
from evaluator.models import Chip


class Command(BaseCommand):
    help = "Re-send Celery messages for jobs queued longer than --older-than seconds (duplicates are harmless)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--older-than", type=int, default=3600, help="seconds a job has been queued (default 3600)")
        parser.add_argument("--chip", default=None, help="only this chip's jobs")

    def handle(self, *args, older_than: int, chip: str | None, **options) -> None:
        chip_row = None
        if chip is not None:
            chip_row = Chip.objects.filter(slug=chip).first()
            if chip_row is None:
                raise CommandError(f"no chip {chip!r}")
        count = services.resend_queued_jobs(older_than_s=older_than, chip=chip_row)
        self.stdout.write(f"re-sent {count} queued job(s)")
