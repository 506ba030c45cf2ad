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
import fcntl
import os
import pickle
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from evaluator.harness import sandbox, wire
from evaluator.harness.backends import Backend

ENV_ALLOWLIST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "TERM")
TRITON_ENV_KEEP = ("TRITON_F32_DEFAULT", "TRITON_DEFAULT_FP_FUSION")  # device toolchain paths come from the backend
REPO_ROOT = str(Path(__file__).resolve().parents[2])
READY_TIMEOUT_S = 600.0  # a loaded CI machine can take minutes to import torch and triton
GIB = 1 << 30
HOST_MEMORY_CAP_BYTES = 16 * GIB
CGROUP_ROOT = "/sys/fs/cgroup"
PROC_SELF_CGROUP = "/proc/self/cgroup"
RLIMIT_AS_ENV = "KGB_RLIMIT_AS"  # read by child.limit_address_space
CGROUP_REMOVE_TRIES = 20  # x 50 ms: the kernel frees a cgroup once its last process is reaped
MAX_START_RETRIES = 3  # consecutive failed starts at a settled level before the pool gives up
LEVEL_TRIES = 2  # failed starts in a row before an unsettled level is given up for a weaker one
UID_LOCK_DIR = os.path.join(tempfile.gettempdir(), "kgb-sandbox-uids")
# the site's state in a development checkout (SQLite database, the filesystem broker's job payloads)
HIDDEN_IN_CHECKOUT = (os.path.join(REPO_ROOT, "var"),)
CANDIDATE_TMP = "/tmp"  # the candidate's directory lies here: inside its private tmpfs when sandboxed


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
    """A cgroup directory this root process may create memory-limited cgroups in. cgroup v2: its
    own cgroup (the root cgroup) or the one just above it (a service or container leaf) when that
    one's subtree has the memory controller. cgroup v1: its own cgroup of the memory hierarchy
    (children's limits nest under it). None elsewhere (not root, nothing writable)."""
    if os.geteuid() != 0:
        return None
    if not os.path.exists(os.path.join(CGROUP_ROOT, "cgroup.controllers")):
        return _memory_cgroup_v1()
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


def _memory_cgroup_v1() -> str | None:
    """This process's cgroup in a mounted, writable v1 memory hierarchy."""
    hierarchy = os.path.join(CGROUP_ROOT, "memory")
    if not os.path.exists(os.path.join(hierarchy, "memory.limit_in_bytes")):
        return None
    try:
        with open(PROC_SELF_CGROUP, encoding="utf-8") as handle:
            own = next((line.split(":", 2)[2].strip() for line in handle if line.split(":")[1:2] == ["memory"]), None)
    except (OSError, IndexError):
        return None
    if own is None:
        return None
    directory = os.path.normpath(os.path.join(hierarchy, own.lstrip("/")))
    if os.path.commonpath([directory, hierarchy]) != hierarchy or not os.access(directory, os.W_OK):
        return None
    return directory


def is_cgroup_v1(path: str) -> bool:
    return os.path.exists(os.path.join(path, "memory.limit_in_bytes"))


def plan_host_memory_limit(backend: Backend, limit_bytes: int) -> HostMemoryLimit:
    """Pick how to enforce `limit_bytes` (0: no limit) on this machine for this backend."""
    if limit_bytes == 0:
        return HostMemoryLimit(0, "none", "no host memory limit (switched off)")
    parent = memory_delegating_cgroup()
    if parent is not None:
        what = "cgroup v1 memory.limit_in_bytes" if is_cgroup_v1(parent) else "cgroup v2 memory.max"
        return HostMemoryLimit(limit_bytes, "cgroup", f"{what} per candidate under {parent}", parent)
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
    if is_cgroup_v1(parent):
        # memory + swap at the same figure: no swap; the OOM killer picks within the group
        required, settings = (
            "memory.limit_in_bytes",
            {
                "memory.limit_in_bytes": str(limit_bytes),
                "memory.memsw.limit_in_bytes": str(limit_bytes),
            },
        )
    else:
        required, settings = (
            "memory.max",
            {"memory.max": str(limit_bytes), "memory.swap.max": "0", "memory.oom.group": "1"},
        )
    for name, value in settings.items():
        target = os.path.join(path, name)
        if name == required or os.path.exists(target):  # swap and oom.group depend on the kernel
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(value)
    return path


