"""Messages between the trusted parent and the candidate process.

Parent -> child: ordinary pickle (the child trusts its parent). Device tensors travel as IPC
handles where the backend supports it, so the parent keeps seeing the very memory the candidate
writes; host tensors travel by value.

Child -> parent: the child is hostile, so nothing it sends may run code when read. Its messages
are pickles of plain containers (dict, list, tuple, str, bytes, numbers, None) read by an
unpickler that refuses every global except `complex`; tensors travel as `TensorBlob` dicts of raw
bytes plus dtype/shape/stride metadata (or, on IPC devices, the storage's validated IPC handle,
copied on the device at once), rebuilt by the parent into plain `torch.Tensor`s, so a subclass, a
lazy tensor or a pointer into the parent's memory cannot cross.
"""

from __future__ import annotations

import io
import pickle
import re
from typing import Any

import torch

from operators.spec import DTYPES

MAX_MESSAGE_BYTES = 8 << 30  # a message larger than this from the candidate is a runtime error
_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


class _ParentPickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, *, ipc: bool) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.ipc = ipc

    def reducer_override(self, obj: Any) -> Any:
        if self.ipc and isinstance(obj, torch.Tensor) and obj.device.type != "cpu":
            from torch.multiprocessing.reductions import reduce_tensor

            return reduce_tensor(obj)
        return NotImplemented


def dumps_to_child(obj: Any, *, ipc: bool) -> bytes:
    buffer = io.BytesIO()
    _ParentPickler(buffer, ipc=ipc).dump(obj)
    return buffer.getvalue()


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("builtins", "complex"):
            return complex
        raise pickle.UnpicklingError(f"refused global {module}.{name} from the candidate process")


def loads_from_child(data: bytes) -> Any:
    return _PlainUnpickler(io.BytesIO(data)).load()


# ---- child side: encode values into plain containers ----


def encode_value(value: Any, *, aliases: dict[int, str] | None = None, depth: int = 0) -> Any:
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
        return encode_tensor(value, aliases=aliases)
    if type(value) in (tuple, list):
        return {
            "__seq__": type(value).__name__,
            "items": [encode_value(v, aliases=aliases, depth=depth + 1) for v in value],
        }
    if isinstance(value, torch.dtype):
        return {"__dtype__": _DTYPE_NAMES.get(value, str(value))}
    return {"__unsupported__": type(value).__name__}


def encode_tensor(t: torch.Tensor, *, aliases: dict[int, str] | None = None) -> dict[str, Any]:
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
    if _outputs_by_ipc and device_type != "cpu" and storage.nbytes():
        alias = (aliases or {}).get(storage.data_ptr())
        if alias is not None:  # written into an input the parent shares: it reads its own copy
            return {**_metadata(plain), "alias": alias}
        blob = _ipc_blob(plain, storage)
        if blob is not None:
            return blob
    # copy the whole storage to the host so strides and offset are checked against the real buffer
    host = torch.empty(storage.nbytes(), dtype=torch.uint8)
    if storage.nbytes():
        host.untyped_storage().copy_(storage)
    return {**_metadata(plain), "data": host.numpy().tobytes() if storage.nbytes() else b""}


# ---- device outputs by IPC handle ----
# Copying a large device output through the host and a pipe costs seconds per call (a 512 MB output:
# GPU->host copy, bytes, pickle, pipe, unpickle, host->GPU); on devices that share memory by IPC the
# child sends the storage's handle instead and the parent copies the tensor on the device. The
# handle is plain data (bytes and numbers), validated before it is opened. An output written into
# an input the parent shared (in-place ops; torch cannot re-share such a storage) names that input.

_outputs_by_ipc = False
_IPC_REF_COUNTER = re.compile(rb"/torch_[0-9]+_[0-9]+_[0-9]+")
_IPC_HANDLE_MAX_BYTES = 256


def set_outputs_by_ipc(enabled: bool) -> None:
    """Child side: whether this request's device outputs go back as IPC handles."""
    global _outputs_by_ipc
    _outputs_by_ipc = enabled


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


def alias_table(inputs: Any) -> dict[int, str]:
    """Child side: the request's shared device input storages by address, named by input path."""
    table: dict[int, str] = {}
    for path, t in tensor_items(inputs).items():
        if t.device.type != "cpu" and t.untyped_storage().nbytes():
            table.setdefault(t.untyped_storage().data_ptr(), path)
    return table


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


def _ipc_blob(plain: torch.Tensor, storage: torch.UntypedStorage) -> dict[str, Any] | None:
    try:
        device, handle, size, offset_bytes, ref_counter, ref_counter_offset, event, event_sync = storage._share_cuda_()
    except Exception:  # received from the parent, or not shareable: send it by value
        return None
    return {
        **_metadata(plain),
        "ipc": {
            "device": device,
            "handle": handle,
            "size": size,
            "offset_bytes": offset_bytes,
            "ref_counter": ref_counter,
            "ref_counter_offset": ref_counter_offset,
            "event": event,
            "event_sync": event_sync,
        },
    }


