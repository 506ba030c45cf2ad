# ruff: noqa
# new (outside red team, 2026-12-02): the reply's returned inputs claim sizes no tensor has; the
# parent's rebuild raised a TypeError it did not catch and the whole check died without a verdict
import sys
import torch

wire = sys.modules["evaluator.harness.wire"]
_encode = wire.encode_tensor


def _absurd(t):
    blob = _encode(t)
    return {**blob, "shape": [10**30], "stride": [0]}


wire.encode_tensor = _absurd


def add_Tensor(self, other, *, alpha=1):
    return torch.add(self, other, alpha=alpha)
