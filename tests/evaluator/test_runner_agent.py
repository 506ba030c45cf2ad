"""The runner agent runs without Django: checked in a fresh interpreter that refuses to import it."""

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
import requests

from evaluator.runner import client as client_module
from evaluator.runner.agent import parse_args
from evaluator.runner.client import ApiError, SiteClient, SiteUnreachable
from tests.evaluator.runner_helpers import NO_DJANGO, ROOT


def test_agent_modules_and_worker_app_import_without_django(tmp_path):
    script = NO_DJANGO + textwrap.dedent(
        """
        import evaluator.runner.agent, evaluator.runner.client, evaluator.runner.fake
        from evaluator.runner import worker
        config = {"broker_url": "memory://", "broker_transport_options": {}, "queue": "chip.cpu",
                  "task_name": "kgb.evaluate", "chip": "cpu"}
        app = worker.build_app({"config": config})
        assert "kgb.evaluate" in app.tasks
        assert app.conf.task_acks_late and app.conf.task_reject_on_worker_lost
        assert app.conf.worker_prefetch_multiplier == 1
        assert not any(name == "django" or name.startswith("django.") for name in sys.modules)
        print("ok")
        """
    )
    environment = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_token_can_come_from_a_file_or_the_environment(tmp_path, monkeypatch):
    token_file = tmp_path / "token"
    token_file.write_text("kgbr_12345678_" + "s" * 43 + "\n")
    assert parse_args(["--site", "http://x", "--token-file", str(token_file)]).token_file == str(token_file)
    monkeypatch.setenv("KGB_RUNNER_TOKEN", "kgbr_12345678_" + "e" * 43)
    args = parse_args(["--site", "http://x"])
    assert args.token.endswith("e" * 43)
    assert "KGB_RUNNER_TOKEN" not in os.environ  # not inherited by workers and candidates
    monkeypatch.delenv("KGB_RUNNER_TOKEN", raising=False)
    with pytest.raises(SystemExit):
        parse_args(["--site", "http://x"])


class FakeResponse:
    def __init__(self, status: int, body: dict):
        self.status_code, self._body, self.text = status, body, str(body)

    def json(self) -> dict:
        return self._body


def test_client_retries_transient_failures_then_succeeds(monkeypatch):
    answers = [requests.ConnectionError("refused"), FakeResponse(503, {}), FakeResponse(200, {"state": "active"})]
    sleeps = []
    monkeypatch.setattr(client_module.time, "sleep", sleeps.append)
    site = SiteClient("http://site", "kgbr_12345678_" + "x" * 43)

    def request(*args, **kwargs):
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(site.session, "request", request)
    assert site.heartbeat({}) == {"state": "active"}
    assert sleeps == [1.0, 2.0]  # exponential backoff
    assert site.session.headers["Authorization"].startswith("Runner kgbr_")


def test_client_does_not_retry_a_definite_refusal_and_gives_up_on_a_dead_site(monkeypatch):
    monkeypatch.setattr(client_module.time, "sleep", lambda seconds: None)
    site = SiteClient("http://site", "t", max_wait_s=10)
    monkeypatch.setattr(
        site.session, "request", lambda *a, **k: FakeResponse(409, {"error": "already_recorded", "detail": "x"})
    )
    with pytest.raises(ApiError) as refused:
        site.claim("job")
    assert refused.value.code == "already_recorded"

    def dead(*args, **kwargs):
        raise requests.ConnectionError("down")

    monkeypatch.setattr(site.session, "request", dead)
    with pytest.raises(SiteUnreachable):
        site.claim("job")


class ScriptedClient:
    """Stands in for SiteClient inside the worker task: answers from a script, records calls."""

    def __init__(self, claim=None, post=None, fail=None):
        self.calls: list[tuple] = []
        self._claim, self._post, self._fail = claim, post, fail

    def _answer(self, name, value, *args):
        self.calls.append((name, *args))
        if isinstance(value, Exception):
            raise value
        return value

    def claim(self, job_id):
        return self._answer("claim", self._claim, job_id)

    def post_result(self, job_id, result, lease=None):
        return self._answer("result", self._post, job_id, result["verdict"], lease)

    def fail(self, job_id, error, lease=None):
        return self._answer("fail", self._fail, job_id, lease)


