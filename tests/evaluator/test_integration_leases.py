"""Fault tests of claim leases (issue 15, item 4), with real runner agents (fake harness) on real
brokers: duplicate deliveries and a second runner of the chip, a killed agent, a restarted broker.
Each time every job must end exactly once: one run that counts, one Evaluation, one `done`.

Brokers: a Redis server of the test's own on a free port, without persistence (a restart loses
every message), when `redis-server` is installed; and RabbitMQ at KGB_TEST_AMQP_URL (default
amqp://guest:guest@127.0.0.1:5672//) when it answers. Skipped, saying why, otherwise. The agents run
in interpreters that refuse to import Django; KGB_FAKE_HARNESS_RUN_LOG counts the evaluations.
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
from collections import Counter
from datetime import timedelta

import pytest
from celery import Celery
from django.utils import timezone
from kombu import Connection

from evaluator import services
from evaluator.models import Evaluation, EvaluationJob, JobEvent, JobState, Runner
from evaluator.services import dispatch
from tests.evaluator.runner_helpers import ROOT, write_no_django_sitecustomize
from tests.evaluator.test_integration_dispatch import enqueue_new_submission, retry_locked, stop_agent, wait_for
from tests.factories import ChipFactory, UserFactory

pytestmark = pytest.mark.integration

AMQP_URL = os.environ.get("KGB_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//")
HEARTBEAT_S = 5  # the lease is one heartbeat interval (the default), renewed every 5/3 s


def _reachable(url: str) -> bool:
    try:
        with Connection(url, connect_timeout=2) as connection:
            connection.ensure_connection(max_retries=0)
        return True
    except Exception:
        return False


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Redis:
    """A Redis server of this test, persistence off: a restart loses every queued message."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: _reachable(self.url), 20, "redis to start")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


@pytest.fixture(params=["redis", "rabbitmq"])
def broker(request):
    if request.param == "redis":
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed")
        server = Redis()
        server.start()
        yield {"name": "redis", "url": server.url, "server": server}
        if server.process.poll() is None:
            server.kill()
    else:
        if not _reachable(AMQP_URL):
            pytest.skip(f"no RabbitMQ at {AMQP_URL} (set KGB_TEST_AMQP_URL)")
        yield {"name": "rabbitmq", "url": AMQP_URL, "server": None}


@pytest.fixture
def fleet(broker, live_server, settings, monkeypatch, tmp_path):
    """A chip with a queue of its own, two registered runners, the site publishing to the broker,
    and a way to start runner agents (fake harness) as subprocesses that cannot import Django."""
    settings.CELERY_BROKER_URL = broker["url"]
    settings.KGB_RUNNER_HEARTBEAT_S = HEARTBEAT_S
    monkeypatch.setenv("KGB_RUNNER_SUPERVISE_S", "1")
    site_app = Celery("kgb-site-lease-test", broker=broker["url"])
    site_app.conf.broker_transport_options = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
    site_app.conf.broker_connection_retry_on_startup = False
    monkeypatch.setattr(dispatch, "celery_app", site_app)
    chip = ChipFactory(slug=f"lease-{uuid.uuid4().hex[:8]}", device_type="cpu", timing_meaningful=False)
    staff = UserFactory(is_staff=True)
    runners = {}
    for name in ("a", "b"):
        runner, token = services.register_runner(chip=chip, name=f"runner-{name}", user=staff)
        (tmp_path / f"token-{name}").write_text(token)
        runners[name] = runner
    agents: dict[str, subprocess.Popen] = {}
    run_log = tmp_path / "runs.log"
    run_log.touch()

    def start_agent(name: str, *arguments: str, **environment: str) -> subprocess.Popen:
        env = write_no_django_sitecustomize(tmp_path) | {"KGB_FAKE_HARNESS_RUN_LOG": str(run_log)} | environment
        agent = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "evaluator.runner",
                "--site",
                live_server.url,
                "--token-file",
                str(tmp_path / f"token-{name}"),
                "--fake-harness",
                *arguments,
            ],
            cwd=ROOT,
            env=env,
            stdout=open(tmp_path / f"agent-{name}.log", "ab"),  # kept open for the agent's lifetime
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        agents[name] = agent
        return agent

    def runs() -> Counter:
        return Counter(line.split()[0] for line in run_log.read_text().splitlines() if line.strip())

    def logs() -> str:
        return "".join(
            path.read_text(errors="replace") for path in sorted(tmp_path.glob("agent-*.log")) if path.exists()
        )

    yield {"chip": chip, "runners": runners, "start_agent": start_agent, "runs": runs, "logs": logs, "broker": broker}
    print(logs()[-8000:])  # shown when a test fails
    for agent in agents.values():
        stop_agent(agent)
    if broker["name"] == "rabbitmq" or broker["server"].process.poll() is None:
        try:
            with Connection(broker["url"], connect_timeout=2) as connection:
                connection.default_channel.queue_delete(chip.queue_name)
        except Exception:  # a broker gone by now holds nothing of ours
            pass


