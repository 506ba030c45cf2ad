"""Messages between the trusted parent and the candidate process.

Parent -> child: ordinary pickle (the child trusts its parent); tensors travel by value, device
tensors included (the child gets its own copies in its own allocations).

Child -> parent: the child is hostile, so nothing it sends may run code when read. Its messages
are pickles of plain containers (dict, list, tuple, str, bytes, numbers, None) read by an
unpickler that refuses every global except `complex`; tensors travel as `TensorBlob` dicts of raw
bytes plus dtype/shape/stride metadata, rebuilt by the parent into plain `torch.Tensor`s, so a
subclass, a lazy tensor or a pointer into the parent's memory cannot cross.

No device memory is shared either way (no CUDA IPC): an IPC handle maps the whole allocator
segment around a tensor, whoever opens it and whatever their uid, and torch's receiving side
trusts the sender's offsets, reference-counter file and event. Bytes cost a host round trip
(measured in BENCHMARKS.md) and cannot be turned into a read or write of the other process.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import torch

from operators.spec import DTYPES

MAX_MESSAGE_BYTES = 8 << 30  # a message larger than this from the candidate is a runtime error
_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


def dumps_to_child(obj: Any) -> bytes:
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("builtins", "complex"):
            return complex
        raise pickle.UnpicklingError(f"refused global {module}.{name} from the candidate process")


def loads_from_child(data: bytes) -> Any:
    return _PlainUnpickler(io.BytesIO(data)).load()


# ---- child side: encode values into plain containers ----


def encode_value(value: Any, *, depth: int = 0) -> Any:
    """Turn a candidate output into plain containers; unknown objects become a marker the parent rejects."""
    if depth > 8:
        return {"__unsupported__": "nesting deeper than 8"}
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return (
            value
            if type(value) in (bool, int, float, complex, str, type(None))
            else {"__unsupported__": f"subclass {type(value).__name__} of a Python scalar"}
        )
    if isinstance(value, torch.Tensor):
        return encode_tensor(value)
    if type(value) in (tuple, list):
        return {
            "__seq__": type(value).__name__,
            "items": [encode_value(v, depth=depth + 1) for v in value],
        }
    if isinstance(value, torch.dtype):
        return {"__dtype__": _DTYPE_NAMES.get(value, str(value))}
    return {"__unsupported__": type(value).__name__}


def encode_tensor(t: torch.Tensor) -> dict[str, Any]:
    exact_type = type(t) is torch.Tensor
    device_type = t.device.type
    if not exact_type:
        return {
            "__tensor__": True,
            "exact_type": False,
            "type": f"{type(t).__module__}.{type(t).__qualname__}",
            "device_type": device_type,
        }
    if t.layout != torch.strided:
        return {
            "__tensor__": True,
            "exact_type": True,
            "type": "torch.Tensor",
            "layout": str(t.layout),
            "device_type": device_type,
        }
    plain = t.detach()
    storage = plain.untyped_storage()
    # copy the whole storage to the host so strides and offset are checked against the real buffer
    host = torch.empty(storage.nbytes(), dtype=torch.uint8)
    if storage.nbytes():
        host.untyped_storage().copy_(storage)
    return {**_metadata(plain), "data": host.numpy().tobytes() if storage.nbytes() else b""}


def tensor_items(value: Any, prefix: str = "") -> dict[str, torch.Tensor]:
    """The tensors inside nested inputs/outputs by path ("x", "cache[0]", "opts.scale"): the names
    both processes use for the same tensor."""
    found: dict[str, torch.Tensor] = {}
    if isinstance(value, torch.Tensor):
        found[prefix] = value
    elif isinstance(value, dict):
        for k, v in value.items():
            found.update(tensor_items(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found.update(tensor_items(v, f"{prefix}[{i}]"))
    return found


def _metadata(plain: torch.Tensor) -> dict[str, Any]:
    return {
        "__tensor__": True,
        "exact_type": True,
        "type": "torch.Tensor",
        "layout": "strided",
        "device_type": plain.device.type,
        "dtype": _DTYPE_NAMES.get(plain.dtype, str(plain.dtype)),
        "shape": list(plain.shape),
        "stride": list(plain.stride()),
        "offset": plain.storage_offset(),
    }


# ---- parent side: rebuild plain tensors from what the child sent ----


class MalformedOutput(ValueError):
    pass


def decode_value(value: Any, device: str) -> Any:
    """Rebuild a candidate output."""
    if value is None or type(value) in (bool, int, float, complex, str):
        return value
    if type(value) is not dict:
        raise MalformedOutput(f"unexpected {type(value).__name__} in the candidate's reply")
    if value.get("__tensor__") is True:
        return decode_tensor(value, device)
    if "__seq__" in value:
        items = [decode_value(v, device) for v in value["items"]]
        return tuple(items) if value["__seq__"] == "tuple" else items
    if "__dtype__" in value:
        return DTYPES.get(value["__dtype__"], value["__dtype__"])
    if "__unsupported__" in value:
        return Unsupported(str(value["__unsupported__"]))
    raise MalformedOutput("unknown marker in the candidate's reply")


class Unsupported:
    """An output the candidate process could not express as a plain value (never equals a reference)."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"<unsupported output: {self.what}>"


