"""Sharing one device between attempts that run side by side.

Checking correctness (inputs, references, candidate calls, judging) tolerates neighbours on the
device; a timed phase does not. `DeviceGate` is a writer-preferring readers-writer lock: any number
of correctness steps hold it shared, a timed phase holds it alone, and once a timed phase waits no
new shared step starts, so it waits at most for the steps already running (one candidate call each).

It keeps honest neighbours off the device, not hostile ones: a candidate that leaves work running
after its reply can still overlap another attempt's timing. Several timed workers per device are
therefore for trusted solution sets (the reference row on a lent machine); runners default to one.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator


class DeviceGate:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._sharers = 0
        self._exclusive = False
        self._exclusive_waiting = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._changed:
            while self._exclusive or self._exclusive_waiting:
                self._changed.wait()
            self._sharers += 1
        try:
            yield
        finally:
            with self._changed:
                self._sharers -= 1
                self._changed.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[float]:
        """Hold the device alone; yields the seconds spent waiting for it."""
        started = time.monotonic()
        with self._changed:
            self._exclusive_waiting += 1
            try:
                while self._exclusive or self._sharers:
                    self._changed.wait()
            finally:
                self._exclusive_waiting -= 1
            self._exclusive = True
        try:
            yield time.monotonic() - started
        finally:
            with self._changed:
                self._exclusive = False
                self._changed.notify_all()

    def state(self) -> tuple[int, bool]:
        """(shared holders, held exclusively) — for tests and diagnostics."""
        with self._changed:
            return self._sharers, self._exclusive
