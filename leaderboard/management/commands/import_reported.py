"""Import the KernelGenBench paper's tables as reported rows (idempotent)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services import import_reported_dir


class Command(BaseCommand):
    help = (
        "Import published results (kgb_paper_results.csv and/or kgb_paper_cost.csv, from a directory or one file) "
        "as rows marked 'reported'. Running it again updates the same rows."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "path", type=Path, help="directory holding the CSV files (e.g. leaderboard/data), or one CSV file"
        )

    def handle(self, *args, path: Path, **options) -> None:
        try:
            report = import_reported_dir(path=path)
        except (FileNotFoundError, ValueError, KeyError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"reported results: {report.created} created, {report.updated} updated")
