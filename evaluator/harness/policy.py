"""Layer "static": an AST policy over the solution source, run in the trusted parent before any
candidate code executes.

The policy is an allowlist, written for a reader who will try to get past it:

- Modules. Only torch, triton, math, cmath and a few pure standard-library helpers (typing, numbers,
  functools, itertools, operator, enum, dataclasses, collections, abc) may be imported, and every
  name reached through a module is checked against that module's allowlist: torch's allocation,
  metadata, broadcasting and memory-format API (upstream KernelGenBench's ALLOWED_TORCH_API,
  research/upstream_kgb.md §5.1, plus what honest kernels use: `broadcast_tensors`,
  `broadcast_shapes`, `promote_types`, every dtype, memory format and layout, and
  `torch._C._autograd._suggest_memory_format`), triton's decorators and helpers, and
  `triton.language` (its submodules math/extra/libdevice only, and only names that really come
  from triton.language). `typing.sys`, `torch.os`, `triton.runtime.jit.os`, `math.__loader__` are
  refused because `sys`/`os`/`__loader__` are not on those modules' lists, not because a denylist
  names them. A module itself may not be used as a value (`m = typing`).
- Builtins. A name that resolves to a builtin (Python's own scoping rules, computed here) must be on
  a short list: constructors, `len`/`range`/`isinstance`/`min`/`max`..., exceptions, `print`,
  `super`, `type(x)` with one argument, `hasattr(x, "name")` with a literal name. `getattr`,
  `setattr`, `vars`, `globals`, `eval`, `exec`, `compile`, `open`, `__import__`, `breakpoint`,
  `input`, `memoryview`, `id`, `dir`... are not on it. Module- and class-level names may not
  rebind a builtin that is not on the list (an unexecuted `getattr = ...` would fall back to it).
- Attributes of values (tensors, kernels, anything not a module): no dunder attribute (except
  `__name__` and `super().__init__`), no private `_x` attribute except on `self`/`cls`, and none of
  the escape hatches an honest kernel never needs: storage objects, Python callables run inside
  tensors (`apply_`), `as_subclass`, hooks, streams/events/graphs, frames and code objects,
  `numpy()` (its arrays carry `ctypes` and file writers), module-like names (`os`, `sys`,
  `modules`, `environ`...), `str.format` with attribute or index lookups in its fields.
- Code that runs implicitly: no metaclasses, no `__del__`/`__getattr__`/`__init_subclass__`-style
  special methods, no module-level `__getattr__`, no Tensor subclasses, no string annotations that
  would not pass the same checks.
- State across calls (as before): no module- or class-level mutable containers, no `global` or
  `nonlocal`, no mutable defaults, no caching decorators, no assignment into imported modules or
  Triton kernels.

`data_ptr()` is allowed (pointer arrays for batched cuBLAS routines, RNG seeds), as are `math` and
`cmath`, metadata and broadcasting helpers. Static checks are triage, not proof: isolation is the
wall and the runtime layers catch each exploit on their own too.

Every finding names the line, the construct (as written in the source) and why it is refused.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import re
import string
import types
from typing import Any

from evaluator.harness.backends import allowed_torch_api_all, banned_attributes_all

# -- torch -------------------------------------------------------------------------------------------
# upstream ALLOWED_TORCH_API (research/upstream_kgb.md §5.1); device entries come from the backends
ALLOWED_TORCH_API = {
    "torch.empty",
    "torch.zeros",
    "torch.ones",
    "torch.randn",
    "torch.rand",
    "torch.randint",
    "torch.arange",
    "torch.linspace",
    "torch.logspace",
    "torch.tensor",
    "torch.as_tensor",
    "torch.from_numpy",
    "torch.empty_like",
    "torch.zeros_like",
    "torch.ones_like",
    "torch.randn_like",
    "torch.full",
    "torch.full_like",
    "torch.Size",
    "torch.pi",
    "torch.inf",
    "torch.nan",
    "torch.e",
    "torch.no_grad",
    "torch.enable_grad",
    "torch.set_grad_enabled",
    "torch.manual_seed",
    "torch.set_default_device",
    "torch.set_default_dtype",
    # ours: types, metadata, allocation, broadcasting helpers, memory formats, views (never arithmetic)
    "torch.Tensor",
    "torch.dtype",
    "torch.device",
    "torch.memory_format",
    "torch.layout",
    "torch.finfo",
    "torch.iinfo",
    "torch.is_tensor",
    "torch.is_floating_point",
    "torch.is_complex",
    "torch.numel",
    "torch.empty_strided",
    "torch.empty_permuted",
    "torch.scalar_tensor",
    "torch.Generator",
    "torch.SymInt",
    "torch.get_default_dtype",
    "torch.get_default_device",
    "torch.inference_mode",
    "torch.is_grad_enabled",
    "torch.result_type",
    "torch.promote_types",
    "torch.can_cast",
    "torch.broadcast_tensors",
    "torch.broadcast_shapes",
    "torch.broadcast_to",
    "torch.as_strided",
    "torch.view_as_real",
    "torch.view_as_complex",
    # a host bool, never an output tensor (upstream's eq keeps it in a list overload); the runtime
    # trace refuses it if a call really runs it
    "torch.equal",
    "torch._C._autograd._suggest_memory_format",
    "torch.__version__",
    "torch.version.cuda",
    "torch.version.hip",
}
# never allowed, even where a backend lists them: streams, events and graphs serve no kernel and
# enable timing tricks (work left on a side stream, captured graphs)
STREAM_NAMES = {
    "Stream",
    "Event",
    "ExternalStream",
    "CUDAGraph",
    "graph",
    "graphs",
    "stream",
    "streams",
    "current_stream",
    "default_stream",
    "set_stream",
    "_sleep",
}
SOURCE_BLACKLIST = {
    "aten": ("torch.ops",),
    "vllm13": ("vllm", "torch.ops"),
    "cublas": ("cupy", "cublas", "ctypes", "torch.ops"),
}

# -- triton ------------------------------------------------------------------------------------------
TRITON_API = {
    "triton.jit",
    "triton.autotune",
    "triton.Config",
    "triton.heuristics",
    "triton.cdiv",
    "triton.next_power_of_2",
    "triton.reinterpret",
    "triton.__version__",
    "triton.OutOfResources",
    "triton.CompilationError",
    "triton.TritonError",
    # the device query honest kernels use to pick a code path (target arch, SM count)
    "triton.runtime.driver.active.get_current_target",
    "triton.runtime.driver.active.get_current_device",
    "triton.runtime.driver.active.utils.get_device_properties",
}
# the parts of triton.language a kernel may reach (by module name; `tl.extra.cuda.utils` with its
# clocks, `tl.core` with its imports, `tl.semantic` are not among them)
TL_MODULES = {
    "triton.language",
    "triton.language.math",
    "triton.language.extra",
    "triton.language.extra.libdevice",
    "triton.language.extra.cuda",
    "triton.language.extra.cuda.libdevice",
    "triton.language.extra.hip",
    "triton.language.extra.hip.libdevice",
}
TL_FOREIGN_OK = {"triton.language.PropagateNan"}  # an enum honest kernels pass to tl.maximum

# -- standard library ----------------------------------------------------------------------------------
_TYPING_NAMES = {
    "Any",
    "Callable",
    "ClassVar",
    "Dict",
    "Final",
    "FrozenSet",
    "Generic",
    "Hashable",
    "Iterable",
    "Iterator",
    "List",
    "Literal",
    "Mapping",
    "MutableMapping",
    "MutableSequence",
    "NamedTuple",
    "NoReturn",
    "Optional",
    "Protocol",
    "Sequence",
    "Set",
    "Sized",
    "SupportsFloat",
    "SupportsIndex",
    "SupportsInt",
    "TYPE_CHECKING",
    "Tuple",
    "Type",
    "TypeAlias",
    "TypeVar",
    "Union",
    "Annotated",
    "cast",
    "overload",
}
_COLLECTIONS_ABC = {
    "Callable",
    "Collection",
    "Container",
    "Hashable",
    "Iterable",
    "Iterator",
    "Mapping",
    "MutableMapping",
    "MutableSequence",
    "MutableSet",
    "Sequence",
    "Set",
    "Sized",
}


def _public_values(module_name: str, exclude: set[str] = frozenset()) -> set[str]:
    module = __import__(module_name)
    return {
        name
        for name in dir(module)
        if not name.startswith("_") and name not in exclude and not isinstance(getattr(module, name), types.ModuleType)
    }


# module -> names that may be reached through it (a value: function, class, constant)
STDLIB_API: dict[str, set[str]] = {
    "math": _public_values("math"),
    "cmath": _public_values("cmath"),
    "itertools": _public_values("itertools"),
    # attrgetter/methodcaller/call look attributes up by name or call anything: getattr in disguise
    "operator": _public_values("operator", {"attrgetter", "methodcaller", "call"}),
    "functools": {"reduce", "partial", "wraps", "total_ordering", "cmp_to_key"},
    "typing": _TYPING_NAMES,
    "typing_extensions": _TYPING_NAMES,
    "numbers": {"Number", "Complex", "Real", "Rational", "Integral"},
    "enum": {"Enum", "IntEnum", "Flag", "IntFlag", "auto", "unique"},
    "dataclasses": {"dataclass", "field", "fields", "replace", "asdict", "astuple", "is_dataclass", "InitVar"},
    "collections": {"namedtuple", "OrderedDict", "defaultdict", "deque", "Counter"},
    "collections.abc": _COLLECTIONS_ABC,
    "abc": {"ABC", "abstractmethod"},
    "__future__": {"annotations", "division", "absolute_import", "generator_stop", "print_function"},
}
STDLIB_SUBMODULES = {"collections.abc"}
ALLOWED_MODULES = {"torch", "triton", *STDLIB_API}
ALLOWED_ROOTS = {name.split(".")[0] for name in ALLOWED_MODULES}

# -- builtins ------------------------------------------------------------------------------------------
ALLOWED_BUILTINS = {
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",  # format(value, spec): a spec cannot look attributes up
    "frozenset",
    "hash",
    "hex",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "object",
    "oct",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "zip",
    "NotImplemented",
    "Ellipsis",
    # restricted forms, checked at the call
    "type",
    "hasattr",
}
ALLOWED_BUILTINS |= {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception) and not name.startswith("_")
}
# names that are builtins in some interpreters (site adds these) even where this one lacks them
EXTRA_BUILTIN_NAMES = {"exit", "quit", "help", "copyright", "credits", "license", "reveal_type", "reveal_locals"}
BUILTIN_REASONS = {
    "getattr": "it looks an attribute up by a computed name, which hides what is used; write the attribute out",
    "setattr": "it sets an attribute by a computed name (monkeypatching)",
    "delattr": "it deletes an attribute by a computed name (monkeypatching)",
    "vars": "it exposes a namespace dictionary",
    "globals": "it exposes the module namespace",
    "locals": "it exposes a namespace dictionary",
    "dir": "it lists namespaces to probe them",
    "eval": "it runs code built at run time",
    "exec": "it runs code built at run time",
    "compile": "it builds code at run time",
    "__import__": "it imports modules by a computed name",
    "open": "solutions may not touch files",
    "breakpoint": "it starts a debugger",
    "input": "it reads the process's input",
    "memoryview": "it gives raw access to memory",
    "id": "object identities serve only caches across calls",
}

# -- attributes of values ------------------------------------------------------------------------------
ALLOWED_DUNDER_ATTRIBUTES = {"__name__"}
DENIED_ATTRIBUTES: dict[str, str] = {}
for _names, _why in (
    (("untyped_storage", "storage", "share_memory_"), "raw storage objects are not available to solutions"),
    (("apply_", "map_", "map2_"), "it runs Python code element by element instead of a kernel"),
    (("as_subclass",), "it turns a tensor into a subclass (lazy or fake tensors)"),
    (
        (
            "register_hook",
            "register_post_accumulate_grad_hook",
            "register_prehook",
            "register_forward_hook",
            "register_forward_pre_hook",
            "register_full_backward_hook",
            "add_pre_run_hook",
            "pre_run_hooks",
            "launch_enter_hook",
            "launch_exit_hook",
            "jit_post_compile_hook",
            "jit_cache_hook",
        ),
        "hooks run code at times the harness does not expect",
    ),
    (
        tuple(STREAM_NAMES - {"_sleep"})
        + ("record_stream", "wait_stream", "wait_event", "record_event", "elapsed_time", "get_current_stream"),
        "streams, events and graphs are not available to solutions (they enable timing tricks)",
    ),
    (
        (
            "gi_frame",
            "gi_code",
            "gi_yieldfrom",
            "cr_frame",
            "cr_code",
            "cr_await",
            "ag_frame",
            "ag_code",
            "tb_frame",
            "tb_next",
            "f_back",
            "f_globals",
            "f_locals",
            "f_builtins",
            "f_code",
            "f_trace",
            "co_code",
            "co_consts",
            "co_names",
            "func_globals",
            "mro",
        ),
        "frames, code objects and class hierarchies reach the interpreter's internals",
    ),
    (
        # every Triton callable (triton.cdiv, a @triton.jit kernel) hands out a module's globals
        # this way, and a globals dict is __builtins__ and __import__ by a computed key
        (
            "get_capture_scope",
            "used_global_vals",
            "device_caches",
            "kernel_cache",
            "metadata_group",
            "_unsafe_update_src",
        ),
        "Triton's compiler state (a kernel's globals, caches and binaries) is not available to solutions",
    ),
    (
        (
            "os",
            "sys",
            "subprocess",
            "ctypes",
            "socket",
            "gc",
            "inspect",
            "builtins",
            "importlib",
            "signal",
            "threading",
            "multiprocessing",
            "concurrent",
            "asyncio",
            "pickle",
            "marshal",
            "weakref",
            "atexit",
            "shutil",
            "tempfile",
            "pathlib",
            "pkgutil",
            "modules",
            "environ",
            "getenv",
            "putenv",
            "system",
            "popen",
            "fork",
            "execv",
            "execve",
            "kill",
            "killpg",
            "cdll",
            "pydll",
            "pythonapi",
            "CDLL",
            "dlopen",
            "knobs",
            "library",
            "ops",
            "cpp_extension",
            "load_inline",
        ),
        "it reaches a module or facility that solutions may not use",
    ),
    (
        ("numpy", "tofile", "dump", "dumps"),
        "numpy arrays carry ctypes pointers and file writers; stay with tensors",
    ),
    (("format_map",), "format strings can look attributes up"),
):
    for _name in _names:
        DENIED_ATTRIBUTES[_name] = _why
ALLOWED_CLASS_DUNDERS = {
    "__init__",
    "__post_init__",
    "__call__",
    "__repr__",
    "__str__",
    "__len__",
    "__iter__",
    "__next__",
    "__getitem__",
    "__contains__",
    "__enter__",
    "__exit__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__hash__",
    "__bool__",
}
CACHE_DECORATORS = {"functools.cache", "functools.lru_cache", "functools.cached_property"}
MUTABLE_FACTORIES = {
    "dict",
    "list",
    "set",
    "collections.defaultdict",
    "collections.OrderedDict",
    "collections.deque",
    "collections.Counter",
    "bytearray",
}
KERNEL_DECORATORS = {"triton.jit", "triton.autotune", "triton.heuristics"}


@dataclasses.dataclass(frozen=True)
class StaticFinding:
    line: int
    detail: str

    def as_finding(self) -> dict[str, str]:
        return {"layer": "static", "detail": f"line {self.line}: {self.detail}"}


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


@functools.lru_cache(maxsize=1)
def _torch_dynamic_api() -> frozenset[str]:
    """Every dtype, memory format and layout torch defines (torch.float8_e4m3fnuz, torch.channels_last_3d...)."""
    import torch

    kinds = (torch.dtype, torch.memory_format, torch.layout)
    return frozenset(
        f"torch.{name}"
        for name in dir(torch)
        if not name.startswith("_") and isinstance(getattr(torch, name, None), kinds)
    )


@functools.lru_cache(maxsize=1)
def _triton_language() -> Any:
    try:
        import triton.language

        return triton.language
    except Exception:
        return None


_MISSING = object()


# -- scopes (Python's own rules, so that a name is known to be a builtin or not) ------------------------
class _Scope:
    def __init__(self, kind: str, parent: _Scope | None) -> None:
        self.kind = kind  # module | function | class | comprehension
        self.parent = parent
        self.bound: set[str] = set()


class _ScopeBuilder:
    """Maps every Name node to its scope and collects each scope's bindings."""

    def __init__(self, tree: ast.Module) -> None:
        self.module = _Scope("module", None)
        self.scope_of: dict[int, _Scope] = {}
        self.walk(tree, self.module)

    def bind_target(self, node: ast.AST, scope: _Scope) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                scope.bound.add(sub.id)

    def walk(self, node: ast.AST, scope: _Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if not isinstance(node, ast.Lambda):
                scope.bound.add(node.name)
                for decorator in node.decorator_list:
                    self.walk(decorator, scope)
                if node.returns is not None:
                    self.walk(node.returns, scope)
            args = node.args
            for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
                self.walk(default, scope)
            inner = _Scope("function", scope)
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    inner.bound.add(arg.arg)
                    if arg.annotation is not None:
                        self.walk(arg.annotation, scope)
            body = node.body if isinstance(node.body, list) else [node.body]
            for child in body:
                self.walk(child, inner)
            return
        if isinstance(node, ast.ClassDef):
            scope.bound.add(node.name)
            for child in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
                self.walk(child, scope)
            inner = _Scope("class", scope)
            for child in node.body:
                self.walk(child, inner)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            self.walk(node.generators[0].iter, scope)
            inner = _Scope("comprehension", scope)
            for index, generator in enumerate(node.generators):
                self.bind_target(generator.target, inner)
                self.walk(generator.target, inner)
                if index:
                    self.walk(generator.iter, inner)
                for condition in generator.ifs:
                    self.walk(condition, inner)
            for child in [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]:
                self.walk(child, inner)
            return
        if isinstance(node, ast.NamedExpr):
            target = scope
            while target.kind == "comprehension" and target.parent is not None:
                target = target.parent
            target.bound.add(node.target.id)
            self.scope_of[id(node.target)] = target
            self.walk(node.value, scope)
            return
        if isinstance(node, ast.Name):
            self.scope_of[id(node)] = scope
            if not isinstance(node.ctx, ast.Load):
                scope.bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    scope.bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            scope.bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            scope.bound.update(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            scope.bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            scope.bound.add(node.rest)
        for child in ast.iter_child_nodes(node):
            self.walk(child, scope)

    def is_call_local(self, node: ast.Name) -> bool:
        """Whether the name is bound in the function (or comprehension) it is used in: what it
        names then lives no longer than the call (unless the call was handed it)."""
        scope = self.scope_of.get(id(node), self.module)
        while scope.kind == "comprehension" and node.id not in scope.bound and scope.parent is not None:
            scope = scope.parent
        return scope.kind in ("function", "comprehension") and node.id in scope.bound

    def is_builtin(self, node: ast.Name) -> bool:
        """Whether the (loaded) name resolves to a builtin, by Python's scoping rules."""
        scope = self.scope_of.get(id(node), self.module)
        if node.id in scope.bound:
            return False
        scope = scope.parent
        while scope is not None:
            if scope.kind != "class" and node.id in scope.bound:
                return False
            scope = scope.parent
        return True


# -- the checker -------------------------------------------------------------------------------------
class _Checker(ast.NodeVisitor):
    def __init__(self, source: str, source_kind: str, torch_api: set[str], scopes: _ScopeBuilder) -> None:
        self.source = source
        self.source_kind = source_kind
        self.torch_api = torch_api
        self.scopes = scopes
        self.aliases: dict[str, str] = {}  # local name -> dotted path it was imported as
        self.kernels: set[str] = set()  # module-level names of Triton kernels
        self.findings: list[StaticFinding] = []
        self.stack = ["module"]  # kinds of the enclosing definitions: module, function, class
        self.call_funcs: set[int] = set()  # ids of nodes that are the callee of a Call
        self.checked_calls: set[int] = set()  # ids of builtin Names whose call shape was checked
        self.device_banned = banned_attributes_all()
        self.line_offset = 0

    # -- reporting -----------------------------------------------------------------------------------
    def snippet(self, node: ast.AST) -> str:
        text = ast.get_source_segment(self.source, node) if not self.line_offset else None
        if text is None:
            try:
                text = ast.unparse(node)
            except Exception:
                text = type(node).__name__
        text = " ".join(text.split())
        return text if len(text) <= 60 else text[:57] + "..."

    def flag(self, node: ast.AST, detail: str) -> None:
        self.findings.append(StaticFinding(getattr(node, "lineno", 0) + self.line_offset, detail))

    # -- qualified names (through a module) ----------------------------------------------------------
    def blacklisted(self, node: ast.AST, name: str) -> bool:
        for banned in SOURCE_BLACKLIST.get(self.source_kind, ()):
            if name == banned or name.startswith(banned + "."):
                self.flag(node, f"{name} is forbidden for {self.source_kind} solutions")
                return True
        return False

    def qualified(self, node: ast.AST, parts: list[str], *, importing: bool = False) -> tuple[int, bool] | None:
        """Check a dotted path that starts at a module. Returns (how many parts name the API object,
        whether that object is a module), or None when the path was refused (a finding was made)."""
        full = ".".join(parts)
        if self.blacklisted(node, full):
            return None
        root = parts[0]
        if root == "torch":
            return self.qualified_torch(node, parts, importing)
        if root == "triton":
            if len(parts) >= 2 and parts[1] == "language":
                return self.qualified_tl(node, parts)
            return self.qualified_exact(node, parts, TRITON_API, "an allowed Triton API", importing)
        module = ".".join(parts[:2]) if ".".join(parts[:2]) in STDLIB_SUBMODULES else root
        if module not in STDLIB_API:
            return None  # the import itself was refused
        depth = module.count(".") + 1
        if len(parts) == depth:
            return depth, True
        name = parts[depth]
        if name not in STDLIB_API[module]:
            if full in CACHE_DECORATORS:
                self.flag(node, f"{full} caches results across calls")
            else:
                self.flag(node, f"{full}: {name!r} is not among the names solutions may use from {module}")
            return None
        return depth + 1, False

    def qualified_exact(
        self, node: ast.AST, parts: list[str], api: set[str], what: str, importing: bool
    ) -> tuple[int, bool] | None:
        for k in range(len(parts), 0, -1):
            if ".".join(parts[:k]) in api:
                return k, False
        full = ".".join(parts)
        if any(entry.startswith(full + ".") for entry in api) or len(parts) == 1:
            return len(parts), True  # a module on the way to an allowed name (torch.cuda, triton.runtime)
        self.flag(node, f"{full} is not {what}")
        return None

    def qualified_torch(self, node: ast.AST, parts: list[str], importing: bool) -> tuple[int, bool] | None:
        full = ".".join(parts)
        hit = next((p for p in parts[1:] if p in STREAM_NAMES), None)
        if hit is not None:
            self.flag(
                node, f"{full}: streams, events and graphs are not available to solutions (they enable timing tricks)"
            )
            return None
        return self.qualified_exact(
            node,
            parts,
            self.torch_api,
            "an allowed torch API (allocation, metadata, dtypes, broadcasting helpers, "
            "memory formats and device queries only; arithmetic belongs in Triton kernels)",
            importing,
        )

    def qualified_tl(self, node: ast.AST, parts: list[str]) -> tuple[int, bool] | None:
        obj = _triton_language()
        path = "triton.language"
        for index in range(2, len(parts)):
            name = parts[index]
            full = f"{path}.{name}"
            if name.startswith("_"):
                self.flag(node, f"{'.'.join(parts)}: private name {name!r} of {path} is not available to solutions")
                return None
            if name in DENIED_ATTRIBUTES:
                self.flag(node, f"{'.'.join(parts)}: {DENIED_ATTRIBUTES[name]}")
                return None
            if obj is None:  # no triton in this process: judge by the path alone
                if full in TL_MODULES:
                    path = full
                    continue
                return index + 1, False
            child = getattr(obj, name, _MISSING)
            if child is _MISSING:
                return index + 1, False  # not a name of this triton: an AttributeError when it runs
            if isinstance(child, types.ModuleType):
                if child.__name__ not in TL_MODULES:
                    self.flag(
                        node,
                        f"{'.'.join(parts[: index + 1])} is the module {child.__name__}, which is not an allowed part "
                        "of triton.language (allowed: the language itself, math, extra, libdevice)",
                    )
                    return None
                obj, path = child, full
                continue
            # a JIT wrapper (JITFunction, or the interpreter's InterpretedFunction) reports where it is
            # defined through the function it wraps
            wrapped = getattr(child, "fn", None) if not isinstance(child, type) else None
            origin = getattr(wrapped if callable(wrapped) else child, "__module__", None)
            plain = isinstance(child, (bool, int, float, str))
            if (
                not plain
                and full not in TL_FOREIGN_OK
                and not (isinstance(origin, str) and origin.startswith("triton.language"))
            ):
                self.flag(
                    node,
                    f"{'.'.join(parts[: index + 1])} is not a Triton language API (it is {origin or type(child).__name__}'s "
                    f"{type(child).__name__}, reachable only through triton.language's own imports)",
                )
                return None
            return index + 1, False
        return len(parts), True

    # -- imports ---------------------------------------------------------------------------------------
    def check_import_path(self, node: ast.AST, module: str) -> bool:
        root = module.split(".")[0]
        if self.blacklisted(node, module):
            return False
        if root not in ALLOWED_ROOTS or (root not in {"torch", "triton"} and module not in STDLIB_API):
            self.flag(
                node, f"import of {module!r} is not allowed (allowed: torch, triton, math, cmath and pure helpers)"
            )
            return False
        result = self.qualified(node, module.split("."), importing=True)
        if result is None:
            return False
        return True

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not self.check_import_path(node, alias.name):
                continue
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                root = alias.name.split(".")[0]
                self.aliases.setdefault(root, root)
            self.check_binding(node, alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.flag(node, "relative imports are not allowed")
            return
        if not self.check_import_path(node, module):
            return
        for alias in node.names:
            if alias.name == "*":
                self.flag(node, f"'from {module} import *' is not allowed (name what you use)")
                continue
            full = f"{module}.{alias.name}"
            if _is_dunder(alias.name) and full not in self.torch_api | TRITON_API:
                self.flag(node, f"from {module} import {alias.name}: dunder names of modules are not available")
                continue
            if self.qualified(node, full.split("."), importing=True) is None:
                continue
            self.aliases[alias.asname or alias.name] = full
            self.check_binding(node, alias.asname or alias.name)

    # -- names -----------------------------------------------------------------------------------------
    def check_binding(self, node: ast.AST, name: str) -> None:
        """Module- and class-level names may not rebind builtins that are not allowed: an unexecuted
        binding would fall back to the builtin."""
        if self.stack[-1] in ("module", "class") and self.is_refused_builtin(name):
            self.flag(node, f"the name {name!r} rebinds a builtin that solutions may not use")
        if _is_dunder(name) and name not in ("__all__",):
            self.flag(node, f"binding the dunder name {name} is not allowed")

    @staticmethod
    def is_refused_builtin(name: str) -> bool:
        return name not in ALLOWED_BUILTINS and (hasattr(builtins, name) or name in EXTRA_BUILTIN_NAMES)

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            if self.scopes.scope_of.get(id(node), self.scopes.module).kind in ("module", "class"):
                self.check_binding(node, name)
            return
        if _is_dunder(name) and name != "__name__":
            self.flag(node, f"the name {name} is not available to solutions")
            return
        if name in self.aliases:
            if id(node) in self.checked_calls:
                return
            target = self.aliases[name]
            result = self.qualified(node, target.split("."))
            if result is not None and result[1]:
                self.flag(
                    node,
                    f"{self.snippet(node)}: the module {target} may not be used as a value (only its allowed names may be used)",
                )
            return
        if not self.scopes.is_builtin(node):
            return
        if name in ("type", "hasattr") and id(node) not in self.checked_calls:
            form = "type(x)" if name == "type" else 'hasattr(x, "name")'
            self.flag(node, f"{self.snippet(node)}: the builtin {name} is not allowed except as {form}")
            return
        if self.is_refused_builtin(name):
            why = BUILTIN_REASONS.get(name, "it is not among the builtins solutions may use")
            self.flag(node, f"{name}(): the builtin {name} is not allowed: {why}")
        elif name not in ALLOWED_BUILTINS:
            # bound nowhere in the source, yet maybe at run time: Triton's interpreter copies its
            # own module's globals (inspect, numpy, ...) into a kernel's module when it first runs it
            self.flag(node, f"the name {name!r} is never bound in the solution and is not an allowed builtin")

    # -- attributes ------------------------------------------------------------------------------------
    def chain(self, node: ast.Attribute) -> tuple[ast.AST, list[ast.Attribute]]:
        links: list[ast.Attribute] = []
        base: ast.AST = node
        while isinstance(base, ast.Attribute):
            links.append(base)
            base = base.value
        links.reverse()  # innermost first
        return base, links

    def visit_Attribute(self, node: ast.Attribute) -> None:
        base, links = self.chain(node)
        names = [link.attr for link in links]
        start = 0
        if isinstance(base, ast.Name) and base.id in self.aliases:
            if not isinstance(node.ctx, ast.Load) or any(not isinstance(link.ctx, ast.Load) for link in links):
                self.flag(
                    node,
                    f"{self.snippet(node)}: assigning into imported module {self.aliases[base.id]!r} (monkeypatching)",
                )
            parts = self.aliases[base.id].split(".") + names
            result = self.qualified(node, parts)
            if result is None:
                return
            used, is_module = result
            start = used - len(self.aliases[base.id].split("."))
            if is_module and start >= len(names):
                self.flag(
                    node,
                    f"{self.snippet(node)}: the module {'.'.join(parts)} may not be used as a value (only its allowed names may be used)",
                )
                return
        else:
            if isinstance(base, ast.Name) and base.id in self.kernels and not isinstance(node.ctx, ast.Load):
                self.flag(
                    node,
                    f"{self.snippet(node)}: assigning an attribute of the Triton kernel {base.id} (it changes what launches)",
                )
            self.visit(base)
        for link in links[max(start, 0) :]:
            self.check_value_attribute(link, base, links)

    def check_value_attribute(self, link: ast.Attribute, base: ast.AST, links: list[ast.Attribute]) -> None:
        name = link.attr
        text = self.snippet(link)
        if _is_dunder(name):
            on_super = (
                name == "__init__"
                and link is links[0]
                and isinstance(base, ast.Call)
                and isinstance(base.func, ast.Name)
                and base.func.id == "super"
            )
            if name not in ALLOWED_DUNDER_ATTRIBUTES and not on_super:
                self.flag(link, f"{text}: the dunder attribute .{name} is not available to solutions")
            return
        if name.startswith("_"):
            own = link is links[0] and isinstance(base, ast.Name) and base.id in ("self", "cls")
            if not own:
                self.flag(link, f"{text}: the private attribute .{name} is not available to solutions")
            return
        if name in DENIED_ATTRIBUTES:
            self.flag(link, f"{text}: attribute .{name} is not allowed: {DENIED_ATTRIBUTES[name]}")
            return
        if name in self.device_banned:
            self.flag(link, f"{text}: attribute .{name} is not allowed on this platform's devices")
            return
        if name == "format" and not self.safe_format(link):
            self.flag(link, f"{text}: .format is allowed only on a literal string whose fields look nothing up")

    def safe_format(self, link: ast.Attribute) -> bool:
        if (
            id(link) not in self.call_funcs
            or not isinstance(link.value, ast.Constant)
            or not isinstance(link.value.value, str)
        ):
            return False
        try:
            return all(not re.search(r"[.\[]", field) for field in _format_fields(link.value.value))
        except ValueError:
            return False

    # -- patterns and subscripts -----------------------------------------------------------------------
    def visit_Match(self, node: ast.Match) -> None:
        # a class pattern reads attributes by name (`case C(__globals__=g)`, or positionally
        # through a `__match_args__` the candidate sets): getattr in disguise, so no match at all
        self.flag(node, "match statements are not available to solutions (class patterns read attributes by name)")
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        self.check_constant_keys(node, [key for key in node.keys if key is not None])
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.check_constant_keys(node, [node.slice])
        self.generic_visit(node)

    def check_constant_keys(self, node: ast.AST, keys: list[ast.AST]) -> None:
        """A dunder string as a key (`g["__builtins__"]`) is how a namespace dict is looked into."""
        for key in keys:
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and _is_dunder(key.value):
                self.flag(node, f"{self.snippet(node)}: the dunder key {key.value!r} is not available to solutions")

    # -- calls -----------------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        self.call_funcs.add(id(func))
        if isinstance(func, ast.Name) and self.scopes.is_builtin(func) and func.id not in self.aliases:
            if func.id == "type":
                if len(node.args) == 1 and not node.keywords:
                    self.checked_calls.add(id(func))
                else:
                    self.flag(
                        node, f"{self.snippet(node)}: type() with more than one argument creates classes at run time"
                    )
            elif func.id == "hasattr":
                name = node.args[1] if len(node.args) == 2 else None
                literal = isinstance(name, ast.Constant) and isinstance(name.value, str)
                if literal and not name.value.startswith("_") and name.value not in DENIED_ATTRIBUTES:
                    self.checked_calls.add(id(func))
                    if isinstance(node.args[0], ast.Name):
                        self.checked_calls.add(id(node.args[0]))  # hasattr(torch, "float8_e4m3fn")
                else:
                    self.flag(node, f"{self.snippet(node)}: hasattr() needs a literal public attribute name")
        self.generic_visit(node)

    # -- state -----------------------------------------------------------------------------------------
    def dotted(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        return ".".join([self.aliases.get(node.id, node.id), *reversed(parts)])

    def is_mutable(self, value: ast.AST | None) -> bool:
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
            return True
        return isinstance(value, ast.Call) and self.dotted(value.func) in MUTABLE_FACTORIES

    def check_state(self, node: ast.AST, targets: list[ast.AST], value: ast.AST | None) -> None:
        if self.stack[-1] in ("module", "class") and self.is_mutable(value):
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                return
            where = f"{self.stack[-1]}-level"
            self.flag(node, f"{where} mutable state (a cache across calls) is not allowed")

    def check_outliving_write(self, node: ast.AST, targets: list[ast.AST]) -> None:
        """Inside a function, no writing into an attribute or item of something that outlives the
        call (a function, a class, a module-level object, a closure's variable): `f.calls = {}` is
        state across calls as much as a module-level cache, and tells the ghost replay apart."""
        if self.stack[-1] != "function":
            return
        for target in targets:
            for sub in ast.walk(target) if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                base = sub
                while isinstance(base, (ast.Attribute, ast.Subscript, ast.Starred)):
                    base = base.value
                if base is sub or not isinstance(base, ast.Name) or self.scopes.is_call_local(base):
                    continue
                self.flag(
                    sub,
                    f"{self.snippet(sub)}: writing into {base.id!r}, which outlives the call, "
                    "keeps state across calls (not allowed)",
                )

    def visit_Assign(self, node: ast.Assign) -> None:
        self.check_state(node, node.targets, node.value)
        self.check_outliving_write(node, node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.check_outliving_write(node, [node.target])
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self.check_outliving_write(node, node.targets)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.check_state(node, [node.target], node.value)
        self.check_outliving_write(node, [node.target])
        self.check_annotation(node.annotation)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.flag(node, "'global' statements (state across calls) are not allowed")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.flag(node, "'nonlocal' statements (state across calls) are not allowed")

    # -- definitions -----------------------------------------------------------------------------------
    def check_annotation(self, annotation: ast.AST | None) -> None:
        """A string annotation is code to whatever evaluates it (typing.get_type_hints, schema
        inference): it must pass the same checks."""
        if not (isinstance(annotation, ast.Constant) and isinstance(annotation.value, str)):
            return
        try:
            parsed = ast.parse(annotation.value.strip(), mode="eval")
        except SyntaxError:
            return  # not an expression: nothing would evaluate it
        saved = self.line_offset
        self.line_offset = annotation.lineno - 1 + saved
        for sub in ast.walk(parsed):
            sub.lineno = 1
        self.visit(parsed.body)
        self.line_offset = saved

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        where = self.stack[-1]
        if where == "module":
            if _is_dunder(node.name):
                self.flag(
                    node,
                    f"def {node.name}: module-level special functions run implicitly (module __getattr__ and the like)",
                )
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if self.dotted(target) in KERNEL_DECORATORS:
                    self.kernels.add(node.name)
        elif where == "class" and _is_dunder(node.name) and node.name not in ALLOWED_CLASS_DUNDERS:
            self.flag(node, f"def {node.name}: this special method runs implicitly and is not allowed")
        if where in ("module", "class") and not _is_dunder(node.name):
            self.check_binding(node, node.name)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None and self.is_mutable(default):
                self.flag(node, f"mutable default argument in {node.name}() (a cache across calls)")
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if self.dotted(target) in CACHE_DECORATORS:
                self.flag(node, f"{self.dotted(target)} caches results across calls")
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self.check_annotation(arg.annotation)
        self.check_annotation(node.returns)
        self.stack.append("function")
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.stack.append("function")
        self.generic_visit(node)
        self.stack.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            name = self.dotted(base)
            if name is not None and name.split(".")[0] in ("torch", "triton"):
                self.flag(node, f"class {node.name} subclasses {name} (lazy or fake tensors, patched launchers)")
        for keyword in node.keywords:
            self.flag(
                node, f"class {node.name}({keyword.arg}=...): metaclasses and class keywords run code at class creation"
            )
        if self.stack[-1] in ("module", "class"):
            self.check_binding(node, node.name)
        self.stack.append("class")
        self.generic_visit(node)
        self.stack.pop()


def _format_fields(text: str) -> list[str]:
    fields: list[str] = []
    for _literal, field, spec, _conversion in string.Formatter().parse(text):
        if field is not None:
            fields.append(field)
        if spec:
            fields.extend(_format_fields(spec))
    return fields


def check_source(source: str, source_kind: str, *, file_name: str = "<solution>") -> list[StaticFinding]:
    """Static findings for a solution; raises SyntaxError when it does not parse."""
    tree = ast.parse(source, filename=file_name)
    torch_api = ALLOWED_TORCH_API | set(_torch_dynamic_api()) | allowed_torch_api_all()
    torch_api = {name for name in torch_api if not any(part in STREAM_NAMES for part in name.split("."))}
    checker = _Checker(source, source_kind, torch_api, _ScopeBuilder(tree))
    # every import's name is known before any use is judged (a use above its import, or in a function
    # defined earlier, must not escape the module checks)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                checker.aliases[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    checker.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    checker.visit(tree)
    unique: dict[tuple[int, str], StaticFinding] = {}
    for finding in checker.findings:
        unique.setdefault((finding.line, finding.detail), finding)
    return sorted(unique.values(), key=lambda f: f.line)
