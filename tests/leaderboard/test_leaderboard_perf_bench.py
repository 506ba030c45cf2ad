"""bench/leaderboard_perf.py runs end to end at a tiny scale (issue 21: it had crashed since Evaluation gained
hidden_cases_passed, and nobody noticed because nothing ran it). Needs a PostgreSQL server it may create a
throw-away database on: KGB_BENCH_PG (default postgres://postgres@127.0.0.1:5432); skipped when none answers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER = os.environ.get("KGB_BENCH_PG", "postgres://postgres@127.0.0.1:5432")


def _server_answers() -> bool:
    try:
        import psycopg

        with psycopg.connect(f"{SERVER}/postgres", connect_timeout=3):
            return True
    except Exception:  # no driver, no server, no rights: the bench cannot run here
        return False


def test_the_leaderboard_benchmark_runs_at_a_tiny_scale():
    if not _server_answers():
        pytest.skip(f"no PostgreSQL server at {SERVER} (KGB_BENCH_PG)")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    completed = subprocess.run(
        [sys.executable, "bench/leaderboard_perf.py", "--pg", SERVER]
        + ["--evaluations", "600", "--operators", "5", "--requests", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    out = completed.stdout
    assert "| `/leaderboard/` |" in out and "210-file submission validated" in out
    loaded = re.search(r"^- data: .*?, ([\d,]+) evaluations", out, re.M)
    assert loaded and int(loaded.group(1).replace(",", "")) > 0  # the COPY really loaded rows
