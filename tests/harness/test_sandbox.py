"""The wall around a candidate process, probed from inside a candidate (the static layer off, so
only the OS layers stand) and checked from outside. Needs root and Linux, as the runners have."""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
import tempfile
import time
from pathlib import Path

import pytest

from evaluator.harness import Harness, sandbox
from evaluator.harness.pool import REPO_ROOT
from tests.harness.conftest import SOLUTIONS, TEST_DEVICE
from tests.harness.specs_tiny import ADD_ONE_CASE

HONEST_ADD = (SOLUTIONS / "aten__add.py").read_text()

PROBE = Path(__file__).resolve().parent / "sandbox_probes" / "probe.py"
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not sys.platform.startswith("linux") or sandbox.seccomp_supported() is not None,
    reason="the full sandbox needs root on x86_64 Linux",
)


def _probe(harness: Harness, secret_file: Path, marker: str) -> tuple[dict, dict]:
    source = (
        PROBE.read_text()
        .replace("SECRET_FILE", str(secret_file))
        .replace("MARKER", marker)
        .replace("REPO_ROOT", REPO_ROOT)
    )
    result = harness.evaluate(ADD_ONE_CASE, source, tier="smoke", timeout_s=60)
    match = re.search(r"PROBE(.*?)EBORP", result["reason"])
    assert match, result["reason"]
    return json.loads(match.group(1)), result


def _processes_with(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    secret_dir = tmp_path_factory.mktemp("runner")
    secret_file = secret_dir / "token"
    secret_file.write_text("kgbr_secret_token_value")
    secret_file.chmod(0o600)
    (Path("/var/tmp") / "kgb_probe_stash_earlier").write_text("left by an earlier run")
    marker = f"kgb-probe-daemon-{secrets.token_hex(6)}"
    with Harness(device=TEST_DEVICE, static_policy=False) as harness:
        found, result = _probe(harness, secret_file, marker)
    yield found, result, marker
    (Path("/var/tmp") / "kgb_probe_stash_earlier").unlink(missing_ok=True)


def test_isolation_is_complete_and_verified_from_outside(probed):
    _, result, _ = probed
    isolation = result["environment"]["isolation"]
    if result["environment"]["host_memory"]["method"] == "cgroup":
        assert isolation["complete"] is True, isolation["missing"]
    else:  # a machine without a writable memory cgroup: that, and only that, is missing
        assert [gap for gap in isolation["missing"] if "memory cgroup" not in gap] == []
        assert isolation["complete"] is False
    assert isolation["sandbox"] == "full"
    assert set(isolation["namespaces"]) == set(sandbox.NAMESPACES)
    assert isolation["seccomp"] == "filter" and isolation["no_new_privs"] and isolation["readonly_root"]


def test_candidate_sits_in_its_memory_cgroup(probed):
    _, result, _ = probed
    if result["environment"]["host_memory"]["method"] != "cgroup":
        pytest.skip("no writable memory cgroup on this machine: the next test covers what the result says then")
    assert "cgroup" in result["environment"]["isolation"]["reaping"]


def test_no_memory_cgroup_is_incomplete_isolation():
    with Harness(device=TEST_DEVICE, static_policy=False, host_memory_limit_bytes=0) as harness:
        result = harness.evaluate(ADD_ONE_CASE, HONEST_ADD, tier="smoke", timeout_s=60)
    isolation = result["environment"]["isolation"]
    assert result["verdict"] == "correct", result["reason"]
    assert isolation["complete"] is False
    assert any("memory cgroup" in gap for gap in isolation["missing"]), isolation["missing"]


def test_candidate_runs_as_its_own_uid_and_sees_no_other_process(probed):
    found, result, _ = probed
    assert found["uid"] == result["environment"]["isolation"]["uid"]
    assert sandbox.UID_BASE <= found["uid"] < sandbox.UID_BASE + sandbox.UID_COUNT
    assert found["ppid"] == 0  # its parent lies outside its pid namespace
    assert max(found["pids"]) < 50  # only its own namespace's processes


def test_secrets_and_root_home_are_out_of_reach(probed):
    found, result, _ = probed
    assert found["read_secret"][0] == "refused"
    assert found["read_root_home"][0] == "refused" or found["read_root_home"][1] in ("['.pyenv']", "[]")
    assert "kgbr_secret_token_value" not in json.dumps(result)


def test_code_is_read_only_and_tmp_is_private(probed):
    found, _, _ = probed
    assert found["write_checkout"][0] == "refused"
    assert found["write_site_packages"][0] == "refused"
    assert not (Path(REPO_ROOT) / "evaluator" / "kgb_probe_marker.py").exists()
    assert found["stash_var_tmp"][0] == "ok"  # its own private tmpfs
    assert not Path("/var/tmp/kgb_probe_stash").exists()  # which vanished with it
    assert found["read_stash"][0] == "refused"  # and the host's /var/tmp was never visible


def test_no_network_no_namespace_escape_no_ptrace_no_mount(probed):
    found, _, _ = probed
    assert found["connect_redis"][0] == "refused"
    # filesystem sockets are no network: socket(AF_UNIX) is refused, and /run is an empty tmpfs
    assert found["unix_postgres"][0] == "refused"
    assert found["list_run"] == ["ok", "[]"]
    assert found["list_site_state"][0] == "refused" or found["list_site_state"] == ["ok", "[]"]
    assert found["unshare_user_net"] == [-1, 1]  # EPERM from the seccomp filter
    assert found["ptrace_attach_1"][0] == -1
    assert found["mount_tmpfs"][0] == -1
    assert found["setuid_0"][0] == "refused"


def test_daemon_dies_with_the_attempt(probed):
    _, _, marker = probed
    deadline = time.monotonic() + 5
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []


def test_seccomp_program_is_well_formed():
    program = sandbox.seccomp_program()
    assert len(program) % 8 == 0 and len(program) // 8 < 4096
    sealing = sandbox.unix_socket_program()
    assert len(sealing) % 8 == 0 and len(sealing) // 8 < 4096


SEAL_PROBE = """
import os, socket, sys, threading, time
sys.path.insert(0, {repo!r})
from evaluator.harness import sandbox
sandbox.install_seccomp()
socket.socket(socket.AF_UNIX).close()  # allowed until sealed (the device runtime needs it)
started = threading.Event()
def other():  # a thread that exists before the seal, as the device runtime's do
    started.wait()
    try:
        socket.socket(socket.AF_UNIX)
        print("THREAD_UNIX_OK", flush=True)
    except PermissionError:
        print("THREAD_UNIX_REFUSED", flush=True)
worker = threading.Thread(target=other)
worker.start()
if {seal!r}:
    sandbox.seal()
started.set()
worker.join()
print("READY", flush=True)
time.sleep(30)
"""


@pytest.mark.skipif(sandbox.seccomp_supported() is not None, reason="no seccomp syscall table on this machine")
@pytest.mark.parametrize("seal", [True, False])
def test_seal_refuses_unix_sockets_on_every_thread_and_is_checked_from_outside(seal):
    import subprocess

    code = SEAL_PROBE.format(repo=REPO_ROOT, seal=seal)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline().strip(), proc.stdout.readline().strip()]
        assert lines[1] == "READY", lines
        assert lines[0] == ("THREAD_UNIX_REFUSED" if seal else "THREAD_UNIX_OK")
        found = sandbox.verify(proc.pid, sandbox.SandboxSpec(workdir="/", uid=None, namespaces=False, seccomp=True))
        unsealed = [m for m in found["missing"] if "not sealed" in m]
        assert bool(unsealed) != seal, found["missing"]
    finally:
        proc.kill()
        proc.wait()


