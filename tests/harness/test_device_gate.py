"""Attempts side by side on one timing device: checks share it, each timed phase has it alone."""

from __future__ import annotations

import hashlib
import threading
import time

import pytest

from evaluator.harness import JOBS_SCHEMA, Harness, backends, bundle
from evaluator.harness import timed as timed_tier
from evaluator.harness.evaluate import Attempt
from evaluator.harness.gate import DeviceGate
from evaluator.harness.harness import HarnessConfig
from tests.harness.conftest import SOLUTIONS, read
from tests.harness.fake_backend import FakeTimedBackend
from tests.harness.specs_perf import PERF_TINY


def _start(target) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def _wait_until(condition, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


def test_shared_holders_overlap_and_exclusive_waits_for_them():
    gate = DeviceGate()
    release = threading.Event()
    holders = []

    def check():
        with gate.shared():
            holders.append(1)
            release.wait(5)

    checks = [_start(check) for _ in range(2)]
    _wait_until(lambda: gate.state() == (2, False))
    acquired = threading.Event()

    def timed():
        with gate.exclusive():
            acquired.set()

    timer = _start(timed)
    time.sleep(0.05)
    assert not acquired.is_set()  # two checks still hold the device
    release.set()
    assert acquired.wait(5)
    for thread in [*checks, timer]:
        thread.join(5)
    assert gate.state() == (0, False)


def test_waiting_exclusive_holds_back_new_shared_steps():
    # writer preference: once a timed phase waits, a new check queues behind it
    gate = DeviceGate()
    order: list[str] = []
    first_check_may_end = threading.Event()

    def first_check():
        with gate.shared():
            first_check_may_end.wait(5)
        order.append("check 1 done")

    def timed():
        with gate.exclusive() as waited:
            assert waited > 0
            order.append("timed")

    def second_check():
        with gate.shared():
            order.append("check 2")

    threads = [_start(first_check)]
    _wait_until(lambda: gate.state()[0] == 1)
    threads.append(_start(timed))
    _wait_until(lambda: gate._exclusive_waiting == 1)
    threads.append(_start(second_check))
    time.sleep(0.05)
    assert "check 2" not in order
    first_check_may_end.set()
    for thread in threads:
        thread.join(5)
    assert order.index("timed") < order.index("check 2")


def test_exclusive_holders_exclude_each_other():
    gate = DeviceGate()
    inside = 0
    most = 0
    lock = threading.Lock()

    def timed():
        nonlocal inside, most
        with gate.exclusive():
            with lock:
                inside += 1
                most = max(most, inside)
            time.sleep(0.01)
            with lock:
                inside -= 1

    threads = [_start(timed) for _ in range(4)]
    for thread in threads:
        thread.join(5)
    assert most == 1


@pytest.fixture
def fake_device():
    backends.register("fake", FakeTimedBackend)
    yield
    backends.unregister("fake")


def test_parallel_attempts_never_check_while_another_times(fake_device, monkeypatch):
    events: list[tuple[float, float, str]] = []
    events_lock = threading.Lock()
    real_check, real_time = Attempt._check_once, timed_tier.time_attempt

    def recorded(kind, fn):
        def wrapper(*args, **kwargs):
            started = time.monotonic()
            try:
                return fn(*args, **kwargs)
            finally:
                with events_lock:
                    events.append((started, time.monotonic(), kind))

        return wrapper

    def time_alone(attempt, *args, **kwargs):
        assert attempt.gate.state() == (0, True)
        return real_time(attempt, *args, **kwargs)

    monkeypatch.setattr(Attempt, "_check_once", recorded("check", real_check))
    monkeypatch.setattr(timed_tier, "time_attempt", recorded("timed", time_alone))
    source = read(SOLUTIONS / "aten__add.py")
    results: dict[int, dict] = {}
    with Harness(device="fake", pool_size=2) as harness:

        def attempt(number: int) -> None:
            results[number] = harness.evaluate(PERF_TINY, source, tier="perf", timeout_s=300, seed=number)

        threads = [_start(lambda n=n: attempt(n)) for n in range(3)]
        for thread in threads:
            thread.join(300)
    assert [results[n]["verdict"] for n in range(3)] == ["correct"] * 3
    assert all(result["profile"]["gate_wait_s"] >= 0 for result in results.values())
    timed = [(a, b) for a, b, kind in events if kind == "timed"]
    checks = [(a, b) for a, b, kind in events if kind == "check"]
    assert len(timed) == 3 and checks
    for start, end in timed:
        assert not any(a < end and start < b for a, b in checks), "a check overlapped a timed phase"
    assert not any(a < d and c < b for i, (a, b) in enumerate(timed) for c, d in timed[i + 1 :])


def test_bundle_workers_run_side_by_side_on_a_timing_device(fake_device, monkeypatch):
    running = 0
    most = 0
    lock = threading.Lock()

    class Done:
        def __init__(self, operator):
            self.operator = operator

        def complete(self):
            return {"operator": self.operator, "verdict": "correct", "duration_s": 0.2}

    def evaluate_public(self, operator, source, **kwargs):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.2)
        with lock:
            running -= 1
        return Done(operator)

    monkeypatch.setattr(bundle.Harness, "evaluate_public", evaluate_public)
    source = "x = 1\n"
    solution = {"source": source, "file_name": "a.py", "sha256": hashlib.sha256(source.encode()).hexdigest()}
    job = {"operator": "aten::add", "tier": "full", "solution": solution}
    jobs = {"schema": JOBS_SCHEMA, "chip": "h200", "jobs": [dict(job, job_id=str(i)) for i in range(4)]}
    results = bundle.run_bundle(jobs, config=HarnessConfig(device="fake"), workers=2)
    assert [item["job_id"] for item in results["results"]] == ["0", "1", "2", "3"]
    assert most == 2
    assert all(item["result"]["verdict"] == "correct" for item in results["results"])
