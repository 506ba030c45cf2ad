"""The adversarial suite: one solution file per exploit family of research/integrity.md §1 that a
Python file can express. None may be ranked correct. Each runs twice: with every layer, and with
the static layer switched off, so that the runtime defenses are shown to hold on their own."""

from __future__ import annotations

import json
import os
import re

import pytest

from tests.harness.conftest import ADVERSARIAL, read
from tests.harness.specs_tiny import ADD_ONE_CASE

# file -> (verdicts allowed with every layer on, verdicts allowed with the static layer off, layer expected)
CASES: dict[str, tuple[set[str], set[str] | None, str | None]] = {
    "torch_fallback.py": ({"cheat_detected"}, {"cheat_detected"}, "trace"),
    "return_input.py": ({"incorrect"}, {"incorrect"}, None),
    "stale_empty.py": ({"incorrect"}, {"incorrect"}, None),
    "cache_across_calls.py": ({"cheat_detected"}, {"incorrect"}, "static"),
    "module_state_cache.py": ({"cheat_detected"}, {"incorrect", "cheat_detected"}, "static"),
    "monkeypatch_torch.py": ({"cheat_detected"}, {"incorrect"}, "static"),
    "monkeypatch_harness.py": ({"cheat_detected"}, {"incorrect"}, "static"),
    "gc_reference.py": ({"cheat_detected"}, {"incorrect", "cheat_detected"}, "static"),
    "frame_walk.py": ({"cheat_detected"}, {"incorrect", "runtime_error"}, "static"),
    "obfuscated_getattr.py": ({"cheat_detected"}, {"runtime_error", "cheat_detected"}, "static"),
    "exec_eval.py": ({"cheat_detected"}, {"cheat_detected", "runtime_error"}, "static"),  # torch.add recurses
    "os_exit.py": ({"cheat_detected"}, {"runtime_error"}, "static"),
    "infinite_loop.py": ({"timeout"}, {"timeout"}, None),
    "segfault.py": ({"cheat_detected"}, {"runtime_error"}, "static"),
    "fork_and_hang.py": ({"cheat_detected"}, {"timeout"}, "static"),
    "env_exfiltration.py": ({"cheat_detected"}, {"runtime_error"}, "static"),
    "network_probe.py": ({"cheat_detected"}, {"runtime_error"}, "static"),
    "write_inputs.py": ({"incorrect"}, {"incorrect"}, None),
    "lazy_subclass.py": ({"cheat_detected"}, {"incorrect"}, "static"),
    # host arithmetic on the inputs' values: the trace counts what the wrapper reads (before the ghost replay)
    "python_math_ghost.py": ({"cheat_detected"}, {"cheat_detected"}, "trace"),
    "python_math_no_launch.py": ({"cheat_detected"}, {"cheat_detected"}, "launch"),
    "nan_output.py": ({"incorrect"}, {"incorrect"}, None),
    "partial_output.py": ({"incorrect"}, {"incorrect"}, None),
    "precision_downgrade.py": ({"incorrect"}, {"incorrect"}, None),
    "thread_injection.py": ({"cheat_detected"}, {"incorrect", "cheat_detected"}, "static"),
    # runs only with the static layer on: writing outside the private directory needs the
    # privilege drop, which this machine cannot do when root's Python is unreadable to nobody
    "file_tamper.py": ({"cheat_detected"}, None, "static"),
}
TIMING_ONLY = {
    "side-stream work escaping the timer (C15)": "needs a device with streams; covered on cuda by timing",
    "phase detection / warm-up counting (C19)": "only timing separates phases; the CPU interpreter is never timed",
    "L2 persistence across the flush (C20)": "no L2 on the interpreter",
    "faster than the physical floor (C21)": "physics needs measured time; timing is null on cpu",
}
SECRET_ENV = {"KGB_RUNNER_TOKEN": "kgbr_tok1_supersecretvalue123", "DATABASE_URL": "postgres://u:pw-xyz@db/kgb"}
TIMEOUT_S = 90.0  # generous: a loaded CI machine runs the interpreter slowly
HANGS = {"infinite_loop.py", "fork_and_hang.py"}
HANG_TIMEOUT_S = 4.0


def test_every_adversarial_file_is_listed():
    assert sorted(p.name for p in ADVERSARIAL.glob("*.py")) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_with_every_layer(harness, name, monkeypatch):
    for key, value in SECRET_ENV.items():
        monkeypatch.setenv(key, value)
    allowed, _, layer = CASES[name]
    result = harness.evaluate(
        ADD_ONE_CASE, read(ADVERSARIAL / name), tier="smoke", timeout_s=HANG_TIMEOUT_S if name in HANGS else TIMEOUT_S
    )
    assert result["verdict"] != "correct"
    assert result["verdict"] in allowed, (result["verdict"], result["reason"])
    if layer is not None:
        assert layer in {f["layer"] for f in result["findings"]}, result["findings"]
    text = json.dumps(result)
    assert all(secret not in text for secret in SECRET_ENV.values())


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[1] is not None))
def test_runtime_layers_alone(runtime_only_harness, name, monkeypatch):
    for key, value in SECRET_ENV.items():
        monkeypatch.setenv(key, value)
    _, allowed, _ = CASES[name]
    result = runtime_only_harness.evaluate(
        ADD_ONE_CASE, read(ADVERSARIAL / name), tier="smoke", timeout_s=HANG_TIMEOUT_S if name in HANGS else TIMEOUT_S
    )
    assert result["verdict"] != "correct"
    assert result["verdict"] in allowed, (result["verdict"], result["reason"])
    text = json.dumps(result)
    # the child never saw the secrets: not in the reason, not in the scrubbed output either
    assert all(secret not in text for secret in SECRET_ENV.values())
    if name == "os_exit.py":
        assert "exited with code 0" in result["reason"]
    if name == "segfault.py":
        assert "SIGSEGV" in result["reason"]
    if name == "network_probe.py" and result["environment"]["isolation"]["network"].startswith(("netns", "userns")):
        assert "NO_NETWORK" in result["reason"]
    if name == "write_inputs.py":
        assert "was modified" in result["reason"]
    if name == "lazy_subclass.py":
        assert "not a plain torch.Tensor" in result["reason"]
    if name == "fork_and_hang.py":
        match = re.search(r"GRANDCHILD_MARKER=(kgb-grandchild-[0-9a-f]+)", result["stderr_tail"])
        assert match, result["stderr_tail"]
        assert not _alive(match.group(1)), "the grandchild (its own session) survived the attempt"


def _alive(marker: str) -> bool:
    """Whether a live process carries `marker` in its command line."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{pid}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            return True
    return False


@pytest.mark.parametrize("family", sorted(TIMING_ONLY))
def test_timing_only_families_are_skipped_on_cpu(family):
    pytest.skip(f"{family}: {TIMING_ONLY[family]}")


def test_env_is_scrubbed_at_exec():
    from evaluator.harness.backends import get_backend
    from evaluator.harness.pool import child_environment

    os.environ["KGB_RUNNER_TOKEN"] = "kgbr_a_b"
    try:
        env = child_environment(get_backend("cpu"), "/tmp/x")
    finally:
        del os.environ["KGB_RUNNER_TOKEN"]
    assert "KGB_RUNNER_TOKEN" not in env
    assert env["HOME"] == "/tmp/x" and env["TRITON_CACHE_DIR"].startswith("/tmp/x")
    assert env["TRITON_INTERPRET"] == "1"
