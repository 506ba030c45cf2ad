"""Rebuild the leaderboard summary table from the recorded evaluations (idempotent)."""

import uuid

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services import rebuild_all_entries


class Command(BaseCommand):
    help = (
        "Rebuild the LeaderboardEntry rows of every submission (or of the given ones) from their attempts and "
        "evaluations: after an upgrade that changes how the rows are computed, or to repair them. Safe to run "
        "while the site is live (each submission is rebuilt in its own transaction)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("submission_ids", nargs="*", help="submission ids (default: all submissions)")

    def handle(self, *args, submission_ids: list[str], **options) -> None:
        try:
            ids = [uuid.UUID(value) for value in submission_ids]
        except ValueError as exc:
            raise CommandError(f"not a submission id: {exc}") from None
        rows = rebuild_all_entries(submission_ids=ids or None)
        self.stdout.write(f"leaderboard entries: {rows} rows rebuilt")
