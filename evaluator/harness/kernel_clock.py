"""The kernel clock: a timed call's duration from the device's own start and end timestamps of the
work it ran (the activity records CUPTI keeps, read through torch.profiler), instead of from two
CUDA events around it. Events add the time between an event and the kernel it brackets (~1.5 µs
on an H200); Nsight Compute's `gpu__time_duration` leaves most of that out, so the clock is what
to compare with ncu, and speedups of short kernels are not pulled towards 1 by a constant.
DeepGEMM's `bench_kineto` and TileLang's CUPTI backend read the same records.

Each timed call sits between two marker kernels the harness launches (the device backend's
`spin`, whose kernel no Triton function can be named like). The opening marker is the spin that
keeps the device busy while the host enqueues the call, so when it ends the call's work is
already queued: a call's time runs from the end of its opening marker (or the start of its first
activity, if that came earlier on another stream) to the end of the last activity before its
closing marker, of kernels, copies and memsets on any stream (the closing marker is launched
after a device-wide synchronize, so everything the call enqueued started before it). That counts
each launch's time on the device, as Nsight Compute's duration does, and no host time.
`timing._measure_events` lays the markers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Activity(NamedTuple):
    name: str
    start_us: float
    end_us: float


def spans_between_markers(
    activities: list[Activity], is_marker: Callable[[str], bool], expected: int
) -> list[float] | None:
    """Per call, µs from the end of its opening marker (or an earlier start of one of its
    activities) to the last activity's end before its closing marker; 0.0 when it ran nothing on
    the device. None when there are not exactly two markers per call (records lost, or a marker
    the harness did not launch): then nothing can be attributed, and the caller times with events."""
    ordered = sorted(activities, key=lambda a: a.start_us)
    markers = [i for i, activity in enumerate(ordered) if is_marker(activity.name)]
    if len(markers) != 2 * expected:
        return None
    spans = []
    for k in range(expected):
        opening, closing = markers[2 * k], markers[2 * k + 1]
        inside = ordered[opening + 1 : closing]
        if not inside:
            spans.append(0.0)
            continue
        began = min(ordered[opening].end_us, min(a.start_us for a in inside))
        spans.append(max(a.end_us for a in inside) - began)
    return spans


class KinetoTrace:
    """Records the device's activities while open (torch.profiler with device activities only:
    no operator recording, so nothing runs on the host per call beyond CUPTI's own callbacks)."""

    def __init__(self) -> None:
        self._profile: Any = None

    def __enter__(self) -> KinetoTrace:
        import torch

        self._profile = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
        self._profile.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._profile.__exit__(*exc)

    def activities(self) -> list[Activity]:
        import torch

        device = torch.autograd.DeviceType.CUDA
        return [
            Activity(event.name, float(event.time_range.start), float(event.time_range.end))
            for event in self._profile.events()
            if event.device_type == device
        ]


def warm_up(backend: Any) -> str:
    """Open and close one trace: CUPTI's first start takes seconds (4.3 s on the H200), paid here
    once per process, outside any attempt. Returns why the clock is unavailable, or ""."""
    try:
        trace = backend.kernel_trace()
        if trace is None:
            return f"{backend.device_type} keeps no activity records"
        with trace:
            backend.synchronize()
        trace.activities()
    except Exception as exc:  # no CUPTI, no permission: timing falls back to events
        return f"{type(exc).__name__}: {exc}"[:300]
    return ""
