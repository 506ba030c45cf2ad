"""The local cpu runner of `make run`: registers it once, keeps its token in var/, execs the agent."""

import os
import sys

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from evaluator import services
from evaluator.models import Chip, Runner
from evaluator.vocabulary import RunnerState
from kgsite.celery import ensure_broker_folders

LOCAL_RUNNER_NAME = "local-cpu"
SITE_SECRETS = {"SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "REDIS_CACHE_URL", "DJANGO_SETTINGS_MODULE"}


class Command(BaseCommand):
    help = "Register (once) the local cpu runner, write var/local_runner.token (0600) and exec the runner agent."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--site", default=settings.KGB_SITE_URL, help="URL of the running site")
        parser.add_argument("--concurrency", type=int, default=1)
        parser.add_argument("--print-only", action="store_true", help="print the agent command instead of running it")

    def handle(self, *args, site: str, concurrency: int, print_only: bool, **options) -> None:
        ensure_broker_folders()  # the runner may start before the site has sent anything
        token_path = settings.VAR_DIR / "local_runner.token"
        chip = Chip.objects.filter(slug="cpu").first()
        if chip is None:
            call_command("seed_chips")
            chip = Chip.objects.get(slug="cpu")
        runner = Runner.objects.filter(chip=chip, name=LOCAL_RUNNER_NAME).first()
        token = token_path.read_text().strip() if token_path.exists() else ""
        if runner is None:
            runner, token = services.register_runner(chip=chip, name=LOCAL_RUNNER_NAME, user=None)
        elif not token or services.runner_for_token(token) != runner:
            # the token file was lost or belongs to another database: issue a new one
            token = services.rotate_token(runner=runner, user=None)
        if runner.state != RunnerState.ACTIVE:
            raise CommandError(f"the local runner is {runner.state}; activate it in the admin first")
        token_path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(token_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(token + "\n")
        os.chmod(token_path, 0o600)
        argv = [
            sys.executable,
            "-m",
            "evaluator.runner",
            "--site",
            site,
            "--token-file",
            str(token_path),
            "--chip",
            "cpu",
            "--concurrency",
            str(concurrency),
        ]
        if print_only:
            self.stdout.write(" ".join(argv))
            return
        self.stderr.write(f"starting local cpu runner against {site}")
        sys.stdout.flush()
        # the agent needs no site secrets, and the candidates it runs must not inherit them
        environment = {key: value for key, value in os.environ.items() if key not in SITE_SECRETS}
        os.execve(sys.executable, argv, environment)
