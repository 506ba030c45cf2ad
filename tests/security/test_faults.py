"""Issue 9, faults that can be provoked on the CI machine: the database restarted while runners post
results, the broker restarted (losing its queue) with jobs waiting, and a whole runner agent killed
mid-evaluation. Each time every job must end exactly once, with a verdict, and nothing may be
half-written. These tests start their OWN PostgreSQL cluster and Redis server on free ports (never
the shared services) and skip, saying why, when the binaries are not installed.

The procedure for the faults that cannot be provoked here (a real GPU hang, host memory
exhaustion on a runner) is in docs/benchmarks/faults.md.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from evaluator.runner.client import SiteClient

ROOT = Path(__file__).resolve().parents[2]
PG_BIN_DIRS = sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
PG_BIN = next((d for d in PG_BIN_DIRS if os.path.exists(os.path.join(d, "initdb"))), None)

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(predicate, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


# --- a throwaway PostgreSQL cluster ------------------------------------------------------------------


class OwnPostgres:
    """A cluster in a temporary folder on a free port, run as the `postgres` user when we are root
    (initdb refuses root). Stopped with `-m immediate`: the same as the server being killed."""

    def __init__(self) -> None:
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="kgb-pg-fault-")
        self.data = os.path.join(self.folder, "data")
        self.log = os.path.join(self.folder, "server.log")
        self.as_user = None
        if os.geteuid() == 0:
            try:
                self.as_user = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no `postgres` user to run the cluster as")
            os.chown(self.folder, self.as_user.pw_uid, self.as_user.pw_gid)
            os.chmod(self.folder, 0o700)
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/kgb"

    def _demote(self):
        if self.as_user is None:
            return None
        user = self.as_user

        def demote() -> None:
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)

        return demote

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(
            [os.path.join(PG_BIN, tool), *args],
            preexec_fn=self._demote(),
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=120,
            check=check,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", self.data, "-o", options, "-l", self.log, "-w", "-t", "60", "start")

    def kill(self) -> None:
        """An immediate shutdown: no checkpoint, in-flight transactions aborted, clients cut off."""
        self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")

    def create_database(self) -> None:
        import psycopg

        with psycopg.connect(f"postgres://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as connection:
            connection.execute("CREATE DATABASE kgb")

    def query(self, sql: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.url) as connection:
            return connection.execute(sql).fetchall()

    def destroy(self) -> None:
        self._run("pg_ctl", "-D", self.data, "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def own_postgres():
    if PG_BIN is None:
        pytest.skip("PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) are not installed")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed")
    cluster = OwnPostgres()
    try:
        cluster.start()
        cluster.create_database()
        yield cluster
    finally:
        cluster.destroy()


def site_environment(database_url: str, **extra: str) -> dict:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("KGB_", "DATABASE_"))}
    environment.update(
        {
            "DJANGO_SETTINGS_MODULE": "kgsite.test_settings",
            "KGB_TESTING": "1",
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": "memory://",
            "PYTHONPATH": str(ROOT),
            "LOG_LEVEL": "WARNING",
            **extra,
        }
    )
    return environment


SETUP_SCRIPT = """
import json
from evaluator import services
from tests.factories import AttemptFactory, ChipFactory, SubmissionFactory, UserFactory
chip = ChipFactory(slug="faultchip", device_type="cpu", timing_meaningful=False)
staff = UserFactory(username="staff", is_staff=True, password="x")
runner, token = services.register_runner(chip=chip, name="fault-runner", user=staff)
submission = SubmissionFactory(target_chip=chip, uploader=UserFactory(username="owner", password="x"))
attempts = [AttemptFactory(submission=submission) for _ in range({jobs})]
jobs = services.create_jobs(attempts=attempts, chip=chip, tier="smoke", user=staff)
for job in jobs:
    services.claim_job(runner=runner, job_id=job.pk)