PAYLOAD = {
    "job_id": "j1",
    "operator": "aten::neg",
    "tier": "smoke",
    "seed": 7,
    "secret_seed": False,
    "timeout_s": 30,
    "solution": {"file_name": "a.py", "source": "x = 1\n", "sha256": hashlib.sha256(b"x = 1\n").hexdigest()},
}


class BrokenHarness:
    def evaluate(self, *args, **kwargs):
        raise RuntimeError("device lost")


@pytest.fixture
def worker_module(monkeypatch):
    from evaluator.runner import worker
    from evaluator.runner.fake import FakeHarness

    monkeypatch.setattr(worker, "NOT_ACTIVE_BACKOFF_S", 0)
    monkeypatch.setattr(worker, "HARNESS", FakeHarness())
    return worker


def test_task_claims_evaluates_and_posts(worker_module, monkeypatch):
    client = ScriptedClient(claim=PAYLOAD, post={"verdict": "correct", "duplicate": False})
    monkeypatch.setattr(worker_module, "CLIENT", client)
    assert worker_module.evaluate_task(None, "j1") == {"job_id": "j1", "verdict": "correct"}
    assert [call[0] for call in client.calls] == ["claim", "result"]


@pytest.mark.parametrize("code", ["already_recorded", "job_failed", "job_cancelled", "leased"])
def test_task_acknowledges_a_job_that_is_already_final(worker_module, monkeypatch, code):
    client = ScriptedClient(claim=ApiError(409, code, "x"))
    monkeypatch.setattr(worker_module, "CLIENT", client)
    assert worker_module.evaluate_task(None, "j1") == {"job_id": "j1", "skipped": code}


def test_task_returns_the_job_to_the_queue_when_its_runner_may_not_take_it(worker_module, monkeypatch):
    from celery.exceptions import Reject

    monkeypatch.setattr(worker_module, "CLIENT", ScriptedClient(claim=ApiError(409, "runner_not_active", "draining")))
    with pytest.raises(Reject) as rejected:
        worker_module.evaluate_task(None, "j1")
    assert rejected.value.requeue is True
    monkeypatch.setattr(worker_module, "CLIENT", ScriptedClient(claim=ApiError(403, "forbidden", "other chip")))
    with pytest.raises(Reject) as dropped:
        worker_module.evaluate_task(None, "j1")
    assert dropped.value.requeue is False


def test_a_harness_error_is_reported_and_an_unreachable_site_requeues(worker_module, monkeypatch):
    from celery.exceptions import Reject

    monkeypatch.setattr(worker_module, "HARNESS", BrokenHarness())
    client = ScriptedClient(claim=PAYLOAD, fail={"state": "queued"})
    monkeypatch.setattr(worker_module, "CLIENT", client)
    assert worker_module.evaluate_task(None, "j1")["failed"].startswith("harness error")
    assert client.calls[-1] == ("fail", "j1", None)
    monkeypatch.setattr(worker_module, "CLIENT", ScriptedClient(claim=PAYLOAD, fail=SiteUnreachable("down")))
    with pytest.raises(Reject) as rejected:
        worker_module.evaluate_task(None, "j1")
    assert rejected.value.requeue is True


def test_a_result_that_cannot_be_delivered_goes_back_to_the_queue(worker_module, monkeypatch):
    from celery.exceptions import Reject

    monkeypatch.setattr(worker_module, "CLIENT", ScriptedClient(claim=PAYLOAD, post=SiteUnreachable("down")))
    with pytest.raises(Reject) as rejected:
        worker_module.evaluate_task(None, "j1")
    assert rejected.value.requeue is True


def test_one_worker_per_gpu_each_pinned_and_the_token_only_on_stdin(monkeypatch, tmp_path):
    from evaluator.runner import agent as agent_module

    started = []

    class RecordingPopen:
        def __init__(self, argv, stdin=None, env=None, **kwargs):
            self.argv, self.env, self.pid = argv, env, 12345
            self.stdin = self
            self.written = ""
            started.append(self)

        def write(self, text):
            self.written += text

        def close(self):
            pass

    monkeypatch.setattr(agent_module.subprocess, "Popen", RecordingPopen)
    monkeypatch.setenv("KGB_RUNNER_TOKEN", "kgbr_12345678_" + "t" * 43)
    args = parse_args(["--site", "http://site", "--gpus", "0,3"])
    config = {"runner": "box", "chip": "h200", "device_type": "cuda", "queue": "chip.h200"}
    for gpu in ("0", "3"):
        agent_module._start_worker(args, "kgbr_12345678_" + "t" * 43, config, gpu)
    assert [worker.env["CUDA_VISIBLE_DEVICES"] for worker in started] == ["0", "3"]
    for worker in started:
        settings = json.loads(worker.written)
        assert settings["token"].startswith("kgbr_12345678_") and settings["concurrency"] == 1
        assert "kgbr_" not in " ".join(worker.argv)
        assert not any("kgbr_" in value for value in worker.env.values())
        assert "TRITON_INTERPRET" not in worker.env


