"""Candidate processes and the warm pool that keeps a few of them started.

Each child is a fresh `python -m evaluator.harness.child` with a scrubbed environment (an
allowlist: nothing else survives, so tokens, database and broker URLs and seeds never reach it),
its own session and process group (a timeout kills the group, grandchildren included), a private
temporary directory as HOME, TMPDIR, working directory and Triton cache, a host memory limit (see
`plan_host_memory_limit`), and its output captured to a file the parent reads back truncated. A
child serves one candidate and is then killed.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from evaluator.harness import wire
from evaluator.harness.backends import Backend

ENV_ALLOWLIST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "TERM")
TRITON_ENV_KEEP = ("TRITON_F32_DEFAULT", "TRITON_DEFAULT_FP_FUSION")  # device toolchain paths come from the backend
REPO_ROOT = str(Path(__file__).resolve().parents[2])
READY_TIMEOUT_S = 600.0  # a loaded CI machine can take minutes to import torch and triton
NOBODY = 65534
GIB = 1 << 30
HOST_MEMORY_CAP_BYTES = 16 * GIB
CGROUP_ROOT = "/sys/fs/cgroup"
PROC_SELF_CGROUP = "/proc/self/cgroup"
RLIMIT_AS_ENV = "KGB_RLIMIT_AS"  # read by child.limit_address_space
CGROUP_REMOVE_TRIES = 20  # x 50 ms: the kernel frees a cgroup once its last process is reaped


def default_host_memory_limit_bytes() -> int:
    """min(16 GiB, half the machine's RAM): the harness process and the rest of the host keep room."""
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return min(HOST_MEMORY_CAP_BYTES, ram // 2)


def format_gib(size_bytes: int) -> str:
    return f"{size_bytes / GIB:.3g} GiB"


@dataclasses.dataclass(frozen=True)
class HostMemoryLimit:
    """How each candidate process is held to `limit_bytes` of host memory. `method`: "cgroup" (a
    cgroup v2 per candidate under `cgroup_parent`, memory.max, no swap: the kernel OOM-kills it),
    "rlimit_as" (the child sets RLIMIT_AS before importing torch: allocations fail), or "none"."""

    limit_bytes: int
    method: str
    note: str
    cgroup_parent: str | None = None

    def record(self) -> dict[str, Any]:
        """What the result's environment says about it."""
        return {"limit_bytes": self.limit_bytes, "method": self.method, "note": self.note}


def memory_delegating_cgroup() -> str | None:
    """A cgroup v2 directory this root process may create memory-limited cgroups in: its own
    cgroup (the root cgroup) or the one just above it (a service or container leaf) when that one's
    subtree has the memory controller. None elsewhere (not root, cgroup v1, nothing delegated)."""
    if os.geteuid() != 0 or not os.path.exists(os.path.join(CGROUP_ROOT, "cgroup.controllers")):
        return None
    try:
        with open(PROC_SELF_CGROUP, encoding="utf-8") as handle:
            own = next((line[3:].strip() for line in handle if line.startswith("0::")), None)
    except OSError:
        return None
    if own is None:
        return None
    own_dir = os.path.normpath(os.path.join(CGROUP_ROOT, own.lstrip("/")))
    for directory in (own_dir, os.path.dirname(own_dir)):
        if os.path.commonpath([directory, CGROUP_ROOT]) != CGROUP_ROOT:
            break  # above the mounted hierarchy
        try:
            with open(os.path.join(directory, "cgroup.subtree_control"), encoding="utf-8") as handle:
                controllers = handle.read().split()
        except OSError:
            continue
        if "memory" in controllers and os.access(directory, os.W_OK):
            return directory
    return None


def plan_host_memory_limit(backend: Backend, limit_bytes: int) -> HostMemoryLimit:
    """Pick how to enforce `limit_bytes` (0: no limit) on this machine for this backend."""
    if limit_bytes == 0:
        return HostMemoryLimit(0, "none", "no host memory limit (switched off)")
    parent = memory_delegating_cgroup()
    if parent is not None:
        return HostMemoryLimit(limit_bytes, "cgroup", f"cgroup v2 memory.max per candidate under {parent}", parent)
    if backend.interpreter:
        return HostMemoryLimit(limit_bytes, "rlimit_as", "RLIMIT_AS (no cgroup v2 memory delegation here)")
    # a device driver reserves far more address space than it uses: RLIMIT_AS (and RLIMIT_DATA,
    # untested on drivers) could stop the device from initialising at all
    return HostMemoryLimit(
        limit_bytes,
        "none",
        "not enforced: no cgroup v2 memory delegation here (run as root with a writable cgroup v2 "
        "subtree), and address-space rlimits break device drivers",
    )


def create_candidate_cgroup(parent: str, limit_bytes: int) -> str:
    """A fresh cgroup under `parent` with memory.max = `limit_bytes`, no swap, and OOM killing the
    whole group at once."""
    path = tempfile.mkdtemp(prefix="kgb-cand-", dir=parent)
    settings = {"memory.max": str(limit_bytes), "memory.swap.max": "0", "memory.oom.group": "1"}
    for name, value in settings.items():
        target = os.path.join(path, name)
        if name == "memory.max" or os.path.exists(target):  # swap and oom.group depend on the kernel
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(value)
    return path


def cgroup_oom_kills(path: str) -> int:
    """How many processes the kernel's OOM killer stopped in this cgroup (memory.events)."""
    try:
        with open(os.path.join(path, "memory.events"), encoding="utf-8") as handle:
            for line in handle:
                key, _, count = line.partition(" ")
                if key == "oom_kill":
                    return int(count)
    except (OSError, ValueError):
        pass
    return 0


def remove_cgroup(path: str) -> None:
    """Kill whatever is left in the cgroup (grandchildren that left the process group too) and
    remove it."""
    try:
        with open(os.path.join(path, "cgroup.kill"), "w", encoding="utf-8") as handle:
            handle.write("1")
    except OSError:
        pass  # kernels before 5.14 have no cgroup.kill: the process group kill has to do
    for _ in range(CGROUP_REMOVE_TRIES):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)


def _world_reachable(path: str) -> bool:
    """Whether an unprivileged user can reach (and, for files, read and run) `path`."""
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    for i in range(2, len(parts) + 1):
        current = os.sep.join(parts[:i]) or os.sep
        try:
            mode = os.stat(current).st_mode
        except OSError:
            return False
        if not mode & 0o001 and not (i == len(parts) and mode & 0o004):
            return False
    return True


def backend_ref(backend: Backend) -> str:
    """How the child finds the same backend class: `module:QualName` (fakes in tests work too)."""
    cls = type(backend)
    return f"{cls.__module__}:{cls.__qualname__}"


def can_drop_privileges(backend: Backend) -> bool:
    """Root can hand the candidate to `nobody` only if nobody can run this Python and read the
    code, and tensors are not shared by device IPC (its shared-memory files are root's, mode 0600)."""
    import torch

    if os.geteuid() != 0 or backend.share_tensors_by_ipc():
        return False
    return all(_world_reachable(p) for p in (sys.executable, os.path.dirname(torch.__file__), REPO_ROOT))


class ChildGone(Exception):
    """The child died or stopped answering; `reason` says how."""

    def __init__(self, reason: str, *, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.timed_out = timed_out


def child_environment(backend: Backend, workdir: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in (*ENV_ALLOWLIST, *backend.env_allowlist, *TRITON_ENV_KEEP) if k in os.environ}
    env.update(
        {
            "HOME": workdir,
            "TMPDIR": workdir,
            "TRITON_CACHE_DIR": os.path.join(workdir, "triton-cache"),
            "TRITON_DUMP_DIR": os.path.join(workdir, "triton-dump"),
            "PYTHONPATH": REPO_ROOT,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1",
            "PYTHONUNBUFFERED": "1",
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(workdir, "inductor"),
        }
    )
    env.update(backend.child_env(workdir))
    return env


class Child:
    """One started candidate process and the parent's end of its channel."""

    def __init__(
        self, backend: Backend, host_memory: HostMemoryLimit, *, drop_privileges: bool = True, clock: str = "events"
    ) -> None:
        self.backend = backend
        self.host_memory = host_memory
        self.workdir = tempfile.mkdtemp(prefix="kgb-cand-")
        os.chmod(self.workdir, 0o700)
        drop = drop_privileges and os.geteuid() == 0
        if drop:
            os.chown(self.workdir, NOBODY, NOBODY)
        self.log_path = os.path.join(self.workdir, "output.log")
        parent_sock, child_sock = socket.socketpair()
        self.log = open(self.log_path, "wb")
        env = child_environment(backend, self.workdir)
        if host_memory.method == "rlimit_as":
            env[RLIMIT_AS_ENV] = str(host_memory.limit_bytes)
        self.cgroup: str | None = None
        if host_memory.method == "cgroup":
            assert host_memory.cgroup_parent is not None
            self.cgroup = create_candidate_cgroup(host_memory.cgroup_parent, host_memory.limit_bytes)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "evaluator.harness.child",
                str(child_sock.fileno()),
                backend_ref(backend),
                "drop" if drop else "keep",
                clock,
            ],
            cwd=self.workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            pass_fds=(child_sock.fileno(),),
            start_new_session=True,
            close_fds=True,
        )
        child_sock.close()
        self.conn = Connection(os.dup(parent_sock.fileno()))
        parent_sock.close()
        self.started = time.monotonic()
        self.ready_info: dict[str, Any] | None = None
        if self.cgroup is not None:
            self.join_cgroup(self.cgroup)

    def join_cgroup(self, path: str) -> None:
        """Move the child into its cgroup. No candidate code runs before the parent sends it, so
        this is in time; a limit that cannot be applied stops the child rather than go unenforced."""
        try:
            with open(os.path.join(path, "cgroup.procs"), "w", encoding="utf-8") as handle:
                handle.write(str(self.proc.pid))
        except OSError as exc:
            self.kill()
            raise RuntimeError(f"could not place the candidate process in its memory cgroup {path}: {exc}") from None

    # ---- channel -----------------------------------------------------------
    def send(self, obj: Any) -> None:
        try:
            self.conn.send_bytes(wire.dumps_to_child(obj, ipc=self.backend.share_tensors_by_ipc()))
        except (OSError, ValueError) as exc:
            raise ChildGone(self.exit_reason(f"could not send to the candidate process ({exc})")) from None

    def receive(self, deadline: float) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0 or not self.conn.poll(remaining):
                raise ChildGone("time limit reached", timed_out=True)
            data = self.conn.recv_bytes(wire.MAX_MESSAGE_BYTES)
        except (EOFError, OSError):
            raise ChildGone(self.exit_reason("the candidate process closed its channel")) from None
        try:
            msg = wire.loads_from_child(data)
        except Exception as exc:
            raise ChildGone(f"the candidate process sent an unreadable reply ({type(exc).__name__})") from None
        if type(msg) is not dict:
            raise ChildGone("the candidate process sent a reply that is not a message")
        return msg

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> dict[str, Any]:
        if self.ready_info is None:
            msg = self.receive(self.started + timeout_s)
            if msg.get("type") != "ready":
                raise RuntimeError(
                    f"candidate process failed to start: {msg.get('message', msg)}\n{self.output_tail()}"
                )
            self.ready_info = msg
        return self.ready_info

    def exit_reason(self, fallback: str) -> str:
        try:
            code = self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return fallback
        if self.cgroup is not None and cgroup_oom_kills(self.cgroup) > 0:
            return (
                f"the candidate process exceeded the host memory limit of "
                f"{format_gib(self.host_memory.limit_bytes)} (killed by the kernel's OOM killer)"
            )
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return f"the candidate process was killed by signal {name}"
        return f"the candidate process exited with code {code} before replying"

    def output_tail(self, limit: int = 64 * 1024) -> str:
        try:
            with open(self.log_path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                size = handle.tell()
                handle.seek(max(0, size - limit))
                return handle.read().decode("utf-8", "replace")
        except OSError:
            return ""

    # ---- end ---------------------------------------------------------------
    def kill(self) -> None:
        """Kill the whole process group (grandchildren too) and remove the private directory."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            self.conn.close()
        except OSError:
            pass
        if self.cgroup is not None:
            remove_cgroup(self.cgroup)
        self.log.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


class WarmPool:
    """Keeps `size` children started (torch and triton imported, device initialised). `acquire`
    hands one out and starts its replacement at once; a child is never given out twice."""

    def __init__(self, backend: Backend, host_memory: HostMemoryLimit, size: int = 1, *, clock: str = "events") -> None:
        self.backend = backend
        self.host_memory = host_memory
        self.clock = clock  # "kernel": children start the device's activity trace once while warming
        self.size = max(1, size)
        self.lock = threading.Lock()
        self.idle: list[Child] = []
        self.closed = False
        self.drop_privileges = can_drop_privileges(backend)
        self.refill()

    def refill(self) -> None:
        with self.lock:
            while not self.closed and len(self.idle) < self.size:
                self.idle.append(
                    Child(self.backend, self.host_memory, drop_privileges=self.drop_privileges, clock=self.clock)
                )

    def acquire(self) -> Child:
        with self.lock:
            child = self.idle.pop(0) if self.idle else None
        if child is None:
            child = Child(self.backend, self.host_memory, drop_privileges=self.drop_privileges, clock=self.clock)
        self.refill()
        try:
            child.wait_ready()
        except Exception as exc:
            tail = child.output_tail()
            child.kill()
            if not self.drop_privileges:
                why = exc.reason if isinstance(exc, ChildGone) else f"{type(exc).__name__}: {exc}"
                raise RuntimeError(f"candidate process failed to start ({why})\n{tail[-2000:]}") from None
            # the device may refuse an unprivileged user: keep root (recorded in the result's isolation)
            with self.lock:
                self.drop_privileges = False
                stale, self.idle = self.idle, []
            for other in stale:
                other.kill()
            return self.acquire()
        return child

    def release(self, child: Child) -> None:
        child.kill()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            idle, self.idle = self.idle, []
        for child in idle:
            child.kill()


def send_bye(child: Child) -> None:
    try:
        child.conn.send_bytes(pickle.dumps({"type": "bye"}))
    except OSError:
        pass
