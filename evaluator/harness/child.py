"""The candidate process. Untrusted once the candidate is loaded: nothing it reports is believed
without the parent checking it.

Life of one child: started by the pool with a scrubbed environment; walls itself in
(sandbox.py: namespaces, read-only mounts, private tmp, its own uid, seccomp) before importing
anything heavy; imports torch and triton and initialises the device; reports ready; then serves
exactly one candidate (load, several calls, a ghost replay, timing) and is killed. Run as
`python -m evaluator.harness.child FD module:BackendClass SANDBOX_SPEC_JSON events|kernel`.
"""

from __future__ import annotations

import enum
import os
import sys
import time
import traceback
from typing import Any

# aten ops (overload packet names) that make or fill a buffer without reading input values: also
# what the launch replay may run between launches (replay.REPLAYED_ATEN)
MAKING_ATEN = frozenset(
    {
        "empty",
        "empty_like",
        "empty_strided",
        "new_empty",
        "new_empty_strided",
        "new_zeros",
        "new_ones",
        "new_full",
        "zeros",
        "zeros_like",
        "ones",
        "ones_like",
        "full",
        "full_like",
        "fill_",
        "zero_",
        "arange",
        "scalar_tensor",
        "rand",
        "randn",
        "randint",
        "rand_like",
        "randn_like",
        "uniform_",
        "normal_",
        "random_",
        "linspace",
        "logspace",
    }
)
# aten ops a candidate may run itself: those, metadata, views, copies (not the conjugate and
# negative views, nor resolving them: a copy of one is the arithmetic)
ALLOWED_ATEN = MAKING_ATEN | frozenset(
    {
        "view",
        "_unsafe_view",
        "reshape",
        "_reshape_alias",
        "as_strided",
        "expand",
        "expand_as",
        "permute",
        "transpose",
        "t",
        "contiguous",
        "clone",
        "copy_",
        "_to_copy",
        "to",
        "detach",
        "alias",
        "lift_fresh",
        "lift_fresh_copy",
        "select",
        "slice",
        "squeeze",
        "unsqueeze",
        "flatten",
        "unflatten",
        "narrow",
        "split",
        "split_with_sizes",
        "unbind",
        "chunk",
        "view_as",
        "resize_",
        "set_",
        "item",
        "_local_scalar_dense",
        "sym_size",
        "sym_stride",
        "sym_numel",
        "sym_storage_offset",
        "is_same_size",
        "movedim",
        "swapaxes",
        "diagonal",
        "unfold",
        "view_as_real",
        "view_as_complex",
        "real",
        "imag",
        "numpy_T",
        "is_nonzero",
        "_has_compatible_shallow_copy_type",
        "empty_permuted",
        "tensor_split",
        "dim",
        "size",
        "stride",
        "numel",
        "is_contiguous",
        "record_stream",
        # dtype and broadcasting helpers (no data is read): what honest wrappers ask before launching
        "promote_types",
        "result_type",
        "can_cast",
        "is_floating_point",
        "is_complex",
        "is_signed",
        "is_non_overlapping_and_dense",
        "sym_is_contiguous",
        "broadcast_to",
        "squeeze_",
        "unsqueeze_",
        "transpose_",
        "t_",
        "as_strided_",
        "detach_",
    }
)


RLIMIT_AS_ENV = "KGB_RLIMIT_AS"  # set by pool.Child when no cgroup holds this process
ADDRESS_SPACE_LIMIT_BYTES: int | None = None


def limit_address_space() -> None:
    """Apply the RLIMIT_AS the pool chose, before torch is imported, for this process and whatever
    it starts; remembered so that an allocation failing on it can be reported as such."""
    global ADDRESS_SPACE_LIMIT_BYTES
    value = os.environ.pop(RLIMIT_AS_ENV, "")
    if not value:
        return
    import resource

    ADDRESS_SPACE_LIMIT_BYTES = int(value)
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT_BYTES, ADDRESS_SPACE_LIMIT_BYTES))


