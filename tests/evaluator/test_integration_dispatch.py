"""Site -> Redis -> runner agent (fake harness) -> REST API -> one Evaluation, with faults.

The `integration` tests need Redis at KGB_TEST_REDIS_URL (default redis://127.0.0.1:6379/0) and are
skipped when it is unreachable; the broker-restart test starts its own `redis-server` when the
binary is installed. The filesystem-broker test (the `make run` path) needs nothing.
The agent runs in subprocesses whose interpreters refuse to import Django.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest
from celery import Celery
from django.db import OperationalError
from kombu import Connection

from evaluator import services
from evaluator.models import Evaluation, EvaluationJob, JobEvent, JobState, Runner
from evaluator.services import dispatch
from leaderboard import services as leaderboard_services
from tests.evaluator.conftest import make_attempts
from tests.evaluator.runner_helpers import ROOT, write_no_django_sitecustomize
from tests.factories import ChipFactory, SubmissionFactory, UserFactory

REDIS_URL = os.environ.get("KGB_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _redis_reachable() -> bool:
    try:
        with Connection(REDIS_URL, connect_timeout=1) as connection:
            connection.ensure_connection(max_retries=0)
        return True
    except Exception:
        return False


requires_redis = pytest.mark.skipif(not _redis_reachable(), reason=f"no Redis at {REDIS_URL} (set KGB_TEST_REDIS_URL)")


def wait_for(predicate, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = retry_locked(predicate)
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def stop_agent(agent: subprocess.Popen) -> None:
    """Gracefully (the agent stops its workers), then by force."""
    if agent.poll() is None:
        agent.terminate()
        try:
            agent.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(agent.pid, signal.SIGKILL)
            agent.wait(timeout=10)


def retry_locked(action):
    """Run a DB action of the test thread, again if SQLite's busy timeout ran out while the live
    server held the write lock (the runner's HTTP retries cover the server side, this covers ours;
    PostgreSQL never needs it)."""
    for _ in range(100):
        try:
            return action()
        except OperationalError as error:
            if "locked" not in str(error):
                raise
            time.sleep(0.05)
    return action()


def enqueue_new_submission(chip, attempts: int) -> tuple:
    def create():
        submission = SubmissionFactory(target_chip=chip)
        make_attempts(submission, attempts)
        return submission, leaderboard_services.enqueue_submission(submission=submission)

    return retry_locked(create)


@pytest.fixture
def fleet(live_server, settings, monkeypatch, tmp_path):
    """A chip with its own queue name, a registered runner, and the site publishing to Redis."""
    settings.CELERY_BROKER_URL = REDIS_URL
    settings.KGB_RUNNER_HEARTBEAT_S = 2
    monkeypatch.setattr(dispatch, "celery_app", Celery("kgb-site-test", broker=REDIS_URL))
    chip = ChipFactory(slug=f"itest-{uuid.uuid4().hex[:8]}", device_type="cpu", timing_meaningful=False)
    runner, token = services.register_runner(chip=chip, name="ci-runner", user=UserFactory(is_staff=True))
    token_file = tmp_path / "token"
    token_file.write_text(token)
    agents: list[subprocess.Popen] = []

    def start_agent(**environment: str) -> subprocess.Popen:
        env = write_no_django_sitecustomize(tmp_path) | environment
        agent = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "evaluator.runner",
                "--site",
                live_server.url,
                "--token-file",
                str(token_file),
                "--fake-harness",
            ],
            cwd=ROOT,
            env=env,
            stdout=open(tmp_path / "agent.log", "ab"),  # kept open for the agent's lifetime
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        agents.append(agent)
        return agent

    yield {"chip": chip, "runner": runner, "token": token, "start_agent": start_agent, "log": tmp_path / "agent.log"}
    log = tmp_path / "agent.log"
    print(log.read_text()[-6000:] if log.exists() else "(no agent log)")  # shown when a test fails
    for agent in agents:
        stop_agent(agent)
    # leave no messages behind in a shared Redis
    with Connection(REDIS_URL) as connection:
        connection.default_channel.queue_delete(chip.queue_name)


@pytest.mark.integration
@requires_redis
def test_a_job_goes_from_queue_to_one_evaluation(fleet):
    fleet["start_agent"]()
    submission, jobs = enqueue_new_submission(fleet["chip"], 2)  # autocommit: sent at once
    wait_for(lambda: Evaluation.objects.filter(job__in=jobs).count() == 2, 60, "two evaluations")
    for job in jobs:
        retry_locked(job.refresh_from_db)
        assert job.state == JobState.DONE and job.deliveries == 1 and job.runner == fleet["runner"]
        events = retry_locked(lambda job=job: list(JobEvent.objects.filter(job=job).values_list("to_state", flat=True)))
        assert events == ["queued", "running", "done"]
    retry_locked(submission.refresh_from_db)
    assert submission.status == "complete"
    wait_for(lambda: Runner.objects.get(pk=fleet["runner"].pk).last_heartbeat_at, 10, "a heartbeat")


@pytest.mark.integration
@requires_redis
def test_a_worker_killed_mid_job_is_redelivered_and_recorded_once(fleet, tmp_path):
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    fleet["start_agent"](KGB_FAKE_HARNESS_SLEEP_S="4", KGB_FAKE_HARNESS_PID_DIR=str(pid_dir))
    _, (job,) = enqueue_new_submission(fleet["chip"], 1)
    pid_file = pid_dir / str(job.id)
    pid = int(wait_for(lambda: pid_file.exists() and pid_file.read_text(), 60, "the job to start"))
    os.kill(pid, signal.SIGKILL)  # the pool process holding the job dies mid-evaluation
    pid_file.unlink()
    wait_for(lambda: Evaluation.objects.filter(job=job).exists(), 60, "the redelivered job to finish")
    time.sleep(1)
    retry_locked(job.refresh_from_db)
    assert job.state == JobState.DONE and job.deliveries == 2
    assert retry_locked(lambda: Evaluation.objects.filter(job=job).count()) == 1
    assert int(pid_file.read_text()) != pid  # evaluated by a fresh process


@pytest.mark.integration
@requires_redis
def test_a_draining_runner_finishes_its_job_and_stops(fleet, tmp_path):
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    agent = fleet["start_agent"](KGB_FAKE_HARNESS_SLEEP_S="3", KGB_FAKE_HARNESS_PID_DIR=str(pid_dir))
    _, (job,) = enqueue_new_submission(fleet["chip"], 1)
    wait_for(lambda: (pid_dir / str(job.id)).exists(), 60, "the job to start")
    retry_locked(lambda: services.drain_runner(runner=fleet["runner"], user=None))
    wait_for(lambda: agent.poll() is not None, 60, "the agent to stop after draining")
    assert retry_locked(lambda: Evaluation.objects.filter(job=job).count()) == 1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def own_redis(tmp_path):
    """A Redis server this test may stop and start (persisting to an append-only file)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    port = _free_port()
    data = tmp_path / "redis"
    data.mkdir()
    command = [
        binary,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(data),
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--save",
        "",
    ]
    servers: list[subprocess.Popen] = []

    def start() -> None:
        servers.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for(lambda: _reachable(f"redis://127.0.0.1:{port}/0"), 10, "redis to start")

    def stop() -> None:
        servers[-1].terminate()
        servers[-1].wait(timeout=10)

    start()
    yield {"url": f"redis://127.0.0.1:{port}/0", "start": start, "stop": stop}
    for server in servers:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=10)


