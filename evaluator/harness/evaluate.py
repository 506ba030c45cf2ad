"""One attempt, from source text to result document, on the trusted side.

The parent generates every input from seeds, computes the reference on its own clone, sends the
candidate process another clone, keeps a pristine copy, and judges what comes back: output values
and types, inputs left unchanged, dispatch actually reaching the candidate, the aten ops the
candidate ran itself ("trace"), Triton launches ("launch"), a replay with launches switched off
("ghost"), and on timed tiers the physical floor ("physics").
"""

from __future__ import annotations

import contextlib
import math
import secrets
import time
from collections.abc import Iterator
from typing import Any

import torch

from evaluator.harness import hidden, policy, replay, timed, wire
from evaluator.harness.backends import Backend, Peaks
from evaluator.harness.gate import DeviceGate
from evaluator.harness.judging import (
    clone_exact,
    compare,
    derive_seed,
    needs_launch,
    output_nbytes,
    root_name,
    same_tensor,
)
from evaluator.harness.pool import Child, ChildGone, WarmPool, send_bye
from evaluator.harness.result import jsonable, new_result
from evaluator.harness.specs import Locator
from evaluator.harness.wire import tensor_items
from operators.spec import OperatorSpec, Rng

SEEDS_PER_CASE = {"smoke": 2, "full": 2, "edge": 2, "perf": 1}


class HarnessError(Exception):
    """The harness itself could not reach a verdict (bad spec, tier without cases, ...)."""


GHOST_DRAWS = 3  # ghost replays (each on its own draw) before recorded reads count as no excuse


