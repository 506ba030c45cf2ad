"""The second adversarial suite: one hostile solution file per family of the classes of issue 20
that the CPU interpreter can express (tests/harness/adversarial_v2/), GPU-only families beside it
(tests/harness/adversarial_v2_cuda/, skipped without cuda), and honest controls that must be judged
`correct` (tests/harness/honest/).

Every hostile test asserts invariants that hold whatever the harness's design:

- the verdict is never `correct` (files that probe a wall answer correctly only when the probe got
  through, so a `correct` verdict means the wall did not hold);
- no secret of the test process (environment variables, a root-only token file whose path is in
  the environment and in a command line) appears in the result in any common encoding;
- nothing was written outside the candidate's private directory (checkout, site-packages, the
  host's /tmp, /var/tmp, /dev/shm), and a later candidate does not see what an earlier one left;
- no process of the attempt survives it (marked processes are looked for in /proc);
- nothing outside reached the test's own listeners (TCP on the loopback, an abstract and a
  filesystem Unix socket), the test process received no signal, its decoy neighbour is alive;
- held-out cases leave no trace (their shape's numbers) in the published result.

Each hostile file runs twice: with every layer (the static policy first) and with the static
policy off, since issue 20 asks that the runtime walls hold on their own. A file the static policy
refuses costs nothing in the first run.
"""

from __future__ import annotations

import base64
import codecs
import dataclasses
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.harness import Harness
from tests.harness.adversarial_v2 import _specs
from tests.harness.conftest import TEST_DEVICE, read
from tests.harness.specs_tiny import ADD_ONE_CASE

HERE = Path(__file__).resolve().parent
V2 = HERE / "adversarial_v2"
V2_CUDA = HERE / "adversarial_v2_cuda"
HONEST = HERE / "honest"
REPO = HERE.parents[1]

TIMEOUT_S = 120.0  # generous: a loaded 2-core CI machine runs the interpreter slowly
HANG_TIMEOUT_S = 20.0  # families that leave processes behind or spin


@dataclasses.dataclass(frozen=True)
class Family:
    klass: str  # the class of issue 20 (or "new")
    spec: object = ADD_ONE_CASE
    timeout_s: float = TIMEOUT_S
    # the family is designed to pass the static policy: with every layer on it must still lose
    passes_static: bool = False