def _reachable(url: str) -> bool:
    try:
        with Connection(url, connect_timeout=1) as connection:
            connection.ensure_connection(max_retries=0)
        return True
    except Exception:
        return False


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
def test_broker_restart_the_worker_reconnects_and_lost_sends_are_resent(
    own_redis, live_server, settings, monkeypatch, tmp_path
):
    settings.CELERY_BROKER_URL = own_redis["url"]
    settings.KGB_RUNNER_HEARTBEAT_S = 2
    monkeypatch.setenv("KGB_RUNNER_SUPERVISE_S", "1")
    site_app = Celery("kgb-site-test", broker=own_redis["url"])
    site_app.conf.broker_transport_options = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
    monkeypatch.setattr(dispatch, "celery_app", site_app)
    chip = ChipFactory(slug="restart", device_type="cpu", timing_meaningful=False)
    _, token = services.register_runner(chip=chip, name="ci-runner", user=None)
    (tmp_path / "token").write_text(token)
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
        env=write_no_django_sitecustomize(tmp_path),
        stdout=open(tmp_path / "agent.log", "ab"),  # kept open for the agent's lifetime
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _, (first, second) = enqueue_new_submission(chip, 2)
        wait_for(
            lambda: Evaluation.objects.filter(job=first).exists() or Evaluation.objects.filter(job=second).exists(),
            60,
            "a first result",
        )
        own_redis["stop"]()
        # committed while the broker is down: the send fails quietly, the job row stays queued
        _, (lost,) = enqueue_new_submission(chip, 1)
        own_redis["start"]()
        # kombu may still get the message through once the server is back (then nothing is lost);
        # a job whose send did fail is still queued, and the resend must cover it
        still_queued = retry_locked(lambda: EvaluationJob.objects.filter(pk=lost.pk, state="queued").exists())
        resent = retry_locked(lambda: services.resend_queued_jobs(older_than_s=0, chip=chip))
        if still_queued:
            assert resent >= 1
        wait_for(lambda: Evaluation.objects.filter(job__in=[first, second, lost]).count() == 3, 90, "all three results")
        assert retry_locked(lambda: Evaluation.objects.filter(job=lost).count()) == 1
    finally:
        stop_agent(agent)
        print((tmp_path / "agent.log").read_text()[-8000:])  # shown when the test fails


