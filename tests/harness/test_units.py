"""Fast unit tests (no candidate process): static policy, wire format, signing, bundles, CLI usage."""

from __future__ import annotations

import hashlib
import json
import pickle
import subprocess
import sys

import pytest
import torch

from evaluator.harness import policy, signing, wire
from evaluator.harness.bundle import BundleError, run_bundle
from evaluator.harness.harness import HarnessConfig
from evaluator.harness.pool import REPO_ROOT
from tests.harness.conftest import SOLUTIONS, read


def findings(source: str, kind: str = "aten") -> list[str]:
    return [f.detail for f in policy.check_source(source, kind)]


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*.py")), ids=lambda p: p.name)
def test_policy_accepts_the_correct_solutions(path):
    assert policy.check_source(read(path), path.name.split("__")[0]) == []


@pytest.mark.parametrize(
    ("snippet", "needle"),
    [
        ("import torch\nx = torch.matmul", "torch.matmul"),
        ("import torch as t\nx = t.nn.functional.relu", "torch.nn.functional.relu"),
        ("from torch import sum as s\n", "torch.sum"),
        ("import torch\nf = getattr(torch, 'mat' + 'mul')", "getattr()"),
        ("import torch\ntorch.ops.aten.add.Tensor", "torch.ops"),
        ("_CACHE = {}", "module-level mutable state"),
        ("cache: dict = dict()", "module-level mutable state"),
        ("def f(x, memo={}):\n    return x", "mutable default"),
        ("import functools\n@functools.lru_cache\ndef f(x):\n    return x", "caches results"),
        ("def f(t):\n    return t.storage()", ".storage"),  # data_ptr() is allowed (pointer arrays, seeds)
        ("def f(t):\n    return t.untyped_storage()", ".untyped_storage"),
        ("exec('1')", "exec()"),
        ("import os", "'os'"),
        ("import importlib", "'importlib'"),
        ("import threading", "'threading'"),
        ("import triton\ntriton.runtime.build.os.system('x')", ".os"),
        ("import torch\ntorch.add = None", "monkeypatching"),
        ("import torch\nclass L(torch.Tensor):\n    pass", "subclasses"),
        ("def f():\n    global X", "'global'"),
        ("x = __builtins__", "__builtins__"),
    ],
)
def test_policy_flags(snippet, needle):
    assert any(needle in detail for detail in findings(snippet)), findings(snippet)


def test_policy_source_blacklists():
    assert findings("import vllm", "vllm13")
    assert findings("import cupy", "cublas")
    assert findings("import ctypes", "cublas")
    assert findings("import torch\nx = torch.empty(3)\ny = torch.float16", "aten") == []


def test_policy_syntax_error_raises():
    with pytest.raises(SyntaxError):
        policy.check_source("def (", "aten")


def test_wire_roundtrip_plain_tensor():
    t = torch.arange(12, dtype=torch.float32).view(3, 4).t()  # transposed: dense, not contiguous
    back = wire.decode_value(pickle.loads(pickle.dumps(wire.encode_value((t, 3, None)))), "cpu")
    assert isinstance(back, tuple) and back[1] == 3 and back[2] is None
    assert torch.equal(back[0], t) and back[0].stride() == t.stride()


def test_wire_rejects_subclass_and_overlap():
    class Sub(torch.Tensor):
        pass

    sub = torch.zeros(3).as_subclass(Sub)
    assert isinstance(wire.decode_value(wire.encode_value(sub), "cpu"), wire.RejectedTensor)
    overlapping = torch.zeros(1).expand(5)
    assert isinstance(wire.decode_value(wire.encode_value(overlapping), "cpu"), wire.RejectedTensor)


def test_wire_refuses_code_in_child_pickles():
    evil = pickle.dumps(subprocess.Popen)  # any global
    with pytest.raises(pickle.UnpicklingError):
        wire.loads_from_child(evil)
    assert wire.loads_from_child(pickle.dumps({"a": [1, 2.0, 3j, b"x"]})) == {"a": [1, 2.0, 3j, b"x"]}


def test_wire_refuses_replies_that_are_not_trees():
    """A few hundred bytes of pickle that share one list sixty times per level walk as 60^10
    nodes; a tuple nested 200,000 deep overflows any recursive walk: both refused at once."""
    import pickle
    import time

    node: object = ["leaf"]
    for _ in range(10):
        node = [node] * 60
    # a list nested 200,000 deep, written opcode by opcode (pickle.dumps itself would recurse)
    deep = b"\x80\x04" + b"]" * 200_000 + b"a" * 199_999 + b"."
    started = time.monotonic()
    for data in (pickle.dumps({"type": "result", "output": node}, protocol=pickle.HIGHEST_PROTOCOL), deep):
        with pytest.raises(wire.MalformedOutput):
            wire.loads_from_child(data)
    assert time.monotonic() - started < 5
    plain = {"type": "result", "output": [(), (), {"a": [1, 2]}], "trace": []}
    assert wire.loads_from_child(pickle.dumps(plain)) == plain


