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

The bytes of tensors go through an exchange file (`Exchange`: a memfd made by the parent for one
child, nothing else ever in it) read and written with pread/pwrite, while the messages carry only
offsets: one copy each way instead of torch's zip pickling and a socket. Neither side maps the
file, so a child that truncates it makes a read short (a malformed reply), never a fault in the
parent; every offset it names is bounds-checked and its bytes copied out before they are used.
"""

from __future__ import annotations

import io
import os
import pickle
import socket
import struct
import time
from typing import Any

import torch

from operators.spec import DTYPES

# tensors come through the exchange file, so a message itself is small: one larger than this
# from the candidate is unreadable, and a reply's tensors may not add up to more than its budget
MAX_MESSAGE_BYTES = 64 << 20
MAX_DIMS = 64  # torch's own limit on a tensor's dimensions
MAX_EXTENT = 1 << 48  # no size, stride or offset of a real tensor comes near this
_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


_ALIGN = 64
SEND_TIMEOUT_S = 30.0  # a message to the child is small (tensors go by the exchange file)


class ChannelTimeout(OSError):
    """The other side did not finish a message in time."""


class Channel:
    """The parent's end of the socket to a child, framed as multiprocessing.connection frames it
    (the child uses a plain Connection) but with a deadline on every byte: a child that sends
    half a frame or stops reading cannot hold the parent past its deadline."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def _io_timeout(self, deadline: float) -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ChannelTimeout("time limit reached")
        return remaining

    def send_bytes(self, data: bytes, deadline: float | None = None) -> None:
        deadline = time.monotonic() + SEND_TIMEOUT_S if deadline is None else deadline
        n = len(data)
        header = struct.pack("!i", n) if n <= 0x7FFFFFFF else struct.pack("!iQ", -1, n)
        view = memoryview(header + data) if n < (1 << 20) else None
        for part in (view,) if view is not None else (memoryview(header), memoryview(data)):
            while len(part):
                self.sock.settimeout(self._io_timeout(deadline))
                try:
                    sent = self.sock.send(part)
                except TimeoutError:
                    raise ChannelTimeout("the candidate process stopped reading") from None
                part = part[sent:]

    def _read(self, n: int, deadline: float) -> bytearray:
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            self.sock.settimeout(self._io_timeout(deadline))
            try:
                k = self.sock.recv_into(view[got:])
            except TimeoutError:
                raise ChannelTimeout("time limit reached") from None
            if k == 0:
                raise EOFError("the channel closed")
            got += k
        return buf

    def recv_bytes(self, deadline: float, limit: int) -> bytes:
        (size,) = struct.unpack("!i", self._read(4, deadline))
        if size == -1:
            (size,) = struct.unpack("!Q", self._read(8, deadline))
        if size < 0 or size > limit:
            raise OSError(f"a message of {size} bytes (the limit is {limit})")
        return bytes(self._read(size, deadline))

    def close(self) -> None:
        self.sock.close()


class ExchangeError(ValueError):
    """A tensor's bytes could not be put into or read out of the exchange file."""


