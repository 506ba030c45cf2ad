"""The wall around one candidate process (Linux): what it may see, touch and outlive.

The trusted parent starts each candidate process as root with a `SandboxSpec`; before torch,
triton or any candidate code is imported, the process calls `enter(spec)`, which

1. unshares mount, pid, network, IPC and UTS namespaces and forks: the fork is pid 1 of the new
   pid namespace, so when it dies the kernel kills every process the candidate started (daemons
   that left the process group included) and no process outside the namespace is visible or
   addressable (no `/proc/<ppid>/...`, no signals to the parent or to the pool's next child);
2. makes every mount read-only in its private mount namespace (the checkout, site-packages and
   everything else) except `/dev` and a fresh `/proc`, and mounts private tmpfs over `/tmp`,
   `/var/tmp` and `/dev/shm`, which vanish with the namespace (nothing persists for a later run);
3. becomes an unprivileged uid of its own (the pool hands out a distinct one per candidate), with
   no supplementary groups, RLIMIT_NPROC bounding its processes and threads, no core dumps;
4. sets no_new_privs and installs a seccomp filter that refuses the syscalls a kernel never
   needs and an escape does: ptrace and cross-process memory, namespaces and mounts, keyrings,
   BPF, perf, io_uring, userfaultfd, modules, handle-based opens (see `DENIED_SYSCALLS`).

A new network namespace without a user namespace leaves the candidate (an unprivileged uid) no
capability to `setns` back. The parent verifies the result from outside (`verify`): the uid,
no_new_privs, the seccomp mode and the namespaces of the process it will talk to, read from
`/proc/<pid>` by the parent itself. Where a layer cannot be had (not root, not Linux, another
architecture), the record says which are missing and `complete` is false: the site does not rank
such a result. Pure stdlib (ctypes); imported by the candidate process before anything else.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import platform
import resource
import signal
import struct
import sys
import time
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACE_FLAGS = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET
ANY_NAMESPACE = NAMESPACE_FLAGS | CLONE_NEWUSER | CLONE_NEWCGROUP
NAMESPACES = ("mnt", "pid", "net", "ipc", "uts")

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MS_NODIRATIME = 0x800
MS_NOATIME = 0x400
MS_RELATIME = 0x200000
MOUNT_OPTION_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
}
LEFT_WRITABLE = ("/proc", "/dev")  # a fresh /proc; device nodes (root-owned) stay as they are
PRIVATE_TMPFS = ("/tmp", "/var/tmp", "/dev/shm")
# hidden behind an empty tmpfs: daemons' sockets and pid files (/run), and whatever the parent
# names in SandboxSpec.hide (the site's state in the checkout)
# /sys/fs/cgroup: the harness's and the neighbours' cgroup counters (peak memory, pids) would be a
# channel between candidates and across runs; /dev/pts: the host's terminals (a pty a candidate
# opens and makes world-readable is read by a concurrent candidate), and /dev/ptmx opens nothing
# once it is covered
HIDDEN = ("/run", "/var/run", "/sys/fs/cgroup", "/dev/pts")
TMPFS_BYTES = 4 << 30  # per private tmpfs; memory-backed, so the memory limit bounds it too

PR_SET_PDEATHSIG = 1
ORPHAN_POLL_S = 0.2  # how often the outer process checks that the harness that started it lives
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2

UID_BASE = 61000  # candidate uids: UID_BASE .. UID_BASE + UID_COUNT - 1, one per live candidate
UID_COUNT = 4000
NPROC_LIMIT = 1024  # processes and threads of one candidate uid (torch starts one thread per core)
HOSTNAME = b"kgb-sandbox"

# x86_64 syscall numbers refused with EPERM (clone3 answers ENOSYS so that libc falls back to
# clone, whose flags the filter can read; clone with a namespace flag is refused)
DENIED_SYSCALLS_X86_64 = {
    "ptrace": 101,
    "syslog": 103,
    "uselib": 134,
    "vhangup": 153,
    "pivot_root": 155,
    "_sysctl": 156,
    "adjtimex": 159,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "sethostname": 170,
    "setdomainname": 171,
    "iopl": 172,
    "ioperm": 173,
    "create_module": 174,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "lookup_dcookie": 212,
    "clock_settime": 227,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "perf_event_open": 298,
    "fanotify_init": 300,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "pidfd_open": 434,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "mount_setattr": 442,
    "quotactl_fd": 443,
}
SYSCALL_CLONE_X86_64 = 56
SYSCALL_SOCKET_X86_64 = 41
AF_UNIX = 1
SYSCALL_CLONE3_X86_64 = 435
SYSCALL_SECCOMP_X86_64 = 317
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
SEALED_FILTERS = 2  # seccomp_program() and, stacked on it once the runtime is up, unix_socket_program()
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
EPERM = 1
ENOSYS = 38

# classic BPF opcodes and seccomp return values
BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_JSET_K = 0x45
BPF_RET_K = 0x06
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_DATA_NR = 0
SECCOMP_DATA_ARCH = 4
SECCOMP_DATA_ARG0_LOW = 16


@dataclasses.dataclass(frozen=True)
class SandboxSpec:
    """What the parent asks of one candidate process (passed on its command line as JSON)."""

    uid: int | None  # None: keep the current uid (the parent is not root)
    workdir: str
    namespaces: bool = True
    seccomp: bool = True
    nproc: int = NPROC_LIMIT
    # directories the candidate's uid must reach (Python, the checkout) that lie below a directory
    # it may not traverse (root's home): the rest of that directory is hidden by an empty tmpfs
    expose: tuple[str, ...] = ()
    hide: tuple[str, ...] = ()  # directories replaced by an empty tmpfs
    # the code the candidate process runs (Python, packages, the checkout): where a private tmpfs
    # covers one (a checkout under /tmp), it is bound back read-only
    code: tuple[str, ...] = ()

    def to_arg(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_arg(cls, text: str) -> SandboxSpec:
        raw = json.loads(text)
        return cls(
            uid=None if raw["uid"] is None else int(raw["uid"]),
            workdir=str(raw["workdir"]),
            namespaces=bool(raw["namespaces"]),
            seccomp=bool(raw["seccomp"]),
            nproc=int(raw["nproc"]),
            expose=tuple(str(p) for p in raw.get("expose", ())),
            hide=tuple(str(p) for p in raw.get("hide", ())),
            code=tuple(str(p) for p in raw.get("code", ())),
        )


class SandboxError(RuntimeError):
    """A layer the spec asked for could not be applied (the process must not go on)."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise SandboxError(f"{what} failed: {os.strerror(errno)} (errno {errno})")


