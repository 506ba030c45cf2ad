"""The static policy (evaluator/harness/policy.py): every honest solution passes, every bypass class is
refused, and each finding says the line and the construct.

Upstream KernelGenBench's published reference candidates are not ours to commit: point
KGB_UPSTREAM_CANDIDATES at a folder holding them (factnn/KernelGenBench-release,
reproducibility/reference_candidates/) to check them too. The honest controls below are our own files
written in the same styles."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from evaluator.harness import policy

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "operators" / "solutions" / "triton_reference"
HARNESS_SOLUTIONS = REPO / "tests" / "harness" / "solutions"
UPSTREAM = os.environ.get("KGB_UPSTREAM_CANDIDATES")


def kind_of(path: Path) -> str:
    return path.name.split("__")[0]


def details(source: str, kind: str = "aten") -> list[str]:
    return [f"line {f.line}: {f.detail}" for f in policy.check_source(textwrap.dedent(source), kind)]


# -- honest code passes ------------------------------------------------------------------------------------
def test_every_reference_solution_is_checked():
    assert len(sorted(REFERENCE.glob("*.py"))) >= 99


@pytest.mark.parametrize("path", sorted(REFERENCE.glob("*.py")), ids=lambda p: p.name)
def test_reference_solution_passes_the_policy(path):
    assert details(path.read_text(), kind_of(path)) == []


@pytest.mark.parametrize("path", sorted(HARNESS_SOLUTIONS.glob("*.py")), ids=lambda p: p.name)
def test_harness_control_solution_passes_the_policy(path):
    assert details(path.read_text(), kind_of(path)) == []


@pytest.mark.skipif(not UPSTREAM, reason="KGB_UPSTREAM_CANDIDATES is not set (upstream's files stay out of the repo)")
def test_upstream_reference_candidates_pass_the_policy():
    files = sorted(Path(UPSTREAM).glob("*__*.py"))
    assert files, f"no candidate files under {UPSTREAM}"
    flagged = {path.name: details(path.read_text(), kind_of(path)) for path in files}
    assert {name: found for name, found in flagged.items() if found} == {}


HONEST = {
    "broadcast_tensors": """
        import torch
        import triton

        def eq_Tensor(self, other):
            a, b = torch.broadcast_tensors(self, other)
            shape = torch.broadcast_shapes(self.shape, other.shape)
            dtype = torch.promote_types(self.dtype, other.dtype)
            common = torch.result_type(self, other)
            out = torch.empty(shape, dtype=torch.bool, device=a.device)
            return out, dtype, common, torch.broadcast_to(b, shape)
        """,
    "memory_formats": """
        import torch

        def contiguous(self, memory_format=torch.contiguous_format):
            if memory_format == torch.preserve_format:
                memory_format = torch._C._autograd._suggest_memory_format(self)
            if memory_format in (torch.channels_last, torch.channels_last_3d):
                return torch.empty_like(self, memory_format=memory_format)
            return torch.empty_strided(self.shape, self.stride(), dtype=self.dtype, device=self.device)
        """,
    "cmath_in_unused_helper": """
        import math
        import torch

        def cos_float(a: float) -> float:
            return math.cos(a)

        def cos_complex(a: complex) -> complex:
            import cmath
            return cmath.cos(a)
        """,
    "data_ptr_seed_and_pointer_array": """
        import torch

        def exponential_(self, lambd=1.0, *, generator=None):
            seed = generator.seed() if generator is not None else self.data_ptr() % (2**31 - 1)
            return self, seed

        def batched(a_list, b_list):
            ptrs = torch.tensor([t.data_ptr() for t in a_list], dtype=torch.int64, device=a_list[0].device)
            return ptrs, b_list[0].storage_offset(), b_list[0].element_size()
        """,
    "triton_language_and_autotune_hooks": """
        import triton
        import triton.language as tl
        from triton.language.extra import libdevice

        def _zero(nargs):
            nargs["out_ptr"].zero_()

        @triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2, pre_hook=_zero)], key=["n"])
        @triton.jit
        def _k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=float("-inf"))
            y = tl.maximum(x, libdevice.fast_expf(x), propagate_nan=tl.PropagateNan.ALL)
            tl.store(out_ptr + offs, tl.math.rsqrt(y).to(out_ptr.dtype.element_ty), mask=offs < n)

        def on_nvidia(device):
            return device.type == "cuda" and triton.runtime.driver.active.get_current_target().backend == "cuda"
        """,
    "metadata_helpers": """
        from __future__ import annotations

        import functools
        import operator
        from typing import Optional

        import torch

        class _Shape:
            def __init__(self, dims):
                self._dims = tuple(dims)

            def numel(self):
                return functools.reduce(operator.mul, self._dims, 1)

        class _Error(RuntimeError):
            def __init__(self, what):
                super().__init__("unsupported {}".format(what))

        def full(size, value, *, dtype: Optional[torch.dtype] = None, out: "torch.Tensor | None" = None):
            if not isinstance(value, (int, float, bool)):
                raise _Error(f"fill value of type {type(value).__name__}")
            fp8 = hasattr(torch, "float8_e4m3fn")
            return torch.full(size, value, dtype=dtype), _Shape(size).numel(), fp8, torch.finfo(torch.float16).max

        def eq_Tensor_list(a, b):
            return len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))
        """,
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_construct_passes(name):
    assert details(HONEST[name]) == []


# -- bypass classes (each of these passed the policy before the allowlist rewrite) --------------------------
BYPASSES = {
    "getattr_on_module": ("import typing\nsys = getattr(typing, 'sys')", "getattr"),
    "getattr_as_value": (
        "import functools, typing\nm = functools.reduce(getattr, ['sys', 'modules'], typing)",
        "getattr",
    ),
    "partial_getattr": ("import functools, typing\nm = functools.partial(getattr, typing)('sys')", "getattr"),
    "operator_attrgetter": ("import operator, typing\nsys = operator.attrgetter('sys')(typing)", "operator.attrgetter"),
    "operator_methodcaller": ("import operator\nrun = operator.methodcaller('system', 'id')", "operator.methodcaller"),
    "type_hints_eval": (
        "import typing\ndef f(x: \"__import__('os').system('id')\"):\n    pass\ntyping.get_type_hints(f)",
        "__import__",
    ),
    "builtin_self": ("def f():\n    return print.__self__.exec('import os')", ".__self__"),
    "reduce_ex_dunder": ("def f(t):\n    return t.__reduce_ex__(2)[0]", ".__reduce_ex__"),
    "module_as_value": ("import torch\nm = torch\nadd = m.ops.aten.add", "the module torch may not be used as a value"),
    "type_three_args": ("import torch\nLazy = type('Lazy', (torch.Tensor,), {})", "type()"),
    "metaclass": ("class Meta(type):\n    pass\nclass A(metaclass=Meta):\n    pass", "metaclass"),
    "finaliser": ("class Later:\n    def __del__(self):\n        pass", "__del__"),
    "module_getattr": ("def __getattr__(name):\n    return name", "__getattr__"),
    "class_level_cache": ("class Memo:\n    seen = {}", "class-level mutable state"),
    "private_tensor_storage": ("def f(t):\n    return t._typed_storage()", "._typed_storage"),
    "python_callable_in_tensor": ("import math\ndef f(t):\n    return t.apply_(math.cos)", ".apply_"),
    "as_subclass": ("def f(t, cls):\n    return t.as_subclass(cls)", ".as_subclass"),
    "numpy_file_write": ("def f(t):\n    t.numpy().tofile('/tmp/x')", ".numpy"),
    "format_traversal": ("import triton\nleak = '{0.__globals__[os].environ}'.format(triton.jit)", ".format"),
    "triton_knobs_hook": (
        "import triton\nhooks = triton.knobs.runtime\nhooks.launch_enter_hook = print",
        "triton.knobs",
    ),
    "tl_core_imports": ("import triton.language as tl\nk = tl.core.knobs", "triton.language.core"),
    "triton_driver_stream": (
        "import triton\ns = triton.runtime.driver.active.get_current_stream()",
        "get_current_stream",
    ),
    "current_stream_events": (
        "import torch\ne = torch.cuda.current_stream().record_event()",
        "torch.cuda.current_stream",
    ),
    "kernel_pre_run_hook": (
        "import triton\n@triton.jit\ndef k(x):\n    pass\nk.add_pre_run_hook(print)",
        ".add_pre_run_hook",
    ),
    "kernel_run_replaced": ("import triton\n@triton.jit\ndef k(x):\n    pass\nk.run = print", "Triton kernel k"),
    "shadowed_builtin": ("if False:\n    getattr = None\ndef f(x):\n    return getattr(x, 'sys')", "getattr"),
    "tl_clock_module": (
        "import triton.language as tl\nt = tl.extra.cuda.utils.globaltimer",
        "triton.language.extra.cuda.utils",
    ),
    # names Triton's interpreter copies into the kernel's module at its first launch (outside red team)
    "interpreter_injected_name": ("def f(x):\n    return inspect.getmembers(x)", "'inspect' is never bound"),
    "interpreter_injected_numpy": ("def f(x):\n    return np.asarray(x)", "'np' is never bound"),
    "capture_scope_of_triton_helper": (
        "import triton\ndef f():\n    g = triton.cdiv.get_capture_scope()\n    return g['_' * 2 + 'builtins' + '_' * 2]",
        "Triton's compiler state",
    ),
    "capture_scope_of_own_kernel": (
        "import triton\n@triton.jit\ndef k(x):\n    pass\ndef f():\n    return k.get_capture_scope()",
        "Triton's compiler state",
    ),
    "function_attribute_state": (
        "def f(x):\n    f.calls = {}\n    return x",
        "writing into 'f', which outlives the call",
    ),
    "module_object_state": (
        "class W:\n    pass\nws = W()\ndef f(x):\n    ws.buf = x\n    return x",
        "writing into 'ws', which outlives the call",
    ),
    "closure_item_state": (
        "def make():\n    seen = dict()\n    def f(x):\n        seen[1] = x\n        return x\n    return f\nf = make()",
        "writing into 'seen', which outlives the call",
    ),
    "augmented_counter_state": (
        "class C:\n    n = 0\ndef f(x):\n    C.n += 1\n    return x",
        "writing into 'C', which outlives the call",
    ),
}


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_bypass_is_refused(name):
    source, needle = BYPASSES[name]
    found = details(source)
    assert any(needle in detail for detail in found), found


# -- classes the policy refused before and still must --------------------------------------------------------
STILL_REFUSED = [
    *(f"import {module}" for module in ("os", "sys", "subprocess", "socket", "signal", "gc", "inspect", "builtins")),
    *(f"import {module}" for module in ("ctypes", "threading", "_thread", "multiprocessing", "concurrent.futures")),
    "import importlib",
    "from os import environ",
    *(
        f"x = {call}('1')"
        for call in ("exec", "eval", "compile", "open", "breakpoint", "input", "memoryview", "__import__", "vars")
    ),
    "x = globals()",
    "x = locals()",
    "def f(o):\n    setattr(o, 'a', 1)\n    delattr(o, 'a')",
    "import typing\nx = typing.sys",
    "import torch\nx = torch.os",
    "import triton\nx = triton.runtime.jit.os",
    "import math\nx = math.__loader__",
    "def f(o):\n    return o.__dict__",
    "def f(o):\n    return o.__class__.__subclasses__()",
    "def f(fn):\n    return fn.__globals__",
    "x = __builtins__",
    "import torch\nx = torch.ops.aten.add",
    "import torch\nlib = torch.library.Library('aten', 'IMPL')",
    "import torch\ns = torch.cuda.Stream()",
    "import torch\ne = torch.cuda.Event(enable_timing=True)",
    "import torch\ng = torch.cuda.CUDAGraph()",
    "import torch\nwith torch.cuda.graph(None):\n    pass",
    "import torch\nx = torch._C._get_tracing_state()",
    "import torch\nx = torch.matmul",
    "import functools\n@functools.lru_cache\ndef f(x):\n    return x",
    "_CACHE = {}",
    "def f():\n    global X",
]


@pytest.mark.parametrize("source", STILL_REFUSED)
def test_still_refused(source):
    assert details(source)


# -- findings name the line and the construct -------------------------------------------------------------------
def test_finding_names_line_and_construct():
    source = "import torch\n\n\ndef f(t):\n    return t.__reduce_ex__(2)\n"
    (finding,) = policy.check_source(source, "aten")
    assert finding.line == 5
    assert "t.__reduce_ex__" in finding.detail and "dunder attribute" in finding.detail
    assert finding.as_finding() == {"layer": "static", "detail": f"line 5: {finding.detail}"}


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_every_finding_has_a_line_and_says_why(name):
    source, _needle = BYPASSES[name]
    for finding in policy.check_source(source, "aten"):
        assert finding.line >= 1
        assert len(finding.detail) > 20 and ("not" in finding.detail or "run" in finding.detail), finding.detail
