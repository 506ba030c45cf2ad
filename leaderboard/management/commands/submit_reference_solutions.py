"""Submit the platform's reference Triton solutions (operators/solutions/triton_reference) as a
`reference`-track submission for one chip, through the same validation and dispatch as any upload."""

import io
import json
import zipfile

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from leaderboard.services import create_submission
from leaderboard.upload import UploadInvalid
from operators.registry import REFERENCE_SOLUTIONS_DIR

PLATFORM_USER = "kernelgenbench"


class Command(BaseCommand):
    help = "Upload the reference Triton solutions as a 'reference' submission targeting --chip."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--chip", required=True, help="target chip slug, e.g. h200 or cpu")
        parser.add_argument("--name", default="Reference Triton (KernelGenBench platform)")

    def handle(self, *args, chip: str, name: str, **options) -> None:
        files = sorted(REFERENCE_SOLUTIONS_DIR.glob("*__*.py"))
        if not files:
            raise CommandError(f"no solution files in {REFERENCE_SOLUTIONS_DIR}")
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
            for path in files:
                bundle.writestr(path.name, path.read_text(encoding="utf-8"))
        metadata = {
            "schema": "kgb-submission/1",
            "name": name,
            "model": {"provider": "KernelGenBench platform", "name": "hand-written", "version": ""},
            "scaffold": {"name": "reference Triton", "kind": "one_shot"},
            "track": "reference",
            "target_chip": chip,
            "public": True,
            "notes": "Hand-written Triton baselines from operators/solutions/triton_reference.",
        }
        user, created = get_user_model().objects.get_or_create(username=PLATFORM_USER)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        try:
            submission = create_submission(
                uploader=user, archive_bytes=archive.getvalue(), metadata_bytes=json.dumps(metadata).encode()
            )
        except UploadInvalid as exc:
            raise CommandError("; ".join(f"{e.where}: {e.message}" for e in exc.errors)) from exc
        self.stdout.write(f"submission {submission.pk}: {len(files)} solutions for chip {chip}")
