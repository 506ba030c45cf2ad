from django.core.management.base import BaseCommand

from operators.services import sync_operators


class Command(BaseCommand):
    help = "Mirror the operator catalog (operators/catalog) into the database. Safe to run repeatedly."

    def handle(self, *args, **options) -> None:
        report = sync_operators()
        self.stdout.write(
            f"operators: {report.created} created, {report.updated} updated, "
            f"{report.unchanged} unchanged, {report.retired} retired"
        )