def cgroup_oom_kills(path: str) -> int:
    """How many processes the kernel's OOM killer stopped in this cgroup (memory.events; v1:
    memory.oom_control)."""
    name = "memory.oom_control" if is_cgroup_v1(path) else "memory.events"
    try:
        with open(os.path.join(path, name), encoding="utf-8") as handle:
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
        # cgroup v1 and kernels before 5.14 have no cgroup.kill: kill what the group lists
        # (a pid namespace is what stops a process from forking faster than this loop)
        _kill_listed(path)
    for _ in range(CGROUP_REMOVE_TRIES):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)


def in_cgroup(pid: int, path: str) -> bool:
    """Whether /proc says process `pid` sits in cgroup directory `path` (v1 memory or v2 line)."""
    hierarchy = os.path.join(CGROUP_ROOT, "memory") if is_cgroup_v1(path) else CGROUP_ROOT
    wanted = "/" + os.path.relpath(path, hierarchy)
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8") as handle:
            lines = [line.rstrip("\n").split(":", 2) for line in handle]
    except OSError:
        return False
    v1 = hierarchy != CGROUP_ROOT
    for fields in lines:
        if len(fields) == 3 and fields[2] == wanted:
            if ("memory" in fields[1].split(",")) if v1 else (fields[0] == "0" and fields[1] == ""):
                return True
    return False


def _kill_listed(path: str) -> None:
    for _ in range(CGROUP_REMOVE_TRIES):
        try:
            with open(os.path.join(path, "cgroup.procs"), encoding="utf-8") as handle:
                pids = [int(line) for line in handle if line.strip()]
        except (OSError, ValueError):
            return
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
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


def code_paths() -> list[str]:
    """What a candidate process must be able to read: the Python installation, the packages it
    imports and the checkout."""
    import torch
    import triton

    paths = {sys.base_prefix, sys.prefix, REPO_ROOT, os.path.dirname(torch.__file__), os.path.dirname(triton.__file__)}
    return sorted(os.path.realpath(p) for p in paths)


def unreachable_code_paths() -> list[str]:
    """The code paths an unprivileged uid cannot reach as the files lie (root's home, say): a
    mount namespace can expose them (sandbox.SandboxSpec.expose); without one, no uid change."""
    return [p for p in code_paths() if not _world_reachable(p)]


@dataclasses.dataclass(frozen=True)
class SandboxLevel:
    """One rung of the isolation ladder: the pool starts at the strongest rung this machine
    offers and steps down only when a child fails to start there (before any candidate code ran);
    every result records its rung, and anything below "full" is incomplete (not ranked)."""

    name: str
    namespaces: bool
    own_uid: bool
    seccomp: bool


SANDBOX_LEVELS = (
    SandboxLevel("full", namespaces=True, own_uid=True, seccomp=True),
    SandboxLevel("no seccomp", namespaces=True, own_uid=True, seccomp=False),
    SandboxLevel("uid only", namespaces=False, own_uid=True, seccomp=False),
    SandboxLevel("seccomp only", namespaces=False, own_uid=False, seccomp=True),
    SandboxLevel("none", namespaces=False, own_uid=False, seccomp=False),
)


def sandbox_levels() -> list[SandboxLevel]:
    """The rungs this machine can try, strongest first."""
    root = os.geteuid() == 0 and sys.platform.startswith("linux")
    reachable = not unreachable_code_paths()
    seccomp_ok = sandbox.seccomp_supported() is None
    return [
        level
        for level in SANDBOX_LEVELS
        if (not level.namespaces or root)
        and (not level.own_uid or (root and (reachable or level.namespaces)))
        and (not level.seccomp or seccomp_ok)
    ]


