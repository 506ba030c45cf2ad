"""Validate the hidden-cases file of held-out runs (KGB_HIDDEN_CASES_FILE, or a path given here)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluator import hidden_cases


class Command(BaseCommand):
    help = (
        "Check a hidden-cases file: every operator known, every case with the keys of that operator's "
        "full-tier cases, and inputs buildable on the CPU (cases whose inputs exceed --max-bytes are only "
        "key-checked). Exits non-zero on any problem."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", nargs="?", help="the JSON file (default: KGB_HIDDEN_CASES_FILE)")
        parser.add_argument(
            "--max-bytes",
            type=int,
            default=hidden_cases.DEFAULT_BUILD_LIMIT_BYTES,
            help="build inputs only for cases whose inputs take at most this many bytes (measured with fake "
            f"tensors first; default {hidden_cases.DEFAULT_BUILD_LIMIT_BYTES})",
        )

    def handle(self, *args, path: str | None, max_bytes: int, **options) -> None:
        path = path or settings.KGB_HIDDEN_CASES_FILE
        if not path:
            raise CommandError("give a path, or set KGB_HIDDEN_CASES_FILE")
        if max_bytes < 0:
            raise CommandError("--max-bytes cannot be negative")
        check = hidden_cases.check_file(path, build_limit_bytes=max_bytes)
        for problem in check.problems:
            self.stderr.write(f"error: {problem}")
        if check.problems:
            raise CommandError(f"{path}: {len(check.problems)} problem(s)")
        self.stdout.write(
            f"{path}: {check.cases} hidden case(s) valid; inputs built for {check.built}, "
            f"{check.not_built} over --max-bytes checked for keys only"
        )
