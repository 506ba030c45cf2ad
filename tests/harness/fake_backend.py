"""A fake timed device for the harness tests: CPU tensors and the Triton interpreter, but with
timing switched on (host clock events, a tiny "L2") and adjustable peaks. The child process finds
it by `module:Class`, as it would a vendor backend."""

from __future__ import annotations

import time

from evaluator.harness.backends import Peaks
from evaluator.harness.backends.cpu import CpuBackend
from evaluator.harness.kernel_clock import Activity

FAKE_MARKER = "fake::spin_kernel(long)"


class FakeEvent:
    def __init__(self) -> None:
        self.at = 0.0

    def record(self) -> None:
        self.at = time.perf_counter()

    def elapsed_time(self, other: FakeEvent) -> float:
        return (other.at - self.at) * 1000.0


class FakeTrace:
    """Host-clock stand-in for a device's activity records: each spin() while the trace is open
    is a marker, and the time between an opening and a closing marker one activity."""

    def __init__(self, backend: FakeTimedBackend) -> None:
        self.backend = backend
        self.marks: list[float] = []

    def __enter__(self) -> FakeTrace:
        self.backend.trace = self
        return self

    def __exit__(self, *exc: object) -> None:
        self.backend.trace = None

    def activities(self) -> list[Activity]:
        found = [Activity(FAKE_MARKER, t, t) for t in self.marks]
        found += [Activity("work", a, b) for a, b in zip(self.marks[0::2], self.marks[1::2], strict=False)]
        return found


class FakeTimedBackend(CpuBackend):
    supports_timing = True
    flush_min_bytes = 0
    allowed_torch_api = ("torch.fake.synchronize",)
    kernel_clock_marker = "::spin_kernel("
    trace: FakeTrace | None = None

    def kernel_trace(self) -> FakeTrace:
        return FakeTrace(self)

    def spin(self, microseconds: float) -> None:
        if self.trace is not None:
            self.trace.marks.append(time.perf_counter() * 1e6)

    def device_name(self) -> str:
        return "Fake Timed Device"

    def event(self) -> FakeEvent:
        return FakeEvent()

    def l2_bytes(self) -> int:
        return 4 << 10

    def default_peaks(self) -> Peaks:
        return Peaks(1e15, {"default": 1e18}, 4 << 10)


class FakeLostMarkerBackend(FakeTimedBackend):
    """A trace that loses one marker in every batch: nothing can be attributed."""

    def kernel_trace(self) -> FakeTrace:
        trace = FakeTrace(self)
        original = trace.activities
        trace.activities = lambda: original()[1:]  # type: ignore[method-assign]
        return trace


class FakeBrokenTraceBackend(FakeTimedBackend):
    """A trace whose records cannot be read (a profiler failure): the harness's problem, not the
    candidate's."""

    def kernel_trace(self) -> FakeTrace:
        trace = FakeTrace(self)

        def broken() -> list[Activity]:
            raise RuntimeError("CUPTI_ERROR_UNKNOWN")

        trace.activities = broken  # type: ignore[method-assign]
        return trace


class FakeImpossibleBackend(FakeTimedBackend):
    """Peaks so low that any measured time beats the physical floor."""

    def default_peaks(self) -> Peaks:
        return Peaks(1.0, {"default": 1.0}, 4 << 10)