ORPHAN_CANDIDATE = """
import subprocess
import sys
import tempfile
import time


def add_Tensor(self, other, *, alpha=1):
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "MARKER"], start_new_session=True)
    while True:
        time.sleep(0.01)
"""

ORPHAN_RUNNER = """
import sys
from evaluator.harness import Harness
from tests.harness.specs_tiny import ADD_ONE_CASE

with Harness(device=sys.argv[1], static_policy=False) as harness:
    harness.evaluate(ADD_ONE_CASE, open(sys.argv[2]).read(), tier="smoke", timeout_s=600)
"""


def test_nothing_of_the_attempt_outlives_a_killed_harness(tmp_path):
    """The harness process killed with SIGKILL (no cleanup runs) mid-attempt: the candidate, and
    the daemon it started in its namespace, end with it instead of running on unowned."""
    import signal
    import subprocess

    marker = f"kgb-orphan-{secrets.token_hex(6)}"
    solution = tmp_path / "orphan.py"
    solution.write_text(ORPHAN_CANDIDATE.replace("MARKER", marker))
    runner = subprocess.Popen(
        [sys.executable, "-c", ORPHAN_RUNNER, TEST_DEVICE, str(solution)], cwd=REPO_ROOT, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while not _processes_with(marker) and time.monotonic() < deadline:
            assert runner.poll() is None, "the harness ended before the candidate spun"
            time.sleep(0.2)
        assert _processes_with(marker), "the candidate never started its daemon"
        attempt = _descendants(runner.pid)  # the pool's processes, the candidate and its daemon
    finally:
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
    deadline = time.monotonic() + 5
    while _alive(attempt) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _alive(attempt)
    for pid in left:  # do not leave them to the rest of the suite either way
        os.kill(pid, signal.SIGKILL)
    assert left == [], "the attempt's processes outlived the killed harness"


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/task/{current}/children", encoding="utf-8") as handle:
                children = [int(c) for c in handle.read().split()]
        except OSError:
            children = []
        found += children
        todo += children
    return found


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(pid)
        except OSError:
            continue
    return alive


FLOOD_CANDIDATE = """
import sys
import torch


def add_Tensor(self, other, *, alpha=1):
    line = "x" * 65535 + "\\n"
    for _ in range(3000):
        sys.stdout.write(line)
    print("END-OF-FLOOD", flush=True)
    return torch.empty_like(self)
"""


def test_a_candidate_printing_without_end_fills_no_disk():
    """~200 MB on stdout: the parent keeps the tail in memory, nothing grows on the host's disk."""
    import glob
    import threading

    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "kgb-log-*")))
    largest = [0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for folder in set(glob.glob(os.path.join(tempfile.gettempdir(), "kgb-log-*"))) - before:
                for path in glob.glob(os.path.join(folder, "**"), recursive=True):
                    try:
                        largest[0] = max(largest[0], os.path.getsize(path))
                    except OSError:
                        continue
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with Harness(device=TEST_DEVICE, static_policy=False) as harness:
            result = harness.evaluate(ADD_ONE_CASE, FLOOD_CANDIDATE, tier="smoke", timeout_s=120)
    finally:
        done.set()
        watcher.join()
    assert result["verdict"] == "incorrect", result["reason"][:300]
    assert "END-OF-FLOOD" in result["stderr_tail"]
    assert largest[0] < 16 << 20, f"a file of {largest[0]} bytes grew on the host's disk"