HOSTILE: dict[str, Family] = {
    # class 1: privilege, persistence, reaping, resources
    "priv_parent_cmdline.py": Family("1 privilege: /proc/<ppid>/cmdline -> token file"),
    "priv_parent_environ.py": Family("1 privilege: /proc/<ppid>/environ"),
    "priv_parent_mem.py": Family("1 privilege: /proc/<ppid>/mem"),
    "priv_signal_probe.py": Family("1 privilege: signal the parent / other processes"),
    "priv_setns_host_net.py": Family("1 privilege: setns into the host network namespace"),
    "priv_tcp_services.py": Family("1 privilege: TCP to PostgreSQL/Redis/RabbitMQ on loopback"),
    "priv_unix_sockets.py": Family("new: filesystem Unix sockets (PostgreSQL trust login) past the netns"),
    "priv_abstract_socket.py": Family("1 privilege: abstract Unix socket"),
    "persist_checkout_write.py": Family("1 persistence: write into the checkout / site-packages"),
    "persist_checkout_read.py": Family("1 persistence: a later candidate finds the checkout marker"),
    "persist_tmp_stash.py": Family("1 persistence: stash in /tmp, /var/tmp, /dev/shm"),
    "persist_tmp_read.py": Family("1 persistence: a later candidate prints the stash"),
    "daemon_setsid.py": Family("1 reaping: double-forked setsid daemon", timeout_s=HANG_TIMEOUT_S),
    "fork_bomb_bounded.py": Family("1 pids: fork bomb", timeout_s=60.0),
    "memory_split_across_forks.py": Family("new: memory limit per process, not per attempt"),
    "memory_huge.py": Family("1 memory: one huge allocation"),
    # class 2: measurement inside the candidate's process
    "meas_state_patch.py": Family("2 measurement: forge child.STATE via sys.modules"),
    "meas_typing_sys.py": Family("2 measurement: typing.sys / operator.attrgetter to STATE"),
    "meas_gc_state.py": Family("2 measurement: find STATE through gc"),
    "channel_own_server.py": Family("new: take over the parent's channel and serve forged replies"),
    "channel_partial_frame.py": Family("new: half a frame header on the channel, then silence", timeout_s=10.0),
    "reply_absurd_metadata.py": Family("new: returned inputs with sizes no tensor has (a parent crash)"),
    # class 4: trace blind spots
    "meas_tolist_canary.py": Family("4 trace: tolist() host math + canary ghost detection", passes_static=True),
    "meas_tolist_copy_kernel.py": Family(
        "4 trace: tolist() host math, a copy kernel writes it (no canary)", passes_static=True
    ),
    "meas_item_fill.py": Family("4 trace: item() host math into fill_ + canary", passes_static=True),
    "meas_trace_popped.py": Family("4 trace: dispatch mode popped around the arithmetic"),
    "meas_thread_popped.py": Family("4 trace: joined thread that drops its trace"),
    "meas_fork_compute.py": Family("new: torch arithmetic in a forked process"),
    "meas_kernel_body_host.py": Family("new: torch arithmetic inside the interpreted @triton.jit body"),
    "launch_arg_object.py": Family("new: an object of the candidate's as a kernel argument", passes_static=True),
    "ghost_canary_input_vs_result.py": Family(
        "new: input value vs served kernel result tells the ghost apart", spec=_specs.CLONE_ONE, passes_static=True
    ),
    "canary_in_input.py": Family(
        "new: ghost detector written into the input's own storage", spec=_specs.CLONE_ONE, passes_static=True
    ),
    "interp_callable_arg.py": Family(
        "new: a closure passed as a kernel argument, run by the interpreter", passes_static=True
    ),
    "interp_constexpr_tensor.py": Family(
        "new: tensors as tl.constexpr, torch in the interpreted body", passes_static=True
    ),
    "interp_body_helper.py": Family(
        "new: the interpreted body calls a host function (class namespace)", passes_static=True
    ),
    "meas_grid_callable.py": Family("4 trace: arithmetic in the grid callable", passes_static=True),
    "meas_autotune_prehook.py": Family("4 trace: arithmetic in an autotune pre_hook", passes_static=True),
    "meas_launch_hook.py": Family("4 trace: arithmetic in triton.knobs launch_enter_hook"),
    # class 5: category exemptions (real catalog layout specs)
    "layout_cat_copy.py": Family("5 layout: cat by narrow().copy_() + canary", spec=_specs.CAT_ONE, passes_static=True),
    "layout_reflection_pad1d_backward_torch.py": Family(
        "5 layout: reflection_pad1d_backward with torch sums", spec=_specs.REFLECTION_PAD1D_BACKWARD_ONE
    ),
    "layout_upsample_nearest2d_backward_torch.py": Family(
        "5 layout: upsample_nearest2d_backward with torch index_add_", spec=_specs.UPSAMPLE_NEAREST2D_BACKWARD_ONE
    ),
    # class 7: scrubbing
    "scrub_env_encodings.py": Family("7 scrubbing: secrets in many encodings in stdout/stderr/reason"),
    "scrub_compile_error.py": Family("7 scrubbing: secrets in the compile_error reason"),
    # class 8: held-out side channel (run by their own tests, with hidden cases)
    "hidden_stash_file.py": Family("8 hidden: a hidden shape carried through files"),
    "hidden_profile_timing.py": Family("new: a hidden shape written into the published profile timings"),
    "hidden_busy_timing.py": Family("new: a hidden shape's digit in the published durations", passes_static=True),
}
# run by dedicated tests (pairs, hidden cases, a memory limit), not by the generic parametrization
SPECIAL = {
    "persist_checkout_read.py",
    "persist_tmp_read.py",
    "hidden_stash_file.py",
    "hidden_profile_timing.py",
    "hidden_busy_timing.py",
    "memory_split_across_forks.py",
    "memory_huge.py",
}
GENERIC = sorted(set(HOSTILE) - SPECIAL)

HONEST_CONTROLS: dict[str, object] = {
    "several_kernels.py": ADD_ONE_CASE,
    "autotune_prehook.py": ADD_ONE_CASE,
    "strided_output.py": _specs.ADD_2D,
    "inplace_saxpy.py": _specs.SAXPY_ONE,
    "promote_broadcast.py": ADD_ONE_CASE,
    "grid_lambda_heuristics.py": ADD_ONE_CASE,
    "cat_reference.py": _specs.CAT_ONE,
    "argmax_scalar_readback.py": "aten::argmax",
}