class Exchange:
    """The exchange file of one parent/child pair. Each message's tensors are laid out from offset
    0 (`rewind` before a message is written): a message is read whole before the answer to it is
    written, so the two never overlap."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.end = 0
        self.placed: dict[tuple[str, int], int] = {}  # storages already in this message

    @classmethod
    def create(cls) -> Exchange:
        return cls(os.memfd_create("kgb-exchange", os.MFD_CLOEXEC))

    def rewind(self) -> None:
        self.end = 0
        self.placed.clear()

    def put_storage(self, t: torch.Tensor) -> int:
        """The offset of `t`'s whole storage in this message, written once per storage."""
        key = (str(t.device), t.untyped_storage().data_ptr())
        if key not in self.placed:
            self.placed[key] = self.put(_host_bytes(t).numpy(), t.untyped_storage().nbytes())
        return self.placed[key]

    def put(self, data: Any, nbytes: int) -> int:
        """Write `nbytes` from a buffer at the next aligned offset; returns the offset."""
        offset = self.end
        view = memoryview(data).cast("B")
        done = 0
        while done < nbytes:
            done += os.pwrite(self.fd, view[done:nbytes], offset + done)
        self.end = offset + (nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
        return offset

    def take(self, offset: int, nbytes: int) -> bytearray:
        """A private copy of `nbytes` at `offset`; short (the file was cut) is an error."""
        buf = bytearray(nbytes)
        view = memoryview(buf)
        done = 0
        while done < nbytes:
            got = os.preadv(self.fd, [view[done:]], offset + done)
            if got <= 0:
                raise ExchangeError(f"the exchange file ends before byte {offset + nbytes}")
            done += got
        return buf

    def close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


def _host_bytes(t: torch.Tensor, start: int = 0, end: int | None = None) -> torch.Tensor:
    """Bytes [start, end) of `t`'s storage (all of it by default) as a host uint8 tensor: a view
    on the host, a copy of just those bytes from a device."""
    whole = torch.empty(0, dtype=torch.uint8, device=t.device).set_(t.untyped_storage())
    part = whole[start:end]
    return part if t.device.type == "cpu" else part.cpu()


def _span_bytes(t: torch.Tensor) -> torch.Tensor:
    """The bytes of `t`'s storage from its first element to its last, on the host."""
    if t.numel() == 0:
        return torch.empty(0, dtype=torch.uint8)
    itemsize = t.element_size()
    last = t.storage_offset() + sum((size - 1) * step for size, step in zip(t.shape, t.stride(), strict=True))
    return _host_bytes(t, t.storage_offset() * itemsize, (last + 1) * itemsize)


class _ToChildPickler(pickle.Pickler):
    """Pickles a message for the child with every tensor's storage written into the exchange file
    once (views of one storage stay views of one storage in the child)."""

    def __init__(self, file: Any, exchange: Exchange) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.exchange = exchange

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is not torch.Tensor or obj.layout != torch.strided:
            return NotImplemented
        nbytes = obj.untyped_storage().nbytes()
        offset = self.exchange.put_storage(obj) if nbytes else -1
        meta = (_DTYPE_NAMES[obj.dtype], list(obj.shape), list(obj.stride()), obj.storage_offset())
        return _tensor_from_exchange, (offset, nbytes, str(obj.device), *meta, obj.requires_grad)


def dumps_to_child(obj: Any, exchange: Exchange | None = None) -> bytes:
    if exchange is None:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    exchange.rewind()
    out = io.BytesIO()
    _ToChildPickler(out, exchange).dump(obj)
    return out.getvalue()


# the child's side of the exchange: set once at start; the storages of the message being read
CHILD_EXCHANGE: Exchange | None = None
_CHILD_STORAGES: dict[int, torch.Tensor] = {}


def loads_from_parent(data: bytes) -> Any:
    """The child reads its parent's message (trusted: ordinary pickle) and then writes its answer
    from the start of the exchange file."""
    _CHILD_STORAGES.clear()
    try:
        return pickle.loads(data)
    finally:
        _CHILD_STORAGES.clear()
        if CHILD_EXCHANGE is not None:
            CHILD_EXCHANGE.rewind()


def _tensor_from_exchange(
    offset: int,
    nbytes: int,
    device: str,
    dtype_name: str,
    shape: list[int],
    stride: list[int],
    storage_offset: int,
    requires_grad: bool,
) -> torch.Tensor:
    dtype = DTYPES[dtype_name]
    if nbytes == 0:
        return torch.empty_strided(shape, stride, dtype=dtype, device=device).requires_grad_(requires_grad)
    raw = _CHILD_STORAGES.get(offset)
    if raw is None:
        assert CHILD_EXCHANGE is not None
        raw = torch.frombuffer(CHILD_EXCHANGE.take(offset, nbytes), dtype=torch.uint8)
        raw = raw.to(device) if device != "cpu" else raw
        _CHILD_STORAGES[offset] = raw
    flat = raw.view(dtype)
    return flat.as_strided(shape, stride, storage_offset).requires_grad_(requires_grad)


REPLY_SLACK_BYTES = 64 << 20


def reply_budget(output_sizes: list[int], inputs: Any = None) -> int:
    """What a reply to a call may bring back: its outputs twice over (an honest output may view a
    larger buffer of its own), each input's storage as it was sent, and some slack."""
    sent = sum(t.untyped_storage().nbytes() for t in tensor_items(inputs).values())
    return 2 * sum(output_sizes) + sent + REPLY_SLACK_BYTES


def resolve_exchanged(reply: Any, exchange: Exchange, *, budget: int = REPLY_SLACK_BYTES) -> Any:
    """Parent side: replace every tensor blob's exchange reference ("at": [offset, nbytes]) in a
    reply by a private copy of those bytes ("data"), after bounds checks; at most `budget` bytes
    in all (what the parent expects back, so a reply cannot make it allocate more than a few
    times the outputs it asked for)."""
    remaining = budget

    def walk(value: Any, depth: int) -> None:
        nonlocal remaining
        if depth > 12:
            raise MalformedOutput("reply nested too deeply")
        if type(value) is list:
            for item in value:
                walk(item, depth + 1)
        if type(value) is not dict:
            return
        if value.get("__tensor__") is not True or "at" not in value:
            for item in value.values():
                walk(item, depth + 1)
            return
        at = value.pop("at")
        if not (type(at) is list and len(at) == 2 and all(type(x) is int and x >= 0 for x in at)):
            raise MalformedOutput("a tensor's exchange reference is malformed")
        offset, nbytes = at
        if nbytes > remaining:
            raise MalformedOutput("the reply's tensors exceed what the call may bring back (its budget)")
        remaining -= nbytes
        try:
            value["data"] = exchange.take(offset, nbytes) if nbytes else b""
        except (ExchangeError, OSError, OverflowError) as exc:
            raise MalformedOutput(str(exc)) from None

    walk(reply, 0)
    return reply


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("builtins", "complex"):
            return complex
        raise pickle.UnpicklingError(f"refused global {module}.{name} from the candidate process")


MAX_REPLY_NODES = 1 << 20  # containers and values in one reply (a kept output's metadata is a few dozen)
MAX_REPLY_DEPTH = 48


def loads_from_child(data: bytes) -> Any:
    """A reply as plain containers, checked to be a tree: a pickle can share one container many
    times (a few hundred bytes that walk as 60^10 nodes) or nest it deeper than any recursive
    walk over it may go; both are refused here, before anything walks it."""
    value = _PlainUnpickler(io.BytesIO(data)).load()
    check_tree(value)
    return value


def check_tree(value: Any) -> None:
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(value, 0)]
    nodes = 0
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > MAX_REPLY_NODES:
            raise MalformedOutput(f"a reply of more than {MAX_REPLY_NODES} values")
        kind = type(item)
        if kind not in (dict, list, tuple):
            continue
        if depth >= MAX_REPLY_DEPTH:
            raise MalformedOutput(f"a reply nested deeper than {MAX_REPLY_DEPTH}")
        if not item:
            continue  # empty containers are shared freely (the empty tuple is one object)
        if id(item) in seen:
            raise MalformedOutput("a reply that repeats one container (not a tree)")
        seen.add(id(item))
        children = item.values() if kind is dict else item
        stack.extend((child, depth + 1) for child in children)


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
    # only the bytes the view spans go, its offset rebased to them: a small output viewing a huge
    # buffer costs the parent the view, not the buffer
    span = _span_bytes(plain)
    meta = {**_metadata(plain), "offset": 0}
    if CHILD_EXCHANGE is not None and span.numel():
        return {**meta, "at": [CHILD_EXCHANGE.put(span.numpy(), span.numel()), span.numel()]}
    return {**meta, "data": span.numpy().tobytes() if span.numel() else b""}


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


