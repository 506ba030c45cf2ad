"""The trusted side of a timed tier: input sets, the candidate's timing request and what comes
back (checked, never believed: samples type- and range-checked, every returned output verified
against a reference computed here, inputs unchanged), the baseline timed here under the same
protocol, speedup, %SOL and the physics floor. Measurement itself is timing.py."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from evaluator.harness import replay, wire
from evaluator.harness.judging import clone_exact, compare, needs_launch, output_nbytes
from evaluator.harness.peaks import floor_seconds
from evaluator.harness.pool import ChildGone
from evaluator.harness.timing import (
    KERNEL_CLOCK_METHOD,
    PHYSICS_MARGIN,
    VERIFIED_TIMED_OUTPUTS,
    measure,
    restore_pairs_for,
    summarize,
)
from evaluator.harness.wire import tensor_items

SETS_MAX = 200  # input sets per timed case: one per timed call (timing.measure), a graph replays one call per set
# device memory the sets of one case may take, in each process: the candidate process generates
# its own from the seeds sent to it (nothing travels but the seeds), this one the same sets for
# the baseline and for verifying the timed outputs it picks
SETS_BYTES_MAX = 2 << 30
SETS_MIN = 2


def timed_reply_budget(n_sets: int, output_sizes: list[int]) -> int:
    """What the reply to a timed case may bring back: the kept calls' outputs (a graph replay keeps
    one per set, events keep timing.KEPT_EVENT_OUTPUTS of them), each within a call's budget."""
    return n_sets * wire.reply_budget(output_sizes)


def _geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _baseline(spec: Any, device_type: str) -> tuple[str, Callable[[dict[str, Any]], Any]]:
    vendor = spec.vendor_baseline(device_type) if spec.vendor_baseline is not None else None
    if vendor is not None:
        return "vendor", lambda inputs: spec.invoke(vendor, inputs)
    if spec.source == "aten":
        # the built-in torch op, even where correctness uses a more exact reference (a float64
        # formulation, cumsum's single rounding): speedups are against what PyTorch users run
        return "torch", lambda inputs: spec.invoke(None, inputs)
    return "reference", spec.run_reference


def _checked_reply(reply: dict[str, Any], methods_allowed: set[str], n_sets: int) -> str | None:
    """Why a timing reply (the candidate process's or the replayer's) is malformed, or None."""
    samples = reply.get("samples_us")
    if (
        reply.get("type") != "timed"
        or type(samples) is not list
        or not samples
        or not all(type(x) is float and math.isfinite(x) and x >= 0 for x in samples)
        or reply.get("method") not in methods_allowed
    ):
        return "returned malformed timing"
    kept = reply.get("kept")
    if type(kept) is not dict or not kept:
        return "returned no timed outputs to verify"
    for item in kept.values():
        which = item.get("set") if type(item) is dict else None
        if type(which) is not int or not 0 <= which < n_sets:
            return "returned malformed timed outputs"
    return None


def _wrong_timed_output(
    attempt: Any, kept: dict[str, Any], sets: list[Any], refs: dict[int, Any], case: Any
) -> str | None:
    """The first wrong one of a sample of the kept outputs (a sample the timed process cannot
    predict: a graph replay returns every set's output), or None when they are right."""
    labels = list(kept)
    if len(labels) > VERIFIED_TIMED_OUTPUTS:
        labels = random.SystemRandom().sample(labels, VERIFIED_TIMED_OUTPUTS)
    for label in labels:
        which = kept[label]["set"]
        out = wire.decode_value(kept[label].get("output"), attempt.backend.device_type)
        if which not in refs:
            refs[which] = attempt.reference(sets[which])[0]
        verdict = compare(attempt.spec, out, refs[which], case, sets[which], attempt.backend.interpreter)
        if not verdict.passed:
            return f"timed call {label}: {verdict.reason}"
    return None


def _replayed_timing(
    attempt: Any, replayer: Any, request: dict[str, Any], n_sets: int, output_sizes: list[int]
) -> tuple[dict[str, Any] | None, str]:
    """The case timed by the replayer from one recorded call of the candidate: (its reply, "")
    or (None, why it could not be replayed). A candidate failing while recorded is an error reply."""
    attempt.child.send({"type": "record", "case": request["case"], "seeds": request["seeds"][1::-1]})
    recorded = attempt.child.receive(attempt.deadline, wire.REPLY_SLACK_BYTES)
    if recorded.get("type") == "error":
        return recorded, ""
    if recorded.get("type") != "recording":
        return None, str(recorded.get("message", "the call could not be recorded"))[:300]
    try:
        recording = replay.check(recorded.get("recording"))
    except replay.NotReplayable as exc:
        return None, str(exc)
    try:
        replayer.send(request | {"type": "replay", "recording": recording}, attempt.deadline)
        reply = replayer.receive(attempt.deadline, timed_reply_budget(n_sets, output_sizes))
    except (ChildGone, wire.MalformedOutput) as exc:
        attempt.replayer_lost(exc)
        return None, f"the replay failed: {exc}"[:300]
    if reply.get("type") == "unreplayable":
        return None, str(reply.get("message", ""))[:300]
    if type(reply.get("launches")) is not int or reply.get("launches") != replay.launches(recording):
        return None, "the replayer's reply is malformed"
    return reply, ""