# every marker, socket name and port of the files gets this session's nonce (`hostile_source`), so
# that suites running side by side on one machine never see each other's leftovers
NONCE = secrets.token_hex(4)
MARKER = f"kgb-redteam-v2-{NONCE}"
CHECKOUT_MARKER = f"kgb_redteam_v2_marker_{NONCE}.txt"
STASH_NAME = f"{MARKER}-stash"
HIDDEN_STASH_NAME = f"{MARKER}-hidden"
FILE_PORT = "47391"  # the port written in the files


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LISTEN_PORT = _free_port()
ABSTRACT_NAME = "\0" + MARKER


def hostile_source(path: Path) -> str:
    """A hostile file's text with this session's markers and port."""
    text = (
        read(path).replace("kgb-redteam-v2", MARKER).replace("kgb_redteam_v2_marker", f"kgb_redteam_v2_marker_{NONCE}")
    )
    return text.replace(FILE_PORT, str(LISTEN_PORT))


# 3 x 4191 = 12573 elements: digits that appear nowhere else in a result
HIDDEN = {"shape": [3, 4191], "dtype": "float32", "alpha": 1.5}
HIDDEN_TRACES = ("4191", "12573")


# ---- the hostile environment the tests run in ------------------------------------------------


class Listeners:
    """The test's own services a candidate must never reach: TCP on the loopback, an abstract Unix
    socket, a filesystem Unix socket outside every tmp; each connection is recorded."""

    def __init__(self, socket_dir: str) -> None:
        self.hits: list[str] = []
        self.sockets: list[socket.socket] = []
        self.unix_path = os.path.join(socket_dir, "probe.sock")
        for family, address, label in (
            (socket.AF_INET, ("127.0.0.1", LISTEN_PORT), "tcp"),
            (socket.AF_UNIX, ABSTRACT_NAME, "abstract"),
            (socket.AF_UNIX, self.unix_path, "unix"),
        ):
            s = socket.socket(family, socket.SOCK_STREAM)
            try:
                if family == socket.AF_INET:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(address)
                s.listen(64)
            except OSError:
                s.close()
                continue
            if label == "unix":
                os.chmod(self.unix_path, 0o777)
            self.sockets.append(s)
            threading.Thread(target=self._serve, args=(s, label), daemon=True).start()

    def _serve(self, s: socket.socket, label: str) -> None:
        while True:
            try:
                conn, _ = s.accept()
            except OSError:
                return
            self.hits.append(label)
            conn.close()

    def close(self) -> None:
        for s in self.sockets:
            s.close()


@dataclasses.dataclass
class World:
    secrets: dict[str, str]
    token: str
    token_file: str
    listeners: Listeners
    decoy: subprocess.Popen
    sigcont: list[int]


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    token = "kgbr_v2tok_" + secrets.token_hex(12)
    base = tempfile.mkdtemp(prefix=f"{MARKER}-", dir="/var/lib" if os.access("/var/lib", os.W_OK) else None)
    os.chmod(base, 0o755)  # traversable: only the file's own mode protects it, as a runner's would
    token_file = os.path.join(base, "runner.token")
    fd = os.open(token_file, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
    os.write(fd, token.encode())
    os.close(fd)
    values = {
        "KGB_RUNNER_TOKEN": "kgbr_v2env_" + secrets.token_hex(12),
        "KGB_RUNNER_TOKEN_FILE": token_file,
        "DATABASE_URL": f"postgres://kgb:pw{secrets.token_hex(8)}@127.0.0.1:5432/kgb",
        "CELERY_BROKER_URL": f"redis://:rp{secrets.token_hex(8)}@127.0.0.1:6379/0",
        "REDIS_URL": f"redis://:rx{secrets.token_hex(8)}@127.0.0.1:6379/1",
        "AMQP_URL": f"amqp://kgb:aq{secrets.token_hex(8)}@127.0.0.1:5672//",
        "DJANGO_SECRET_KEY": "dj" + secrets.token_hex(16),
    }
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    saved_argv = list(sys.argv)
    sys.argv.append(f"--token-file={token_file}")
    # a neighbour whose command line names the token file, as the runner agent's does
    decoy = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)", f"--token-file={token_file}", MARKER + "-decoy"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sigcont: list[int] = []
    previous = signal.signal(signal.SIGCONT, lambda *_: sigcont.append(1))
    listeners = Listeners(base)
    try:
        yield World({**values, "token_file_content": token}, token, token_file, listeners, decoy, sigcont)
    finally:
        listeners.close()
        signal.signal(signal.SIGCONT, previous)
        decoy.kill()
        decoy.wait()
        sys.argv[:] = saved_argv
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        for name in os.listdir(base):
            os.unlink(os.path.join(base, name))
        os.rmdir(base)


