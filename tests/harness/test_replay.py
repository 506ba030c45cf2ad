"""The launch replay's recording, checks and program runner (evaluator/harness/replay.py) on the
cpu: aten steps, host constants, buffer naming and every check a forged recording meets. Launches
of compiled binaries need a device: tests/harness/test_replay_cuda.py."""

from __future__ import annotations

import copy

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from evaluator.harness import replay


class _Feed(TorchDispatchMode):
    """Feeds every aten op to the recorder, as the child's dispatch trace does."""

    def __init__(self, recorder: replay.Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        self.recorder.aten(func, args, kwargs, result, in_candidate=True)
        return result


def record(call, inputs) -> dict:
    recorder = replay.Recorder(inputs, top_level_op=None, binary_ext="cubin")
    with _Feed(recorder):
        out = call(inputs)
    return recorder.finish(out)


def wrapper(inputs):
    x = inputs["x"]
    out = torch.empty(x.shape[1], x.shape[0], dtype=x.dtype)
    out.copy_(x.t())  # a view of the input read by a copy into a new buffer
    scale = torch.tensor([2.0, 3.0])  # a host constant
    zeros = torch.zeros(4, dtype=torch.int32)
    zeros.fill_(7)
    return out[1:], scale.clone(), zeros


def test_a_recorded_call_reruns_on_other_inputs():
    first = {"x": torch.randn(3, 5)}
    recording = record(wrapper, first)
    kinds = [b["kind"] for b in recording["buffers"]]
    assert kinds[0] == "input" and "literal" in kinds and "made" in kinds
    program = replay.Program(replay.check(copy.deepcopy(recording)), {}, "cpu")
    other = {"x": torch.randn(3, 5)}
    got = program(other)
    want = wrapper(other)
    assert len(got) == 3
    for g, w in zip(got, want, strict=True):
        assert torch.equal(g, w)


def test_each_run_gets_its_own_buffers():
    recording = record(wrapper, {"x": torch.randn(3, 5)})
    program = replay.Program(recording, {}, "cpu")
    a, b = program({"x": torch.randn(3, 5)}), program({"x": torch.randn(3, 5)})
    assert a[0].untyped_storage().data_ptr() != b[0].untyped_storage().data_ptr()
    a[1].fill_(0)  # a constant written by one run is not what the next run starts from
    assert torch.equal(program({"x": torch.randn(3, 5)})[1], torch.tensor([2.0, 3.0]))


def test_arithmetic_is_not_replayed():
    with pytest.raises(replay.NotReplayable, match="aten.add.Tensor is not replayed"):
        record(lambda inputs: inputs["x"] + 1, {"x": torch.randn(4)})


def test_an_answer_baked_into_a_constant_is_wrong_on_other_inputs():
    """What a candidate computes on the host from the recorded set is a constant of the program:
    the replay on another set gives the recorded set's answer, which the parent then rejects."""
    first = {"x": torch.randn(6)}
    recording = record(lambda inputs: torch.tensor(inputs["x"].tolist()).clone(), first)
    other = {"x": torch.randn(6)}
    got = replay.Program(recording, {}, "cpu")(other)
    assert torch.equal(got, first["x"]) and not torch.equal(got, other["x"])


def test_resize_is_not_replayable():
    def call(inputs):
        out = torch.empty(0)
        out.resize_(4)
        return out

    with pytest.raises(replay.NotReplayable, match="changes which memory"):
        record(call, {"x": torch.randn(4)})


def test_too_many_host_constants():
    big = torch.zeros(replay.MAX_LITERAL_BYTES // 4 + 16)
    with pytest.raises(replay.NotReplayable, match="host constants"):
        record(lambda inputs: big.clone(), {"x": torch.randn(4)})


def _kernel() -> dict:
    return {
        "name": "add_kernel",
        "binary": b"\x7fELF....",
        "metadata": {"name": "add_kernel", "num_warps": 4, "shared": 0, "target": {"backend": "cuda", "arch": 90}},
        "signature": {"x": "*fp32", "out": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constants": [[[3], 1024]],
        "arg_names": ["x", "out", "n", "BLOCK"],
    }


def _launch_recording() -> dict:
    return {
        "buffers": [
            {"kind": "input", "label": "x", "nbytes": 64, "device": True},
            {"kind": "made", "step": 0, "nbytes": 64, "device": True},
        ],
        "steps": [
            {
                "op": "aten",
                "name": "aten.empty_like.default",
                "args": {"seq": "list", "items": [{"tensor": _ref(0)}]},
                "kwargs": {},
                "made": [1],
            },
            {
                "op": "launch",
                "kernel": "ab" * 32,
                "grid": [1, 1, 1],
                "args": [{"pointer": 0, "offset": 0}, {"pointer": 1, "offset": 0}, 16, 1024],
            },
        ],
        "kernels": {"ab" * 32: _kernel()},
        "output": {"tensor": _ref(1)},
    }


def _ref(buffer: int, **changes) -> dict:
    return {"buffer": buffer, "offset": 0, "size": [16], "stride": [1], "dtype": "float32"} | changes


def test_a_well_formed_recording_passes_the_check():
    recording = _launch_recording()
    assert replay.check(recording) is recording
    assert replay.launches(recording) == 1


FORGED = {
    "extra top-level key": lambda r: r.update(extra=1),
    "kernel key not a hash": lambda r: r.update(kernels={"../x": _kernel()}),
    "signature type outside the list": lambda r: r["kernels"]["ab" * 32]["signature"].update(n='i32); system("x"'),
    "parameter names differ from the signature": lambda r: r["kernels"]["ab" * 32].update(
        arg_names=["a", "b", "c", "d"]
    ),
    "metadata key not an identifier": lambda r: r["kernels"]["ab" * 32]["metadata"].update({"a b": 1}),
    "metadata value not plain": lambda r: r["kernels"]["ab" * 32]["metadata"].update(x=b"bytes"),
    "empty binary": lambda r: r["kernels"]["ab" * 32].update(binary=b""),
    "nested constant": lambda r: r["kernels"]["ab" * 32].update(constants=[[[3, 0], 1]]),
    "launch names an unknown kernel": lambda r: r["steps"][1].update(kernel="cd" * 32),
    "pointer past its buffer": lambda r: r["steps"][1]["args"].__setitem__(0, {"pointer": 0, "offset": 65}),
    "pointer to an unknown buffer": lambda r: r["steps"][1]["args"].__setitem__(0, {"pointer": 9, "offset": 0}),
    "pointer for a scalar parameter": lambda r: r["steps"][1]["args"].__setitem__(2, {"pointer": 0, "offset": 0}),
    "float for an integer parameter": lambda r: r["steps"][1]["args"].__setitem__(2, 1.5),
    "too few arguments": lambda r: r["steps"][1]["args"].pop(),
    "negative grid": lambda r: r["steps"][1].update(grid=[-1, 1, 1]),
    "grid of two": lambda r: r["steps"][1].update(grid=[1, 1]),
    "arithmetic op": lambda r: r["steps"][0].update(name="aten.add.Tensor"),
    "op name with a path": lambda r: r["steps"][0].update(name="aten.empty_like.default.__class__"),
    "buffer used before it is made": lambda r: r["steps"].reverse(),
    "tensor outside its buffer": lambda r: r.update(output={"tensor": _ref(1, size=[17])}),
    "negative stride": lambda r: r.update(output={"tensor": _ref(1, stride=[-1])}),
    "unknown dtype": lambda r: r.update(output={"tensor": _ref(1, dtype="os")}),
    "made buffer claimed by another step": lambda r: r["buffers"][1].update(step=1),
    "host constant of the wrong length": lambda r: r["buffers"].append(
        {"kind": "literal", "data": b"abc", "nbytes": 4, "device": False}
    ),
    "host constant on the device": lambda r: r["buffers"].append(
        {"kind": "literal", "data": b"abcd", "nbytes": 4, "device": True}
    ),
    "unknown buffer kind": lambda r: r["buffers"].append({"kind": "kept", "nbytes": 4, "device": True}),
    "keyword not an identifier": lambda r: r["steps"][0].update(kwargs={"a-b": 1}),
    "a plain dict as a value": lambda r: r["steps"][0].update(args={"seq": "list", "items": [{"x": 1}]}),
}


@pytest.mark.parametrize("name", sorted(FORGED))
def test_a_forged_recording_is_refused(name):
    recording = _launch_recording()
    FORGED[name](recording)
    with pytest.raises(replay.NotReplayable):
        replay.check(recording)


def test_host_buffer_as_a_kernel_pointer_is_refused():
    recording = _launch_recording()
    recording["buffers"].append({"kind": "literal", "data": b"abcd", "nbytes": 4, "device": False})
    recording["steps"][1]["args"][0] = {"pointer": 2, "offset": 0}
    with pytest.raises(replay.NotReplayable, match="host buffer"):
        replay.check(recording)


def test_a_device_buffer_the_call_did_not_make_is_replayed_as_a_fresh_one():
    """Unknown device memory (kept from an earlier call, or allocated where the trace does not
    look) becomes a fresh uninitialised buffer of its size: what was kept in it never reaches the
    replay, and an honest wrapper that writes it first replays unchanged."""
    kept = torch.full((4,), 5.0, device="meta")
    recorder = replay.Recorder({"x": torch.randn(4)}, top_level_op=None, binary_ext="cubin")
    with _Feed(recorder):
        kept.fill_(2.0)
    recording = recorder.finish(kept)
    first = recording["steps"][0]
    assert first["name"] == "aten.empty.memory_format" and first["made"] == [1]
    assert recording["steps"][1]["name"] == "aten.fill_.Scalar"
    out = replay.Program(replay.check(recording), {}, "meta")({"x": torch.randn(4)})
    assert out.device.type == "meta" and out.shape == (4,)