def same_view(blob: Any, original: torch.Tensor) -> bool:
    """Whether a returned tensor blob describes the same view as `original` (metadata only; its
    offset is rebased to the bytes sent)."""
    return (
        type(blob) is dict
        and blob.get("__tensor__") is True
        and blob.get("dtype") == _DTYPE_NAMES.get(original.dtype)
        and blob.get("shape") == list(original.shape)
        and blob.get("stride") == list(original.stride())
    )


def decode_input(blob: Any, device: str) -> Any:
    """An input tensor as the candidate left it. Unlike an output it may be any view the harness
    handed over, dense or not."""
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
        and type(data) in (bytes, bytearray)
        and len(shape) <= MAX_DIMS
        and all(type(x) is int and 0 <= x < MAX_EXTENT for x in shape + stride)
        and 0 <= offset < MAX_EXTENT
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
    # a bytearray is already this side's own copy (from the exchange file)
    writable = data if type(data) is bytearray else bytearray(data)
    raw = torch.frombuffer(writable, dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
    usable = len(data) // itemsize * itemsize
    flat = raw[:usable].view(dtype) if usable else torch.empty(0, dtype=dtype)
    try:
        host = torch.empty(shape, dtype=dtype) if numel == 0 else flat.as_strided(shape, stride, offset)
        return host.to(device) if device != "cpu" else host
    except (RuntimeError, TypeError, ValueError, OverflowError) as exc:  # whatever torch refuses is malformed
        raise MalformedOutput(f"tensor metadata torch refuses: {type(exc).__name__}") from None
