"""The host memory limit on candidate processes: a candidate that allocates until it dies gets a
verdict naming the limit, and the harness goes on to the next job. On this CPU machine the limit is
RLIMIT_AS (no cgroup v2 delegation); the cgroup path is checked against a fake cgroup tree."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.harness import Harness, pool
from evaluator.harness.backends.cpu import CpuBackend
from evaluator.harness.evaluate import HarnessError
from tests.harness.conftest import HERE, SOLUTIONS, read
from tests.harness.specs_tiny import ADD_ONE_CASE

HOG = HERE / "adversarial_memory" / "host_memory_hog.py"
REPO_ROOT = HERE.parents[1]
# torch and triton take about 1 GiB of address space in the child: 2 GiB leaves the hog ~1 GiB
TEST_LIMIT_BYTES = 2 << 30
LIMIT_REASON = "exceeded the host memory limit of 2 GiB"


class AcceleratorLikeBackend(CpuBackend):
    """A backend whose kernels would not run in the interpreter, as a device driver's."""

    interpreter = False


def test_a_host_memory_hog_gets_a_runtime_error_and_the_next_job_runs():
    with Harness(device="cpu", pool_size=1, host_memory_limit_bytes=TEST_LIMIT_BYTES) as harness:
        assert harness.environment["host_memory"]["limit_bytes"] == TEST_LIMIT_BYTES
        assert harness.environment["host_memory"]["method"] in ("rlimit_as", "cgroup")
        hog = harness.evaluate(ADD_ONE_CASE, read(HOG), tier="smoke", timeout_s=120)
        assert hog["verdict"] == "runtime_error", hog["reason"]
        assert LIMIT_REASON in hog["reason"]
        assert hog["environment"]["host_memory"]["limit_bytes"] == TEST_LIMIT_BYTES
        honest = harness.evaluate(ADD_ONE_CASE, read(SOLUTIONS / "aten__add.py"), tier="smoke", timeout_s=120)
        assert honest["verdict"] == "correct", honest["reason"]


def test_cli_host_memory_option():
    def check(*extra: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "evaluator", "check", "--operator", "aten::add", "--device", "cpu"]
        return subprocess.run(
            [*command, "--solution", str(HOG), *extra], capture_output=True, text=True, cwd=REPO_ROOT, timeout=300
        )

    assert check("--host-memory-gib", "-1").returncode == 2
    assert check("--host-memory-gib", "inf").returncode == 2
    proc = check("--host-memory-gib", "2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["verdict"] == "runtime_error" and LIMIT_REASON in result["reason"]
    assert result["environment"]["host_memory"]["limit_bytes"] == TEST_LIMIT_BYTES


def test_default_limit_is_16_gib_or_half_the_ram():
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert pool.default_host_memory_limit_bytes() == min(16 << 30, ram // 2)


def test_negative_limit_is_refused():
    with pytest.raises(HarnessError):
        Harness(device="cpu", host_memory_limit_bytes=-1)


def test_without_cgroups_the_interpreter_gets_rlimit_as_and_a_device_a_recorded_note(tmp_path, monkeypatch):
    monkeypatch.setattr(pool, "CGROUP_ROOT", str(tmp_path))  # no cgroup.controllers: not cgroup v2
    interpreter = pool.plan_host_memory_limit(CpuBackend(), 1 << 30)
    assert (interpreter.method, interpreter.limit_bytes) == ("rlimit_as", 1 << 30)
    device = pool.plan_host_memory_limit(AcceleratorLikeBackend(), 1 << 30)
    assert device.method == "none" and device.note.startswith("not enforced")
    assert device.record() == {"limit_bytes": 1 << 30, "method": "none", "note": device.note}
    off = pool.plan_host_memory_limit(CpuBackend(), 0)
    assert off.method == "none" and off.limit_bytes == 0


def fake_cgroup_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, delegated: bool) -> Path:
    """A cgroup v2 mount at tmp_path with this process in /service, under a root whose subtree
    has (or lacks) the memory controller."""
    root = tmp_path / "cgroup"
    (root / "service").mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (root / "cgroup.subtree_control").write_text("cpu memory\n" if delegated else "cpu\n")
    (root / "service" / "cgroup.subtree_control").write_text("\n")
    proc_self = tmp_path / "proc-self-cgroup"
    proc_self.write_text("0::/service\n")
    monkeypatch.setattr(pool, "CGROUP_ROOT", str(root))
    monkeypatch.setattr(pool, "PROC_SELF_CGROUP", str(proc_self))
    return root


@pytest.mark.skipif(os.geteuid() != 0, reason="cgroups are only created by root")
def test_cgroup_is_used_where_the_memory_controller_is_delegated(tmp_path, monkeypatch):
    root = fake_cgroup_tree(tmp_path, monkeypatch, delegated=True)
    plan = pool.plan_host_memory_limit(AcceleratorLikeBackend(), 3 << 30)
    assert (plan.method, plan.cgroup_parent) == ("cgroup", str(root))
    cgroup = Path(pool.create_candidate_cgroup(str(root), 3 << 30))
    assert cgroup.parent == root and (cgroup / "memory.max").read_text() == str(3 << 30)


@pytest.mark.skipif(os.geteuid() != 0, reason="cgroups are only created by root")
def test_no_cgroup_where_the_memory_controller_is_not_delegated(tmp_path, monkeypatch):
    fake_cgroup_tree(tmp_path, monkeypatch, delegated=False)
    assert pool.memory_delegating_cgroup() is None
    assert pool.plan_host_memory_limit(CpuBackend(), 1 << 30).method == "rlimit_as"


@pytest.mark.skipif(os.geteuid() != 0, reason="cgroups are only created by root")
def test_an_oom_kill_in_the_candidate_cgroup_is_reported_as_the_memory_limit(tmp_path, monkeypatch):
    root = fake_cgroup_tree(tmp_path, monkeypatch, delegated=True)
    plan = pool.plan_host_memory_limit(CpuBackend(), 3 << 30)
    child = pool.Child(CpuBackend(), plan, level=pool.SANDBOX_LEVELS[-1])
    try:
        assert child.cgroup is not None and Path(child.cgroup).parent == root
        assert (Path(child.cgroup) / "cgroup.procs").read_text() == str(child.proc.pid)
        # what the kernel does when the cgroup reaches memory.max: count the kill, SIGKILL the group
        (Path(child.cgroup) / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n")
        os.killpg(child.proc.pid, signal.SIGKILL)
        reason = child.exit_reason("closed")
        assert (
            reason
            == "the candidate process exceeded the host memory limit of 3 GiB (killed by the kernel's OOM killer)"
        )
    finally:
        child.kill()
