"""Launch replay: the candidate's timed work measured in a process that never runs its Python.

The candidate process records one call of the candidate (after a warm-up call, so compiling and
autotuning are done): every Triton launch (the compiled binary, its metadata, the grid, which
buffer and byte offset each pointer argument is) and every allocation or data-writing aten op
around the launches (an output allocated, a buffer zeroed, a dtype copy), with each tensor named
by the buffer it lives in (an input of the call, a buffer an earlier step made, or a small host
constant). A second sandboxed process, the replayer, gets that program and the seeds of the
timed input sets; it draws the sets itself from the catalog's generator, loads the binaries with
Triton's own loader and launcher, and times the program on every set with the same protocol as
everything else (timing.measure). Its outputs go back to the parent, which verifies them against
references of its own sets.

What this stops: no candidate code runs where timing happens, so samples, launch counts and
which kernels ran cannot be forged from Python, and work done outside the recorded launches (host
arithmetic, a side stream, a memoised answer) is simply absent from the replay, whose outputs are
then wrong. The program is recorded once, on one input set, and replayed on every timed set:
anything of that set baked into it (a value read back on the host, an answer computed on the
host and passed as a scalar or a constant) is wrong for the other sets, so the replay's outputs
fail. A wrapper whose launches honestly depend on input values (sizes read back with `.item()`)
therefore cannot be replayed either; its timing is measured in its own process and marked so
(`measured_by`), and the site does not rank it.

Everything that arrives here from the candidate process is checked before use (`check`): only
plain values, bounded sizes, known aten ops, Triton signature types from a fixed list, buffers
defined before they are used. The replayer runs in the same sandbox as a candidate: a binary can
do anything a kernel can do to the replayer's own device memory, never to the parent's.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import torch

from evaluator.harness.child import MAKING_ATEN

MAX_STEPS = 4096
MAX_KERNELS = 64
MAX_BUFFERS = 4096
MAX_BINARY_BYTES = 32 << 20
MAX_LITERAL_BYTES = 1 << 20  # host constants a wrapper builds (a small table, a pointer array)
MAX_DIMS = 16
MAX_DEPTH = 6
MAX_ITEMS = 4096

# aten ops a recorded step may be (overload packet names): allocation and data-writing ops of
# the dispatch trace's allowed list. Views and metadata ops never become steps: a tensor is
# recorded as the buffer, offset, sizes and strides it has where it is used.
REPLAYED_ATEN = MAKING_ATEN | frozenset(
    {"empty_permuted", "contiguous", "clone", "copy_", "_to_copy", "to", "lift_fresh_copy"}
)
# ops that write into an argument's memory: replayed even though they make no new buffer
WRITING_ATEN = frozenset({"fill_", "zero_", "uniform_", "normal_", "random_", "copy_"})
# ops that change which memory a tensor is: the program could not follow them
UNREPLAYABLE_ATEN = frozenset({"resize_", "set_"})

# Triton signature types a replayed kernel may have (pointers to these, or these by value)
_SCALAR_TYPES = (
    "i1 i8 i16 i32 i64 u1 u8 u16 u32 u64 fp8e4nv fp8e5 fp8e4b15 fp8e4b8 fp8e5b16 fp16 bf16 fp32 fp64"
).split()
_SIGNATURE_TYPE = re.compile(r"^(constexpr|\*?k?(" + "|".join(_SCALAR_TYPES) + r"))$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_ATEN_NAME = re.compile(r"^aten\.([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$")
_HASH = re.compile(r"^[0-9a-f]{16,128}$")


class NotReplayable(Exception):
    """The call cannot be replayed outside the candidate's process (the message says why)."""


# ---- values: plain containers both ways ------------------------------------------------------


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _torch_constant(name: Any, kind: type) -> Any:
    value = getattr(torch, name, None) if type(name) is str and _IDENTIFIER.match(name) else None
    if not isinstance(value, kind):
        raise NotReplayable(f"unknown {kind.__name__} {name!r}")
    return value


# ---- the candidate process: recording one call --------------------------------------------