print("SETUP" + json.dumps({{"token": token, "jobs": [[str(j.id), j.attempt.operator_id] for j in jobs]}}))
"""


def test_postgres_killed_and_restarted_while_results_are_posted_records_each_job_once(own_postgres, tmp_path):
    """A runner posts the results of many running jobs one after the other (the real runner HTTP
    client, with its retries) while the database is killed and restarted under the site."""
    environment = site_environment(own_postgres.url, DB_CONN_MAX_AGE="60")
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run(
        [*manage, "migrate", "--noinput"], env=environment, cwd=ROOT, check=True, capture_output=True, timeout=300
    )
    job_count = 40
    setup = subprocess.run(
        [*manage, "shell", "-c", SETUP_SCRIPT.format(jobs=job_count)],
        env=environment,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    world = json.loads(next(line for line in setup.stdout.splitlines() if line.startswith("SETUP"))[5:])
    port = free_port()
    server_log = open(tmp_path / "server.log", "wb")
    server = subprocess.Popen(
        [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"],
        env=environment,
        cwd=ROOT,
        stdout=server_log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        client = SiteClient(f"http://127.0.0.1:{port}", world["token"], max_wait_s=120, timeout_s=30)
        wait_until(lambda: _answers(client), 60, "the site to serve")
        answers: dict[str, dict] = {}
        errors: list[BaseException] = []

        def post_all() -> None:
            try:
                for job_id, operator in world["jobs"]:
                    result = {
                        "schema": "kgb.result/1",
                        "verdict": "correct",
                        "operator": operator,
                        "tier": "smoke",
                        "cases": [{"passed": True}],
                        "reason": "fault test",
                    }
                    answers[job_id] = client.post_result(job_id, result)
            except BaseException as error:  # reported by the main thread
                errors.append(error)

        poster = threading.Thread(target=post_all, name="poster")
        poster.start()
        wait_until(lambda: len(answers) >= 5, 60, "the first results")
        own_postgres.kill()  # mid-stream: the next posts (and possibly one in flight) hit a dead database
        recorded_before_restart = len(answers)
        time.sleep(2)
        own_postgres.start()
        poster.join(timeout=240)
        assert not poster.is_alive(), "the runner never got its results recorded"
        assert not errors, errors
        assert len(answers) == job_count and all(a["verdict"] == "correct" for a in answers.values())
        # a retry of a post whose commit succeeded but whose answer was lost reads "duplicate": still one row
        assert _replay_one(client, world)["duplicate"] is True
        assert recorded_before_restart < job_count, "the outage came too late to hit any post"
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        server_log.close()
        print((tmp_path / "server.log").read_text(errors="replace")[-4000:])  # shown when the test fails
    # the site did see the outage (and answered 5xx, which the runner retried)
    assert "OperationalError" in (tmp_path / "server.log").read_text(errors="replace")

    job_ids = [job_id for job_id, _ in world["jobs"]]
    ids = ",".join(f"'{job_id}'" for job_id in job_ids)
    states = dict(own_postgres.query(f"SELECT id::text, state FROM evaluator_evaluationjob WHERE id IN ({ids})"))
    assert set(states.values()) == {"done"}, states
    per_job = dict(own_postgres.query("SELECT job_id::text, count(*) FROM evaluator_evaluation GROUP BY job_id"))
    assert per_job == {job_id: 1 for job_id in job_ids}
    done_events = dict(
        own_postgres.query(
            "SELECT job_id::text, count(*) FROM evaluator_jobevent WHERE to_state = 'done' GROUP BY job_id"
        )
    )
    assert done_events == {job_id: 1 for job_id in job_ids}, "a job's 'done' was logged zero or several times"
    assert own_postgres.query("SELECT count(*) FROM evaluator_runner WHERE current_job_id IS NOT NULL") == [(0,)]
    assert own_postgres.query("SELECT status FROM leaderboard_submission") == [("complete",)]


def _answers(client: SiteClient) -> bool:
    try:
        return bool(client.config())
    except Exception:
        return False


def _replay_one(client: SiteClient, world: dict) -> dict:
    job_id, operator = world["jobs"][0]
    return client.post_result(job_id, {"verdict": "correct", "operator": operator, "tier": "smoke"})