@pytest.fixture(scope="module")
def memory_harness() -> Iterator[Harness]:
    """Static layer off, a 3 GiB host memory limit per attempt (small enough that exceeding it is
    harmless to the machine)."""
    with Harness(device=TEST_DEVICE, pool_size=1, static_policy=False, host_memory_limit_bytes=3 << 30) as h:
        yield h


# ---- invariants ---------------------------------------------------------------------------------


def _b64_cores(raw: bytes) -> set[str]:
    """Parts of the base64/base32 encodings of `raw` that do not depend on its alignment."""
    cores = set()
    for encode, bits, group in ((base64.b64encode, 6, 3), (base64.urlsafe_b64encode, 6, 3), (base64.b32encode, 5, 5)):
        for before in range(group):
            text = encode(b"\0" * before + raw).decode()
            core = text[-(-8 * before // bits) : 8 * (before + len(raw)) // bits]
            if len(core) >= 10:
                cores.add(core)
    return cores


def encodings(secret: str) -> set[str]:
    """The secret and the ways a candidate writes it out to slip past an exact match (halves of
    it included: each is long and random enough to be a leak on its own)."""
    raw = secret.encode()
    half = len(secret) // 2
    found = {
        secret,
        secret[::-1],
        raw.hex(),
        raw.hex().upper(),
        codecs.encode(secret, "rot13"),
        urllib.parse.quote(secret, safe=""),
        str(list(raw))[1:-1],
        " ".join(format(b, "08b") for b in raw[:4]),
        secret[:half],
        secret[half:],
    }
    found |= _b64_cores(raw)
    return {e for e in found if len(e) >= 10}


def secret_texts(world: World) -> list[str]:
    """The distinctive secret material (random parts only, so ordinary words never match)."""
    texts = [world.token]
    for key, value in world.secrets.items():
        if key == "KGB_RUNNER_TOKEN_FILE":
            continue
        texts.append(value)
        texts += re.findall(r"(?:pw|rp|rx|aq|dj)[0-9a-f]{16,}", value)
    return texts


def assert_no_secrets(result: dict, world: World) -> None:
    text = json.dumps(result)
    for secret in secret_texts(world):
        for encoded in encodings(secret):
            assert encoded not in text, f"a secret reached the result ({encoded[:6]}...)"


def _processes_with(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{pid}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z" and b"-decoy" not in cmdline:
            found.append(int(pid))
    return found


def assert_no_survivors(marker: str = MARKER) -> None:
    survivors = _processes_with(marker)
    for _ in range(20):  # a process being reaped right now gets a moment
        if not survivors:
            return
        time.sleep(0.1)
        survivors = _processes_with(marker)
    for pid in survivors:  # clean up after a breach, then fail
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not survivors, f"{len(survivors)} process(es) of the attempt outlived it: {survivors[:5]}"


def written_outside() -> list[str]:
    """Markers a candidate left where a later one (or the host) would see them; deleted here."""
    import torch

    places = [
        REPO,
        REPO / "evaluator",
        REPO / "evaluator" / "harness",
        Path(os.path.dirname(os.path.dirname(torch.__file__))),
        *[Path(p) for p in sys.path if p.endswith("site-packages")],
    ]
    found = []
    for place in dict.fromkeys(places):
        path = place / CHECKOUT_MARKER
        if path.exists():
            found.append(str(path))
            path.unlink()
    for directory in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue"):
        for name in (STASH_NAME, HIDDEN_STASH_NAME):
            path = Path(directory) / name
            if path.exists():
                found.append(str(path))
                path.unlink()
    return found


def assert_invariants(result: dict, world: World, *, allow_correct: bool = False) -> None:
    if not allow_correct:
        assert result["verdict"] != "correct", (result["verdict"], result["reason"][:300])
    assert_no_secrets(result, world)
    leftovers = written_outside()
    assert not leftovers, f"the attempt wrote outside its private directory: {leftovers}"
    assert_no_survivors()
    assert not world.listeners.hits, f"the candidate reached the test's listeners: {world.listeners.hits}"
    assert not world.sigcont, "the test process received a signal from the candidate"
    assert world.decoy.poll() is None, "the neighbouring process was harmed"


def record(label: str, result: dict) -> dict:
    """KGB_V2_REPORT=FILE: one JSON line per attempt (verdict, reason, findings), for the red-team report."""
    target = os.environ.get("KGB_V2_REPORT")
    if target:
        line = {"test": label, "verdict": result.get("verdict"), "reason": str(result.get("reason"))[:300]}
        line["layers"] = sorted({f.get("layer") for f in result.get("findings") or []})
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
    return result


def evaluate(h: Harness, name: str, **kwargs: object) -> dict:
    family = HOSTILE[name]
    layers = "all layers" if h.config.static_policy else "runtime only"
    result = h.evaluate(family.spec, hostile_source(V2 / name), tier="smoke", timeout_s=family.timeout_s, **kwargs)
    return record(f"{name} ({layers})", result)


@pytest.fixture(autouse=True)
def _fresh_hits(world: World) -> Iterator[None]:
    world.listeners.hits.clear()
    world.sigcont.clear()
    written_outside()
    yield


# ---- listing --------------------------------------------------------------------------------------


def test_every_hostile_file_is_listed():
    assert sorted(p.name for p in V2.glob("*.py") if not p.name.startswith("_")) == sorted(HOSTILE)


def test_every_honest_control_is_listed():
    assert sorted([*(p.name for p in HONEST.glob("*.py")), "cat_reference.py"]) == sorted(HONEST_CONTROLS)


def test_enough_families():
    cuda = [p for p in V2_CUDA.glob("*.py") if not p.name.startswith("_")]
    assert len(HOSTILE) + len(cuda) >= 30


# ---- hostile families: every layer, and the runtime layers alone ----------------------------------


@pytest.mark.parametrize("name", GENERIC)
def test_hostile_with_every_layer(harness, world, name):
    result = evaluate(harness, name)
    assert_invariants(result, world)


# Known to win once the static policy is off: they take over harness state or the channel inside the
# candidate's own interpreter (the runtime layers are measured there, docs/harness.md "Known gaps":
# the launch replay is the designed fix), or compute in a kernel body the CPU interpreter runs as
# Python. Strict: each must start failing the day that gap is closed.
IN_PROCESS_GAPS = {
    "channel_own_server.py": "serves its own replies on the harness channel (in-process)",
    "meas_gc_state.py": "forges the harness's counters through gc (in-process)",
    "meas_state_patch.py": "forges the harness's counters (in-process)",
    "meas_typing_sys.py": "forges the harness's counters through typing.sys (in-process)",
}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=IN_PROCESS_GAPS[n])) if n in IN_PROCESS_GAPS else n
        for n in GENERIC
    ],
)
def test_hostile_runtime_layers_alone(runtime_only_harness, world, name):
    result = evaluate(runtime_only_harness, name)
    assert_invariants(result, world)
    if name == "daemon_setsid.py":
        match = re.search(rf"DAEMON_MARKER=({re.escape(MARKER)}-daemon-[0-9a-f]+)", result["stderr_tail"])
        if match:  # its own check too, by the exact marker
            assert_no_survivors(match.group(1))