def _open_ipc(ipc: Any, device: str) -> tuple[torch.UntypedStorage, int]:
    """Parent side: open a storage the child shared, after checking every field is plain and sane."""
    if type(ipc) is not dict:
        raise MalformedOutput("IPC output description is malformed")
    dev, handle, size, offset_bytes = ipc.get("device"), ipc.get("handle"), ipc.get("size"), ipc.get("offset_bytes")
    ref_counter, ref_counter_offset = ipc.get("ref_counter"), ipc.get("ref_counter_offset")
    event, event_sync = ipc.get("event"), ipc.get("event_sync")
    if not (
        type(dev) is int
        and type(handle) is bytes
        and 0 < len(handle) <= _IPC_HANDLE_MAX_BYTES
        and type(size) is int
        and size > 0
        and type(offset_bytes) is int
        and offset_bytes >= 0
        and type(ref_counter) is bytes
        and _IPC_REF_COUNTER.fullmatch(ref_counter)
        and type(ref_counter_offset) is int
        and ref_counter_offset >= 0
        and (event is None or (type(event) is bytes and len(event) <= _IPC_HANDLE_MAX_BYTES))
        and type(event_sync) is bool
        and dev == getattr(torch, device).current_device()
    ):
        raise MalformedOutput("IPC output description is malformed")
    try:
        storage = torch.UntypedStorage._new_shared_cuda(
            dev, handle, size, offset_bytes, ref_counter, ref_counter_offset, event, event_sync
        )
    except Exception as exc:
        raise MalformedOutput(f"the output's IPC handle could not be opened: {type(exc).__name__}") from None
    return storage, size


# ---- parent side: rebuild plain tensors from what the child sent ----


class MalformedOutput(ValueError):
    pass


def decode_value(value: Any, device: str, aliases: dict[str, torch.Tensor] | None = None) -> Any:
    """Rebuild a candidate output; `aliases` are the inputs (by path) the parent shared with the
    child for this call, which an in-place output may name instead of sending its bytes."""
    if value is None or type(value) in (bool, int, float, complex, str):
        return value
    if type(value) is not dict:
        raise MalformedOutput(f"unexpected {type(value).__name__} in the candidate's reply")
    if value.get("__tensor__") is True:
        return decode_tensor(value, device, aliases)
    if "__seq__" in value:
        items = [decode_value(v, device, aliases) for v in value["items"]]
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


def decode_tensor(
    blob: dict[str, Any], device: str, aliases: dict[str, torch.Tensor] | None = None, *, views_ok: bool = False
) -> Any:
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
    by_ipc = "ipc" in blob and device != "cpu"
    alias = blob.get("alias") if device != "cpu" else None
    if alias is not None and not (type(alias) is str and isinstance((aliases or {}).get(alias), torch.Tensor)):
        raise MalformedOutput("the output names an input that was not shared with the candidate")
    if not (
        type(shape) is list
        and type(stride) is list
        and len(shape) == len(stride)
        and type(offset) is int
        and (by_ipc or alias is not None or type(data) is bytes)
        and all(type(x) is int and x >= 0 for x in shape + stride)
        and offset >= 0
    ):
        raise MalformedOutput("tensor metadata is malformed")
    itemsize = torch.empty(0, dtype=dtype).element_size()
    numel = 1
    for s in shape:
        numel *= s
    if alias is not None:
        storage = aliases[alias].untyped_storage()
        storage_bytes = storage.nbytes()
    elif by_ipc:
        storage, storage_bytes = _open_ipc(blob["ipc"], device)
    else:
        storage, storage_bytes = None, len(data)
    if numel and (offset + sum((sz - 1) * st for sz, st in zip(shape, stride, strict=False)) + 1) * itemsize > (
        storage_bytes
    ):
        raise MalformedOutput("tensor extends past its storage")
    if not views_ok and not is_dense(shape, stride) and numel > 1:
        return RejectedTensor(f"output with shape {shape} and strides {stride} is not dense")
    if storage is not None:
        shared = torch.empty(0, dtype=dtype, device=device).set_(storage, offset, shape, stride)
        # a private copy on the device; wait for it before the shared mapping is released, so the
        # child can neither change the output afterwards nor reuse the memory under the copy
        owned = shared.clone(memory_format=torch.preserve_format)
        getattr(torch, device).synchronize()
        del shared, storage
        return owned
    raw = torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
    usable = len(data) // itemsize * itemsize
    flat = raw[:usable].view(dtype) if usable else torch.empty(0, dtype=dtype)
    if numel == 0:
        host = torch.empty(shape, dtype=dtype)
    else:
        host = flat.as_strided(shape, stride, offset)
    return host.to(device) if device != "cpu" else host
