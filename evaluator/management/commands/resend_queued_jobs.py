"""Send again what is really lost: running jobs whose claim lease ran out (their runner died), and
queued jobs whose last message went out a while ago (lost in a broker outage). Run it from cron."""

from django.core.management.base import BaseCommand, CommandError

from evaluator import services
from evaluator.models import Chip


class Command(BaseCommand):
    help = (
        "Queue again and re-send running jobs whose lease ran out, and re-send queued jobs whose last message is "
        "older than --older-than seconds. Jobs under a live lease are never re-sent; an extra message is dropped."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--older-than", type=int, default=3600, help="seconds since a queued job's last message (default 3600)"
        )
        parser.add_argument("--chip", default=None, help="only this chip's jobs")

    def handle(self, *args, older_than: int, chip: str | None, **options) -> None:
        chip_row = None
        if chip is not None:
            chip_row = Chip.objects.filter(slug=chip).first()
            if chip_row is None:
                raise CommandError(f"no chip {chip!r}")
        count = services.resend_queued_jobs(older_than_s=older_than, chip=chip_row)
        self.stdout.write(f"re-sent {count} job(s)")