class Recorder:
    """Builds the program of one candidate call. Fed by the child's dispatch trace (`aten`) and
    its patched Triton launcher (`launch`); `finish` returns the recording or raises NotReplayable."""

    def __init__(self, inputs: Any, *, top_level_op: str | None, binary_ext: str) -> None:
        from evaluator.harness.wire import tensor_items

        self.top_level_op = top_level_op  # an ATen spec's own op: the candidate itself, not a step
        self.binary_ext = binary_ext
        self.buffers: list[dict[str, Any]] = []
        self.by_storage: dict[int, int] = {}
        self.alive: list[Any] = []  # every storage seen stays alive, so no key is reused mid-call
        self.steps: list[dict[str, Any]] = []
        self.kernels: dict[str, dict[str, Any]] = {}
        self.literal_bytes = 0
        self.problem: str | None = None
        for label, t in tensor_items(inputs).items():
            key = _storage_key(t)
            if key not in self.by_storage:
                self._new_buffer(t, {"kind": "input", "label": label})

    # -- buffers and tensors

    def _new_buffer(self, t: torch.Tensor, entry: dict[str, Any]) -> int:
        storage = t.untyped_storage()
        entry |= {"nbytes": int(storage.nbytes()), "device": t.device.type != "cpu"}
        self.buffers.append(entry)
        self.by_storage[_storage_key(t)] = len(self.buffers) - 1
        self.alive.append(storage)
        return len(self.buffers) - 1

    def _buffer_of(self, t: torch.Tensor) -> int:
        key = _storage_key(t)
        if key in self.by_storage:
            return self.by_storage[key]
        if t.device.type == "cpu":
            # a host tensor the wrapper built from Python values (torch.tensor([...])): a constant
            storage = t.untyped_storage()
            self.literal_bytes += int(storage.nbytes())
            if self.literal_bytes > MAX_LITERAL_BYTES:
                raise NotReplayable(f"more than {MAX_LITERAL_BYTES} bytes of host constants")
            data = bytes(torch.empty(0, dtype=torch.uint8).set_(storage, 0, (storage.nbytes(),), (1,)).numpy())
            return self._new_buffer(t, {"kind": "literal", "data": data})
        # a device buffer neither an input nor made by a step the trace saw: one allocated where
        # the trace does not look (inside an ATen factory op's own dispatch) or kept from an
        # earlier call. The replay gives it a fresh, uninitialised buffer of the same size: an
        # honest wrapper writes it before reading it, and nothing kept in it (a memoised answer)
        # reaches the replay
        nbytes = int(t.untyped_storage().nbytes())
        index = self._new_buffer(t, {"kind": "made", "step": len(self.steps)})
        self.steps.append(
            {
                "op": "aten",
                "name": "aten.empty.memory_format",
                "args": {"seq": "list", "items": [{"seq": "list", "items": [nbytes]}]},
                "kwargs": {"dtype": {"dtype": "uint8"}, "device": {"device": t.device.type}},
                "made": [index],
            }
        )
        return index

    def tensor(self, t: torch.Tensor) -> dict[str, Any]:
        if type(t) is not torch.Tensor or t.layout != torch.strided:
            raise NotReplayable(f"a {type(t).__name__} with layout {t.layout} cannot be replayed")
        return {
            "buffer": self._buffer_of(t),
            "offset": int(t.storage_offset()),
            "size": [int(s) for s in t.shape],
            "stride": [int(s) for s in t.stride()],
            "dtype": _dtype_name(t.dtype),
        }

    def value(self, v: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise NotReplayable("arguments nested too deeply")
        kind = type(v)
        if kind in (int, float, bool, str, complex, type(None)):
            return v
        if kind is torch.Tensor:
            return {"tensor": self.tensor(v)}
        if kind is torch.dtype:
            return {"dtype": _dtype_name(v)}
        if kind is torch.device:
            return {"device": v.type}
        if kind is torch.memory_format:
            return {"memory_format": str(v).removeprefix("torch.")}
        if kind is torch.layout:
            return {"layout": str(v).removeprefix("torch.")}
        if kind in (list, tuple, torch.Size):
            return {"seq": "list" if kind is list else "tuple", "items": [self.value(x, depth + 1) for x in v]}
        raise NotReplayable(f"an argument of type {kind.__name__} cannot be replayed")

    # -- events

    def aten(self, func: Any, args: Any, kwargs: Any, result: Any, *, in_candidate: bool) -> None:
        if self.problem is not None:
            return
        try:
            self._aten(func, args, kwargs or {}, result, in_candidate=in_candidate)
        except NotReplayable as exc:
            self.problem = str(exc)

    def _aten(self, func: Any, args: Any, kwargs: dict[str, Any], result: Any, *, in_candidate: bool) -> None:
        from evaluator.harness.wire import tensor_items

        name = func.overloadpacket.__name__
        if not in_candidate and name == self.top_level_op:
            return  # the harness calling the op the candidate implements: the candidate's own launches follow
        if name in UNREPLAYABLE_ATEN:
            raise NotReplayable(f"aten op {func} changes which memory a tensor uses")
        for t in tensor_items([list(args), dict(kwargs)]).values():
            if t.device.type == "cpu" and _storage_key(t) not in self.by_storage:
                self._buffer_of(t)  # a host constant (torch.tensor([...])) enters the program here
        results = list(tensor_items(result).values())
        new = [t for t in results if _storage_key(t) not in self.by_storage]
        if not new and name not in WRITING_ATEN:
            return  # a view, a metadata query or a host read: nothing to replay
        if name not in REPLAYED_ATEN:
            raise NotReplayable(f"aten op {func} is not replayed")
        if len(self.steps) >= MAX_STEPS:
            raise NotReplayable(f"more than {MAX_STEPS} steps in one call")
        step = {
            "op": "aten",
            "name": str(func),
            "args": self.value(list(args)),
            "kwargs": {str(k): self.value(v) for k, v in kwargs.items()},
        }
        made: list[int] = []
        for t in results:
            key = _storage_key(t)
            if key in self.by_storage:
                made.append(-1)
                continue
            made.append(self._new_buffer(t, {"kind": "made", "step": len(self.steps)}))
        step["made"] = made
        self.steps.append(step)

    def launch(self, kernel: Any, grid: tuple[int, int, int], args: tuple[Any, ...]) -> None:
        if self.problem is not None:
            return
        try:
            self._launch(kernel, grid, args)
        except NotReplayable as exc:
            self.problem = str(exc)

    def _launch(self, kernel: Any, grid: tuple[int, int, int], args: tuple[Any, ...]) -> None:
        if len(self.steps) >= MAX_STEPS:
            raise NotReplayable(f"more than {MAX_STEPS} steps in one call")
        key = str(kernel.hash)
        if key not in self.kernels:
            if len(self.kernels) >= MAX_KERNELS:
                raise NotReplayable(f"more than {MAX_KERNELS} kernels")
            self.kernels[key] = _describe_kernel(kernel, self.binary_ext)
        signature = list(self.kernels[key]["signature"].values())
        if len(args) != len(signature):
            raise NotReplayable(f"kernel {kernel.name}: {len(args)} arguments for {len(signature)} parameters")
        encoded: list[Any] = []
        for value, kind in zip(args, signature, strict=True):
            if kind == "constexpr":
                encoded.append(value if type(value) in (int, float, bool, str, type(None)) else None)
            elif type(value) is torch.Tensor:
                buffer = self._buffer_of(value)
                offset = int(value.data_ptr() - value.untyped_storage().data_ptr())
                encoded.append({"pointer": buffer, "offset": offset})
            elif kind.startswith("*") and value is None:
                encoded.append(None)
            elif type(value) in (int, float, bool):
                encoded.append(value)
            else:
                raise NotReplayable(f"kernel {kernel.name}: an argument of type {type(value).__name__}")
        self.steps.append({"op": "launch", "kernel": key, "grid": [int(g) for g in grid], "args": encoded})

    def finish(self, output: Any) -> dict[str, Any]:
        if self.problem is not None:
            raise NotReplayable(self.problem)
        recording = {
            "buffers": self.buffers,
            "steps": self.steps,
            "kernels": self.kernels,
            "output": self.value(output),
        }
        return check(recording)


def _storage_key(t: torch.Tensor) -> int:
    return int(t.untyped_storage()._cdata)


def _describe_kernel(kernel: Any, binary_ext: str) -> dict[str, Any]:
    src = kernel.src
    metadata = dict(kernel.metadata._asdict())
    target = metadata.get("target")
    metadata["target"] = {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size}
    constants = []
    for where, value in dict(getattr(src, "constants", {}) or {}).items():
        where = list(where) if isinstance(where, tuple) else where
        constants.append([where, value if type(value) in (int, float, bool, str, type(None)) else None])
    return {
        "name": str(kernel.name),
        "binary": bytes(kernel.asm[binary_ext]),
        "metadata": json.loads(json.dumps(metadata, default=str)),
        "signature": {str(k): str(v) for k, v in dict(src.signature).items()},
        "constants": constants,
        "arg_names": [str(a) for a in src.fn.arg_names],
    }


# ---- checking a recording (the parent before forwarding it, the replayer before using it) --


def _plain_json(value: Any, depth: int = 0) -> bool:
    if depth > MAX_DEPTH:
        return False
    if type(value) in (int, bool, str, type(None)):
        return type(value) is not str or len(value) <= 4096
    if type(value) is float:
        return True
    if type(value) is list:
        return len(value) <= MAX_ITEMS and all(_plain_json(v, depth + 1) for v in value)
    if type(value) is dict:
        return len(value) <= MAX_ITEMS and all(type(k) is str and _plain_json(v, depth + 1) for k, v in value.items())
    return False


def _int(value: Any, low: int, high: int, what: str) -> int:
    if type(value) is not int or not low <= value <= high:
        raise NotReplayable(f"malformed recording: {what}")
    return value


def check(recording: Any) -> dict[str, Any]:
    """A recording with exactly the expected shape, or NotReplayable saying what is wrong."""
    if type(recording) is not dict or set(recording) != {"buffers", "steps", "kernels", "output"}:
        raise NotReplayable("malformed recording")
    kernels = recording["kernels"]
    if type(kernels) is not dict or len(kernels) > MAX_KERNELS:
        raise NotReplayable("malformed recording: kernels")
    for key, kernel in kernels.items():
        _check_kernel(key, kernel)
    buffers = recording["buffers"]
    if type(buffers) is not list or len(buffers) > MAX_BUFFERS:
        raise NotReplayable("malformed recording: buffers")
    literal_bytes = 0
    for index, buffer in enumerate(buffers):
        if type(buffer) is not dict or type(buffer.get("device")) is not bool:
            raise NotReplayable(f"malformed recording: buffer {index}")
        _int(buffer.get("nbytes"), 0, 1 << 40, f"buffer {index} size")
        kind = buffer.get("kind")
        if kind == "input" and set(buffer) == {"kind", "label", "nbytes", "device"} and type(buffer["label"]) is str:
            continue
        if kind == "literal" and set(buffer) == {"kind", "data", "nbytes", "device"} and not buffer["device"]:
            if type(buffer["data"]) is not bytes or len(buffer["data"]) != buffer["nbytes"]:
                raise NotReplayable(f"malformed recording: buffer {index} constant")
            literal_bytes += len(buffer["data"])
            continue
        if kind == "made" and set(buffer) == {"kind", "step", "nbytes", "device"}:
            _int(buffer["step"], 0, MAX_STEPS, f"buffer {index} step")
            continue
        raise NotReplayable(f"malformed recording: buffer {index}")
    if literal_bytes > MAX_LITERAL_BYTES:
        raise NotReplayable("malformed recording: too many host constants")
    steps = recording["steps"]
    if type(steps) is not list or len(steps) > MAX_STEPS:
        raise NotReplayable("malformed recording: steps")
    defined = {i for i, b in enumerate(buffers) if b["kind"] != "made"}
    for index, step in enumerate(steps):
        used: set[int] = set()
        if type(step) is not dict:
            raise NotReplayable(f"malformed recording: step {index}")
        if step.get("op") == "launch" and set(step) == {"op", "kernel", "grid", "args"}:
            kernel = kernels.get(step["kernel"]) if type(step["kernel"]) is str else None
            grid = step["grid"]
            if kernel is None or type(grid) is not list or len(grid) != 3:
                raise NotReplayable(f"malformed recording: step {index}")
            for g in grid:
                _int(g, 0, (1 << 31) - 1, f"step {index} grid")
            args = step["args"]
            if type(args) is not list or len(args) != len(kernel["signature"]):
                raise NotReplayable(f"malformed recording: step {index} arguments")
            for arg, kind in zip(args, kernel["signature"].values(), strict=True):
                _check_launch_arg(arg, kind, buffers, used, index)
        elif step.get("op") == "aten" and set(step) == {"op", "name", "args", "kwargs", "made"}:
            match = _ATEN_NAME.match(step["name"]) if type(step["name"]) is str else None
            if match is None or match.group(1) not in REPLAYED_ATEN:
                raise NotReplayable(f"step {index}: aten op {step['name']!r} is not replayed")
            _check_value(step["args"], buffers, used, index)
            kwargs = step["kwargs"]
            if type(kwargs) is not dict or not all(type(k) is str and _IDENTIFIER.match(k) for k in kwargs):
                raise NotReplayable(f"malformed recording: step {index} keywords")
            for item in kwargs.values():
                _check_value(item, buffers, used, index)
            made = step["made"]
            if type(made) is not list or len(made) > MAX_ITEMS:
                raise NotReplayable(f"malformed recording: step {index} results")
            for m in made:
                if m == -1:
                    continue
                _int(m, 0, len(buffers) - 1, f"step {index} results")
                if buffers[m]["kind"] != "made" or buffers[m]["step"] != index or m in defined:
                    raise NotReplayable(f"malformed recording: step {index} results")
                defined.add(m)
        else:
            raise NotReplayable(f"malformed recording: step {index}")
        if not used <= defined:
            raise NotReplayable(f"malformed recording: step {index} uses a buffer before it is made")
    used = set()
    _check_value(recording["output"], buffers, used, len(steps))
    if not used <= defined:
        raise NotReplayable("malformed recording: the output uses a buffer never made")
    return recording


def _check_kernel(key: Any, kernel: Any) -> None:
    expected = {"name", "binary", "metadata", "signature", "constants", "arg_names"}
    if type(key) is not str or not _HASH.match(key) or type(kernel) is not dict or set(kernel) != expected:
        raise NotReplayable("malformed recording: kernel")
    if type(kernel["name"]) is not str or not _IDENTIFIER.match(kernel["name"]):
        raise NotReplayable("malformed recording: kernel name")
    if type(kernel["binary"]) is not bytes or not 0 < len(kernel["binary"]) <= MAX_BINARY_BYTES:
        raise NotReplayable(f"kernel {kernel['name']}: malformed binary")
    metadata, signature = kernel["metadata"], kernel["signature"]
    if type(metadata) is not dict or not _plain_json(metadata) or not all(_IDENTIFIER.match(k) for k in metadata):
        raise NotReplayable(f"kernel {kernel['name']}: malformed metadata")
    if type(signature) is not dict or len(signature) > 256:
        raise NotReplayable(f"kernel {kernel['name']}: malformed signature")
    for name, kind in signature.items():
        if type(kind) is not str or not _IDENTIFIER.match(name) or not _SIGNATURE_TYPE.match(kind):
            raise NotReplayable(f"kernel {kernel['name']}: parameter {name!r} of type {kind!r} is not replayed")
    names = kernel["arg_names"]
    if type(names) is not list or names != list(signature):
        raise NotReplayable(f"kernel {kernel['name']}: malformed parameter names")
    constants = kernel["constants"]
    if type(constants) is not list or len(constants) > 256:
        raise NotReplayable(f"kernel {kernel['name']}: malformed constants")
    for item in constants:
        if type(item) is not list or len(item) != 2 or not _plain_json(item):
            raise NotReplayable(f"kernel {kernel['name']}: malformed constants")
        where = item[0]
        if type(where) is str:
            if where not in signature:
                raise NotReplayable(f"kernel {kernel['name']}: malformed constants")
        elif type(where) is not list or len(where) != 1 or type(where[0]) is not int:
            raise NotReplayable(f"kernel {kernel['name']}: constants of nested arguments are not replayed")
        elif not 0 <= where[0] < len(signature):
            raise NotReplayable(f"kernel {kernel['name']}: malformed constants")


def _check_launch_arg(arg: Any, kind: str, buffers: list[dict[str, Any]], used: set[int], step: int) -> None:
    if type(arg) is dict:
        if set(arg) != {"pointer", "offset"} or not kind.startswith("*"):
            raise NotReplayable(f"malformed recording: step {step} pointer")
        buffer = _int(arg["pointer"], 0, len(buffers) - 1, f"step {step} pointer")
        _int(arg["offset"], 0, buffers[buffer]["nbytes"], f"step {step} pointer offset")
        if not buffers[buffer]["device"]:
            raise NotReplayable(f"step {step}: a host buffer passed to a kernel")
        used.add(buffer)
        return
    if kind == "constexpr" or (kind.startswith("*") and arg is None):
        if type(arg) not in (int, float, bool, str, type(None)):
            raise NotReplayable(f"malformed recording: step {step} argument")
        return
    if type(arg) is float and kind.removeprefix("k").startswith(("fp", "bf")):
        return
    if type(arg) in (int, bool) and not kind.startswith("*"):
        if type(arg) is int and not -(1 << 63) <= arg < (1 << 64):
            raise NotReplayable(f"malformed recording: step {step} argument")
        return
    raise NotReplayable(f"malformed recording: step {step} argument for a {kind} parameter")


def _check_value(value: Any, buffers: list[dict[str, Any]], used: set[int], step: int, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise NotReplayable(f"malformed recording: step {step} nesting")
    kind = type(value)
    if kind in (int, float, bool, complex, type(None)):
        return
    if kind is str:
        if len(value) > 256:
            raise NotReplayable(f"malformed recording: step {step} string")
        return
    if kind is not dict or len(value) > MAX_ITEMS:
        raise NotReplayable(f"malformed recording: step {step} value")
    keys = set(value)
    if keys == {"tensor"}:
        _check_tensor(value["tensor"], buffers, used, step)
    elif keys == {"dtype"}:
        _torch_constant(value["dtype"], torch.dtype)
    elif keys == {"device"}:
        if type(value["device"]) is not str or len(value["device"]) > 32:
            raise NotReplayable(f"malformed recording: step {step} device")
    elif keys == {"memory_format"}:
        _torch_constant(value["memory_format"], torch.memory_format)
    elif keys == {"layout"}:
        _torch_constant(value["layout"], torch.layout)
    elif keys == {"seq", "items"} and value["seq"] in ("list", "tuple") and type(value["items"]) is list:
        if len(value["items"]) > MAX_ITEMS:
            raise NotReplayable(f"malformed recording: step {step} sequence")
        for item in value["items"]:
            _check_value(item, buffers, used, step, depth + 1)
    else:
        raise NotReplayable(f"malformed recording: step {step} value")


def _check_tensor(ref: Any, buffers: list[dict[str, Any]], used: set[int], step: int) -> None:
    if type(ref) is not dict or set(ref) != {"buffer", "offset", "size", "stride", "dtype"}:
        raise NotReplayable(f"malformed recording: step {step} tensor")
    buffer = _int(ref["buffer"], 0, len(buffers) - 1, f"step {step} tensor buffer")
    size, stride = ref["size"], ref["stride"]
    if type(size) is not list or type(stride) is not list or len(size) != len(stride) or len(size) > MAX_DIMS:
        raise NotReplayable(f"malformed recording: step {step} tensor shape")
    for s in size:
        _int(s, 0, 1 << 40, f"step {step} tensor size")
    for s in stride:
        _int(s, 0, 1 << 40, f"step {step} tensor stride")
    _int(ref["offset"], 0, 1 << 40, f"step {step} tensor offset")
    dtype = _torch_constant(ref["dtype"], torch.dtype)
    if 0 not in size:
        last = ref["offset"] + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
        if (last + 1) * dtype.itemsize > buffers[buffer]["nbytes"]:
            raise NotReplayable(f"malformed recording: step {step} tensor outside its buffer")
    used.add(buffer)


def launches(recording: dict[str, Any]) -> int:
    return sum(1 for step in recording["steps"] if step["op"] == "launch")


# ---- the replayer: running a recording -----------------------------------------------------


def load_kernels(recording: dict[str, Any], workdir: str, loaded: dict[str, Any]) -> None:
    """Triton's CompiledKernel for every kernel of the recording (kept in `loaded` by hash): built
    from the binary and metadata files as Triton's own cache would, never from Python source."""
    from types import SimpleNamespace

    from triton.compiler.compiler import CompiledKernel
    from triton.runtime import driver

    target = driver.active.get_current_target()
    for key, kernel in recording["kernels"].items():
        if key in loaded:
            continue
        folder = os.path.join(workdir, "replay-kernels", key)
        os.makedirs(folder, exist_ok=True)
        metadata = dict(kernel["metadata"])
        # the device's own target, never the recording's: a binary for another chip fails to load
        metadata["target"] = {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size}
        metadata["name"] = kernel["name"]
        binary_ext = _binary_ext(target)
        meta_path = os.path.join(folder, f"{kernel['name']}.json")
        with open(meta_path, "w", encoding="utf-8") as handle:
            json.dump(metadata, handle)
        binary_path = os.path.join(folder, f"{kernel['name']}.{binary_ext}")
        with open(binary_path, "wb") as handle:
            handle.write(kernel["binary"])
        constants = {}
        for where, value in kernel["constants"]:
            constants[tuple(where) if type(where) is list else where] = value
        src = SimpleNamespace(
            signature=dict(kernel["signature"]), constants=constants, fn=SimpleNamespace(arg_names=kernel["arg_names"])
        )
        group = {f"{kernel['name']}.json": meta_path, f"{kernel['name']}.{binary_ext}": binary_path}
        try:
            compiled = CompiledKernel(src, group, key)
            compiled.run  # noqa: B018 (loads the binary and builds the launcher now, not mid-timing)
        except Exception as exc:
            raise NotReplayable(f"kernel {kernel['name']} does not load: {type(exc).__name__}: {exc}") from None
        loaded[key] = compiled


def _binary_ext(target: Any) -> str:
    from triton.compiler.compiler import make_backend

    return str(make_backend(target).binary_ext)


class Program:
    """A checked recording, runnable on an input set: `program(inputs)` returns the outputs."""

    def __init__(self, recording: dict[str, Any], kernels: dict[str, Any], device: str) -> None:
        self.recording = recording
        self.kernels = kernels
        self.device = device
        self.literals = {
            i: torch.frombuffer(bytearray(b["data"]), dtype=torch.uint8)
            for i, b in enumerate(recording["buffers"])
            if b["kind"] == "literal" and b["nbytes"]
        }
        self.launches = launches(recording)

    def __call__(self, inputs: Any) -> Any:
        from evaluator.harness.wire import tensor_items

        buffers = self.recording["buffers"]
        storages: dict[int, Any] = {}
        labelled = tensor_items(inputs)
        for index, buffer in enumerate(buffers):
            if buffer["kind"] == "input":
                t = labelled.get(buffer["label"])
                if t is None or int(t.untyped_storage().nbytes()) != buffer["nbytes"]:
                    raise NotReplayable(f"input {buffer['label']!r} differs from the recorded call's")
                storages[index] = t.untyped_storage()
            elif buffer["kind"] == "literal":
                data = self.literals.get(index)
                storages[index] = (
                    data.clone() if data is not None else torch.empty(0, dtype=torch.uint8)
                ).untyped_storage()
        stream = None
        for step in self.recording["steps"]:
            if step["op"] == "launch":
                kernel = self.kernels[step["kernel"]]
                if stream is None:
                    stream = _current_stream(self.device)
                args = [self._launch_arg(a, storages) for a in step["args"]]
                gx, gy, gz = step["grid"]
                if gx * gy * gz == 0:
                    continue  # Triton launches nothing for an empty grid
                kernel.run(gx, gy, gz, stream, kernel.function, kernel.packed_metadata, None, None, None, *args)
                continue
            _, packet, overload = step["name"].split(".")
            op = getattr(getattr(torch.ops.aten, packet), overload)
            kwargs = {k: self._value(v, storages) for k, v in step["kwargs"].items()}
            result = op(*self._value(step["args"], storages), **kwargs)
            made = list(tensor_items(result).values())
            if len(made) != len(step["made"]):
                raise NotReplayable(
                    f"aten op {step['name']} gave {len(made)} tensors, the recording {len(step['made'])}"
                )
            for t, index in zip(made, step["made"], strict=True):
                if index == -1:
                    continue
                if int(t.untyped_storage().nbytes()) != buffers[index]["nbytes"]:
                    raise NotReplayable(f"aten op {step['name']} made a buffer of another size than recorded")
                storages[index] = t.untyped_storage()
        return self._value(self.recording["output"], storages)

    def _launch_arg(self, arg: Any, storages: dict[int, Any]) -> Any:
        if type(arg) is dict:
            storage = storages[arg["pointer"]]
            nbytes = int(storage.nbytes())
            view = torch.empty(0, dtype=torch.uint8, device=storage.device)
            return view.set_(storage, arg["offset"], (nbytes - arg["offset"],), (1,))
        return arg

    def _value(self, value: Any, storages: dict[int, Any]) -> Any:
        if type(value) is not dict:
            return value
        if "tensor" in value and len(value) == 1:
            ref = value["tensor"]
            storage = storages[ref["buffer"]]
            dtype = _torch_constant(ref["dtype"], torch.dtype)
            out = torch.empty(0, dtype=dtype, device=storage.device)
            return out.set_(storage, ref["offset"], tuple(ref["size"]), tuple(ref["stride"]))
        if "dtype" in value and len(value) == 1:
            return _torch_constant(value["dtype"], torch.dtype)
        if "device" in value and len(value) == 1:
            return torch.device("cpu" if value["device"] == "cpu" else self.device)
        if "memory_format" in value and len(value) == 1:
            return _torch_constant(value["memory_format"], torch.memory_format)
        if "layout" in value and len(value) == 1:
            return _torch_constant(value["layout"], torch.layout)
        items = [self._value(v, storages) for v in value["items"]]
        return items if value["seq"] == "list" else tuple(items)


def _current_stream(device: str) -> int:
    from triton.runtime import driver

    return int(driver.active.get_current_stream(driver.active.get_current_device()))


def serve(
    msg: dict[str, Any],
    *,
    spec: Any,
    backend: Any,
    workdir: str,
    loaded: dict[str, Any],
) -> dict[str, Any]:
    """Time one recorded case in this process (the replayer): the reply the parent verifies."""
    from evaluator.harness.timing import timed_reply
    from operators.spec import Rng

    try:
        recording = check(msg["recording"])
        load_kernels(recording, workdir, loaded)
        program = Program(recording, loaded, backend.device_type)
        sets = [spec.make_inputs(msg["case"], Rng(int(seed), backend.device_type)) for seed in msg["seeds"]]
        with torch.no_grad():
            reply = timed_reply(msg, lambda which: program(sets[which]), sets, spec=spec, backend=backend)
    except Exception as exc:  # a kernel that faults or will not load, a program that will not run
        return {"type": "unreplayable", "message": f"{type(exc).__name__}: {exc}"[:500]}
    return reply | {"launches": program.launches}


def replay_supported(backend: Any) -> bool:
    return bool(getattr(backend, "replays_launches", False)) and not backend.interpreter