def queue_is_empty(fleet) -> bool:
    """No message of the chip's queue is waiting (every duplicate was taken and acknowledged)."""
    from amqp.exceptions import ChannelError

    with Connection(fleet["broker"]["url"], connect_timeout=2) as connection:
        try:
            declared = connection.default_channel.queue_declare(queue=fleet["chip"].queue_name, passive=True)
        except ChannelError as error:  # 404: Redis drops an empty list, so no queue is no message
            if "NOT_FOUND" not in str(error):
                raise
            return True
    return declared.message_count == 0


def assert_each_ended_once(jobs: list, fleet, runs_per_job: int = 1) -> None:
    runs = fleet["runs"]()
    for job in jobs:
        retry_locked(job.refresh_from_db)
        assert job.state == JobState.DONE, (job.id, job.state, job.error)
        assert retry_locked(lambda job=job: Evaluation.objects.filter(job=job).count()) == 1
        states = retry_locked(lambda job=job: list(JobEvent.objects.filter(job=job).values_list("to_state", flat=True)))
        assert states.count("done") == 1 and states[-1] == "done", states
        assert "failed" not in states, states
        assert runs[str(job.id)] == runs_per_job, (job.id, runs[str(job.id)])
        assert job.lease_id is None and job.lease_expires_at is None


def test_duplicate_deliveries_and_a_second_runner_never_run_a_job_twice(fleet):
    """Resends while queued, broker redeliveries while running, an agent at --concurrency 4 and a
    second runner of the same chip all consuming: every job runs once, with one delivery."""
    fleet["start_agent"]("a", "--concurrency", "4", KGB_FAKE_HARNESS_SLEEP_S="4")
    fleet["start_agent"]("b", "--concurrency", "2", KGB_FAKE_HARNESS_SLEEP_S="4")
    wait_for(
        lambda: Runner.objects.filter(chip=fleet["chip"], last_heartbeat_at__isnull=False).count() == 2, 60, "agents"
    )
    _, jobs = enqueue_new_submission(fleet["chip"], 2)
    for _ in range(3):  # the issue's `resend_queued_jobs` three times in a row
        retry_locked(lambda: services.resend_queued_jobs(older_than_s=0, chip=fleet["chip"]))
    wait_for(
        lambda: EvaluationJob.objects.filter(pk__in=[j.pk for j in jobs], state=JobState.RUNNING).count() == 2,
        60,
        "both jobs to run",
    )
    # redeliveries of running jobs, as a broker makes them: every consumer may get one
    for job in jobs:
        for _ in range(3):
            dispatch.send_job_message(str(job.id), fleet["chip"].queue_name, job.timeout_s)
    # and a resend now sends nothing for them: their leases are live
    assert retry_locked(lambda: services.resend_queued_jobs(older_than_s=0, chip=fleet["chip"])) == 0
    wait_for(lambda: Evaluation.objects.filter(job__in=jobs).count() == 2, 90, "both results")
    wait_for(lambda: queue_is_empty(fleet), 60, "every duplicate to be taken")
    time.sleep(2)  # a duplicate taken last is acknowledged (or, wrongly, run) by now
    assert_each_ended_once(jobs, fleet)
    for job in jobs:
        assert job.deliveries == 1, job.deliveries
    assert "leased; acknowledging" in fleet["logs"]()  # duplicates met a live lease and were dropped


