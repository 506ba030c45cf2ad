"""Leaderboard performance on PostgreSQL with 1,000,000 Evaluation rows (issue 8's figures).

    .venv/bin/python bench/leaderboard_perf.py [--pg postgres://postgres@127.0.0.1:5432] [--evaluations 1000000]

Creates a throw-away database (kgb_bench_<pid>), migrates it, loads the catalog's operators and the chips,
fills attempts, jobs and evaluations with COPY, rebuilds the leaderboard summary table, then measures with the
Django test client (server-side time: URL routing, queries, template rendering) the p50/p95 of every view over
--requests requests each, and the time to validate, store and enqueue one 210-file submission. Drops the
database at the end. Results go to stdout as Markdown (copy them into docs/benchmarks/leaderboard.md).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import random
import statistics
import sys
import time
import uuid
import zipfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="server URL, without database")
    parser.add_argument("--evaluations", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=60, help="timed requests per view (after 5 warm-up ones)")
    parser.add_argument("--keep", action="store_true", help="keep the bench database (its name is printed)")
    parser.add_argument(
        "--operators",
        type=int,
        default=0,
        help="operators per submission (default: all; fewer makes "
        "a quick run with as many submissions but fewer evaluations)",
    )
    parser.add_argument(
        "--submissions", type=int, default=0, help="number of submissions (default: from --evaluations)"
    )
    return parser.parse_args()


def create_database(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def copy_rows(raw, model, rows) -> None:
    """COPY dicts of attribute values into the model's table, naming every concrete column of the model as it is
    today: a column the bench does not fill takes the field's default (None where it is nullable), and a NOT NULL
    column without a default stops the run with its name instead of a NotNullViolation halfway through the COPY."""
    from django.db import models

    fields = list(model._meta.concrete_fields)
    # what Model() would store for an omitted field: its default, "" for a text field, None where nullable
    missing = [f.attname for f in fields if f.get_default() is None and not f.null and not f.primary_key]
    columns = ", ".join(f'"{f.column}"' for f in fields)

    def value(field, row):
        item = row[field.attname] if field.attname in row else field.get_default()
        if isinstance(field, models.JSONField) and item is not None:
            item = json.dumps(item)
        return item

    with raw.cursor().copy(f'COPY "{model._meta.db_table}" ({columns}) FROM STDIN') as copy:
        for row in rows:
            absent = [name for name in missing if name not in row]
            if absent:
                raise SystemExit(f"bench: {model.__name__} rows lack {absent} (NOT NULL, no default): fill them")
            copy.write_row([value(f, row) for f in fields])


def fill(evaluations_wanted: int, operators_per_submission: int = 0, submissions_wanted: int = 0) -> dict:
    """COPY attempts, jobs and evaluations: half the submissions pass@5 LLM runs, half agent runs; every attempt
    has a smoke and a full evaluation, as a submission re-run on a second tier would."""
    from django.db import connection

    from evaluator.models import Chip, Evaluation, EvaluationJob
    from leaderboard.models import Attempt, LLMModel, Scaffold, Submission
    from operators.models import Operator

    rng = random.Random(8)
    chips = list(Chip.objects.filter(slug__in=["h200", "a100", "mi300x", "ascend-910b", "iluvatar-bi-v150", "cpu"]))
    operators = list(Operator.objects.order_by("id").values_list("id", "source"))
    if operators_per_submission:
        operators = operators[:: max(1, len(operators) // operators_per_submission)][:operators_per_submission]
    models = [
        LLMModel.objects.create(
            provider="Bench", name=f"model-{i}", version="1", price_input_per_mtok=1 + i, price_output_per_mtok=5 + i
        )
        for i in range(10)
    ]
    scaffolds = [
        Scaffold.objects.create(name=f"scaffold-{i}", kind="agent" if i % 2 else "pass_at_k") for i in range(8)
    ]
    per_llm, per_agent = len(operators) * 5 * 2, len(operators) * 2  # evaluations per submission
    pairs = max(1, submissions_wanted // 2 if submissions_wanted else evaluations_wanted // (per_llm + per_agent))
    submissions = []
    for i in range(2 * pairs):
        llm = i % 2 == 0
        submissions.append(
            Submission(
                name=f"bench {i}",
                model=models[i % len(models)],
                scaffold=scaffolds[i % len(scaffolds)],
                track="llm" if llm else "agent",
                target_chip=chips[i % len(chips)],
                status="complete",
                is_public=True,
                metadata={"samples": 5 if llm else 1},
            )
        )
    Submission.objects.bulk_create(submissions, batch_size=1000)
    now = datetime.now(UTC)

    def walk():
        """Every (attempt id, submission, operator, sample, [(evaluation id, tier)]) in a fixed order: the three
        COPY passes below stream the same sequence without holding a million rows in memory."""
        attempt_id = evaluation_id = 0
        for submission in submissions:
            for op_id, _source in operators:
                for sample in range(submission.metadata["samples"]):
                    attempt_id += 1
                    evaluation_id += 2
                    yield attempt_id, submission, op_id, sample, [(evaluation_id - 1, "smoke"), (evaluation_id, "full")]

    skills = {s.pk: rng.uniform(0.1, 0.9) for s in submissions}
    counts = {"attempts": 0, "evaluations": 0}

    def attempts():
        for attempt_id, submission, op_id, sample, _ in walk():
            counts["attempts"] += 1
            yield {
                "id": attempt_id,
                "submission_id": submission.pk,
                "operator_id": op_id,
                "sample_index": sample,
                "file_name": f"{op_id.replace('::', '__')}.py",
                "source": "import triton\n",
                "source_sha256": "0" * 64,
                "prompt_tokens": rng.randint(1_000, 900_000),
                "completion_tokens": rng.randint(100, 50_000),
                "wall_time_s": rng.uniform(10, 900),
            }

    def jobs():
        for attempt_id, submission, _op, _sample, evaluations in walk():
            for evaluation_id, tier in evaluations:
                yield {
                    "id": uuid.UUID(int=evaluation_id),
                    "attempt_id": attempt_id,
                    "chip_id": submission.target_chip_id,
                    "tier": tier,
                    "state": "done",
                    "deliveries": 1,
                    "queued_at": now,
                    "started_at": now,
                    "finished_at": now,
                }

    def evaluations():
        for attempt_id, submission, _op, _sample, pairs in walk():
            for evaluation_id, tier in pairs:
                correct = rng.random() < skills[submission.pk]
                verdict = (
                    "correct" if correct else rng.choice(["incorrect", "compile_error", "runtime_error", "timeout"])
                )
                speedup = round(rng.lognormvariate(-0.1, 0.5), 3) if correct else None
                counts["evaluations"] += 1
                yield {
                    "id": evaluation_id,
                    "job_id": uuid.UUID(int=evaluation_id),
                    "attempt_id": attempt_id,
                    "chip_id": submission.target_chip_id,
                    "tier": tier,
                    "verdict": verdict,
                    "cases_total": 4,
                    "cases_passed": 4 if correct else 0,
                    "speedup": speedup,
                    "sol_pct": rng.uniform(5, 80) if speedup else None,
                    "harness_version": "bench",
                    "duration_s": 1.0,
                    "created_at": now,
                }

    with connection.cursor() as cursor:
        raw = cursor.connection
        copy_rows(raw, Attempt, attempts())
        copy_rows(raw, EvaluationJob, jobs())
        copy_rows(raw, Evaluation, evaluations())
        for table in ("leaderboard_attempt", "evaluator_evaluation"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        cursor.execute("ANALYZE")
    return {"submissions": len(submissions), **counts}


def time_views(requests_per_view: int) -> list[tuple[str, float, float, float, float]]:
    """Per URL: wall-clock p50/p95 (what a user waits for, database included) and the web process's CPU time
    p50/p95 (time.process_time: independent of other processes competing for the CPUs)."""
    from django.test import Client

    from leaderboard.models import Attempt, Submission

    client = Client()
    submission = Submission.objects.order_by("created_at").first()
    attempt = Attempt.objects.filter(submission=submission).first()
    urls = [
        "/",
        "/leaderboard/",
        "/leaderboard/?source=aten&chip=h200&sort=-speedup",
        "/leaderboard/?source=vllm13&track=llm&demo=exclude",
        "/leaderboard/?format=csv",
        "/leaderboard/multi-source/?chip=h200",
        "/leaderboard/multi-chip/",
        "/api/v1/leaderboard/?source=cublas",
        f"/submissions/{submission.pk}/",
        f"/attempts/{attempt.pk}/",
        "/operators/aten::add/",
    ]
    results = []
    for url in urls:
        for _ in range(5):
            assert client.get(url).status_code == 200, url
        timings, cpu = [], []
        for _ in range(requests_per_view):
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            timings.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
            assert response.status_code == 200
        results.append(
            (url, statistics.median(timings), percentile(timings, 0.95), statistics.median(cpu), percentile(cpu, 0.95))
        )
    return results


def time_upload() -> tuple[float, int, float]:
    from django.contrib.auth import get_user_model

    from leaderboard.services import create_submission
    from leaderboard.upload import validate_upload
    from operators.models import Operator

    operators = list(Operator.objects.values_list("id", flat=True)[:210])
    buffer = io.BytesIO()
    kernel = "import torch\nimport triton\nimport triton.language as tl\n\n" + "\n".join(
        f"# line {i}" for i in range(200)
    )
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for op_id in operators:
            archive.writestr(op_id.replace("::", "__") + ".py", kernel)
    metadata = json.dumps(
        {
            "name": "bench upload",
            "model": {"provider": "Bench", "name": "model-0", "version": "1"},
            "scaffold": {"name": "scaffold-1", "kind": "agent"},
            "track": "agent",
            "target_chip": "h200",
            "operators": {op_id: {"prompt_tokens": 1000, "completion_tokens": 100} for op_id in operators},
        }
    ).encode()
    user = get_user_model().objects.create(username=f"bench-{uuid.uuid4().hex[:6]}")
    known = set(Operator.objects.values_list("id", flat=True))
    start = time.perf_counter()
    validate_upload(buffer.getvalue(), metadata, known_operators=known, known_chips={"h200"})
    validation_s = time.perf_counter() - start
    start = time.perf_counter()
    submission = create_submission(uploader=user, archive_bytes=buffer.getvalue(), metadata_bytes=metadata)
    elapsed = time.perf_counter() - start
    return elapsed, submission.attempts.count(), validation_s


def main() -> int:
    args = parse_args()
    name = f"kgb_bench_{os.getpid()}"
    create_database(args.pg, name)
    os.environ["DATABASE_URL"] = f"{args.pg}/{name}"
    os.environ.setdefault("DEBUG", "0")
    os.environ["KGB_TESTING"] = "1"  # test settings: dev secret key, local hosts
    os.environ["CELERY_BROKER_URL"] = "memory://"  # the enqueue cost without a broker server
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kgsite.settings")
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        from leaderboard.services import rebuild_all_entries

        started = time.perf_counter()
        call_command("migrate", verbosity=0)
        call_command("seed_chips", verbosity=0)
        call_command("sync_operators", verbosity=0)
        setup_s = time.perf_counter() - started
        started = time.perf_counter()
        sizes = fill(args.evaluations, args.operators, args.submissions)
        fill_s = time.perf_counter() - started
        started = time.perf_counter()
        entries = rebuild_all_entries()
        rebuild_s = time.perf_counter() - started
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        views = time_views(args.requests)
        upload_s, upload_files, validation_s = time_upload()
        print(f"# Leaderboard benchmark, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC\n")
        print(f"- command: `{' '.join([Path(sys.executable).name, *sys.argv])}`")
        print(
            f"- machine: {platform.node()}, {os.cpu_count()} CPUs, {platform.platform()}, load average "
            f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (at the end)"
        )
        with connection.cursor() as cursor:
            cursor.execute("SELECT version()")
            print(f"- database: {cursor.fetchone()[0].split(' on ')[0]}")
        print(
            f"- data: {sizes['submissions']:,} submissions, {sizes['attempts']:,} attempts, "
            f"{sizes['evaluations']:,} evaluations, {entries:,} leaderboard entries"
        )
        print(
            f"- setup {setup_s:.0f} s, COPY fill {fill_s:.0f} s, summary rebuild {rebuild_s:.0f} s "
            f"({rebuild_s / max(1, sizes['submissions']) * 1000:.0f} ms per submission of "
            f"{sizes['evaluations'] // max(1, sizes['submissions']):,} evaluations)\n"
        )
        print(
            "| view | wall p50 (ms) | wall p95 (ms) | web CPU p50 (ms) | web CPU p95 (ms) |\n|---|---:|---:|---:|---:|"
        )
        for url, p50, p95, cpu50, cpu95 in views:
            print(f"| `{url}` | {p50:.1f} | {p95:.1f} | {cpu50:.1f} | {cpu95:.1f} |")
        print(
            f"\n210-file submission validated, stored and enqueued: {upload_s * 1000:.0f} ms ({upload_files} attempts;"
            f" the validation alone: {validation_s * 1000:.0f} ms)"
        )
    finally:
        if args.keep:
            print(f"kept database {name}")
        else:
            from django.db import connections

            connections.close_all()
            drop_database(args.pg, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
