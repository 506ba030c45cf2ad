"""Session set-up that must run before any test module imports triton."""

import os

# Triton decides when it is imported whether its own language functions (tl.zeros, ...) run in the
# interpreter. If one test imports triton without TRITON_INTERPRET, every later test in that worker
# that runs a solution in-process under the interpreter fails ("Cannot call @triton.jit'd outside
# of the scope of a kernel"), depending on how xdist ordered the tests. Tests run Triton in-process
# only through the interpreter, so the whole session uses it.
os.environ.setdefault("TRITON_INTERPRET", "1")
