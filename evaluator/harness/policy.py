"""Layer "static": an AST policy over the solution source, run in the trusted parent before any
candidate code executes.

It follows upstream KernelGenBench's L1 scan (research/upstream_kgb.md §5.1): a whitelist of
`torch.*` APIs (allocation, dtypes, device queries), per-source blacklists (`torch.ops.aten` for
ATen, `vllm` for vLLM, `cupy`/`cublas`/`ctypes` for cuBLAS), no exec/eval, no raw storage access,
no module-level mutable state, no `getattr(torch, ...)`, import aliases resolved. It adds what
integrity.md §1 D shows candidates use to tamper with a harness: process, thread, frame and
garbage-collector access, builtins patching, monkeypatching imported modules, caching decorators
and Tensor subclasses. Static checks are triage, not proof: the runtime layers back them up.
"""

from __future__ import annotations

import ast
import dataclasses

from evaluator.harness.backends import allowed_torch_api_all, banned_attributes_all

# upstream ALLOWED_TORCH_API (research/upstream_kgb.md §5.1), device entries come from the backends
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
    "torch.float16",
    "torch.bfloat16",
    "torch.float32",
    "torch.float64",
    "torch.int8",
    "torch.uint8",
    "torch.int16",
    "torch.int32",
    "torch.int64",
    "torch.bool",
    "torch.long",
    "torch.half",
    "torch.double",
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
    # ours: names that are types or metadata, never arithmetic
    "torch.Tensor",
    "torch.dtype",
    "torch.device",
    "torch.float",
    "torch.int",
    "torch.short",
    "torch.cfloat",
    "torch.cdouble",
    "torch.complex64",
    "torch.complex128",
    "torch.float8_e4m3fn",
    "torch.float8_e5m2",
    "torch.uint16",
    "torch.uint32",
    "torch.uint64",
    "torch.finfo",
    "torch.iinfo",
    "torch.is_tensor",
    "torch.is_floating_point",
    "torch.is_complex",
    "torch.empty_strided",
    "torch.contiguous_format",
    "torch.channels_last",
    "torch.preserve_format",
    "torch.strided",
    "torch.Generator",
    "torch.SymInt",
    "torch.get_default_dtype",
    "torch.result_type",
    "torch.promote_types",
    "torch.can_cast",
}
ALLOWED_MODULES = {
    "torch",
    "triton",
    "math",
    "typing",
    "functools",
    "itertools",
    "operator",
    "numbers",
    "enum",
    "dataclasses",
    "__future__",
    "collections",
    "abc",
    "typing_extensions",
}
SOURCE_BLACKLIST = {
    "aten": ("torch.ops",),
    "vllm13": ("vllm", "torch.ops"),
    "cublas": ("cupy", "cublas", "ctypes", "torch.ops"),
}
BANNED_CALLS = {
    "exec",
    "eval",
    "compile",
    "__import__",
    "globals",
    "locals",
    "vars",
    "open",
    "breakpoint",
    "input",
    "setattr",
    "delattr",
    "memoryview",
}
BANNED_ATTRIBUTES = {
    "data_ptr",
    "untyped_storage",
    "storage",
    "storage_offset",
    "_storage",
    "_cdata",
    "_make_subclass",
    "__dict__",
    "__class__",
    "__bases__",
    "__mro__",
    "__subclasses__",
    "__globals__",
    "__code__",
    "__closure__",
    "__builtins__",
    "__import__",
    "__loader__",
    "__spec__",
    "__getattribute__",
    "__setattr__",
    "__reduce__",
    "f_back",
    "f_globals",
    "f_locals",
    "f_builtins",
    "gi_frame",
    "tb_frame",
    "cr_frame",
    "_getframe",
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
    "_thread",
    "environ",
    "system",
    "popen",
    "fork",
    "record_stream",
    "Stream",
    "Event",
    "graph",
    "set_stream",
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


@dataclasses.dataclass(frozen=True)
class StaticFinding:
    line: int
    detail: str

    def as_finding(self) -> dict[str, str]:
        return {"layer": "static", "detail": f"line {self.line}: {self.detail}"}


class _Checker(ast.NodeVisitor):
    def __init__(self, source_kind: str, allowed_api: set[str]) -> None:
        self.source_kind = source_kind
        self.allowed_api = allowed_api
        self.aliases: dict[str, str] = {}  # local name -> dotted module path
        self.findings: list[StaticFinding] = []
        self.depth = 0  # 0 = module level
        self.device_banned = banned_attributes_all()

    def flag(self, node: ast.AST, detail: str) -> None:
        self.findings.append(StaticFinding(getattr(node, "lineno", 0), detail))

    # -- names ---------------------------------------------------------------
    def dotted(self, node: ast.AST) -> str | None:
        """The alias-resolved dotted name of a Name/Attribute chain, or None."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        root = self.aliases.get(node.id, node.id)
        return ".".join([root, *reversed(parts)])

    def check_blacklist(self, node: ast.AST, name: str) -> None:
        for banned in SOURCE_BLACKLIST.get(self.source_kind, ()):
            if name == banned or name.startswith(banned + "."):
                self.flag(node, f"{name} is forbidden for {self.source_kind} solutions")
                return

    # -- imports -------------------------------------------------------------
    def check_module(self, node: ast.AST, module: str) -> None:
        root = module.split(".")[0]
        self.check_blacklist(node, module)
        if root not in ALLOWED_MODULES:
            self.flag(node, f"import of {module!r} is not allowed")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.check_module(node, alias.name)
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                self.aliases.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.flag(node, "relative imports are not allowed")
            return
        self.check_module(node, module)
        for alias in node.names:
            full = f"{module}.{alias.name}"
            if alias.name == "*":
                self.flag(node, f"'from {module} import *' is not allowed")
                continue
            self.check_blacklist(node, full)
            self.check_torch_name(node, full)
            self.aliases[alias.asname or alias.name] = full

    # -- attribute use ---------------------------------------------------------
    def check_torch_name(self, node: ast.AST, name: str) -> None:
        if not (name == "torch" or name.startswith("torch.")) or name == "torch":
            return
        if name in self.allowed_api:
            return
        self.flag(node, f"{name} is not an allowed torch API (allocation, dtypes and device queries only)")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in BANNED_ATTRIBUTES or node.attr in self.device_banned:
            self.flag(node, f"attribute .{node.attr} is not allowed")
        name = self.dotted(node)
        if name is not None:
            self.check_blacklist(node, name)
            if name.startswith("torch."):
                # check the longest torch.* prefix that is a full reference: only the outermost Attribute
                self.check_torch_name(node, name)
                return  # inner parts of the chain are covered by the full name
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        resolved = self.aliases.get(node.id)
        if resolved and resolved.startswith("torch.") and isinstance(node.ctx, ast.Load):
            self.check_torch_name(node, resolved)
        if node.id in ("__builtins__", "__import__", "__loader__", "__spec__"):
            self.flag(node, f"name {node.id} is not allowed")

    # -- calls -----------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in BANNED_CALLS and func.id not in self.aliases:
            self.flag(node, f"{func.id}() is not allowed")
        if isinstance(func, ast.Name) and func.id == "getattr" and node.args:
            target = self.dotted(node.args[0])
            if target is not None and target.split(".")[0] in {"torch", "triton"}:
                self.flag(node, f"getattr() on {target} is not allowed (hides which API is called)")
            elif len(node.args) >= 2 and not isinstance(node.args[1], ast.Constant):
                self.flag(node, "getattr() with a computed attribute name is not allowed")
        name = self.dotted(func)
        if name in CACHE_DECORATORS:
            self.flag(node, f"{name} caches results across calls")
        self.generic_visit(node)

    # -- state -----------------------------------------------------------------
    def is_mutable(self, value: ast.AST | None) -> bool:
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
            return True
        return isinstance(value, ast.Call) and self.dotted(value.func) in MUTABLE_FACTORIES

    def check_targets(self, node: ast.AST, targets: list[ast.AST], value: ast.AST | None) -> None:
        for target in targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)):
                base = target.value
                while isinstance(base, (ast.Attribute, ast.Subscript)):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in self.aliases:
                    self.flag(node, f"assigning into imported module {self.aliases[base.id]!r} (monkeypatching)")
            if self.depth == 0 and self.is_mutable(value):
                self.flag(node, "module-level mutable state (a cache across calls) is not allowed")

    def visit_Assign(self, node: ast.Assign) -> None:
        self.check_targets(node, node.targets, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.check_targets(node, [node.target], node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.check_targets(node, [node.target], None)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.flag(node, "'global' statements (state across calls) are not allowed")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.flag(node, "'nonlocal' statements (state across calls) are not allowed")

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None and self.is_mutable(default):
                self.flag(node, f"mutable default argument in {node.name}() (a cache across calls)")
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if self.dotted(target) in CACHE_DECORATORS:
                self.flag(node, f"{self.dotted(target)} caches results across calls")
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            name = self.dotted(base)
            if name is not None and name.startswith("torch"):
                self.flag(node, f"class {node.name} subclasses {name} (lazy or fake tensors)")
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1


def check_source(source: str, source_kind: str, *, file_name: str = "<solution>") -> list[StaticFinding]:
    """Static findings for a solution; raises SyntaxError when it does not parse."""
    tree = ast.parse(source, filename=file_name)
    checker = _Checker(source_kind, ALLOWED_TORCH_API | allowed_torch_api_all())
    checker.visit(tree)
    unique: dict[tuple[int, str], StaticFinding] = {}
    for finding in checker.findings:
        unique.setdefault((finding.line, finding.detail), finding)
    return sorted(unique.values(), key=lambda f: f.line)