def test_the_worker_times_with_the_protocol_the_site_ranks(monkeypatch):
    from evaluator.runner import worker

    monkeypatch.setitem(worker.SETTINGS, "config", {"chip": "cpu", "timing_protocol": "read:kernel"})
    monkeypatch.setitem(worker.SETTINGS, "fake_harness", False)
    monkeypatch.setattr(worker, "SECRETS", ("kgbr_tok_abc",))
    harness = worker._make_harness()  # not entered: no candidate pool is started
    assert (harness.config.flush, harness.config.clock) == ("read", "kernel")
    # the token is scrubbed from every result, and a failing tier stops early
    assert harness.config.secrets == ("kgbr_tok_abc",) and harness.config.fail_fast_after > 0
    monkeypatch.setitem(worker.SETTINGS, "config", {"chip": "cpu"})  # a site from before the setting
    harness = worker._make_harness()
    assert (harness.config.flush, harness.config.clock) == ("write", "events")


class RenewalRecorder:
    """Stands in for the SiteClient a LeaseKeeper makes: records renewals, answers from a script."""

    renewals: list = []
    answer: object = None

    def __init__(self, site, token, **options):
        self.options = options

    def renew_lease(self, job_id, lease):
        RenewalRecorder.renewals.append((job_id, lease, time.monotonic()))
        if isinstance(RenewalRecorder.answer, Exception):
            raise RenewalRecorder.answer
        return {"lease": lease}


@pytest.fixture
def renewals(worker_module, monkeypatch):
    RenewalRecorder.renewals, RenewalRecorder.answer = [], None
    monkeypatch.setattr(worker_module, "SiteClient", RenewalRecorder)
    monkeypatch.setitem(worker_module.SETTINGS, "site", "http://site")
    monkeypatch.setattr(worker_module, "SECRETS", ("kgbr_12345678_" + "k" * 43,))
    return RenewalRecorder.renewals


def test_the_lease_is_renewed_while_the_job_runs_then_sent_with_its_result(worker_module, monkeypatch, renewals):
    from evaluator.runner.fake import FakeHarness

    monkeypatch.setenv("KGB_FAKE_HARNESS_SLEEP_S", "1.0")
    monkeypatch.setattr(worker_module, "HARNESS", FakeHarness())
    lease = {"id": "lease-1", "renew_every_s": 0.25, "seconds": 0.75}
    client = ScriptedClient(claim=PAYLOAD | {"lease": lease}, post={"verdict": "correct"})
    monkeypatch.setattr(worker_module, "CLIENT", client)
    assert worker_module.evaluate_task(None, "j1") == {"job_id": "j1", "verdict": "correct"}
    finished = time.monotonic()
    assert len(renewals) >= 2 and all(call[:2] == ("j1", "lease-1") for call in renewals)
    assert client.calls[-1] == ("result", "j1", "correct", "lease-1")
    count = len(renewals)
    time.sleep(0.6)
    assert len(renewals) == count and all(at <= finished for *_, at in renewals)  # no renewal after the job


def test_a_refused_renewal_ends_the_renewals_and_a_failure_carries_the_lease(worker_module, monkeypatch, renewals):
    RenewalRecorder.answer = ApiError(409, "lease_lost", "gone")

    class SlowBrokenHarness:
        def evaluate(self, *args, **kwargs):
            time.sleep(0.8)
            raise RuntimeError("device lost")

    monkeypatch.setattr(worker_module, "HARNESS", SlowBrokenHarness())
    client = ScriptedClient(
        claim=PAYLOAD | {"lease": {"id": "lease-2", "renew_every_s": 0.2}}, fail={"state": "queued"}
    )
    monkeypatch.setattr(worker_module, "CLIENT", client)
    assert worker_module.evaluate_task(None, "j1")["failed"].startswith("harness error")
    assert len(renewals) == 1  # lease_lost: no more renewals
    assert client.calls[-1] == ("fail", "j1", "lease-2")