def test_the_make_run_path_works_with_the_filesystem_broker(live_server, settings, monkeypatch, tmp_path):
    """The embedded setup (no broker server): site and runner share a folder. Needs no services."""
    settings.CELERY_BROKER_URL = "filesystem://"
    folder = str(tmp_path / "broker" / "out")
    (tmp_path / "broker" / "out").mkdir(parents=True)
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": folder,
        "data_folder_out": folder,
        "control_folder": str(tmp_path / "broker" / "control"),
        "store_processed": False,
        "polling_interval": 0.1,
    }
    site_app = Celery("kgb-site-test", broker="filesystem://")
    site_app.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    monkeypatch.setattr(dispatch, "celery_app", site_app)
    chip = ChipFactory(slug="cpu", device_type="cpu", timing_meaningful=False)
    _, token = services.register_runner(chip=chip, name="local-cpu", user=None)
    (tmp_path / "token").write_text(token)
    command = [
        sys.executable,
        "-m",
        "evaluator.runner",
        "--site",
        live_server.url,
        "--token-file",
        str(tmp_path / "token"),
    ]
    agent = subprocess.Popen(
        [*command, "--chip", "cpu", "--fake-harness"],
        cwd=ROOT,
        env=write_no_django_sitecustomize(tmp_path),
        stdout=open(tmp_path / "agent.log", "ab"),  # kept open for the agent's lifetime
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        submission, (job,) = enqueue_new_submission(chip, 1)
        wait_for(lambda: Evaluation.objects.filter(job=job).exists(), 60, "the job to be recorded")
        retry_locked(submission.refresh_from_db)
        assert submission.status == "complete"
        assert retry_locked(lambda: Evaluation.objects.get(job=job).tier) == "smoke"
    finally:
        stop_agent(agent)
        print((tmp_path / "agent.log").read_text()[-4000:])  # shown when the test fails