def test_wire_rejects_out_of_bounds_metadata():
    blob = wire.encode_tensor(torch.zeros(4))
    blob["shape"] = [100]
    with pytest.raises(wire.MalformedOutput):
        wire.decode_tensor(blob, "cpu")


def test_bundle_rejects_wrong_schema():
    with pytest.raises(BundleError):
        run_bundle({"schema": "other"}, config=HarnessConfig(device="cpu"))


def test_bundle_marks_bad_jobs_and_signs(monkeypatch):
    monkeypatch.setenv("KGB_RUNNER_TOKEN", "kgbr_tok9_zzzsecret")  # never used to sign (the retired scheme)
    pem, public_key = signing.generate_key_pair()
    source = "import triton\n"
    jobs = {
        "schema": "kgb.jobs/1",
        "chip": "cpu",
        "jobs": [
            {
                "job_id": "bad-sha",
                "operator": "aten::add",
                "tier": "smoke",
                "seed": None,
                "secret_seed": False,
                "timeout_s": 10,
                "solution": {"file_name": "aten__add.py", "source": source, "sha256": "00"},
            },
            {
                "job_id": "bad-tier",
                "operator": "aten::add",
                "tier": "nope",
                "seed": None,
                "secret_seed": False,
                "timeout_s": 10,
                "solution": {
                    "file_name": "aten__add.py",
                    "source": source,
                    "sha256": hashlib.sha256(source.encode()).hexdigest(),
                },
            },
        ],
    }
    checkpoints = []
    out = run_bundle(
        jobs,
        config=HarnessConfig(device="cpu"),
        checkpoint=checkpoints.append,
        signing_key=signing.load_private_key(pem),
    )
    # after each finished job, a complete signed document of the jobs done so far
    assert [[item["job_id"] for item in doc["results"]] for doc in checkpoints] == [
        ["bad-sha"],
        ["bad-sha", "bad-tier"],
    ]
    assert checkpoints[-1] == out
    assert out["schema"] == "kgb.results/1"
    assert [r["result"]["verdict"] for r in out["results"]] == ["runtime_error", "runtime_error"]
    assert out["results"][0]["result"]["reason"].startswith("bundle: job.solution.sha256 does not match")
    assert out["signature"]["scheme"] == "ed25519" and "token_id" not in out["signature"]
    assert signing.verify_document(json.loads(json.dumps(out)), public_key)
    assert all(signing.verify_document(doc, public_key) for doc in checkpoints)
    assert "zzzsecret" not in json.dumps(out)


def test_cli_bundle_run_writes_the_results_file(tmp_path):
    jobs = tmp_path / "jobs.json"
    job = {"job_id": "j1", "operator": "aten::add", "tier": "nope", "solution": {"source": "x = 1\n"}}
    jobs.write_text(json.dumps({"schema": "kgb.jobs/1", "chip": "cpu", "jobs": [job]}))
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, "-m", "evaluator", "bundle", "run", str(jobs), "--out", str(out), "--device", "cpu"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(out.read_text())
    assert [item["job_id"] for item in document["results"]] == ["j1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.json", "results.json"]  # no .partial left


def test_cli_usage_errors_exit_2(tmp_path):
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "evaluator", *args], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120
        )

    assert cli("check", "--operator", "aten::add").returncode == 2  # --solution missing
    assert cli("check", "--operator", "aten::add", "--solution", str(tmp_path / "none.py")).returncode == 2
    missing = cli("check", "--operator", "aten::no_such_op", "--solution", str(SOLUTIONS / "aten__add.py"))
    assert missing.returncode == 2 and "unknown operator" in missing.stderr
    add = str(SOLUTIONS / "aten__add.py")
    assert cli("check", "--operator", "aten::add", "--solution", add, "--clock", "ncu").returncode == 2
    assert cli("check", "--operator", "aten::add", "--solution", add, "--flush", "none").returncode == 2
    assert cli("bundle", "run", "jobs.json", "--out", "r.json", "--clock", "cupti").returncode == 2


def test_cli_prints_one_json_verdict_and_exits_0():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluator",
            "check",
            "--operator",
            "aten::add",
            "--solution",
            "tests/harness/adversarial/return_input.py",
            "--device",
            "cpu",
            "--flush",
            "read",
            "--clock",
            "kernel",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)  # exactly one JSON document on stdout
    assert result["schema"] == "kgb.result/1" and result["operator"] == "aten::add"
    assert result["tier"] == "smoke" and result["verdict"] == "incorrect"
    # the timing protocol asked for is recorded (cpu never times, so nothing else changes)
    assert (result["environment"]["l2_flush"], result["environment"]["timing_clock"]) == ("read", "kernel")


