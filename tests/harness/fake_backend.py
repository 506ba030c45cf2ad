"""A fake timed device for the harness tests: CPU tensors and the Triton interpreter, but with
timing switched on (host clock events, a tiny "L2") and adjustable peaks. The child process finds
it by `module:Class`, as it would a vendor backend."""

from __future__ import annotations

import time

from evaluator.harness.backends import Peaks
from evaluator.harness.backends.cpu import CpuBackend


class FakeEvent:
    def __init__(self) -> None:
        self.at = 0.0

    def record(self) -> None:
        self.at = time.perf_counter()

    def elapsed_time(self, other: FakeEvent) -> float:
        return (other.at - self.at) * 1000.0


class FakeTimedBackend(CpuBackend):
    supports_timing = True
    flush_min_bytes = 0
    allowed_torch_api = ("torch.fake.synchronize",)

    def device_name(self) -> str:
        return "Fake Timed Device"

    def event(self) -> FakeEvent:
        return FakeEvent()

    def l2_bytes(self) -> int:
        return 4 << 10

    def default_peaks(self) -> Peaks:
        return Peaks(1e15, {"default": 1e18}, 4 << 10)


class FakeImpossibleBackend(FakeTimedBackend):
    """Peaks so low that any measured time beats the physical floor."""

    def default_peaks(self) -> Peaks:
        return Peaks(1.0, {"default": 1.0}, 4 << 10)
