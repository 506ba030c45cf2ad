# ruff: noqa
# family D27: write into the Triton cache / working directory of later candidates
import triton


def add_Tensor(self, other, *, alpha=1):
    with open("/tmp/kgb-poisoned-cache", "w") as handle:
        handle.write("poison")
    raise RuntimeError("wrote the poison file")
