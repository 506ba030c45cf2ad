"""Dispatch overhead: how many jobs per minute the site -> broker -> runner -> API loop carries
when the evaluation itself costs nothing (fake harness).

    .venv/bin/python bench/dispatch_throughput.py [--jobs 60] [--broker filesystem://|redis://...]
        [--concurrency 1]

Starts its own site (runserver on a free port, a fresh SQLite database in a temporary folder)
and one runner agent, enqueues one submission of N attempts, and reports the time from the
enqueue to the last recorded evaluation. Writes nothing under var/.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SETUP = """
import hashlib, sys
from django.contrib.auth import get_user_model
from evaluator import services
from evaluator.models import Chip
from leaderboard.models import Attempt, Submission
from operators.models import Operator

count = int(sys.argv[1])
chip = Chip.objects.get(slug="cpu")
runner, token = services.register_runner(chip=chip, name="bench", user=None)
user = get_user_model().objects.create(username="bench")
submission = Submission.objects.create(name="bench", track="agent", uploader=user, target_chip=chip)
operators = list(Operator.objects.all()[:count])
for index in range(count):
    source = f"# attempt {index}\\n"
    Attempt.objects.create(submission=submission, operator=operators[index % len(operators)], sample_index=index // len(operators),
                           file_name=f"a{index}.py", source=source, source_sha256=hashlib.sha256(source.encode()).hexdigest())
print(token)
print(submission.pk)
"""

ENQUEUE = """
import sys, time
from leaderboard import services
from leaderboard.models import Submission
submission = Submission.objects.get(pk=sys.argv[1])
start = time.time()
services.enqueue_submission(submission=submission)
print(start)
"""

PROGRESS = """
import sys
from django.db.models import Max
from evaluator.models import Evaluation, EvaluationJob
jobs = EvaluationJob.objects.filter(attempt__submission_id=sys.argv[1])
done = Evaluation.objects.filter(job__in=jobs)
last = done.aggregate(Max("created_at"))["created_at__max"]
starts = sorted(j.started_at.timestamp() for j in jobs if j.started_at)
running = [(j.finished_at - j.started_at).total_seconds() for j in jobs if j.finished_at and j.started_at]
gaps = [b - a for a, b in zip(starts, starts[1:])]
print(done.count(), jobs.count(), last.timestamp() if last else 0, sum(j.deliveries for j in jobs),
      sum(running) / max(len(running), 1), sum(gaps) / max(len(gaps), 1))
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def django_script(env: dict, code: str, *args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n" + code, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--broker", default="filesystem://")
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kgb-bench-") as folder:
        env = dict(
            os.environ,
            KGB_VAR_DIR=folder,
            DEBUG="1",
            DJANGO_SETTINGS_MODULE="kgsite.settings",
            CELERY_BROKER_URL=args.broker,
            LOG_LEVEL="WARNING",
            PYTHONPATH=str(ROOT),
        )
        for command in (["migrate", "-v0"], ["seed_chips"], ["sync_operators"]):
            subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True)
        token, submission_id = django_script(env, SETUP, str(args.jobs))
        Path(folder, "token").write_text(token)
        port = free_port()
        site = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        agent_env = {k: v for k, v in env.items() if k not in {"DJANGO_SETTINGS_MODULE", "CELERY_BROKER_URL"}}
        agent = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "evaluator.runner",
                "--site",
                site,
                "--token-file",
                str(Path(folder, "token")),
                "--fake-harness",
                "--concurrency",
                str(args.concurrency),
                "--loglevel",
                "WARNING",
            ],
            cwd=ROOT,
            env=agent_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            time.sleep(8)  # server and worker start-up are not part of the measurement
            (start,) = django_script(env, ENQUEUE, submission_id)
            deadline = time.time() + 600
            while time.time() < deadline:
                done, total, last, deliveries, claim_to_done, start_to_start = django_script(
                    env, PROGRESS, submission_id
                )
                if int(done) == int(total):
                    break
                time.sleep(1)
            elapsed = float(last) - float(start)
            report = {
                "jobs": int(total),
                "recorded": int(done),
                "deliveries": int(deliveries),
                "broker": args.broker,
                "worker_processes": args.concurrency,
                "seconds": round(elapsed, 2),
                "mean_claim_to_result_s": round(float(claim_to_done), 3),
                "mean_start_to_next_start_s": round(float(start_to_start), 3),
                "jobs_per_minute": round(int(done) / elapsed * 60, 1) if elapsed > 0 else None,
            }
            print(json.dumps(report))
        finally:
            agent.terminate()
            try:
                agent.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(agent.pid, signal.SIGKILL)
            server.terminate()
            server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