class RejectedTensor:
    """A tensor-like output that is not a plain dense tensor: the reason says why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"<rejected tensor: {self.reason}>"


def is_dense(shape: list[int], stride: list[int]) -> bool:
    """Non-overlapping and dense: some permutation of the dims is exactly contiguous."""
    dims = sorted((st, sz) for sz, st in zip(shape, stride, strict=False) if sz != 1)
    expected = 1
    for st, sz in dims:
        if st != expected:
            return False
        expected *= sz
    return True


def decode_input(blob: Any, device: str) -> Any:
    """An input tensor as the candidate left it (devices without shared memory send it back by
    value). Unlike an output it may be any view the harness handed over, dense or not."""
    if type(blob) is not dict or blob.get("__tensor__") is not True:
        raise MalformedOutput("an input came back as something other than a tensor")
    return decode_tensor(blob, device, views_ok=True)


def decode_tensor(blob: dict[str, Any], device: str, *, views_ok: bool = False) -> Any:
    if not blob.get("exact_type"):
        return RejectedTensor(f"output is a {blob.get('type')}, not a plain torch.Tensor")
    if blob.get("layout") != "strided":
        return RejectedTensor(f"output has layout {blob.get('layout')}, not strided")
    if blob.get("device_type") != device:
        return RejectedTensor(f"output is on {blob.get('device_type')}, expected {device}")
    dtype = DTYPES.get(str(blob.get("dtype")))
    if dtype is None:
        return RejectedTensor(f"output dtype {blob.get('dtype')} is not supported")
    shape, stride, offset, data = blob.get("shape"), blob.get("stride"), blob.get("offset"), blob.get("data")
    if not (
        type(shape) is list
        and type(stride) is list
        and len(shape) == len(stride)
        and type(offset) is int
        and type(data) is bytes
        and all(type(x) is int and x >= 0 for x in shape + stride)
        and offset >= 0
    ):
        raise MalformedOutput("tensor metadata is malformed")
    itemsize = torch.empty(0, dtype=dtype).element_size()
    numel = 1
    for s in shape:
        numel *= s
    storage_bytes = len(data)
    if numel and (offset + sum((sz - 1) * st for sz, st in zip(shape, stride, strict=False)) + 1) * itemsize > (
        storage_bytes
    ):
        raise MalformedOutput("tensor extends past its storage")
    if not views_ok and not is_dense(shape, stride) and numel > 1:
        return RejectedTensor(f"output with shape {shape} and strides {stride} is not dense")
    raw = torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
    usable = len(data) // itemsize * itemsize
    flat = raw[:usable].view(dtype) if usable else torch.empty(0, dtype=dtype)
    if numel == 0:
        host = torch.empty(shape, dtype=dtype)
    else:
        host = flat.as_strided(shape, stride, offset)
    return host.to(device) if device != "cpu" else host
