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

        halfway, go = threading.Event(), threading.Event()

        def post_all() -> None:
            try:
                for index, (job_id, operator) in enumerate(world["jobs"]):
                    if index == 5:  # let the main thread pull the plug while the next posts go out
                        halfway.set()
                        go.wait(timeout=60)
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
        assert halfway.wait(timeout=60), "the first results were never recorded"
        go.set()
        time.sleep(0.05)
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


# --- the broker and the runner agent ---------------------------------------------------------------


class OwnRedis:
    """A Redis server on a free port with persistence off: a restart loses every queued message,
    the worst case of a broker restart."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self.reachable, 20, "redis to start")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def reachable(self) -> bool:
        from kombu import Connection

        try:
            with Connection(self.url, connect_timeout=1) as connection:
                connection.ensure_connection(max_retries=0)
            return True
        except Exception:
            return False


@pytest.fixture
def own_redis():
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    server = OwnRedis(binary)
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.kill()


@pytest.fixture
def fleet(own_redis, live_server, settings, monkeypatch, tmp_path):
    """The site (live_server) publishing to our own Redis, a registered runner, and a way to start
    runner agents (fake harness) as subprocesses that cannot import Django."""
    from celery import Celery

    from evaluator import services
    from evaluator.services import dispatch
    from tests.evaluator.runner_helpers import write_no_django_sitecustomize
    from tests.factories import ChipFactory, UserFactory

    settings.CELERY_BROKER_URL = own_redis.url
    settings.KGB_RUNNER_HEARTBEAT_S = 2
    monkeypatch.setenv("KGB_RUNNER_SUPERVISE_S", "1")
    site_app = Celery("kgb-site-fault-test", broker=own_redis.url)
    site_app.conf.broker_transport_options = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
    monkeypatch.setattr(dispatch, "celery_app", site_app)
    chip = ChipFactory(slug="faults", device_type="cpu", timing_meaningful=False)
    runner, token = services.register_runner(chip=chip, name="fault-runner", user=UserFactory(is_staff=True))
    (tmp_path / "token").write_text(token)
    agents: list[subprocess.Popen] = []
    log = tmp_path / "agent.log"

    def start_agent(**environment: str) -> subprocess.Popen:
        agent = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "evaluator.runner",
                "--site",
                live_server.url,
                "--token-file",
                str(tmp_path / "token"),
                "--fake-harness",
            ],
            cwd=ROOT,
            env=write_no_django_sitecustomize(tmp_path) | environment,
            stdout=open(log, "ab"),  # kept open for the agent's lifetime
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        agents.append(agent)
        return agent

    yield {"chip": chip, "runner": runner, "start_agent": start_agent, "redis": own_redis}
    print(log.read_text(errors="replace")[-6000:] if log.exists() else "(no agent log)")  # shown on failure
    for agent in agents:
        if agent.poll() is None:
            agent.terminate()
            try:
                agent.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(agent.pid, signal.SIGKILL)
                agent.wait(timeout=10)


def locked_retry(action):
    """SQLite under live_server: the test thread may wait past the busy timeout for the server's write lock."""
    from django.db import OperationalError

    for _ in range(100):
        try:
            return action()
        except OperationalError as error:
            if "locked" not in str(error):
                raise
            time.sleep(0.05)
    return action()


def db_wait(predicate, timeout_s: float, what: str):
    return wait_until(lambda: locked_retry(predicate), timeout_s, what)


def enqueue(chip, count: int) -> list:
    from leaderboard.services import enqueue_submission
    from tests.factories import AttemptFactory, SubmissionFactory

    def create():
        submission = SubmissionFactory(target_chip=chip)
        return enqueue_submission(submission=submission_with_attempts(submission, count))

    def submission_with_attempts(submission, n):
        for _ in range(n):
            AttemptFactory(submission=submission)
        return submission

    return locked_retry(create)


def assert_each_recorded_once(jobs: list) -> None:
    from evaluator.models import Evaluation, JobEvent, JobState

    for job in jobs:
        locked_retry(job.refresh_from_db)
        assert job.state == JobState.DONE, (job.id, job.state, job.error)
        assert locked_retry(lambda job=job: Evaluation.objects.filter(job=job).count()) == 1
        events = locked_retry(lambda job=job: list(JobEvent.objects.filter(job=job).values_list("to_state", flat=True)))
        assert events.count("done") == 1 and events[-1] == "done", events


@pytest.mark.django_db(transaction=True)
def test_a_broker_restart_that_loses_the_queue_is_recovered_by_resending_and_each_job_ends_once(fleet):
    from evaluator import services
    from evaluator.models import Evaluation

    fleet["start_agent"](KGB_FAKE_HARNESS_SLEEP_S="0.5")
    jobs = enqueue(fleet["chip"], 6)
    db_wait(lambda: Evaluation.objects.filter(job__in=jobs).exists(), 90, "a first result")
    fleet["redis"].kill()  # no persistence: every message still queued is gone
    fleet["redis"].start()
    # the site still has every job row; the ones whose message was lost are resent
    resent = locked_retry(lambda: services.resend_queued_jobs(older_than_s=0, chip=fleet["chip"]))
    finished = locked_retry(lambda: Evaluation.objects.filter(job__in=jobs).count())
    assert resent + finished <= len(jobs) + 1  # only unfinished jobs are sent again (one may be mid-run)
    db_wait(lambda: Evaluation.objects.filter(job__in=jobs).count() == len(jobs), 120, "every job to finish")
    time.sleep(2)  # a late duplicate delivery, if any, would be recorded by now
    assert_each_recorded_once(jobs)


@pytest.mark.django_db(transaction=True)
def test_a_runner_agent_killed_mid_evaluation_loses_nothing_the_job_is_resent_and_ends_once(fleet, tmp_path):
    from evaluator import services
    from evaluator.models import EvaluationJob, JobState

    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    agent = fleet["start_agent"](KGB_FAKE_HARNESS_SLEEP_S="600", KGB_FAKE_HARNESS_PID_DIR=str(pid_dir))
    (job,) = enqueue(fleet["chip"], 1)
    pool_pid = int(
        wait_until(
            lambda: (pid_dir / str(job.id)).exists() and (pid_dir / str(job.id)).read_text(), 90, "the job to start"
        )
    )
    # the whole runner machine dies: the agent, its worker and the pool process, all at once
    os.killpg(os.getpgid(pool_pid), signal.SIGKILL)
    os.killpg(agent.pid, signal.SIGKILL)
    agent.wait(timeout=10)
    locked_retry(job.refresh_from_db)
    assert job.state == JobState.RUNNING and job.deliveries == 1
    # the unacknowledged message is invisible in Redis for the visibility timeout (an hour), but
    # nothing renews the job's claim lease any more: once it runs out, the job is sent again
    db_wait(lambda: services.lease_expired(EvaluationJob.objects.get(pk=job.pk)), 15, "the lease to run out")
    assert locked_retry(lambda: services.resend_queued_jobs(older_than_s=3600, chip=fleet["chip"])) == 1
    fleet["start_agent"]()  # a replacement machine
    db_wait(lambda: EvaluationJob.objects.get(pk=job.pk).state == JobState.DONE, 120, "the resent job to finish")
    assert_each_recorded_once([job])
    locked_retry(job.refresh_from_db)
    assert job.deliveries == 2
