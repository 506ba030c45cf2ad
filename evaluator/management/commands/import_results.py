"""Record a signed results bundle (kgb.results/1) from an air-gapped runner."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluator import services
from kgsite.errors import ApplicationError


class Command(BaseCommand):
    help = "Verify the runner signature of a results file and record its evaluations (idempotent)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("results_file")
        parser.add_argument("--runner", default=None, help="refuse the file unless this runner (name) signed it")

    def handle(self, *args, results_file: str, runner: str | None, **options) -> None:
        try:
            bundle = json.loads(Path(results_file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CommandError(f"cannot read {results_file}: {error}") from None
        try:
            summary = services.import_results(bundle=bundle, runner_name=runner)
        except ApplicationError as error:
            raise CommandError(error.message) from None
        self.stdout.write(
            f"runner {summary.runner.name} ({summary.runner.chip.slug}): {summary.recorded} recorded, "
            f"{summary.duplicates} already recorded, {len(summary.runner_failures)} without a verdict"
        )
        for line in summary.runner_failures:
            self.stderr.write(f"  no verdict: {line}")