def test_spec_locator_skips_a_script_that_imported_the_specs(monkeypatch):
    """A benchmark script run as __main__ that did `from bench.harness_specs import SPECS` holds the same
    objects; the candidate process cannot import __main__, so the locator must name the real module."""
    from evaluator.harness import specs as spec_lookup
    from tests.harness import specs as fixture_specs

    monkeypatch.setattr(sys.modules["__main__"], "SPECS", fixture_specs.SPECS, raising=False)
    spec = fixture_specs.SPECS[0]
    _, locator = spec_lookup.resolve(spec)
    assert locator == ("module", "tests.harness.specs", spec.id)
    assert spec_lookup.load(locator) is spec


@pytest.mark.parametrize(
    "marker",
    [
        {
            "ipc": {
                "device": 0,
                "handle": b"h" * 64,
                "size": 64,
                "offset_bytes": 0,
                "ref_counter": b"/torch_1_2_3",
                "ref_counter_offset": 1 << 40,
                "event": b"e" * 64,
                "event_sync": True,
            }
        },
        {"alias": "x"},
    ],
)
def test_wire_takes_device_outputs_by_value_only(marker):
    """No IPC description or input alias from the child is ever opened: a device output without
    its bytes is malformed (a crafted ref-counter offset or event cannot reach the parent)."""
    blob = {**wire.encode_tensor(torch.zeros(4)), **marker, "device_type": "cuda"}
    blob.pop("data")
    with pytest.raises(wire.MalformedOutput):
        wire.decode_tensor(blob, "cuda")


def test_parent_sends_device_tensors_by_value():
    """What the parent sends is a plain pickle of the tensors' values (no shared storage handle)."""
    import pickle

    data = wire.dumps_to_child({"x": torch.arange(4.0)})
    assert b"rebuild_cuda_tensor" not in data and b"_share_" not in data
    assert torch.equal(pickle.loads(data)["x"], torch.arange(4.0))


@pytest.fixture
def exchange():
    """Both ends of one exchange file, as the parent and the child hold it."""
    import os

    parent = wire.Exchange.create()
    wire.CHILD_EXCHANGE = wire.Exchange(os.dup(parent.fd))
    try:
        yield parent
    finally:
        wire.CHILD_EXCHANGE.close()
        wire.CHILD_EXCHANGE = None
        parent.close()


def test_exchange_carries_inputs_with_their_views_and_aliasing(exchange):
    base = torch.arange(24, dtype=torch.float32).view(4, 6)
    sent = {"a": base, "t": base.t(), "narrow": base[1:, 2:5], "e": torch.zeros(0), "alpha": 0.5}
    data = wire.dumps_to_child({"inputs": sent}, exchange)
    assert len(data) < 2000  # offsets in the message, bytes in the file
    got = wire.loads_from_parent(data)["inputs"]
    for name in ("a", "t", "narrow", "e"):
        assert torch.equal(got[name], sent[name]) and got[name].stride() == sent[name].stride()
    got["a"][0, 0] = -1.0  # views of one storage stay one storage in the child
    assert got["t"][0, 0] == -1.0 and got["alpha"] == 0.5


def test_exchange_reply_sends_a_views_span_not_its_storage(exchange):
    """A small output viewing a huge buffer costs the parent the view (an outside red team made
    the parent hold 2x a 512 MiB buffer behind a 28-byte output)."""
    big = torch.zeros(1 << 22)
    big[10:17] = torch.arange(7.0)
    exchange.rewind()
    blob = wire.encode_value(big[10:17])
    assert blob["at"][1] == 7 * 4 and blob["offset"] == 0
    back = wire.decode_value(wire.resolve_exchanged({"out": blob}, exchange)["out"], "cpu")
    assert torch.equal(back, torch.arange(7.0))


def test_exchange_references_are_bounded_and_short_reads_refused(exchange):
    import os

    exchange.rewind()
    blob = wire.encode_value(torch.ones(1000))
    with pytest.raises(wire.MalformedOutput, match="budget|limit"):
        wire.resolve_exchanged({"out": dict(blob)}, exchange, budget=3999)
    for at in ([0, 1 << 40], [1 << 40, 4], [-1, 4], [0, "4"], [0]):
        with pytest.raises(wire.MalformedOutput):
            wire.resolve_exchanged({"out": {**blob, "at": at}}, exchange)
    os.ftruncate(wire.CHILD_EXCHANGE.fd, 100)  # the child cuts the file under the parent: no fault
    with pytest.raises(wire.MalformedOutput, match="ends before"):
        wire.resolve_exchanged({"out": dict(blob)}, exchange)


