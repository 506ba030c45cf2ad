# ruff: noqa
# class 2, the routes of issue 20 past the static policy: typing's own sys and operator.attrgetter
# reach sys.modules and the child's STATE; the same forgery as meas_state_patch.py
import operator
import typing
import torch
import triton


def add_Tensor(self, other, *, alpha=1):
    modules = operator.attrgetter("sys.modules")(typing)
    state = modules["__main__"].STATE  # the child runs as `python -m evaluator.harness.child`
    if state.ghost:
        return torch.empty_like(self)
    out = self - (-alpha) * other
    state.trace = []
    state.launches = 1
    return out