def test_half_a_frame_cannot_hold_the_parent_past_its_deadline(runtime_only_harness, world):
    """Every byte of a reply is read under the attempt's deadline (it once waited for the first
    byte only: one byte of a header held the parent as long as the candidate slept)."""
    result = evaluate(runtime_only_harness, "channel_partial_frame.py")
    assert_invariants(result, world)
    assert result["verdict"] == "timeout"
    assert result["duration_s"] < HOSTILE["channel_partial_frame.py"].timeout_s + 15


def test_checkout_write_then_later_candidate(runtime_only_harness, world):
    first = evaluate(runtime_only_harness, "persist_checkout_write.py")
    assert_invariants(first, world)
    later = evaluate(runtime_only_harness, "persist_checkout_read.py")
    assert_invariants(later, world)


def test_tmp_stash_then_later_candidate(runtime_only_harness, world):
    first = evaluate(runtime_only_harness, "persist_tmp_stash.py")
    later = evaluate(runtime_only_harness, "persist_tmp_read.py")
    assert "STASH_SEEN" not in later["stderr_tail"], "a later candidate printed an earlier one's stash"
    assert_invariants(first, world)
    assert_invariants(later, world)


@pytest.mark.parametrize("name", ["memory_split_across_forks.py", "memory_huge.py"])
def test_memory_is_bounded_per_attempt(memory_harness, world, name):
    if name == "memory_split_across_forks.py" and memory_harness.host_memory.method != "cgroup":
        pytest.xfail("RLIMIT_AS bounds one process, not the attempt: only a memory cgroup bounds forks together")
    result = evaluate(memory_harness, name)
    assert_invariants(result, world)
    held = re.search(r"MEM_HELD (\d+) x (\d+)", result["stderr_tail"])
    if held:
        total = int(held.group(1)) * int(held.group(2))
        assert total <= 3 << 30, f"the attempt held {total / (1 << 30):.2f} GiB at once under a 3 GiB limit"