def test_a_killed_agent_is_recovered_within_two_heartbeat_intervals(fleet, tmp_path):
    """Runner a's whole machine dies mid-job (agent, worker and pool process at once); runner b,
    alive, gets the job back once a's lease runs out, within two heartbeat intervals."""
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    agent_a = fleet["start_agent"]("a", KGB_FAKE_HARNESS_SLEEP_S="600", KGB_FAKE_HARNESS_PID_DIR=str(pid_dir))
    _, (job,) = enqueue_new_submission(fleet["chip"], 1)
    pid_file = pid_dir / str(job.id)
    pool_pid = int(wait_for(lambda: pid_file.exists() and pid_file.read_text(), 90, "runner a to run the job"))
    fleet["start_agent"]("b", KGB_FAKE_HARNESS_SLEEP_S="0.5")
    b = fleet["runners"]["b"]
    wait_for(lambda: Runner.objects.get(pk=b.pk).last_heartbeat_at, 60, "runner b's first heartbeat")
    retry_locked(job.refresh_from_db)
    assert job.state == JobState.RUNNING and job.runner == fleet["runners"]["a"]
    os.killpg(os.getpgid(pool_pid), signal.SIGKILL)
    os.killpg(agent_a.pid, signal.SIGKILL)
    killed_at = timezone.now()
    agent_a.wait(timeout=10)
    wait_for(lambda: EvaluationJob.objects.get(pk=job.pk).state == JobState.DONE, 90, "runner b to finish the job")
    lost = retry_locked(lambda: JobEvent.objects.get(job=job, from_state="running", to_state="queued"))
    assert lost.runner == fleet["runners"]["a"] and "lease ran out" in lost.detail
    recovered_after = (lost.at - killed_at).total_seconds()
    # a lease (one interval) after a's last renewal, then at b's next heartbeat; 3 s of slack for a loaded machine
    assert recovered_after <= 2 * HEARTBEAT_S + 3, recovered_after
    assert_each_ended_once([job], fleet, runs_per_job=2)  # a's run, killed, and b's
    assert job.deliveries == 2 and job.runner == b
    assert retry_locked(lambda: Evaluation.objects.get(job=job).runner) == b


def test_a_broker_restart_that_loses_every_message_loses_no_job_and_runs_none_twice(fleet):
    if fleet["broker"]["name"] != "redis":
        pytest.skip("the shared RabbitMQ is not restarted by tests; the Redis of the test is")
    fleet["start_agent"]("a", "--concurrency", "2", KGB_FAKE_HARNESS_SLEEP_S="2")
    _, jobs = enqueue_new_submission(fleet["chip"], 6)
    wait_for(
        lambda: EvaluationJob.objects.filter(pk__in=[j.pk for j in jobs], state=JobState.RUNNING).exists(),
        90,
        "a job to run",
    )
    fleet["broker"]["server"].kill()  # no persistence: every message still queued is gone
    fleet["broker"]["server"].start()
    queued = retry_locked(
        lambda: EvaluationJob.objects.filter(pk__in=[j.pk for j in jobs], state=JobState.QUEUED).count()
    )
    assert queued > 0, "the restart came too late to lose any message"
    # only the queued jobs lost their message: the running ones keep their leases and are not resent
    resent = retry_locked(lambda: services.resend_queued_jobs(older_than_s=0, chip=fleet["chip"]))
    assert 0 < resent <= queued
    wait_for(lambda: Evaluation.objects.filter(job__in=jobs).count() == len(jobs), 120, "every job to finish")
    time.sleep(2)
    assert_each_ended_once(jobs, fleet)
    lost_leases = retry_locked(
        lambda: JobEvent.objects.filter(job__in=jobs, from_state="running", to_state="queued").count()
    )
    assert lost_leases == 0
    assert all(job.deliveries == 1 for job in jobs)
    assert timezone.now() - min(job.queued_at for job in jobs) < timedelta(minutes=5)