def _host_memory_prefix(exc: BaseException) -> str:
    """The reason's prefix when `exc` is an allocation that failed on the address-space limit."""
    if ADDRESS_SPACE_LIMIT_BYTES is None:
        return ""
    text = str(exc)
    # torch's CPU allocator raises RuntimeError("... DefaultCPUAllocator: not enough memory ...")
    if isinstance(exc, MemoryError) or "not enough memory" in text or "Cannot allocate memory" in text:
        return f"exceeded the host memory limit of {ADDRESS_SPACE_LIMIT_BYTES / (1 << 30):.3g} GiB: "
    return ""


class State:
    """What the harness side of the child tracks during candidate calls."""

    def __init__(self) -> None:
        self.in_candidate = 0
        self.in_triton = 0
        self.calls = 0
        self.launches = 0
        self.ghost = False
        self.tracing = False
        self.trace: list[str] = []
        self.suspend_registration: Any = None  # set while candidate wrappers are registered (ATen)
        # storages (by address) the candidate handed to a Triton launch during this call, its
        # inputs included (a launch may write into one): reading one back on the host mid-call is
        # how a wrapper tells a real call from the ghost replay (a canary kernel)
        self.launched: set[int] = set()
        self.launched_elements_read = 0
        # what the candidate read back of launch-written buffers, in order, per case (its first
        # real call); the ghost replay of that case serves these instead of what the switched-off
        # launches left, so a canary cannot tell the ghost from a real call
        self.readbacks: dict[str, list[Any]] = {}
        self.recording: list[Any] | None = None
        self.replaying: list[Any] | None = None
        self.served = 0  # recorded reads served in this ghost call
        self.input_elements_read = 0  # input values the candidate read on the host this call
        self.value_storages: set[int] = set()  # the inputs' storages and copies or views of them
        self.recorder: Any = None  # replay.Recorder while the call to be replayed elsewhere runs

    def reset(self, inputs: Any = None) -> None:
        self.calls = 0
        self.launches = 0
        self.trace = []
        self.launched = set()
        self.launched_elements_read = 0
        self.recording = None
        self.replaying = None
        self.served = 0
        self.value_storages = {_storage_of(t) for t in _tensors_in(inputs)}
        self.input_elements_read = 0


def _tensors_in(value: Any) -> list[Any]:
    from evaluator.harness.wire import tensor_items

    return list(tensor_items(value).values())


def _storage_of(t: Any) -> int:
    try:
        return int(t.untyped_storage().data_ptr())
    except Exception:  # a tensor without storage (meta, sparse) is no launch buffer
        return 0


HOST_READS = frozenset({"_local_scalar_dense", "item", "is_nonzero", "equal"})
VALUELESS_OPS = ("empty", "new_", "zeros", "ones", "full", "rand", "arange", "linspace", "logspace", "scalar_tensor")
HOST_READ_ELEMENTS = 4  # input values a wrapper may read on the host per call (scalar operands)


def _host_read_tensors(name: str, args: Any, kwargs: Any) -> list[Any]:
    """The tensors an aten op reads on the host: a scalar read, or a copy of a device buffer to
    the host (a device-to-device copy or a dtype change is ordinary device work)."""
    if not args:
        return []
    if name in HOST_READS:
        return _tensors_in(list(args))
    if name in ("_to_copy", "to"):
        target = (kwargs or {}).get("device")
        if target is not None and str(target).startswith("cpu") and _on_device(args[0]):
            return [args[0]]
    if name == "copy_" and len(args) > 1:
        if getattr(getattr(args[0], "device", None), "type", None) == "cpu" and _on_device(args[1]):
            return [args[1]]
    return []


READBACK_RECORD_MAX = 64  # values of launch-written buffers recorded per call for the ghost replay


