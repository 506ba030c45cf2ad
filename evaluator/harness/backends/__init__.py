"""Device backends: everything the harness needs to know about one kind of device.

The harness is device-neutral: it names devices only through a `Backend` looked up by torch
device type. `cuda` (NVIDIA, and AMD/Iluvatar/MetaX/Hygon through their CUDA-compatible torch) and
`cpu` (the Triton interpreter; correctness only, never timing) are real; `npu`, `musa`, `xpu` and
`mlu` are generic backends over the vendor's `torch.<type>` module, registered the same way, so a
vendor port only has to fill in what differs. Tests register fake backends with `register()`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

FLUSH_MODES = ("write", "read")  # how timing.Flusher empties L2 before each timed call
CLOCKS = ("events", "kernel")  # what times a call of ~20 µs and more (timing.py, kernel_clock.py)
DEFAULT_TIMING_PROTOCOL = "write:events"  # do_bench's: what upstream KernelGenBench's speedups use


def parse_timing_protocol(text: object) -> tuple[str, str]:
    """(flush, clock) of a "FLUSH:CLOCK" timing protocol; ValueError naming the choices otherwise."""
    flush, _, clock = text.partition(":") if isinstance(text, str) else ("", "", "")
    if flush not in FLUSH_MODES or clock not in CLOCKS:
        raise ValueError(f"a timing protocol is FLUSH:CLOCK with FLUSH in {FLUSH_MODES} and CLOCK in {CLOCKS}")
    return flush, clock


@dataclasses.dataclass(frozen=True)
class Peaks:
    """A chip's measured ceilings, for speed-of-light floors and %SOL."""

    bandwidth_bytes_per_s: float
    flops_per_s: dict[str, float]  # by dtype name; "default" applies to dtypes not listed
    l2_bytes: int

    def flops_for(self, dtype: str) -> float:
        return self.flops_per_s.get(dtype, self.flops_per_s.get("default", 0.0))


class Backend:
    """One torch device type. Subclasses override what their vendor does differently."""

    device_type: str = ""
    dispatch_key: str = ""  # torch dispatcher key for kernels on this device ("CPU", ...)
    autograd_key: str = ""  # the matching Autograd key, so CompositeImplicitAutograd ops reach the candidate
    interpreter: bool = False  # Triton runs through its CPU interpreter (no timing, bf16 casts truncate)
    supports_timing: bool = False
    # Triton's compiled launches can be recorded in the candidate process and replayed from their
    # binaries in another (replay.py): timing never runs where candidate code runs
    replays_launches: bool = False
    # torch.<device module> calls a solution may make (extends the upstream ALLOWED_TORCH_API list)
    allowed_torch_api: tuple[str, ...] = ()
    # device-specific attributes a solution may not touch (graph capture, stream tricks)
    banned_attributes: tuple[str, ...] = ()
    # environment variables the candidate process keeps (device visibility and the like)
    env_allowlist: tuple[str, ...] = ()

    def available(self) -> bool:
        raise NotImplementedError

    def device_module(self) -> Any:
        import torch

        return getattr(torch, self.device_type)

    def child_env(self, workdir: str) -> dict[str, str]:
        """Extra environment for the candidate process on this device (caches under `workdir`)."""
        return {}

    def initialise(self) -> None:
        """Create the device context in the current process (a warm child does this once)."""
        import torch

        torch.zeros(1, device=self.device_type)
        self.synchronize()
        from evaluator.harness.backends.warmup import warm_up_compiler

        warm_up_compiler(self.device_type)

    def synchronize(self) -> None:
        self.device_module().synchronize()

    def device_name(self) -> str:
        return self.device_module().get_device_name()

    def driver(self) -> str:
        return ""

    def l2_bytes(self) -> int:
        return 0

    def default_peaks(self) -> Peaks | None:
        return None

    def event(self) -> Any:
        """A timing event with record()/elapsed_time(other) in ms, as torch.cuda.Event."""
        return self.device_module().Event(enable_timing=True)

    def graph(self) -> Any | None:
        """A graph-capture object (torch.cuda.CUDAGraph-like) or None when unsupported."""
        return None

    def graph_context(self, graph: Any) -> Any:
        raise NotImplementedError

    graph_method: str = "graph"  # the result's timing.method name for graph-replay timing
    flush_min_bytes: int = 256 << 20  # the L2 flush writes at least this much (as do_bench's 256 MB)

    def spin(self, microseconds: float) -> None:
        """Keep the device busy for about this long so the host can enqueue a timed call before the
        start event fires (host launch latency then stays out of the measured interval)."""

    def reset_persisting_l2(self) -> None:
        """Drop lines pinned by an access-policy window, so a kernel cannot survive the flush."""

    # part of the name of spin()'s kernel in kernel_trace()'s records, which no Triton kernel can
    # carry: the kernel clock's markers around each timed call
    kernel_clock_marker: str = ""

    def kernel_trace(self) -> Any | None:
        """A context manager recording the device's own timestamps of the work it runs, with
        `.activities()` (kernel_clock.KinetoTrace), or None where the device keeps no such record;
        the kernel clock then falls back to events."""
        return None


_REGISTRY: dict[str, Callable[[], Backend]] = {}


def register(device_type: str, factory: Callable[[], Backend]) -> None:
    _REGISTRY[device_type] = factory


def unregister(device_type: str) -> None:
    _REGISTRY.pop(device_type, None)


def known_device_types() -> list[str]:
    return list(_REGISTRY)


def get_backend(device_type: str) -> Backend:
    try:
        return _REGISTRY[device_type]()
    except KeyError:
        raise ValueError(f"unknown device type {device_type!r}; known: {', '.join(_REGISTRY)}") from None


def default_device_type() -> str:
    """The machine's accelerator if one answers, else cpu."""
    for device_type in _REGISTRY:
        if device_type == "cpu":
            continue
        try:
            if get_backend(device_type).available():
                return device_type
        except Exception:  # a vendor module that fails to load means "not this machine"
            continue
    return "cpu"


def allowed_torch_api_all() -> set[str]:
    """The union of every backend's device APIs: a solution written for one chip stays legal on another."""
    names: set[str] = set()
    for factory in _REGISTRY.values():
        names.update(factory().allowed_torch_api)
    return names


def banned_attributes_all() -> set[str]:
    names: set[str] = set()
    for factory in _REGISTRY.values():
        names.update(factory().banned_attributes)
    return names


def _register_builtin() -> None:
    from evaluator.harness.backends import cpu, cuda, generic

    register("cpu", cpu.CpuBackend)
    register(cuda.CudaBackend.device_type, cuda.CudaBackend)
    for vendor in generic.VENDOR_BACKENDS:
        register(vendor.device_type, vendor)


_register_builtin()