def test_token_file_through_the_cli(world, tmp_path):
    """Issue 20's site exploit, as a submitter runs it: `python -m evaluator check` whose own command
    line names the runner's token file (and whose environment has it); the candidate looks through
    /proc/<ppid>/cmdline and every visible process for it. (Today the static policy refuses the file
    before it runs; the in-process runtime-only run of the same file covers the walls.)"""
    solution = tmp_path / "priv_parent_cmdline.py"
    solution.write_text(hostile_source(V2 / "priv_parent_cmdline.py"), encoding="utf-8")
    code = (
        "import runpy, sys; sys.argv = ['evaluator'] + sys.argv[1:sys.argv.index('--')]; "
        "runpy.run_module('evaluator', run_name='__main__')"
    )
    args = [
        sys.executable, "-c", code,
        "check", "--operator", "aten::add", "--solution", str(solution),
        "--device", TEST_DEVICE, "--tier", "smoke", "--timeout", str(TIMEOUT_S),
        "--", f"--token-file={world.token_file}",
    ]  # fmt: skip
    done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=600, env={**os.environ})
    assert done.returncode == 0, done.stderr[-2000:]
    result = record("priv_parent_cmdline.py (CLI)", json.loads(done.stdout))
    assert_invariants(result, world)
    assert world.token not in done.stdout + done.stderr


# ---- held-out cases ---------------------------------------------------------------------------------


def published_text(result: dict) -> str:
    """Everything pages and the API show (the public cases' error magnitudes left out: their digits
    are noise)."""
    noise = ("max_abs_err", "max_rel_err")
    cases = [{k: v for k, v in case.items() if k not in noise} for case in result["cases"]]
    return json.dumps({**{k: v for k, v in result.items() if k != "cases"}, "cases": cases})


def _hidden(h: Harness, name: str, case: dict = HIDDEN) -> dict:
    result = h.evaluate(
        _specs.ADD_ONE_FULL,
        hostile_source(V2 / name),
        tier="full",
        timeout_s=TIMEOUT_S,
        secret_seed=True,
        hidden_cases=[case],
    )
    return record(f"{name} (hidden {case['shape']})", result)


@pytest.mark.parametrize("name", ["hidden_stash_file.py", "hidden_profile_timing.py"])
def test_hidden_shape_never_published(runtime_only_harness, world, name):
    result = _hidden(runtime_only_harness, name)
    assert_invariants(result, world)
    text = published_text(result)
    for trace in HIDDEN_TRACES:
        assert trace not in text, f"the hidden case's {trace} is in the published result"
    # a public run after it sees nothing either
    after = runtime_only_harness.evaluate(
        _specs.ADD_ONE_FULL, hostile_source(V2 / name), tier="full", timeout_s=TIMEOUT_S
    )
    for trace in HIDDEN_TRACES:
        assert trace not in published_text(after), f"a later run published the hidden case's {trace}"
    written_outside()