# ---- seccomp --------------------------------------------------------------------------------


def seccomp_supported() -> str | None:
    """None when this machine has a syscall table here, else why not."""
    if not sys.platform.startswith("linux"):
        return f"not Linux ({sys.platform})"
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"no syscall table for {platform.machine()}"
    return None


def _instruction(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def _arch_check() -> list[bytes]:
    """Kill a foreign architecture or x32 call; leaves the syscall number loaded."""
    return [
        _instruction(BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARCH),
        _instruction(BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
        _instruction(BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_NR),
        _instruction(BPF_JGE_K, 0, 1, X32_SYSCALL_BIT),
        _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
    ]


def unix_socket_program() -> bytes:
    """The sealing filter: socket(AF_UNIX, ...) refused with EPERM, the rest allowed. A filesystem
    socket (a database's, say) is reachable from any network namespace; the parent's channel is an
    inherited socketpair, which needs no socket(). Installed only once the device runtime has
    started (seal()): NVIDIA's driver opens a Unix socket while it initialises and fails with
    "OS call failed" (CUDA error 304) when it cannot."""
    return b"".join(
        [
            *_arch_check(),
            _instruction(BPF_JEQ_K, 0, 3, SYSCALL_SOCKET_X86_64),
            _instruction(BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARG0_LOW),
            _instruction(BPF_JEQ_K, 0, 1, AF_UNIX),
            _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
            _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        ]
    )


def seccomp_program() -> bytes:
    """The filter installed before anything is imported: kill a foreign architecture or x32 call;
    refuse DENIED_SYSCALLS_X86_64 with EPERM, clone3 with ENOSYS and clone with a namespace flag
    with EPERM; allow the rest. unix_socket_program() is stacked on it later (seal())."""
    program = _arch_check()
    for number in sorted(DENIED_SYSCALLS_X86_64.values()):
        program += [
            _instruction(BPF_JEQ_K, 0, 1, number),
            _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
        ]
    program += [
        _instruction(BPF_JEQ_K, 0, 1, SYSCALL_CLONE3_X86_64),
        _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS),
        # last: anything but clone is allowed from here on; clone is allowed without namespace flags
        _instruction(BPF_JEQ_K, 0, 3, SYSCALL_CLONE_X86_64),
        _instruction(BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARG0_LOW),
        _instruction(BPF_JSET_K, 0, 1, ANY_NAMESPACE),
        _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
        _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
    ]
    return b"".join(program)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_seccomp() -> None:
    """no_new_privs, then the filter, for this thread and every process it starts. Call it while
    the process has one thread (before torch starts its pools): a filter applies per thread."""
    libc = _libc()
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    code = seccomp_program()
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _check(
        libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.cast(ctypes.pointer(fprog), ctypes.c_void_p), 0, 0),
        "prctl(PR_SET_SECCOMP)",
    )