def time_attempt(attempt: Any, cases: list[dict[str, Any]], *, first_entry: int = 0) -> dict[str, Any] | None:
    """Time every case of a correct attempt; returns a final verdict dict when timing changes it
    (a timed output wrong, a crash while timed, faster than physics), else None (the attempt's
    result gets its timing and %SOL).

    Where the backend can (replay.replay_supported), each case is recorded once in the candidate
    process and timed by the replayer, a process that never runs candidate code; the candidate
    process times itself only when its call cannot be replayed, and the timing says so
    (`measured_by`: the site ranks only replayed timings)."""
    with attempt.replayer() as replayer:
        return _time_cases(attempt, replayer, cases, first_entry)


def _time_cases(attempt: Any, replayer: Any, cases: list[dict[str, Any]], first_entry: int) -> dict[str, Any] | None:
    backend, spec, child = attempt.backend, attempt.spec, attempt.child
    l2 = backend.l2_bytes() or (attempt.peaks.l2_bytes if attempt.peaks else 0) or (64 << 20)
    baseline_kind, baseline_call = _baseline(spec, backend.device_type)
    speedups, sols, cand_medians, base_medians, iqrs, methods, total_samples = [], [], [], [], [], [], 0
    measured_by: set[str] = set()
    methods_allowed = {"events", backend.graph_method} | ({KERNEL_CLOCK_METHOD} if attempt.clock == "kernel" else set())
    for index, case in enumerate(cases):
        entry = attempt.result["cases"][first_entry + index]
        mark = time.monotonic()
        first = attempt.make_inputs(case, index, 100)
        ref0, ref_inputs0 = attempt.reference(first)
        set_bytes = sum(t.numel() * t.element_size() for t in tensor_items(first).values()) + sum(
            t.numel() * t.element_size() for t in tensor_items(ref0).values()
        )
        n_sets = max(SETS_MIN, min(SETS_MAX, SETS_BYTES_MAX // max(1, set_bytes)))
        sets = [first] + [attempt.make_inputs(case, index, 100 + k) for k in range(1, n_sets)]
        # references only for the sets whose timed outputs come back to be verified (a handful of
        # up to SETS_MAX sets): some references are slow Python, and the rest would be computed for nothing
        refs: dict[int, Any] = {0: ref0}
        remaining = attempt.deadline - time.monotonic()
        budget = max(0.2, min(attempt.time_budget_s, remaining / (4 * max(1, len(cases) - index))))
        mark = attempt.lap("timing_setup_s", mark)
        # the timed process draws the same sets from the same seeds: gigabytes of inputs by value
        # cost a minute a tier. Whatever it does to its copies, the outputs verified below are
        # compared with references of the sets drawn here.
        request = {
            "case": case,
            "seeds": [attempt.input_seed(index, 100 + k) for k in range(n_sets)],
            "l2_bytes": l2,
            "budget_s": budget,
            "flush": attempt.flush,
            "clock": attempt.clock,
        }
        reply, why_not = None, ""
        if replayer is not None and attempt.replayer_alive():
            reply, why_not = _replayed_timing(attempt, replayer, request, n_sets, output_nbytes(ref0))
            if reply is not None and reply.get("type") != "error":
                problem = _checked_reply(reply, methods_allowed, n_sets)
                wrong = None if problem else _wrong_timed_output(attempt, reply["kept"], sets, refs, case)
                if problem or wrong:
                    # the program recorded on one set does not compute the others: host logic that
                    # depends on input values (honest or not) runs only in the candidate process
                    why_not = f"the replayer {problem}" if problem else f"the replayed launches are wrong: {wrong}"
                    reply = None
        elif replayer is not None:
            why_not = "the replayer was lost on an earlier case"
        by = "replay" if reply is not None and reply.get("type") != "error" else "candidate_process"
        if reply is None:
            child.send(request | {"type": "time"})
            reply = child.receive(attempt.deadline, timed_reply_budget(n_sets, output_nbytes(ref0)))
        mark = attempt.lap("timing_child_s", mark)
        if reply.get("type") == "error":
            kind = "compile_error" if reply.get("kind") == "compile_error" else "runtime_error"
            return attempt.finish(kind, f"case {index} while timed: {reply.get('message')}")
        problem = _checked_reply(reply, methods_allowed, n_sets)
        if problem:
            return attempt.finish("runtime_error", f"the candidate process {problem}")
        samples, kept = reply["samples_us"], reply["kept"]
        if by == "candidate_process":
            wrong = _wrong_timed_output(attempt, kept, sets, refs, case)
            if wrong:
                entry.update(passed=False, reason=wrong[:500])
                return attempt.finish("incorrect", f"case {index}: the output of a timed call is wrong: {wrong}")
        measured_by.add(by)
        if reply.get("launches") == 0 and needs_launch(spec, ref0, clone_exact(first), ref_inputs0):
            attempt.finding("launch", f"case {index}: no Triton kernel was launched during the timed calls")
        cand = summarize(samples)
        method = str(reply.get("method"))
        warm_s = reply.get("warm_s")
        attempt.profile["timed_s"] += sum(samples) / 1e6 * (n_sets if method == backend.graph_method else 1) + (
            warm_s if type(warm_s) is float and 0 <= warm_s < 1e6 else 0.0
        )

        mark = attempt.lap("timing_verify_s", mark)
        base_sets = [clone_exact(s) for s in sets]
        pairs = restore_pairs_for(spec, base_sets)

        def run_baseline(which: int, base_sets: list[dict[str, Any]] = base_sets) -> Any:
            return baseline_call(base_sets[which])

        base = measure(
            run_baseline,
            n_sets,
            backend=backend,
            device=backend.device_type,
            l2_bytes=l2,
            restore_pairs=pairs,
            budget_s=budget,
            method=method,
            own_kernels=False,
            flush=attempt.flush,
            clock=attempt.clock,
        )
        attempt.lap("timing_baseline_s", mark)
        base_stats = summarize(base["samples_us"])
        speedup = base_stats["median_us"] / cand["median_us"] if cand["median_us"] > 0 else None
        cost = spec.cost(case, first) if spec.cost is not None else None
        flops = cost.flops if cost else 0.0
        nbytes = cost.bytes if cost else float(set_bytes)
        dtype = cost.dtype if cost else str(case.get("dtype", "float32"))
        floor_us = floor_seconds(flops, nbytes, dtype, attempt.peaks) * 1e6 if attempt.peaks else None
        sol = 100.0 * floor_us / cand["median_us"] if floor_us and cand["median_us"] > 0 else None
        entry["timing"] = {
            "candidate_median_us": cand["median_us"],
            "candidate_iqr_us": cand["iqr_us"],
            "samples": cand["samples"],
            "baseline_median_us": base_stats["median_us"],
            "baseline_iqr_us": base_stats["iqr_us"],
            "baseline_samples": base_stats["samples"],
            "baseline_method": base["method"],
            "speedup": speedup,
            "method": method,
            "input_sets": n_sets,
            "floor_us": floor_us,
            "sol_pct": sol,
            "warm_s": float(reply.get("warm_s") or 0.0),
            "measured_by": by,
            "note": "; ".join(filter(None, [str(reply.get("note", ""))[:200], why_not and f"not replayed: {why_not}"]))[
                :500
            ],
        }
        if floor_us and cand["median_us"] < PHYSICS_MARGIN * floor_us:
            attempt.finding(
                "physics",
                f"case {index}: {cand['median_us']:.2f} µs is faster than the chip's floor "
                f"of {floor_us:.2f} µs ({nbytes:.3g} B, {flops:.3g} FLOP)",
            )
        speedups.append(speedup)
        sols.append(sol)
        cand_medians.append(cand["median_us"])
        base_medians.append(base_stats["median_us"])
        iqrs.append(cand["iqr_us"])
        methods.append(method)
        total_samples += cand["samples"]
        del sets, refs, base_sets, run_baseline
    attempt.result["timing"] = {
        "candidate_median_us": _geomean(cand_medians),
        "candidate_iqr_us": _geomean(iqrs),
        "samples": total_samples,
        "baseline_median_us": _geomean(base_medians),
        "baseline_kind": baseline_kind,
        "speedup": _geomean(speedups),
        "method": methods[0] if len(set(methods)) == 1 else "mixed",
        "measured_by": "replay" if measured_by == {"replay"} else "candidate_process",
    }
    attempt.result["sol_pct"] = _geomean([s for s in sols if s is not None])
    if attempt.result["findings"]:
        first = attempt.result["findings"][0]
        return attempt.finish("cheat_detected", f"{first['layer']}: {first['detail']}")
    return None