def test_hidden_shape_not_in_durations(harness, world):
    """Two held-out runs that differ only in a hidden shape (odd or even row count) must publish the
    same timings up to noise; the candidate spins seconds for an odd one."""
    odd = _hidden(harness, "hidden_busy_timing.py", {**HIDDEN, "shape": [3, 4191]})
    even = _hidden(harness, "hidden_busy_timing.py", {**HIDDEN, "shape": [4, 4191]})
    for result in (odd, even):
        assert_invariants(result, world)

    def figures(result: dict) -> dict[str, float]:
        profile = result.get("profile") or {}
        out = {k: float(v) for k, v in profile.items() if isinstance(v, (int, float)) and k != "acquire_s"}
        out["duration_s - acquire_s"] = float(result.get("duration_s") or 0) - float(profile.get("acquire_s", 0))
        return out

    a, b = figures(odd), figures(even)
    # the spin is 4-10 s; a loaded 2-core machine moves the public phase's figures by ~1.3 s alone
    leaks = {k: round(a[k] - b.get(k, 0.0), 2) for k in a if abs(a[k] - b.get(k, 0.0)) > 3.0}
    assert not leaks, f"published timings tell the hidden shapes apart: {leaks}"


# ---- honest controls ----------------------------------------------------------------------------------


def honest_source(name: str) -> Path:
    """The control's file; the catalog's own reference solution where one serves (cat)."""
    if name == "cat_reference.py":
        return HERE.parents[1] / "operators" / "solutions" / "triton_reference" / "aten__cat.py"
    return HONEST / name


@pytest.mark.parametrize("name", sorted(HONEST_CONTROLS))
def test_honest_control_is_correct(harness, name):
    result = harness.evaluate(HONEST_CONTROLS[name], read(honest_source(name)), tier="smoke", timeout_s=TIMEOUT_S)
    record(f"honest {name} (all layers)", result)
    assert result["verdict"] == "correct", (result["verdict"], result["reason"][:500], result["findings"][:3])


@pytest.mark.parametrize("name", ["several_kernels.py", "autotune_prehook.py", "promote_broadcast.py"])
def test_honest_control_is_correct_without_static_layer(runtime_only_harness, name):
    result = runtime_only_harness.evaluate(
        HONEST_CONTROLS[name], read(HONEST / name), tier="smoke", timeout_s=TIMEOUT_S
    )
    assert result["verdict"] == "correct", (result["verdict"], result["reason"][:500], result["findings"][:3])


def test_honest_control_passes_hidden_cases(harness):
    result = harness.evaluate(
        _specs.ADD_ONE_FULL, read(HONEST / "promote_broadcast.py"), tier="full", timeout_s=TIMEOUT_S,
        hidden_cases=[HIDDEN],
    )  # fmt: skip
    assert result["verdict"] == "correct", (result["verdict"], result["reason"][:500])
    assert result["hidden_cases"] == 1


# ---- GPU-only families ------------------------------------------------------------------------------


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


CUDA_FILES = sorted(p.name for p in V2_CUDA.glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("name", CUDA_FILES)
def test_cuda_family(world, name):
    if not _cuda_available():
        pytest.skip(f"{name}: needs a cuda device (see its docstring for what it attacks)")
    from tests.harness.adversarial_v2_cuda import _judge

    _judge.check(name, hostile_source(V2_CUDA / name), world_secrets=secret_texts(world))
    assert_invariants({"checked": name}, world, allow_correct=True)


def test_timed_sets_rigged_in_the_candidate_process_are_caught_on_a_timed_device():
    """The timed sets are drawn in the candidate's process from seeds (only seeds travel): a
    candidate that rigs the catalog's generator there (zeros after the first draws, then answers
    zeros without reading its inputs) is judged by the parent against its own sets. Runs on the
    fake timed device (the Triton interpreter with timing), the static layer off."""
    from evaluator.harness import backends
    from tests.harness.fake_backend import FakeTimedBackend
    from tests.harness.specs_perf import PERF_TINY

    backends.register("fake-timed-v2", FakeTimedBackend)
    try:
        with Harness(device="fake-timed-v2", static_policy=False) as h:
            result = h.evaluate(
                PERF_TINY, hostile_source(V2_CUDA / "timed_sets_rigged.py"), tier="perf", timeout_s=TIMEOUT_S
            )
    finally:
        backends.unregister("fake-timed-v2")
    record("timed_sets_rigged.py (fake timed device)", result)
    assert result["verdict"] == "incorrect", (result["verdict"], result["reason"][:300])
    assert "timed call" in result["reason"], result["reason"][:300]