def seal() -> None:
    """Stack unix_socket_program() on every thread of this process (the device runtime's threads
    too: SECCOMP_FILTER_FLAG_TSYNC). Call it after the runtime has started and before any
    candidate code is loaded. Filters only ever add refusals: nothing can lift it again."""
    libc = _libc()
    code = unix_socket_program()
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc.syscall.restype = ctypes.c_long
    done = libc.syscall(
        ctypes.c_long(SYSCALL_SECCOMP_X86_64),
        ctypes.c_long(SECCOMP_SET_MODE_FILTER),
        ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.cast(ctypes.pointer(fprog), ctypes.c_void_p),
    )
    if done != 0:  # > 0: the id of a thread that could not be synchronised
        raise SandboxError(f"seccomp(TSYNC) failed: {done if done > 0 else os.strerror(ctypes.get_errno())}")


# ---- namespaces and mounts ------------------------------------------------------------------


def _mount(libc: ctypes.CDLL, source: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> int:
    return libc.mount(
        source.encode() if source else None,
        target.encode(),
        fstype.encode() if fstype else None,
        ctypes.c_ulong(flags),
        data.encode() if data else None,
    )


def _unescape(path: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    return path.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def mount_points(mountinfo: str) -> list[tuple[str, int]]:
    """(mount point, per-mount flags to keep on a remount) from /proc/<pid>/mountinfo text."""
    found = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) < 6:
            continue
        flags = 0
        for option in fields[5].split(","):
            flags |= MOUNT_OPTION_FLAGS.get(option, 0)
        found.append((_unescape(fields[4]), flags))
    return found


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def closed_ancestor(path: str) -> str | None:
    """The highest directory above `path` that other users may not traverse, if any."""
    parts = os.path.realpath(path).split(os.sep)
    for i in range(2, len(parts)):
        current = os.sep.join(parts[:i])
        if not os.stat(current).st_mode & 0o001:
            return current
    return None


def _expose(libc: ctypes.CDLL, paths: tuple[str, ...]) -> None:
    """Hide each untraversable ancestor of `paths` behind an empty world-traversable tmpfs and bind
    exactly `paths` back into it, read-only."""
    sources = {}
    for path in paths:
        real = os.path.realpath(path)
        if closed_ancestor(real) is not None:
            sources[real] = os.open(real, os.O_PATH | os.O_DIRECTORY)  # still reachable once hidden
    hidden = sorted({a for a in (closed_ancestor(p) for p in sources) if a is not None})
    for ancestor in hidden:
        _check(
            _mount(libc, "tmpfs", ancestor, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m"), f"hiding {ancestor}"
        )
    for real, fd in sources.items():
        os.makedirs(real, mode=0o755, exist_ok=True)
        _check(_mount(libc, f"/proc/self/fd/{fd}", real, None, MS_BIND | MS_REC, None), f"exposing {real}")
        _check(_mount(libc, None, real, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None), f"making {real} read-only")
        os.close(fd)
    for ancestor in hidden:
        _check(_mount(libc, None, ancestor, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None), f"freezing {ancestor}")


def _bind_back(libc: ctypes.CDLL, paths: tuple[str, ...], covers: tuple[str, ...]) -> list[tuple[str, int]]:
    """O_PATH handles on the `paths` that lie under one of `covers`, taken before those are
    covered, to bind them back afterwards."""
    held = []
    for path in paths:
        real = os.path.realpath(path)
        if _under(real, covers) and os.path.isdir(real):
            held.append((real, os.open(real, os.O_PATH | os.O_DIRECTORY)))
    return held


def _make_mounts_private_and_readonly(
    libc: ctypes.CDLL, expose: tuple[str, ...], hide: tuple[str, ...], code: tuple[str, ...] = ()
) -> None:
    _check(_mount(libc, None, "/", None, MS_REC | MS_PRIVATE, None), "making mounts private")
    _check(_mount(libc, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mounting /proc")
    with open("/proc/self/mountinfo", encoding="utf-8") as handle:
        points = mount_points(handle.read())
    for target, flags in points:
        if _under(target, LEFT_WRITABLE) and target != "/dev/mqueue":
            continue
        result = _mount(libc, None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags, None)
        if result != 0 and os.path.exists(target):
            errno = ctypes.get_errno()
            # a mount hidden under another (over-mounted) cannot be reached by path, so not by the candidate either
            if errno not in (2, 20):  # ENOENT, ENOTDIR
                raise SandboxError(f"making {target} read-only failed: {os.strerror(errno)}")
    _expose(libc, expose)
    seen = set()
    for target in (*HIDDEN, *hide):
        real = os.path.realpath(target)
        if os.path.isdir(real) and real not in seen:
            seen.add(real)
            _check(
                _mount(libc, "tmpfs", real, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "mode=0755,size=1m"),
                f"hiding {real}",
            )
    covered = tuple(os.path.realpath(t) for t in (*PRIVATE_TMPFS, *HIDDEN, *hide) if os.path.isdir(t))
    held = _bind_back(libc, code, covered)
    for target in PRIVATE_TMPFS:
        if os.path.isdir(target):
            _check(
                _mount(libc, "tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={TMPFS_BYTES}"),
                f"mounting a private tmpfs on {target}",
            )
    for real, fd in held:
        os.makedirs(real, mode=0o755, exist_ok=True)
        _check(_mount(libc, f"/proc/self/fd/{fd}", real, None, MS_BIND | MS_REC, None), f"binding back {real}")
        _check(_mount(libc, None, real, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None), f"making {real} read-only")
        os.close(fd)


def _close_other_fds(keep: set[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _enter_namespaces(libc: ctypes.CDLL, keep_fds: set[int], spec: SandboxSpec) -> None:
    """Unshare, then fork: the parent of the fork only waits and mirrors the exit; the fork, pid 1
    of the new pid namespace, returns and becomes the candidate process."""
    _check(libc.unshare(NAMESPACE_FLAGS), "unshare(mount, pid, net, ipc, uts)")
    trusted = os.getppid()
    pid = os.fork()
    if pid:
        # the outer process holds nothing: the channel must close when pid 1 dies
        _close_other_fds(set())
        os.closerange(0, 3)
        while True:
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                os._exit(1)
            if not done:
                # the harness that started this process died (killed with SIGKILL, say): the
                # candidate's namespace must not outlive it. A parent-death signal would not do:
                # it follows the thread that started the process, and pool threads come and go
                if os.getppid() != trusted:
                    os.kill(pid, signal.SIGKILL)
                time.sleep(ORPHAN_POLL_S)
                continue
            if os.WIFEXITED(status):
                os._exit(os.WEXITSTATUS(status))
            if os.WIFSIGNALED(status):
                # die of the same signal, so the parent reports it as the candidate's (SIGSEGV, ...)
                number = os.WTERMSIG(status)
                signal.signal(number, signal.SIG_DFL)
                os.kill(os.getpid(), number)
                os._exit(128 + number)
    _close_other_fds(keep_fds)
    _make_mounts_private_and_readonly(libc, spec.expose, spec.hide, spec.code)
    libc.sethostname(HOSTNAME, len(HOSTNAME))


def _drop_to(uid: int, nproc: int) -> None:
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid or os.getgid() != uid:
        raise SandboxError("the uid change did not take")


def enter(spec: SandboxSpec, keep_fds: set[int]) -> dict[str, Any]:
    """Apply every layer of `spec` to this process (see the module docstring); returns what it
    applied. Raises SandboxError when a layer asked for cannot be applied."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    record: dict[str, Any] = {"namespaces": False, "readonly_root": False, "private_tmp": False}
    is_root = os.geteuid() == 0
    libc = _libc()
    if spec.namespaces:
        if not is_root:
            raise SandboxError("namespaces need the parent to run as root")
        _enter_namespaces(libc, keep_fds, spec)
        record.update(namespaces=True, readonly_root=True, private_tmp=True)
    os.makedirs(spec.workdir, mode=0o700, exist_ok=True)
    if spec.uid is not None:
        if not is_root:
            raise SandboxError("changing uid needs the parent to run as root")
        os.chown(spec.workdir, spec.uid, spec.uid)
        _drop_to(spec.uid, spec.nproc)
    os.chdir(spec.workdir)  # the old working directory lies on a mount that is read-only now
    if spec.namespaces:
        # pid 1 dies with the outer process (which the parent kills); set after the uid change,
        # which clears it
        libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
    record["uid"] = os.getuid()
    if spec.seccomp:
        install_seccomp()
    record["seccomp"] = spec.seccomp
    return record


# ---- the parent's side ----------------------------------------------------------------------


def set_undumpable() -> None:
    """The trusted process: no ptrace and no /proc/<pid>/mem for same-uid processes, no core."""
    if sys.platform.startswith("linux"):
        _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def namespace_child(outer_pid: int) -> int | None:
    """The candidate process (pid 1 of its namespace) as the parent sees it: the only child of
    the outer process that forked it."""
    try:
        with open(f"/proc/{outer_pid}/task/{outer_pid}/children", encoding="utf-8") as handle:
            children = handle.read().split()
    except OSError:
        return None
    return int(children[0]) if len(children) == 1 else None


def _status_fields(pid: int) -> dict[str, str]:
    fields = {}
    with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def verify(pid: int, spec: SandboxSpec) -> dict[str, Any]:
    """What the parent reads itself about process `pid` (never what the process says): its uids,
    capabilities, no_new_privs, seccomp mode, namespaces, and its root and tmp mounts."""
    found: dict[str, Any] = {"pid_checked": True}
    missing: list[str] = []
    try:
        status = _status_fields(pid)
    except OSError as exc:
        return {"pid_checked": False, "missing": [f"cannot read /proc/{pid}/status: {exc.strerror}"]}
    uids = {int(x) for x in status.get("Uid", "").split()}
    found["uid"] = sorted(uids)[0] if len(uids) == 1 else sorted(uids)
    if spec.uid is None or uids != {spec.uid}:
        missing.append("own unprivileged uid")
    if status.get("CapEff", "").strip("0") or status.get("CapPrm", "").strip("0"):
        missing.append("no capabilities")
    found["no_new_privs"] = status.get("NoNewPrivs") == "1"
    found["seccomp"] = "filter" if status.get("Seccomp") == "2" else "none"
    if found["seccomp"] != "filter" or not found["no_new_privs"]:
        missing.append("seccomp filter")
    elif int(status.get("Seccomp_filters", SEALED_FILTERS)) < SEALED_FILTERS:  # the field: Linux 5.9+
        missing.append("seccomp filter on Unix sockets (the process was not sealed)")
    namespaces = []
    for name in NAMESPACES:
        try:
            if os.readlink(f"/proc/{pid}/ns/{name}") != os.readlink(f"/proc/self/ns/{name}"):
                namespaces.append(name)
        except OSError:
            pass
    found["namespaces"] = namespaces
    if len(namespaces) != len(NAMESPACES):
        missing.append("own " + ", ".join(sorted(set(NAMESPACES) - set(namespaces))) + " namespace(s)")
    try:
        with open(f"/proc/{pid}/mountinfo", encoding="utf-8") as handle:
            mounts = {}
            for line in handle.read().splitlines():
                fields = line.split()
                if len(fields) >= 10:
                    separator = fields.index("-")
                    mounts[_unescape(fields[4])] = (fields[5].split(","), fields[separator + 1])
    except (OSError, ValueError):
        mounts = {}
    found["readonly_root"] = "ro" in mounts.get("/", ([], ""))[0]
    found["private_tmp"] = all(mounts.get(p, ([], ""))[1] == "tmpfs" for p in ("/tmp", "/dev/shm") if os.path.isdir(p))
    if not found["readonly_root"]:
        missing.append("read-only code")
    if not found["private_tmp"]:
        missing.append("private tmp")
    found["missing"] = missing
    return found
