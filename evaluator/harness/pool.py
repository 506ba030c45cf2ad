"""Candidate processes and the warm pool that keeps a few of them started.

Each child is a fresh `python -m evaluator.harness.child` with a scrubbed environment (an
allowlist: nothing else survives, so tokens, database and broker URLs and seeds never reach it),
its own session and process group (a timeout kills the group, grandchildren included), a private
temporary directory as HOME, TMPDIR, working directory and Triton cache, and its output captured
to a file the parent reads back truncated. A child serves one candidate and is then killed.
"""

from __future__ import annotations

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

    def __init__(self, backend: Backend, *, drop_privileges: bool = True) -> None:
        self.backend = backend
        self.workdir = tempfile.mkdtemp(prefix="kgb-cand-")
        os.chmod(self.workdir, 0o700)
        drop = drop_privileges and os.geteuid() == 0
        if drop:
            os.chown(self.workdir, NOBODY, NOBODY)
        self.log_path = os.path.join(self.workdir, "output.log")
        parent_sock, child_sock = socket.socketpair()
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "evaluator.harness.child",
                str(child_sock.fileno()),
                backend_ref(backend),
                "drop" if drop else "keep",
            ],
            cwd=self.workdir,
            env=child_environment(backend, self.workdir),
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
        self.log.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


class WarmPool:
    """Keeps `size` children started (torch and triton imported, device initialised). `acquire`
    hands one out and starts its replacement at once; a child is never given out twice."""

    def __init__(self, backend: Backend, size: int = 1) -> None:
        self.backend = backend
        self.size = max(1, size)
        self.lock = threading.Lock()
        self.idle: list[Child] = []
        self.closed = False
        self.drop_privileges = can_drop_privileges(backend)
        self.refill()

    def refill(self) -> None:
        with self.lock:
            while not self.closed and len(self.idle) < self.size:
                self.idle.append(Child(self.backend, drop_privileges=self.drop_privileges))

    def acquire(self) -> Child:
        with self.lock:
            child = self.idle.pop(0) if self.idle else None
        if child is None:
            child = Child(self.backend, drop_privileges=self.drop_privileges)
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