def _note_host_reads(tensors: list[Any]) -> list[Any]:
    """Count host reads of the inputs' values and of buffers this call's own launches wrote
    (beyond HOST_READ_ELEMENTS of either, the call's end reports host arithmetic); returns the
    launch-written ones, whose values the real call records and the ghost replay serves."""
    launched = []
    for t in tensors:
        storage = _storage_of(t)
        if storage in STATE.launched:
            STATE.launched_elements_read += int(t.numel())
            launched.append(t)
        elif storage in STATE.value_storages:
            STATE.input_elements_read += int(t.numel())
    return launched


def _flat_values(t: Any) -> list[Any]:
    return _ORIGINAL_TOLIST(t.detach().reshape(-1).cpu()) if t.numel() <= READBACK_RECORD_MAX else []


def _record(values: list[Any]) -> None:
    if STATE.recording is not None and len(STATE.recording) < READBACK_RECORD_MAX:
        STATE.recording.append(values)


def _replayed(like: Any) -> Any:
    """The next value the real call read (None when there is none or its size differs)."""
    import torch

    if not STATE.replaying:
        return None
    values = STATE.replaying.pop(0)
    if len(values) != like.numel():
        return None
    STATE.served += 1
    return torch.tensor(values, dtype=like.dtype).reshape(like.shape)


def _serve_read(name: str, func: Any, args: Any, kwargs: Any, served: Any) -> Any:
    """The result a host read would have had with the recorded values (the ghost replay)."""
    if name in HOST_READS:
        value = served.reshape(-1)[0].item() if served.numel() else 0
        return bool(value) if name in ("is_nonzero", "equal") else value
    if name == "copy_":
        return args[0].copy_(served)
    return served.to(dtype=(kwargs or {}).get("dtype") or served.dtype)


def _on_device(t: Any) -> bool:
    return getattr(getattr(t, "device", None), "type", "cpu") != "cpu"