class UidLease:
    """A candidate uid held by this process alone while its candidate lives (an flock on a file
    per uid, so pools in other processes pick others); a random start spreads consecutive
    candidates over the range, so the next one does not inherit the last one's uid."""

    def __init__(self) -> None:
        os.makedirs(UID_LOCK_DIR, mode=0o700, exist_ok=True)
        start = secrets.randbelow(sandbox.UID_COUNT)
        for step in range(sandbox.UID_COUNT):
            uid = sandbox.UID_BASE + (start + step) % sandbox.UID_COUNT
            fd = os.open(os.path.join(UID_LOCK_DIR, str(uid)), os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise RuntimeError("every candidate uid is in use")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


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
            "USER": "kgb-candidate",  # its uid has no passwd entry; getpass and caches read these
            "LOGNAME": "kgb-candidate",
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


OUTPUT_KEPT_BYTES = 256 << 10  # of a child's stdout and stderr


class OutputTail:
    """The last OUTPUT_KEPT_BYTES a child wrote to stdout and stderr, read from its pipe by a
    thread of the parent as they come (a child writing without end only costs CPU)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.kept = bytearray()
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._drain, name="kgb-child-output", daemon=True)
        self.reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            with self.lock:
                self.kept += chunk
                if len(self.kept) > 2 * OUTPUT_KEPT_BYTES:
                    del self.kept[:-OUTPUT_KEPT_BYTES]

    def tail(self, limit: int) -> str:
        with self.lock:
            return bytes(self.kept[-limit:]).decode("utf-8", "replace")

    def close(self) -> None:
        """After the child is gone: the pipe's last writer closed it, so the reader ends."""
        self.reader.join(timeout=2.0)
        if not self.reader.is_alive():
            os.close(self.fd)


class Child:
    """One started candidate process and the parent's end of its channel.

    The process starts as this (root) process's child with a scrubbed environment, is placed in
    its cgroup, then walls itself in (`sandbox.enter`, at `level`) before it imports anything
    heavy; once it reports ready the parent checks from /proc what it really got (`isolation`)."""

    def __init__(
        self, backend: Backend, host_memory: HostMemoryLimit, *, level: SandboxLevel, clock: str = "events"
    ) -> None:
        self.backend = backend
        self.host_memory = host_memory
        self.level = level
        # the parent's own directory is the child's starting directory; the candidate's directory
        # is made by the sandbox inside its private tmpfs (or here, when there is no mount namespace)
        self.logdir = tempfile.mkdtemp(prefix="kgb-log-")
        self.uid_lease = UidLease() if level.own_uid else None
        self.workdir = tempfile.mkdtemp(prefix="kgb-cand-", dir=CANDIDATE_TMP)
        os.chmod(self.workdir, 0o700)
        if self.uid_lease is not None:
            os.chown(self.workdir, self.uid_lease.uid, self.uid_lease.uid)
        self.spec = sandbox.SandboxSpec(
            uid=self.uid_lease.uid if self.uid_lease else None,
            workdir=self.workdir,
            namespaces=level.namespaces,
            seccomp=level.seccomp,
            expose=tuple(unreachable_code_paths()) if level.namespaces and level.own_uid else (),
            hide=HIDDEN_IN_CHECKOUT,
            code=tuple(code_paths()) if level.namespaces else (),
        )
        parent_sock, child_sock = socket.socketpair()
        self.exchange = wire.Exchange.create()
        # stdout and stderr go into a pipe whose last bytes the parent keeps, never into a file:
        # a candidate printing in a loop would fill the runner's disk
        output_read, output_write = os.pipe()
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
                self.spec.to_arg(),
                clock,
                str(self.exchange.fd),
            ],
            cwd=self.logdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output_write,
            stderr=subprocess.STDOUT,
            pass_fds=(child_sock.fileno(), self.exchange.fd),
            start_new_session=True,
            close_fds=True,
        )
        child_sock.close()
        os.close(output_write)
        self.output = OutputTail(output_read)
        self.conn = wire.Channel(parent_sock)
        self.started = time.monotonic()
        self.ready_info: dict[str, Any] | None = None
        self.candidate_pid: int | None = None  # the process that runs the candidate (pid 1 of its namespace)
        self.isolation: dict[str, Any] = {}
        if self.cgroup is not None:
            self.join_cgroup(self.cgroup)
        # the child waits for this before it forks into its namespaces, so the fork is in the cgroup
        self.conn.send_bytes(pickle.dumps({"type": "placed"}))

    def join_cgroup(self, path: str) -> None:
        """Move the child into its cgroup before it may start anything (it waits for "placed");
        a limit that cannot be applied stops the child rather than go unenforced."""
        try:
            with open(os.path.join(path, "cgroup.procs"), "w", encoding="utf-8") as handle:
                handle.write(str(self.proc.pid))
        except OSError as exc:
            self.kill()
            raise RuntimeError(f"could not place the candidate process in its memory cgroup {path}: {exc}") from None

    def check_isolation(self) -> dict[str, Any]:
        """What this process really got, read by the parent from /proc (never taken from the
        child), as recorded in every result's `environment.isolation`."""
        pid = sandbox.namespace_child(self.proc.pid) if self.level.namespaces else self.proc.pid
        self.candidate_pid = pid
        if pid is None:
            verified: dict[str, Any] = {"missing": ["the candidate process could not be found from outside"]}
        else:
            verified = sandbox.verify(pid, self.spec)
        missing = list(verified.get("missing", []))
        if self.level.name != "full":
            missing.insert(0, f"sandbox level {self.level.name!r}: " + sandbox_level_gap(self.level))
        if self.cgroup is None:
            missing.append(f"a memory cgroup for the attempt (host memory: {self.host_memory.method})")
        elif pid is not None and not in_cgroup(pid, self.cgroup):
            missing.append("the candidate process is not in its memory cgroup")
        reaping = "pid namespace" if self.level.namespaces else "process group"
        if self.cgroup is not None:
            reaping += " + cgroup (v1: kill what it lists)" if is_cgroup_v1(self.cgroup) else " + cgroup.kill"
        self.isolation = {
            "sandbox": self.level.name,
            "uid": verified.get("uid"),
            "namespaces": verified.get("namespaces", []),
            "network": "none (own network namespace)" if "net" in verified.get("namespaces", []) else "host",
            "no_new_privs": verified.get("no_new_privs", False),
            "seccomp": verified.get("seccomp", "none"),
            "readonly_root": verified.get("readonly_root", False),
            "private_tmp": verified.get("private_tmp", False),
            "reaping": reaping,
            "env_scrubbed": True,
            "missing": missing,
            "complete": not missing,
        }
        return self.isolation

    # ---- channel -----------------------------------------------------------
    def send(self, obj: Any, deadline: float | None = None) -> None:
        try:
            self.conn.send_bytes(wire.dumps_to_child(obj, self.exchange), deadline)
        except wire.ChannelTimeout as exc:
            raise ChildGone(f"the candidate process did not take a message ({exc})", timed_out=True) from None
        except (OSError, ValueError) as exc:
            raise ChildGone(self.exit_reason(f"could not send to the candidate process ({exc})")) from None

    def receive(self, deadline: float, tensor_budget: int = wire.REPLY_SLACK_BYTES) -> dict[str, Any]:
        """The child's next message, whole by `deadline` (every byte of it: half a frame is a
        timeout too), its tensors' bytes copied out of the exchange file up to `tensor_budget`."""
        try:
            data = self.conn.recv_bytes(deadline, wire.MAX_MESSAGE_BYTES)
        except wire.ChannelTimeout:
            raise ChildGone("time limit reached", timed_out=True) from None
        except (EOFError, OSError):
            raise ChildGone(self.exit_reason("the candidate process closed its channel")) from None
        try:
            msg = wire.loads_from_child(data)
        except wire.MalformedOutput as exc:
            raise ChildGone(f"the candidate process sent an unreadable reply ({exc})") from None
        except Exception as exc:
            raise ChildGone(f"the candidate process sent an unreadable reply ({type(exc).__name__})") from None
        if type(msg) is not dict:
            raise ChildGone("the candidate process sent a reply that is not a message")
        try:
            return wire.resolve_exchanged(msg, self.exchange, budget=tensor_budget)
        except wire.MalformedOutput as exc:
            raise ChildGone(f"the candidate process sent an unreadable reply ({exc})") from None

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> dict[str, Any]:
        if self.ready_info is None:
            msg = self.receive(self.started + timeout_s)
            if msg.get("type") != "ready":
                raise RuntimeError(
                    f"candidate process failed to start: {msg.get('message', msg)}\n{self.output_tail()}"
                )
            self.ready_info = msg
            self.check_isolation()
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
        return self.output.tail(limit)

    # ---- end ---------------------------------------------------------------
    def kill(self) -> None:
        """Kill the candidate's pid 1 (its whole namespace dies with it), the process group, and
        the cgroup; then remove the directories and give the uid back."""
        if self.candidate_pid is not None and self.candidate_pid != self.proc.pid:
            # pid 1 first: the outer process reaps it once the kernel has killed and reaped
            # every other process of the namespace, so its exit means nothing is left
            try:
                os.kill(self.candidate_pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
            except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
                pass
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
        self.exchange.close()  # its pages are charged to the candidate's cgroup: freed before it goes
        if self.cgroup is not None:
            remove_cgroup(self.cgroup)
        self.output.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        shutil.rmtree(self.logdir, ignore_errors=True)
        if self.uid_lease is not None:
            self.uid_lease.release()


class WarmPool:
    """Keeps `size` children started (torch and triton imported, device initialised). `acquire`
    hands one out and starts its replacement at once; a child is never given out twice.

    Children start at the strongest sandbox level this machine offers; while no child has started
    yet, one that cannot start there moves the pool one level down, and the failure is kept in
    `level_notes` (recorded in each result), so a weaker wall is never silent. Once a child has
    started, the level is fixed: a candidate cannot make a later start fail (a fork bomb, a
    memory hog) to weaken the wall for the candidates after it."""

    def __init__(self, backend: Backend, host_memory: HostMemoryLimit, size: int = 1, *, clock: str = "events") -> None:
        self.backend = backend
        self.host_memory = host_memory
        self.clock = clock  # "kernel": children start the device's activity trace once while warming
        self.size = max(1, size)
        self.lock = threading.Lock()
        self.idle: list[Child] = []
        self.closed = False
        self.levels = sandbox_levels()
        self.level_notes: list[str] = []
        self.level_settled = False  # a child started at self.level: the level is fixed from then on
        self.start_failures = 0
        self.unsettled_failures = 0  # failed starts at self.level before it settled
        self.refill()

    @property
    def level(self) -> SandboxLevel:
        return self.levels[0]

    def _start(self) -> Child:
        return Child(self.backend, self.host_memory, level=self.level, clock=self.clock)

    def refill(self) -> None:
        with self.lock:
            while not self.closed and len(self.idle) < self.size:
                self.idle.append(self._start())

    def acquire(self) -> Child:
        with self.lock:
            child = self.idle.pop(0) if self.idle else None
        if child is None:
            child = self._start()
        self.refill()
        try:
            child.wait_ready()
        except Exception as exc:
            tail = child.output_tail()
            child.kill()
            why = exc.reason if isinstance(exc, ChildGone) else f"{type(exc).__name__}: {exc}"
            with self.lock:
                if child.level is not self.level:  # another thread already stepped down
                    stale: list[Child] = []
                elif self.level_settled or len(self.levels) == 1:
                    # once a child has started at this level, a later failure is that start's
                    # (load, a neighbour), never a reason to weaken the wall for what follows
                    self.start_failures += 1
                    if self.start_failures > MAX_START_RETRIES:
                        raise RuntimeError(f"candidate process failed to start ({why})\n{tail[-2000:]}") from None
                    stale = []
                elif self.unsettled_failures + 1 < LEVEL_TRIES:
                    # a first failure may be the machine's (load, a timeout): the wall is weakened
                    # only for a level that failed to start LEVEL_TRIES times in a row
                    self.unsettled_failures += 1
                    stale = []
                else:
                    self.unsettled_failures = 0
                    failed = self.levels.pop(0)
                    # the child's own message first ("broken": the exception it hit), then the
                    # last line of its output (a traceback's end, a signal's report)
                    first = (why.strip().splitlines() or [""])[0]
                    last = (tail.strip().splitlines() or [""])[-1]
                    said = first if last in first else f"{first} | {last}"
                    self.level_notes.append(f"sandbox level {failed.name!r} failed to start: {said[:400]}")
                    stale, self.idle = self.idle, []
            for other in stale:
                other.kill()
            return self.acquire()
        with self.lock:
            self.level_settled = True
            self.start_failures = 0
        child.isolation["level_notes"] = list(self.level_notes)
        return child

    def release(self, child: Child) -> None:
        child.kill()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            idle, self.idle = self.idle, []
        for child in idle:
            child.kill()


def sandbox_level_gap(level: SandboxLevel) -> str:
    """In words, what a level lacks against "full"."""
    gaps = []
    if not level.namespaces:
        gaps.append("no namespaces (parent visible, host network, writable tmp, daemons survive)")
    if not level.own_uid:
        gaps.append("the candidate keeps the harness's uid")
    if not level.seccomp:
        gaps.append("no seccomp filter")
    return "; ".join(gaps) or "nothing"


def send_bye(child: Child) -> None:
    try:
        child.conn.send_bytes(pickle.dumps({"type": "bye"}))
    except OSError:
        pass
