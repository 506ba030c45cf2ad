"""The order of device operations around each timed interval, on a backend that records them
(graph replay and CUDA events do not exist on the CPU interpreter)."""

from __future__ import annotations

import contextlib

from evaluator.harness import timing


class RecordingBackend:
    """Logs what the timing loop asks the device to do, in order."""

    graph_method = "recorded_graph"

    def __init__(self) -> None:
        self.log: list[str] = []

    def synchronize(self) -> None:
        self.log.append("sync")

    def spin(self, microseconds: float) -> None:
        self.log.append("spin")

    def event(self):
        backend = self

        class Event:
            def record(self) -> None:
                backend.log.append("record")

            def elapsed_time(self, other) -> float:
                return 0.005  # ms

        return Event()

    def graph(self):
        backend = self

        class Graph:
            def replay(self) -> None:
                backend.log.append("replay")

        return Graph()

    def graph_context(self, graph):
        return contextlib.nullcontext(graph)


def test_a_graph_replay_is_timed_only_after_a_spin_covers_its_host_submission():
    backend = RecordingBackend()
    result = timing._measure_graph(
        lambda which: which,
        4,
        backend=backend,
        restore_pairs=[[] for _ in range(4)],
        budget_s=0.0,
        warm_s=0.0,
        own_kernels=True,
    )
    assert len(result["samples_us"]) == timing.MIN_SAMPLES
    assert result["samples_us"][0] == 5.0 / 4  # interval / calls per replay
    replays = [i for i, op in enumerate(backend.log) if op == "replay"]
    # one replay per sample, then one more into poisoned outputs whose results are verified
    assert len(replays) == timing.MIN_SAMPLES + 1
    timed = replays[:-1]
    assert backend.log[replays[-1] - 1 : replays[-1] + 2] == ["sync", "replay", "sync"]
    for at in timed:
        # the device is kept busy from before the start event until the replay is queued behind it
        assert backend.log[at - 3 : at + 2] == ["sync", "spin", "record", "replay", "record"]
