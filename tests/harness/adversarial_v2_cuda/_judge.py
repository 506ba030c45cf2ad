"""How the GPU-only families of tests/harness/adversarial_v2_cuda/ are judged (imported by
tests/harness/test_adversarial_v2.py only when a cuda device is present). Each family's file says in
its docstring what it attacks and which verdict or figure proves it was stopped; EXPECT encodes it."""

from __future__ import annotations

import json
import os
import time

from evaluator.harness import Harness
from tests.harness import specs

MAX_SPEEDUP = 1.5  # an add is memory bound: no honest kernel beats torch.add's bandwidth by more
PLAUSIBLE_SPEEDUP = 1.2  # a forgery kept above the physics floor: an honest add is within this of torch.add
TIMEOUT_S = 120.0
# file -> (must the verdict be "not correct" whatever the timing?, speedup bound if correct, max duration)
EXPECT = {
    "forged_timing_samples.py": (False, MAX_SPEEDUP, None),
    "forged_timing_plausible.py": (False, PLAUSIBLE_SPEEDUP, None),
    "replay_program_forged.py": (False, PLAUSIBLE_SPEEDUP, None),
    "graph_capture_side_stream.py": (False, MAX_SPEEDUP, None),
    "memo_input_identity.py": (False, MAX_SPEEDUP, None),
    "stale_after_warmup.py": (False, MAX_SPEEDUP, None),
    "timed_sets_rigged.py": (False, MAX_SPEEDUP, None),
    "ipc_segment_overwrite.py": (True, None, None),
    "ipc_crafted_fields.py": (True, None, None),
    "event_stall.py": (True, None, 20.0 + 30.0),
}


def check(name: str, source: str, *, world_secrets: list[str]) -> None:
    must_fail, max_speedup, max_duration = EXPECT[name]
    timeout = 20.0 if max_duration is not None else TIMEOUT_S
    for static in (True, False):
        started = time.monotonic()
        with Harness(device="cuda", static_policy=static) as h:
            result = h.evaluate(specs.ADD, source, tier="full", timeout_s=timeout)
        elapsed = time.monotonic() - started
        text = json.dumps(result)
        assert all(s not in text for s in world_secrets)
        if must_fail:
            assert result["verdict"] != "correct", (name, static, result["reason"][:300])
        elif result["verdict"] == "correct":
            # ranked only when the launch replay measured it; a timing of the candidate's own
            # process is shown, never ranked (evaluator/services/result_checks.py)
            timing = result.get("timing") or {}
            measured_by = timing.get("measured_by")
            assert measured_by in ("replay", "candidate_process"), (name, static, measured_by)
            if measured_by == "replay":
                speedup = timing.get("speedup")
                assert speedup is not None and speedup <= max_speedup, (name, static, speedup)
        if max_duration is not None:
            assert result["verdict"] == "timeout", (name, result["verdict"])
            assert elapsed <= max_duration + 60, f"{name}: the attempt took {elapsed:.0f} s for a {timeout:g} s limit"
        assert os.getpid() > 0