def _patch_host_reads() -> None:
    """tolist() and numpy() read a host tensor's memory without an aten op: note them too."""
    import torch

    global _ORIGINAL_TOLIST
    _ORIGINAL_TOLIST = torch.Tensor.tolist

    for method in ("tolist", "numpy"):
        original = getattr(torch.Tensor, method)

        def read(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            if STATE.in_candidate and _note_host_reads([self]):
                if STATE.ghost:
                    served = _replayed(self)
                    if served is not None:
                        return _original(served, *args, **kwargs)
                else:
                    _record(_flat_values(self))
            return _original(self, *args, **kwargs)

        setattr(torch.Tensor, method, read)


STATE = State()
_ORIGINAL_TOLIST: Any = None  # torch.Tensor.tolist before _patch_host_reads (records use it)


def _as_candidate_code(fn: Any) -> Any:
    """`fn` (a grid callable or a pre-run hook the candidate handed to Triton) runs traced, like
    the rest of the candidate's host code, although Triton calls it from inside a launch."""
    if not callable(fn):
        return fn

    def traced(*args: Any, **kwargs: Any) -> Any:
        saved, STATE.in_triton = STATE.in_triton, 0
        try:
            return fn(*args, **kwargs)
        finally:
            STATE.in_triton = saved

    return traced


def _autotune_first_config_on_interpreter() -> None:
    """Under Triton's interpreter an autotuner with several configs cannot benchmark them (there is
    no driver to time with: "0 active drivers"), so every autotuned kernel would fail on the cpu
    runner. There it runs the first config that survives the candidate's own pruning; timing,
    and so the choice between configs, belongs to devices."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        return
    from triton.runtime import autotuner

    original = autotuner.Autotuner.prune_configs

    def prune_configs(self: Any, kwargs: dict[str, Any], *rest: Any) -> list[Any]:
        return list(original(self, kwargs, *rest))[:1]

    autotuner.Autotuner.prune_configs = prune_configs


def _as_triton_work(fn: Any) -> Any:
    """The interpreter's own copies of a launch's arguments to the host and back: Triton's work,
    untraced, and done by the built-in kernels (not a registered candidate's)."""

    def work(*args: Any, **kwargs: Any) -> Any:
        STATE.in_triton += 1
        try:
            if STATE.suspend_registration is not None and STATE.in_triton == 1:
                with STATE.suspend_registration():
                    return fn(*args, **kwargs)
            return fn(*args, **kwargs)
        finally:
            STATE.in_triton -= 1

    return work


def _is_plain_argument(value: Any, depth: int = 0) -> bool:
    """A value Triton may take as a kernel argument without running the candidate's code: exact
    tensors, numbers, strings, dtypes, Triton's own objects (wrappers, descriptors, constexprs,
    its dtypes) whose every field is plain too, and tuples or lists of these."""
    import torch

    kind = type(value)
    if kind in (int, float, bool, str, type(None), torch.dtype, torch.device, torch.Tensor):
        return True
    if depth > 4:
        return False
    if kind in (tuple, list, torch.Size):
        return all(_is_plain_argument(v, depth + 1) for v in value)
    module = kind.__module__ if type(kind.__module__) is str else ""
    if module == "numpy" and kind.__name__ in _NUMPY_SCALARS:
        return True
    if module.startswith("triton.") and type(kind) is enum.EnumMeta:
        return True  # an enum member of Triton's (a dtype's signedness)
    if module.startswith("triton.") and type(kind) is type:
        fields = object.__getattribute__(value, "__dict__") if hasattr(kind, "__dict__") else {}
        return all(_is_plain_argument(v, depth + 1) for v in dict(fields).values())
    return False


_NUMPY_SCALARS = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_"})


def _refuse_foreign_arguments(args: Any, kwargs: Any) -> None:
    """Triton calls methods of what a kernel is given (`data_ptr`, `untyped_storage`, ...) in its
    own, untraced launch code: an object of the candidate's would run its own code there."""
    for name, value in [*enumerate(args), *kwargs.items()]:
        if name in ("grid", "warmup") or _is_plain_argument(value):
            continue
        raise TypeError(
            f"kernel argument {name!r}: a {type(value).__name__} may not be passed to a Triton kernel "
            "(tensors, numbers, strings, dtypes and Triton's own objects may)"
        )


def _patch_triton_launches() -> None:
    """Count launches made while candidate code runs, and let the ghost replay switch them off.
    Only Triton's own work inside a launch goes untraced: the grid callable and the pre-run hooks
    the candidate passes are candidate code and are traced. On the interpreter a kernel's body is
    Python run on the host, so only the argument copies around it are Triton's work: the body
    itself (and whatever it calls) is traced like the wrapper."""
    from triton.runtime import jit

    classes: list[Any] = [jit.JITFunction]
    if os.environ.get("TRITON_INTERPRET") == "1":
        from triton.runtime import interpreter

        classes.append(interpreter.InterpretedFunction)
        executor = interpreter.GridExecutor
        executor._init_args_hst = _as_triton_work(executor._init_args_hst)
        executor._restore_args_dev = _as_triton_work(executor._restore_args_dev)
    for cls in classes:
        original = cls.run

        interpreted = cls is not jit.JITFunction

        def run(
            self: Any, *args: Any, _original: Any = original, interpreted: bool = interpreted, **kwargs: Any
        ) -> Any:
            hooks = None
            if STATE.in_candidate:
                _refuse_foreign_arguments(args, kwargs)
                # inputs too: a launch may write into an input (a canary in the input's own storage)
                for t in _tensors_in(list(args)) + _tensors_in(dict(kwargs)):
                    storage = _storage_of(t)
                    if storage:
                        STATE.launched.add(storage)
                if STATE.ghost and interpreted:
                    return None  # the interpreter's run returns nothing either way
                if not kwargs.get("warmup") and not STATE.ghost:
                    STATE.launches += 1
                if "grid" in kwargs:
                    kwargs["grid"] = _as_candidate_code(kwargs["grid"])
                hooks = getattr(self, "pre_run_hooks", None)
                if hooks:
                    self.pre_run_hooks = [_as_candidate_code(hook) for hook in hooks]
            # the interpreter marks its own argument copies as Triton's work (_as_triton_work)
            if not interpreted:
                STATE.in_triton += 1
            try:
                return _original(self, *args, **kwargs)
            finally:
                if not interpreted:
                    STATE.in_triton -= 1
                if hooks:
                    self.pre_run_hooks = hooks

        cls.run = run
    if os.environ.get("TRITON_INTERPRET") != "1":
        _patch_compiled_launcher()


def _no_launch(*args: Any) -> None:
    return None


def _patch_compiled_launcher() -> None:
    """While a call is recorded for the replayer, every compiled launch is noted (binary, grid,
    arguments) as it goes to Triton's launcher."""
    import inspect

    from triton.compiler import compiler

    launcher = inspect.getattr_static(compiler.CompiledKernel, "run")

    def run(self: Any) -> Any:
        real = launcher.fget(self)
        if STATE.ghost and STATE.in_candidate:
            # the ghost replay: Triton's whole launch path runs (grid callable, hooks, compile, the
            # kernel object returned) and only the launch itself does nothing, so the wrapper
            # sees what a real call sees
            return _no_launch
        if STATE.recorder is None:
            return real

        def recorded(grid_x: int, grid_y: int, grid_z: int, stream: Any, function: Any, *rest: Any) -> Any:
            if STATE.recorder is not None:
                STATE.recorder.launch(self, (grid_x, grid_y, grid_z), tuple(rest[4:]))
            return real(grid_x, grid_y, grid_z, stream, function, *rest)

        return recorded

    compiler.CompiledKernel.run = property(run)


def _make_trace_mode(*, always: bool = False) -> Any:
    """The dispatch trace: aten ops the candidate's host code runs outside Triton, other than
    ALLOWED_ATEN, while a candidate call is in progress (`always`: at any time, for threads the
    candidate starts)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Trace(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            name = func.overloadpacket.__name__
            if (always or STATE.in_candidate) and not STATE.in_triton:
                launched_reads: list[Any] = []
                if name not in ALLOWED_ATEN and len(STATE.trace) < 64:
                    where = " in a thread" if always else ""
                    STATE.trace.append(f"ran aten op {func} itself{where} (torch arithmetic)")
                else:
                    launched_reads = _note_host_reads(_host_read_tensors(name, args, kwargs))
                if launched_reads and STATE.ghost:
                    served = _replayed(launched_reads[0])
                    if served is not None:
                        return _serve_read(name, func, args, kwargs, served)
                if launched_reads and not STATE.ghost:
                    _record(_flat_values(launched_reads[0]))
            result = func(*args, **(kwargs or {}))
            if STATE.recorder is not None and not STATE.in_triton:
                STATE.recorder.aten(func, args, kwargs, result, in_candidate=bool(always or STATE.in_candidate))
            if STATE.in_candidate and not STATE.in_triton and not name.startswith(VALUELESS_OPS):
                # copies, views and conversions of inputs carry input values: reads of them count too
                if any(_storage_of(t) in STATE.value_storages for t in _tensors_in(list(args))):
                    STATE.value_storages.update(_storage_of(t) for t in _tensors_in(result))
            return result

    return Trace()


def _trace_threads() -> None:
    """A dispatch mode belongs to one thread: every thread started from here on runs under a trace
    of its own, so torch work moved into a thread is seen too."""
    import _thread
    import threading

    bootstrap = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def traced_bootstrap(self: Any) -> None:
        with _make_trace_mode(always=True):
            bootstrap(self)

    threading.Thread._bootstrap_inner = traced_bootstrap  # type: ignore[attr-defined]
    start_new = _thread.start_new_thread

    def traced_start(function: Any, args: Any, kwargs: Any = None) -> Any:
        def body(*a: Any, **k: Any) -> Any:
            with _make_trace_mode(always=True):
                return function(*a, **k)

        return start_new(body, args, kwargs or {})

    _thread.start_new_thread = traced_start


def trace_is_on(trace_mode: Any) -> bool:
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    return any(mode is trace_mode for mode in _get_current_dispatch_mode_stack())


def _shim(fn: Any) -> Any:
    def candidate_entry(*args: Any, **kwargs: Any) -> Any:
        STATE.calls += 1
        STATE.in_candidate += 1
        try:
            return fn(*args, **kwargs)
        finally:
            STATE.in_candidate -= 1

    return candidate_entry


class Candidate:
    def __init__(self, spec: Any, module: Any, backend: Any) -> None:
        self.spec = spec
        self.module = module
        self.backend = backend

    def aten_wrappers(self) -> dict[str, Any]:
        """overload name -> shimmed wrapper, for every overload the solution defines."""
        import torch

        packet = getattr(torch.ops.aten, self.spec.name)
        wrappers: dict[str, Any] = {}
        for overload in packet.overloads():
            name = self.spec.name if overload == "default" else f"{self.spec.name}_{overload.replace('.', '_')}"
            fn = getattr(self.module, name, None)
            if callable(fn):
                wrappers[overload] = _shim(fn)
        return wrappers

    def registered(self) -> Any:
        """A context manager: the candidate's wrappers live in the dispatcher only inside it."""
        import contextlib
        import warnings

        import torch

        spec = self.spec
        candidate = self

        wrappers = candidate.aten_wrappers() if spec.source == "aten" else {}

        def register() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                library = torch.library.Library("aten", "IMPL")
                for overload, wrapper in wrappers.items():
                    qualified = spec.name if overload == "default" else f"{spec.name}.{overload}"
                    for key in (candidate.backend.dispatch_key, candidate.backend.autograd_key):
                        try:
                            library.impl(qualified, wrapper, key)
                        except RuntimeError:
                            continue  # an overload without tensor arguments cannot take a device kernel
            return library

        @contextlib.contextmanager
        def scope() -> Any:
            if spec.source != "aten":
                yield
                return
            holder = {"library": register()}

            @contextlib.contextmanager
            def suspended() -> Any:
                # the Triton interpreter copies results back with aten ops (copy_, ...): while it
                # runs, those must reach the built-in kernels, not a registered candidate
                holder["library"]._destroy()
                try:
                    yield
                finally:
                    holder["library"] = register()

            STATE.suspend_registration = suspended
            try:
                yield
            finally:
                STATE.suspend_registration = None
                holder["library"]._destroy()

        return scope()

    def impl(self) -> Any:
        if self.spec.source == "aten":
            return None
        return _shim(getattr(self.module, self.spec.entrypoints[0]))


def _poison(sizes: list[int], device: str) -> None:
    """Allocate and free NaN-filled blocks the size of the expected outputs, so that an output
    the candidate allocates but never writes reads as NaN, not as an earlier answer."""
    import torch

    for nbytes in sizes:
        if nbytes > 0:
            block = torch.full((max(1, (nbytes + 3) // 4),), float("nan"), dtype=torch.float32, device=device)
            del block


def _error_reply(kind: str, exc: BaseException) -> dict[str, Any]:
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {
        "type": "error",
        "kind": kind,
        "message": f"{_host_memory_prefix(exc)}{type(exc).__name__}: {exc}"[:2000],
        "traceback": "".join(tb)[-4000:],
    }


def _classify(exc: BaseException) -> str:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return "compile_error" if "CompilationError" in names else "runtime_error"


def load_backend(ref: str) -> Any:
    import importlib

    module_name, _, qualname = ref.partition(":")
    return getattr(importlib.import_module(module_name), qualname)()


def serve(conn: Any, backend: Any) -> None:
    import pickle

    from evaluator.harness import specs, wire

    def send(obj: dict[str, Any]) -> None:
        conn.send_bytes(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))

    def receive() -> dict[str, Any]:
        return wire.loads_from_parent(conn.recv_bytes())

    job = receive()
    if job.get("type") == "replayer":
        _serve_replays(job, backend, send, receive)
        return
    if job.get("type") != "load":
        return
    spec = specs.load(tuple(job["locator"]))
    path = os.path.join(os.getcwd(), job["file_name"])
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(job["source"])
    import importlib.util

    try:
        module_spec = importlib.util.spec_from_file_location("kgb_candidate", path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules["kgb_candidate"] = module
        module_spec.loader.exec_module(module)
    except BaseException as exc:  # the candidate's import failing in any way is its compile error
        send(_error_reply("compile_error", exc))
        return
    missing = [name for name in spec.entrypoints if not callable(getattr(module, name, None))]
    if missing:
        send({"type": "missing", "missing": missing})
        return
    candidate = Candidate(spec, module, backend)
    send({"type": "loaded"})
    trace_mode = _make_trace_mode()

    while True:
        msg = receive()
        try:
            if not _handle(msg, candidate, backend, spec, trace_mode, send):
                return
        except BaseException as exc:  # a failure of the harness side of this process: report it, then stop
            send(_error_reply("runtime_error", exc) | {"harness": True})
            return
        finally:
            del msg  # drop device tensors shared by the parent before waiting for the next message


def _handle(msg: dict[str, Any], candidate: Any, backend: Any, spec: Any, trace_mode: Any, send: Any) -> bool:
    """Serve one message; False when the child must stop (bye, or the candidate failed)."""
    import torch

    from evaluator.harness import wire

    device = backend.device_type
    kind = msg.get("type")
    if kind == "bye":
        return False
    if kind == "record":
        reply = _record_call(msg, candidate, backend, spec, trace_mode)
        send(reply)
        return reply.get("type") != "error"
    if kind == "time":
        from evaluator.harness import timing

        reply = timing.run_in_child(msg, candidate, backend, STATE, send_error=_error_reply)
        send(reply)
        return reply.get("type") != "error"
    inputs = msg["inputs"]
    _poison(msg.get("poison", []), device)
    STATE.reset(inputs)
    STATE.ghost = kind == "ghost"
    case_key = str(msg.get("case_key", ""))
    if STATE.ghost:
        STATE.replaying = [list(v) for v in STATE.readbacks.get(case_key, [])]
    elif case_key and case_key not in STATE.readbacks:
        STATE.recording = STATE.readbacks[case_key] = []
    started = time.perf_counter()
    try:
        with torch.no_grad(), candidate.registered():
            if msg.get("trace", True):
                with trace_mode:
                    out = spec.invoke(candidate.impl(), inputs)
                    if not trace_is_on(trace_mode):
                        STATE.trace.append("switched the dispatch trace off during the call")
            else:
                out = spec.invoke(candidate.impl(), inputs)
        backend.synchronize()
        if STATE.input_elements_read > HOST_READ_ELEMENTS:
            STATE.trace.append(
                f"read {STATE.input_elements_read} input values on the host during the call (host arithmetic)"
            )
        if STATE.input_elements_read and STATE.launched_elements_read:
            # the ghost replay serves a real call's kernel results with the inputs of a fresh
            # draw: comparing the two on the host is how a wrapper tells it from a real call
            STATE.trace.append(
                "read both input values and values its Triton launches wrote on the host in one call "
                "(a canary that tells the ghost replay from a real call)"
            )
        if STATE.launched_elements_read > HOST_READ_ELEMENTS:
            STATE.trace.append(
                f"read back {STATE.launched_elements_read} values its Triton launches wrote during the call "
                "on the host (host arithmetic on device results)"
            )
    except BaseException as exc:  # any failure inside the candidate is its runtime error
        STATE.ghost = False
        send(_error_reply(_classify(exc), exc))
        return kind == "ghost"
    STATE.ghost = False
    elapsed = time.perf_counter() - started
    reply = {
        "type": "result",
        "calls": STATE.calls,
        "launches": STATE.launches,
        "trace": list(STATE.trace),
        "read_back": STATE.launched_elements_read,
        "served": STATE.served,
        "elapsed_s": elapsed,
        "output": wire.encode_value(out),
        "inputs_after": {k: wire.encode_tensor(v) for k, v in wire.tensor_items(inputs).items()},
    }
    send(reply)
    return True


def _record_call(msg: dict[str, Any], candidate: Any, backend: Any, spec: Any, trace_mode: Any) -> dict[str, Any]:
    """One warm-up call (compiling, autotuning), then one call recorded for the replayer, on
    input sets drawn from the parent's seeds."""
    import torch
    from triton.compiler.compiler import make_backend
    from triton.runtime import driver

    from evaluator.harness import replay
    from operators.spec import Rng

    try:
        warm, recorded = (spec.make_inputs(msg["case"], Rng(int(seed), backend.device_type)) for seed in msg["seeds"])
        binary_ext = str(make_backend(driver.active.get_current_target()).binary_ext)
        with torch.no_grad(), candidate.registered(), trace_mode:
            STATE.reset(warm)
            spec.invoke(candidate.impl(), warm)
            backend.synchronize()
            STATE.reset(recorded)
            STATE.recorder = replay.Recorder(
                recorded, top_level_op=spec.name if spec.source == "aten" else None, binary_ext=binary_ext
            )
            try:
                out = spec.invoke(candidate.impl(), recorded)
                backend.synchronize()
            finally:
                recorder, STATE.recorder = STATE.recorder, None
    except BaseException as exc:  # the candidate failed while being recorded
        return _error_reply(_classify(exc), exc)
    try:
        return {"type": "recording", "recording": recorder.finish(out)}
    except replay.NotReplayable as exc:
        return {"type": "unreplayable", "message": str(exc)[:500]}


def _serve_replays(job: dict[str, Any], backend: Any, send: Any, receive: Any) -> None:
    """The replayer: never loads a solution; times recorded programs (replay.serve) until bye."""
    from evaluator.harness import replay, specs

    spec = specs.load(tuple(job["locator"]))
    loaded: dict[str, Any] = {}
    while True:
        msg = receive()
        if msg.get("type") != "replay":
            return
        send(replay.serve(msg, spec=spec, backend=backend, workdir=os.getcwd(), loaded=loaded))
        del msg


def _preload_catalog() -> None:
    """Import the operator catalog while warming up, so loading a candidate does not pay for it."""
    try:
        from operators import registry

        registry.all_specs()
    except Exception:  # a broken catalog module shows up later, for the operator that needs it
        pass


def main() -> None:
    fd, ref, spec_arg = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    kernel_clock = sys.argv[4] == "kernel"
    exchange_fd = int(sys.argv[5])
    import pickle
    from multiprocessing.connection import Connection

    from evaluator.harness import sandbox

    conn = Connection(fd)
    conn.recv_bytes()  # "placed": the parent has put this process into its cgroup
    try:
        walled = sandbox.enter(sandbox.SandboxSpec.from_arg(spec_arg), keep_fds={fd, exchange_fd})
    except Exception as exc:  # never go on with a weaker wall than asked: the pool steps down itself
        conn.send_bytes(pickle.dumps({"type": "broken", "message": f"sandbox: {type(exc).__name__}: {exc}"}))
        raise SystemExit(3) from None
    limit_address_space()
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401

        from evaluator.harness import wire

        wire.CHILD_EXCHANGE = wire.Exchange(exchange_fd)
        backend = load_backend(ref)
        backend.initialise()
        if kernel_clock:
            from evaluator.harness.kernel_clock import warm_up

            warm_up(backend)  # unavailable: timing notes it and falls back to events
        if walled.get("seccomp"):
            sandbox.seal()  # the runtime is up: no Unix socket from here on
        _patch_triton_launches()
        _autotune_first_config_on_interpreter()
        _trace_threads()
        _patch_host_reads()
        _preload_catalog()
    except BaseException as exc:
        conn.send_bytes(pickle.dumps({"type": "broken", "message": f"{type(exc).__name__}: {exc}"}))
        raise
    conn.send_bytes(pickle.dumps({"type": "ready", "sandbox": walled, "pid": os.getpid()}))
    serve(conn, backend)
    conn.close()
    os._exit(0)


if __name__ == "__main__":
    main()