class Attempt:
    """State of one evaluation; `run()` returns the result document."""

    def __init__(self, *, spec: OperatorSpec, locator: Locator, source: str, request: Any, harness: Any) -> None:
        """`request` is a harness.AttemptRequest, `harness` the Harness (config, backend, pool,
        peaks, gate and environment come from it)."""
        config = harness.config
        self.config, self.request = config, request
        self.flush, self.clock = config.flush, config.clock
        # attempts side by side on one device share it while checking and take it alone to time
        self.gate: DeviceGate = harness.gate
        # held-out runs: HiddenCase dicts checked after the public run, in a child of their own
        self.hidden_cases = request.hidden_cases
        self.spec, self.locator, self.source, self.file_name = spec, locator, source, request.file_name
        self.max_cases = config.max_cases
        self.backend: Backend = harness.backend
        self.pool: WarmPool = harness.pool
        self.tier, self.timeout_s = request.tier, request.timeout_s
        self.peaks: Peaks | None = harness.peaks
        self.time_tiers = config.time_tiers
        self.seed_tier = request.tier  # the tier whose cases are being drawn (perf after full on timing devices)
        self.secret_seed = request.secret_seed
        self.static_policy = config.static_policy
        self.time_budget_s = config.time_budget_s
        seed = request.seed
        self.base_seed = seed if seed is not None else (secrets.randbits(62) if self.secret_seed else 0)
        self.result = new_result(
            spec.id, self.tier, "secret" if self.secret_seed else "public", dict(harness.environment)
        )
        if not self.secret_seed:
            self.result["seed"] = self.base_seed
        self.device = self.backend.device_type
        self.private_paths: list[str] = []  # the candidates' directories, scrubbed from the result
        # where the attempt's wall time went (trusted-side phases next to the candidate's own calls),
        # so a slow attempt can be explained from its result alone
        self.profile = {
            "acquire_s": 0.0,  # the public child and, for held-out runs, the hidden cases' child
            "load_s": 0.0,
            "inputs_s": 0.0,
            "reference_s": 0.0,
            "exchange_s": 0.0,
            "candidate_calls_s": 0.0,
            "judge_s": 0.0,
            "ghost_s": 0.0,
            "gate_wait_s": 0.0,  # waiting for neighbouring attempts to leave the device before timing
            "timing_s": 0.0,  # all of the timed tier, of which:
            "timing_setup_s": 0.0,  # input sets, first reference, clones
            "timing_child_s": 0.0,  # the candidate process timing itself (warm-up, compile, samples)
            "timing_verify_s": 0.0,  # timed outputs checked, inputs unchanged
            "timing_baseline_s": 0.0,  # the baseline timed under the same protocol
            "timed_s": 0.0,
        }
        self.child: Child | None = None
        self.replayer_child: Child | None = None  # times recorded launches (replay.py); never loads the solution
        self.deadline = 0.0
        self.hidden_phase = False  # checking hidden cases in their own child
        self.started = 0.0
        self.public_clock: tuple[float, dict[str, float]] | None = None  # duration and profile before hidden cases

    # ---- helpers -----------------------------------------------------------
    @contextlib.contextmanager
    def replayer(self) -> Iterator[Child | None]:
        """A fresh pool process serving as this attempt's replayer while the timed cases run (None
        where the backend cannot replay launches); its isolation counts like the candidate's."""
        if not (self.config.replay_timing and replay.replay_supported(self.backend)):
            yield None
            return
        acquire_started = time.monotonic()
        child = self.replayer_child = self.pool.acquire()
        self.profile["acquire_s"] += time.monotonic() - acquire_started
        self.private_paths.append(child.workdir)
        if not child.isolation.get("complete"):
            self.result["environment"]["isolation"]["complete"] = False
        try:
            child.send({"type": "replayer", "locator": list(self.locator)}, self.deadline)
            yield child
        finally:
            self.replayer_child = None
            send_bye(child)
            self.pool.release(child)

    def replayer_alive(self) -> bool:
        return self.replayer_child is not None

    def replayer_lost(self, why: BaseException) -> None:
        """The replayer died or answered out of protocol (a kernel that faults there, say): the
        remaining cases are timed in the candidate process."""
        if self.replayer_child is not None:
            self.replayer_child.kill()
        self.replayer_child = None

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.profile[name] += time.monotonic() - started

    def lap(self, name: str, since: float) -> float:
        """Add the time since `since` to a profile phase; returns now, the next phase's start."""
        now = time.monotonic()
        self.profile[name] += now - since
        return now

    def finish(self, verdict: str, reason: str) -> dict[str, Any]:
        self.result["verdict"] = verdict
        self.result["reason"] = reason
        return self.result

    def finding(self, layer: str, detail: str) -> None:
        if self.hidden_phase:  # what the candidate did on hidden inputs is not described
            detail = hidden.HIDDEN_FAILURE
        entry = {"layer": layer, "detail": detail}
        if entry not in self.result["findings"] and len(self.result["findings"]) < 50:
            self.result["findings"].append(entry)

    def input_seed(self, case_index: int, draw: int) -> int:
        """The generator seed of one input draw: a one-way hash, so handing it to the candidate
        (timed sets are generated there) says nothing about the base seed or other draws."""
        return derive_seed(self.base_seed, self.spec.id, self.seed_tier, case_index, draw)

    def make_inputs(self, case: dict[str, Any], case_index: int, draw: int) -> dict[str, Any]:
        return self.spec.make_inputs(case, Rng(self.input_seed(case_index, draw), self.device))

    def reference(self, inputs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        ref_inputs = clone_exact(inputs)
        with torch.no_grad():
            ref = self.spec.run_reference(ref_inputs)
        self.backend.synchronize()
        return ref, ref_inputs

    def call(
        self, kind: str, inputs: dict[str, Any], ref: Any, *, trace: bool = True, case_key: str = ""
    ) -> dict[str, Any]:
        """One candidate call. `case_key` names the case: the child records what the first real
        call of a case read back of its own launches' buffers, and the ghost replay of that case
        is served those values (docs/harness.md, ghost)."""
        assert self.child is not None
        expected = output_nbytes(ref)
        self.child.send(
            {
                "type": kind,
                "inputs": inputs,
                "poison": expected,
                "trace": trace,
                "case_key": case_key,
            },
            self.deadline,
        )
        return self.child.receive(self.deadline, wire.reply_budget(expected, inputs))

    def inputs_after(self, reply: dict[str, Any], sent: dict[str, Any]) -> dict[str, torch.Tensor]:
        """The inputs as the candidate left them. Only those that came back as the views that were
        sent (shape, strides, dtype) are rebuilt: any other is a changed input, and a view
        the parent never made (a huge zero-stride one) is never materialised."""
        raw = reply.get("inputs_after")
        if type(raw) is not dict:
            raise wire.MalformedOutput("inputs_after is not a mapping")
        found = {}
        for name, original in tensor_items(sent).items():
            blob = raw.get(name)
            if wire.same_view(blob, original):
                found[name] = wire.decode_input(blob, self.device)
        return found

    # ---- the attempt ---------------------------------------------------------
    def run(self) -> dict[str, Any]:
        self.run_public()
        return self.run_hidden()

    def run_public(self) -> dict[str, Any]:
        """Everything but the held-out cases: the result as far as it is published."""
        self.started = time.monotonic()
        try:
            return self._run()
        finally:
            self.public_clock = (time.monotonic() - self.started, dict(self.profile))
            self._stamp()

    def run_hidden(self) -> dict[str, Any]:
        """The held-out cases, when there are any and the public run was correct: in a fresh child,
        with what was left of the attempt's time limit. Callers may run it later (a bundle runs
        every job's public run first), so no candidate can time another's held-out phase."""
        if not self.hidden_cases or self.result["verdict"] != "correct":
            return self.result
        assert self.public_clock is not None
        self.deadline = time.monotonic() + max(0.0, self.timeout_s - self.public_clock[0])
        try:
            # a fresh child that never saw the public run, and whose only published output is
            # pass/fail per hidden case: nothing it says after seeing hidden inputs reaches the result,
            # nor how long it took (the candidate could spin for as long as a hidden shape is large)
            self._in_fresh_child(self._run_hidden, publish_output=False)
        finally:
            self._stamp()
        return self.result

    def _stamp(self) -> None:
        duration, profile = self.public_clock or (time.monotonic() - self.started, self.profile)
        self.result["duration_s"] = round(duration, 3)
        self.result["profile"] = {k: round(v, 4) for k, v in profile.items()}

    def tier_cases(self, tier: str) -> list[dict[str, Any]]:
        """The tier's cases, or an evenly spaced deterministic sample of `max_cases` of them (recorded
        in the result as `cases_sampled`), so a large tier fits a time budget without bias to its start."""
        cases = list(self.spec.tier(tier))
        if self.max_cases is None or len(cases) <= self.max_cases:
            return cases
        step = len(cases) / self.max_cases
        kept = [cases[int(i * step)] for i in range(self.max_cases)]
        self.result.setdefault("cases_sampled", {})[tier] = {"kept": len(kept), "of": len(cases)}
        return kept

    def _run(self) -> dict[str, Any]:
        cases = self.tier_cases(self.tier)
        if not cases:
            raise HarnessError(f"{self.spec.id} has no cases in tier {self.tier!r}")
        try:
            static = policy.check_source(self.source, self.spec.source, file_name=self.file_name)
        except SyntaxError as exc:
            return self.finish("compile_error", f"SyntaxError: {exc.msg} (line {exc.lineno})")
        except (ValueError, RecursionError) as exc:
            return self.finish("compile_error", f"the source cannot be parsed: {type(exc).__name__}: {exc}")
        if static and self.static_policy:
            for item in static:
                self.finding("static", f"line {item.line}: {item.detail}")
            return self.finish("cheat_detected", f"static policy: line {static[0].line}: {static[0].detail}")

        self.deadline = time.monotonic() + self.timeout_s
        self._in_fresh_child(lambda: self._run_in_child(cases), publish_output=True)
        return self.result

    def _in_fresh_child(self, body: Any, *, publish_output: bool) -> dict[str, Any]:
        acquire_started = time.monotonic()
        self.child = self.pool.acquire()
        self.profile["acquire_s"] += time.monotonic() - acquire_started
        self.private_paths.append(self.child.workdir)
        if publish_output:
            self.result["environment"]["isolation"] = dict(self.child.isolation)
        elif not self.child.isolation.get("complete"):
            self.result["environment"]["isolation"]["complete"] = False
        try:
            return body()
        except ChildGone as gone:
            if not publish_output:
                return self.finish("timeout" if gone.timed_out else "runtime_error", hidden.HIDDEN_FAILURE)
            if gone.timed_out:
                return self.finish(
                    "timeout", f"no answer within {self.timeout_s:g} s (every process of the attempt killed)"
                )
            return self.finish("runtime_error", gone.reason)
        except wire.MalformedOutput as exc:
            if not publish_output:
                return self.finish("runtime_error", hidden.HIDDEN_FAILURE)
            return self.finish("runtime_error", f"malformed reply from the candidate process: {exc}")
        finally:
            send_bye(self.child)
            if publish_output:
                self.result["stderr_tail"] = self.child.output_tail()
            self.pool.release(self.child)

    def _load(self) -> dict[str, Any] | None:
        """Load the solution in the current child: None when loaded, else the final verdict."""
        assert self.child is not None
        self.child.send(
            {"type": "load", "locator": list(self.locator), "source": self.source, "file_name": self.file_name}
        )
        load_started = time.monotonic()
        loaded = self.child.receive(self.deadline)
        self.profile["load_s"] += time.monotonic() - load_started
        if loaded.get("type") == "error":
            return self.finish("compile_error", f"loading the solution failed: {loaded.get('message')}")
        if loaded.get("type") == "missing":
            missing = ", ".join(str(m) for m in loaded.get("missing", []))
            return self.finish("missing_entrypoint", f"the solution does not define: {missing}")
        if loaded.get("type") != "loaded":
            return self.finish("runtime_error", "the candidate process answered out of protocol")
        return None

    def _run_hidden(self) -> dict[str, Any]:
        """Check the hidden cases in the current (fresh) child; only pass/fail per case is kept."""
        self.hidden_phase = True
        self.seed_tier = self.tier  # the public run may have drawn perf inputs last
        public_cases, findings_before = len(self.result["cases"]), len(self.result["findings"])
        if self._load() is not None:
            return self.finish("runtime_error", hidden.HIDDEN_FAILURE)
        checked = self._check_cases(list(self.hidden_cases), SEEDS_PER_CASE[self.tier], first_index=public_cases)
        if isinstance(checked, dict) or len(self.result["findings"]) > findings_before:
            verdict = "cheat_detected" if len(self.result["findings"]) > findings_before else self.result["verdict"]
            return self.finish(verdict, hidden.HIDDEN_FAILURE)
        if checked[0]:
            return self.finish("incorrect", f"{checked[0]} of {len(self.hidden_cases)} {hidden.HIDDEN_CASE_REASON}")
        return self.finish("correct", f"{self.result['reason']}; {len(self.hidden_cases)} hidden case(s) passed")

    def _run_in_child(self, cases: list[dict[str, Any]]) -> dict[str, Any]:
        failed_to_load = self._load()
        if failed_to_load is not None:
            return failed_to_load

        draws = SEEDS_PER_CASE.get(self.tier, 2)
        checked = self._check_cases(cases, draws)
        if isinstance(checked, dict):
            return checked
        failed, ghost_case = checked

        if not self.result["findings"] and failed == 0 and ghost_case is not None and self._ghost_applies():
            with self.phase("ghost_s"), self.gate.shared():
                self._ghost(*ghost_case, draw=draws)
        if self.result["findings"]:
            first = self.result["findings"][0]
            return self.finish("cheat_detected", f"{first['layer']}: {first['detail']}")
        if failed:
            first_bad = next(i for i, c in enumerate(self.result["cases"]) if not c["passed"])
            bad = self.result["cases"][first_bad]
            skipped = self.result.get("cases_skipped", 0)
            checked = (
                f"{failed} of {len(cases)} cases failed"
                if not skipped
                else (
                    f"{failed} of the {len(cases) - skipped} cases checked failed ({skipped} more not run: fail-fast)"
                )
            )
            return self.finish("incorrect", f"{checked}; case {first_bad} {bad['params']}: {bad['reason']}")
        timed_tier = self._timed_tier()
        if timed_tier is not None:
            timed_cases, first_entry = cases, 0
            if timed_tier != self.tier:
                # a leaderboard evaluation on a timing device: `full` decides correctness, then the
                # `perf` shapes are checked the same way and timed
                timed_cases, first_entry = self.tier_cases(timed_tier), len(self.result["cases"])
                self.seed_tier = timed_tier
                checked = self._check_cases(timed_cases, SEEDS_PER_CASE[timed_tier], tier_label=timed_tier)
                if isinstance(checked, dict):
                    return checked
                if self.result["findings"]:
                    first = self.result["findings"][0]
                    return self.finish("cheat_detected", f"{first['layer']}: {first['detail']}")
                if checked[0]:
                    bad = next(c for c in self.result["cases"][first_entry:] if not c["passed"])
                    return self.finish(
                        "incorrect",
                        f"{checked[0]} of {len(timed_cases)} perf cases failed; {bad['params']}: {bad['reason']}",
                    )
            with self.gate.exclusive() as waited:
                self.profile["gate_wait_s"] = waited
                self.deadline += waited  # the wait is the neighbours' time, not this candidate's
                with self.phase("timing_s"):
                    verdict = timed.time_attempt(self, timed_cases, first_entry=first_entry)
            if verdict is not None:
                return verdict
        return self.finish("correct", f"all {len(cases)} cases passed ({draws} input draw(s) each)")

    def _check_cases(
        self, cases: list[dict[str, Any]], draws: int, *, tier_label: str | None = None, first_index: int = 0
    ) -> dict[str, Any] | tuple[int, tuple[int, dict[str, Any]] | None]:
        """Check each case on `draws` fresh inputs, appending one entry per case to the result.
        Returns a final verdict dict, or (number of failed cases, the first case to ghost-replay)."""
        failed = 0
        # ghost replay uses the largest passing case that needed a launch: on a tiny case (a 0-d
        # bool, an add_ with alpha 0.001) "nothing computed" can be within tolerance by accident
        ghost_case: tuple[int, dict[str, Any]] | None = None
        ghost_size = 0
        for index, case in enumerate(cases, start=first_index):
            if self.config.fail_fast_after and failed >= self.config.fail_fast_after:
                # the verdict cannot become correct any more: a timeout is for kernels that hang
                skipped = len(cases) - (index - first_index)
                self.result["cases_skipped"] = self.result.get("cases_skipped", 0) + skipped
                break
            entry: dict[str, Any] = {
                "params": jsonable(case),
                "passed": True,
                "max_abs_err": None,
                "max_rel_err": None,
                "reason": "",
            }
            if tier_label is not None:
                entry["tier"] = tier_label
            self.result["cases"].append(entry)
            for draw in range(draws):
                with self.gate.shared():
                    verdict = self._check_once(index, case, draw, entry)
                if verdict is not None:
                    return verdict
                if not entry["passed"]:
                    break
            size = entry.pop("_needs_launch", 0)
            if not entry["passed"]:
                failed += 1
            elif size > ghost_size:
                ghost_case, ghost_size = (index, case), size
        return failed, ghost_case

    def _timed_tier(self) -> str | None:
        """Which tier's cases are timed: the tier itself when it is a timed tier; for `full` on a
        device that can time, the `perf` tier (when timed and present); otherwise none."""
        if not self.backend.supports_timing:
            return None
        if self.tier in self.time_tiers:
            return self.tier
        if self.tier == "full" and "perf" in self.time_tiers and self.spec.tier("perf"):
            return "perf"
        return None

    def _ghost_applies(self) -> bool:
        return not (self.spec.stochastic or self.spec.constant_output_ok)

    def _check_once(self, index: int, case: dict[str, Any], draw: int, entry: dict[str, Any]) -> dict[str, Any] | None:
        with self.phase("inputs_s"):
            inputs = self.make_inputs(case, index, draw)
            pristine = clone_exact(inputs)
        with self.phase("reference_s"):
            ref, ref_inputs = self.reference(inputs)
        with self.phase("exchange_s"):
            sent = clone_exact(inputs)
            reply = self.call("call", sent, ref, case_key=f"{self.seed_tier}:{index}")
        with self.phase("judge_s"):
            return self._judge(index, case, entry, inputs, pristine, ref, ref_inputs, sent, reply)

    def _judge(
        self,
        index: int,
        case: dict[str, Any],
        entry: dict[str, Any],
        inputs: dict[str, Any],
        pristine: dict[str, Any],
        ref: Any,
        ref_inputs: dict[str, Any],
        sent: dict[str, Any],
        reply: dict[str, Any],
    ) -> dict[str, Any] | None:
        if reply.get("type") == "error":
            kind = "compile_error" if reply.get("kind") == "compile_error" else "runtime_error"
            entry.update(passed=False, reason=str(reply.get("message", ""))[:500])
            if reply.get("harness"):
                return self.finish(
                    kind,
                    f"harness side of the candidate process failed: {reply.get('message')}\n"
                    f"{str(reply.get('traceback', ''))[-1500:]}",
                )
            return self.finish(kind, f"case {index} {jsonable(case)}: {reply.get('message')}")
        if reply.get("type") != "result":
            return self.finish("runtime_error", "the candidate process answered out of protocol")
        out = wire.decode_value(reply.get("output"), self.device)
        after = self.inputs_after(reply, sent)
        calls, launches, trace = reply.get("calls"), reply.get("launches"), reply.get("trace")
        elapsed = reply.get("elapsed_s")
        if type(elapsed) is float and 0 <= elapsed < 1e6:
            self.profile["candidate_calls_s"] += elapsed
        if not (type(calls) is int and type(launches) is int and type(trace) is list):
            return self.finish("runtime_error", "the candidate process answered out of protocol")

        for op in trace[:5]:
            self.finding("trace", f"case {index}: the candidate {str(op)[:300]}")
        read_back = reply.get("read_back")
        if type(read_back) is int and read_back > 0 and not self._ghost_applies():
            # no ghost replay checks this operator: a read of what its own launch wrote is how a
            # wrapper would tell a real call from the ghost, so it is refused outright here
            self.finding("trace", f"case {index}: the candidate read back on the host a buffer its Triton launch wrote")
        if calls == 0:
            entry.update(passed=False, reason="the solution's functions were never called (the built-in kernel ran)")
            return None
        result = compare(self.spec, out, ref, case, inputs, self.backend.interpreter)
        if not result.passed:
            entry.update(passed=False, reason=result.reason[:500])
        for key in ("max_abs_err", "max_rel_err"):
            value = getattr(result, key)
            if value is not None and math.isfinite(value):
                entry[key] = value if entry[key] is None else max(entry[key], value)
        if entry["passed"]:
            before = tensor_items(pristine)
            for name, original in before.items():
                if root_name(name) in self.spec.mutates:
                    continue
                now = after.get(name)
                if not isinstance(now, torch.Tensor) or not same_tensor(now.to(original.device), original):
                    entry.update(passed=False, reason=f"input {name!r} was modified by the call")
                    break
        launch_needed = needs_launch(self.spec, ref, pristine, ref_inputs)
        if entry["passed"] and launch_needed:
            entry["_needs_launch"] = max(1, sum(output_nbytes(ref)))
            if launches == 0:
                self.finding("launch", f"case {index}: no Triton kernel was launched during the call")
        return None

    def _ghost(self, index: int, case: dict[str, Any], *, draw: int) -> None:
        """Replay the case on a fresh draw with every launch switched off. Where the child served
        recorded reads, an honest wrapper is right only if its scalar happens to be the same for
        both draws (an argmax index, about 1 in the reduction length): a finding then needs
        GHOST_DRAWS correct replays in a row, each on a draw of its own."""
        for attempt in range(GHOST_DRAWS):
            inputs = self.make_inputs(case, index, draw + attempt)
            ref, _ = self.reference(inputs)
            sent = clone_exact(inputs)
            # the trace's dispatch mode is what serves the recorded reads; its findings are not used here
            reply = self.call("ghost", sent, ref, case_key=f"{self.seed_tier}:{index}")
            if reply.get("type") != "result":
                return  # failing without Triton is what an honest solution does
            out = wire.decode_value(reply.get("output"), self.device)
            if not compare(self.spec, out, ref, case, inputs, self.backend.interpreter).passed:
                return
            served = reply.get("served")
            if not (type(served) is int and served > 0):
                break  # nothing came from the record: correct without launches is the finding
        self.finding("ghost", f"case {index}: the output is still correct with every Triton launch switched off")