def test_absurd_tensor_metadata_is_malformed_not_a_crash():
    blob = {**wire.encode_tensor(torch.zeros(4)), "shape": [10**30], "stride": [0]}
    with pytest.raises(wire.MalformedOutput):
        wire.decode_tensor(blob, "cpu")
    blob = {**wire.encode_tensor(torch.zeros(4)), "shape": [1] * 65, "stride": [1] * 65}
    with pytest.raises(wire.MalformedOutput):
        wire.decode_tensor(blob, "cpu")


def test_channel_reads_every_byte_under_the_deadline():
    import socket
    import time

    parent, child = socket.socketpair()
    channel = wire.Channel(parent)
    child.send(b"\x00")  # one byte of a four-byte header, then nothing
    started = time.monotonic()
    with pytest.raises(wire.ChannelTimeout):
        channel.recv_bytes(time.monotonic() + 0.5, wire.MAX_MESSAGE_BYTES)
    assert time.monotonic() - started < 2.0
    child.close()
    channel.close()  # a channel that timed out is given up with its child
    parent, child = socket.socketpair()
    channel = wire.Channel(parent)
    child.send(b"\x00\x00\x00\x03abc")
    assert channel.recv_bytes(time.monotonic() + 5, wire.MAX_MESSAGE_BYTES)[-3:] == b"abc"
    child.sendall(b"\x7f\xff\xff\xff")  # a 2 GiB frame: over the limit, refused before reading it
    with pytest.raises(OSError, match="limit"):
        channel.recv_bytes(time.monotonic() + 5, wire.MAX_MESSAGE_BYTES)
    child.close()
    channel.close()


def test_aten_speed_baseline_is_the_builtin_op_not_the_correctness_reference():
    """cumsum's correctness reference sums half precision in float32; its speed baseline must still
    be torch's own kernel (a slower reference would inflate every speedup)."""
    import dataclasses

    from evaluator.harness.timed import _baseline
    from operators import registry
    from operators.spec import Rng

    spec = registry.get("aten::cumsum")
    assert spec.reference is not None

    def refuse(inputs):
        raise AssertionError("the correctness reference was timed as the baseline")

    spec = dataclasses.replace(spec, reference=refuse)
    kind, call = _baseline(spec, "cpu")
    inputs = spec.make_inputs(spec.tier("smoke")[0], Rng(0, "cpu"))
    assert kind == "torch"
    assert torch.equal(call(inputs), spec.invoke(None, inputs))


def _reference_call(op: str, case: dict) -> tuple:
    from evaluator.harness.judging import clone_exact
    from operators import registry
    from operators.spec import Rng

    spec = registry.get(op)
    inputs = spec.make_inputs(case, Rng(0, "cpu"))
    pristine, ref_inputs = clone_exact(inputs), clone_exact(inputs)
    return spec, spec.run_reference(ref_inputs), pristine, ref_inputs


def test_launch_layer_excuses_only_answers_that_are_an_input_itself():
    from evaluator.harness.judging import needs_launch

    same = {"shape": [4, 8], "dtype": "float16", "out_dtype": "float16", "exact": True}
    narrowing = {"shape": [4, 8], "dtype": "float32", "out_dtype": "float16", "exact": False}
    # to() to its own dtype returns self: a correct solution launches nothing
    assert needs_launch(*_reference_call("aten::to", same)) is False
    assert needs_launch(*_reference_call("aten::to", narrowing)) is True
    # an in-place op also returns its input, but it must have changed it: still needs a kernel
    from operators import registry

    add_ = next(c for c in registry.get("aten::add_").tier("smoke") if c.get("alpha", 1) != 0)
    assert needs_launch(*_reference_call("aten::add_", add_)) is True


def test_kernel_arguments_are_plain_values_or_tritons_own_objects():
    """Triton's launch code calls methods of its arguments outside the trace: only values whose
    methods are torch's, Triton's or numpy's may be passed (an outside red team computed the
    answer in an argument object's untyped_storage())."""
    import numpy
    import triton
    import triton.language as tl
    from triton.tools.tensor_descriptor import TensorDescriptor

    from evaluator.harness.child import _is_plain_argument

    x = torch.zeros(16, 16)
    plain = [x, 3, 2.5, True, None, "ieee", torch.float16, tl.int64, tl.uint8, tl.float32]
    plain += [tl.pointer_type(tl.int32), tl.constexpr(8), numpy.float32(1.5), (x, 4), [1, 2]]
    plain += [triton.reinterpret(x, tl.float32), TensorDescriptor.from_tensor(x, [8, 8])]
    assert all(_is_plain_argument(v) for v in plain)

    class Smuggler:
        def data_ptr(self):
            return 0

    class Sub(torch.Tensor):
        pass

    foreign = [Smuggler(), lambda: 0, x.as_subclass(Sub), (x, Smuggler()), tl.constexpr(Smuggler())]
    assert not any(_is_plain_argument(v) for v in foreign)
