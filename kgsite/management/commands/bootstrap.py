from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Prepare a site in one process: migrate, mirror the operator catalog, seed the chips and "
        "(with --demo) the labelled demo data. Every step is idempotent."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--demo", action="store_true", help="also load the demo dataset")

    def handle(self, *args, demo: bool, **options) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("database: migrated")
        call_command("sync_operators", stdout=self.stdout)
        call_command("seed_chips", stdout=self.stdout)
        if demo:
            call_command("seed_demo", stdout=self.stdout)
