"""`kgb generate`: the LLM-track loop, resumable, metered, within a budget.

Protocols (settings["mode"]):
- "rounds" (upstream's pass@k protocol): up to R rounds; round r asks again only for the operators that
  have not passed yet, with the verifier's feedback on round r-1 when reflection is on (a fresh, single
  message: see kgb/prompting.py). Each operator runs its rounds as soon as its previous round is judged
  (upstream waits for the whole round; the requests and the results are the same, since round r of an
  operator depends only on its own round r-1).
- "samples": k independent samples per operator, all verified (pass@k by the unbiased estimator).

Every reply is recorded before it is verified (kgb/rundir.py), so an interrupted run resumes where it
stopped without asking the model twice. The budget is checked before each request: once the recorded
spend reaches it no new request starts (requests already in flight finish, so a run can overshoot by at
most `workers` replies).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import threading
import time
from typing import Any

from kgb import CLIENT_NAME, __version__
from kgb.errors import EXIT_BUDGET, EXIT_FAILED, EXIT_OK, KgbError, ProviderError
from kgb.extract import extract_code
from kgb.prompting import fix_prompt, operator_prompt, sha256
from kgb.providers import Provider
from kgb.rundir import RunDir, SampleState
from kgb.scoring import TOKEN_FIELDS, OperatorOutcome, Prices, summarize
from kgb.verify import Verifier

MAX_CONSECUTIVE_API_FAILURES = 3
FATAL_STATUSES = (400, 401, 403, 404, 422)


class _Stop(Exception):
    pass


@dataclasses.dataclass
class SessionOptions:
    workers: int = 4
    budget_usd: float | None = None
    prices: Prices | None = None
    progress: bool = True


@dataclasses.dataclass
class SessionResult:
    status: str  # complete | budget | aborted | incomplete | interrupted
    message: str
    summary: dict[str, Any]

    @property
    def exit_code(self) -> int:
        return {"complete": EXIT_OK, "budget": EXIT_BUDGET}.get(self.status, EXIT_FAILED)


class Budget:
    def __init__(self, limit_usd: float | None, spent_usd: float) -> None:
        self.limit = limit_usd
        self.spent = spent_usd
        self._lock = threading.Lock()

    def exhausted(self) -> bool:
        with self._lock:
            return self.limit is not None and self.spent >= self.limit

    def add(self, cost: float | None) -> None:
        if cost:
            with self._lock:
                self.spent += cost


def record_cost(event: dict[str, Any], prices: Prices | None) -> float:
    """The cost of one recorded reply at the session's prices (or the prices it was recorded with)."""
    usage = event.get("response", {}).get("usage", {})
    if prices is not None:
        return prices.cost(usage)
    return float(event.get("cost_usd") or 0.0)


def outcomes(run: RunDir, prices: Prices | None) -> list[OperatorOutcome]:
    result = []
    for operator, states in run.samples().items():
        generated = [s.generated for s in states if s.generated]
        usage = {f: sum(g.get("response", {}).get("usage", {}).get(f, 0) for g in generated) for f in TOKEN_FIELDS}
        result.append(
            OperatorOutcome(
                operator=operator,
                verdicts=[s.verified.get("verdict") if s.verified else None for s in states if s.generated],
                usage=usage,
                cost_usd=sum(record_cost(g, prices) for g in generated),
                request_s=sum(float(g.get("wall_time_s") or 0) for g in generated),
            )
        )
    return result


def run_summary(run: RunDir, settings: dict[str, Any], prices: Prices | None) -> dict[str, Any]:
    k_max = settings["rounds"] if settings["mode"] == "rounds" else settings["samples"]
    summary = summarize(outcomes(run, prices), operators=settings["operators"], mode=settings["mode"], k_max=k_max)
    events = run.events()
    summary["models_reported"] = sorted(
        {e["response"]["model"] for e in events if e.get("event") == "generated" and e.get("response", {}).get("model")}
    )
    summary["verify_calls"] = sum(1 for e in events if e.get("event") == "verified" and e.get("verifier_called"))
    summary["api_errors"] = sum(1 for e in events if e.get("event") == "api_error")
    summary["retries"] = sum(e.get("response", {}).get("retries", 0) for e in events if e.get("event") == "generated")
    return summary


class Session:
    def __init__(
        self,
        *,
        run: RunDir,
        settings: dict[str, Any],
        provider: Provider,
        verifier: Verifier | None,
        options: SessionOptions,
        console: Any = None,
    ) -> None:
        self.run = run
        self.settings = settings
        self.provider = provider
        self.verifier = verifier
        self.options = options
        self.console = console
        self.stop = threading.Event()
        self.stop_reason = ""
        self.stop_status = ""
        self._lock = threading.Lock()
        self._consecutive_failures = 0
        self.budget = Budget(options.budget_usd, sum(o.cost_usd for o in outcomes(run, options.prices)))
        self.incomplete: set[str] = set()

    # -- control -----------------------------------------------------------------------------------
    def _halt(self, status: str, reason: str) -> None:
        with self._lock:
            if not self.stop.is_set():
                self.stop_status, self.stop_reason = status, reason
                self.stop.set()

    def _log(self, message: str) -> None:
        if self.console is not None:
            self.console.print(message, markup=False, highlight=False)

    # -- one operator ------------------------------------------------------------------------------
    def _target(self) -> int:
        return self.settings["rounds"] if self.settings["mode"] == "rounds" else self.settings["samples"]

    def _messages(self, operator: str, task: str, samples: list[SampleState], index: int) -> list[dict[str, str]]:
        if self.settings["mode"] == "rounds" and self.settings["reflection"] and index > 0:
            previous = samples[index - 1]
            code_path = previous.generated.get("code", {}).get("path") if previous.generated else None
            code = self.run.read_text(code_path)
            problem = (previous.generated or {}).get("code", {}).get("problem", "")
            result = (
                self.run.read_json(previous.verified["result"])
                if previous.verified and previous.verified.get("result")
                else None
            )
            if result is None and previous.verified:
                result = {"verdict": previous.verified.get("verdict"), "reason": previous.verified.get("reason")}
            return [{"role": "user", "content": fix_prompt(task, code, problem, result)}]
        return [{"role": "user", "content": task}]

    def _generate(self, operator: str, index: int, messages: list[dict[str, str]]) -> SampleState | None:
        if self.stop.is_set():
            raise _Stop
        if self.budget.exhausted():
            self._halt("budget", f"the budget of ${self.options.budget_usd:.2f} is spent (${self.budget.spent:.4f})")
            raise _Stop
        settings = self.settings
        started = time.time()
        try:
            completion = self.provider.complete(
                messages,
                temperature=settings["temperature"],
                max_tokens=settings["max_tokens"],
                on_retry=lambda line: self._log(f"{operator} #{index}: retrying after {line}"),
            )
        except ProviderError as exc:
            self.run.append(
                {"event": "api_error", "operator": operator, "sample": index, "error": str(exc), "status": exc.status}
            )
            self.incomplete.add(operator)
            if exc.status in FATAL_STATUSES or not exc.transient:
                self._halt("aborted", f"the model's API failed on {operator}: {exc}")
            else:
                with self._lock:
                    self._consecutive_failures += 1
                    failures = self._consecutive_failures
                self._log(f"{operator} #{index}: {exc}")
                if failures >= MAX_CONSECUTIVE_API_FAILURES:
                    self._halt("aborted", f"{failures} requests in a row failed; the last: {exc}")
            return None
        with self._lock:
            self._consecutive_failures = 0
        extraction = extract_code(completion.text, settings["extract"])
        transcript = {
            "request": {
                "api": self.provider.api,
                "base_url": self.provider.base_url,
                "model": settings["model"],
                "temperature": settings["temperature"],
                "max_tokens": settings["max_tokens"],
                "extra_body": settings.get("extra_body") or {},
                "messages": messages,
            },
            "reply": completion.text,
            "response": completion.raw,
            "retry_errors": completion.retry_errors,
        }
        transcript_path = self.run.write_artefact(
            "transcripts", operator, index, ".json", json.dumps(transcript, indent=1, sort_keys=True)
        )
        code_path = None
        if extraction.code is not None:
            code_path = self.run.write_artefact("kernels", operator, index, ".py", extraction.code)
        cost = self.options.prices.cost(completion.usage) if self.options.prices else None
        event = {
            "event": "generated",
            "operator": operator,
            "sample": index,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
            "wall_time_s": completion.request_s,
            "request": {
                "prompt_sha256": sha256("\n".join(m["content"] for m in messages)),
                "feedback_from": index - 1
                if len(messages) and index > 0 and settings["reflection"] and settings["mode"] == "rounds"
                else None,
                "temperature": settings["temperature"],
                "max_tokens": settings["max_tokens"],
            },
            "response": {
                "id": completion.response_id,
                "model": completion.model_reported,
                "finish_reason": completion.finish_reason,
                "usage": completion.usage,
                "usage_raw": completion.usage_raw,
                "retries": completion.retries,
                "retry_errors": completion.retry_errors,
            },
            "code": {
                "path": code_path,
                "sha256": sha256(extraction.code) if extraction.code is not None else None,
                "problem": extraction.problem
                or ("truncated" if completion.finish_reason == "length" and extraction.code is None else ""),
                "blocks": extraction.blocks,
                "truncated": completion.finish_reason == "length",
            },
            "transcript": transcript_path,
            "cost_usd": cost,
        }
        self.run.append(event)
        self.budget.add(cost)
        return SampleState(index, generated=event)

    def _verify(self, operator: str, state: SampleState) -> bool:
        generated = state.generated or {}
        code = self.run.read_text(generated.get("code", {}).get("path"))
        started = time.monotonic()
        if code is None:
            problem = generated.get("code", {}).get("problem") or "no code block"
            result = {"verdict": "no_code", "reason": f"the reply held no usable code ({problem})", "cases": []}
            called = False
        else:
            if self.verifier is None:
                return True
            try:
                result = self.verifier.verify(operator, code)
            except KgbError as exc:
                self.run.append(
                    {"event": "verify_error", "operator": operator, "sample": state.index, "error": str(exc)}
                )
                self.incomplete.add(operator)
                self._halt("aborted", f"verification failed on {operator}: {exc}")
                return False
            called = True
        result_path = self.run.write_artefact(
            "results", operator, state.index, ".json", json.dumps(result, indent=1, sort_keys=True)
        )
        cases = result.get("cases") or []
        event = {
            "event": "verified",
            "operator": operator,
            "sample": state.index,
            "verdict": result.get("verdict"),
            "reason": result.get("reason", ""),
            "cases_passed": sum(1 for c in cases if c.get("passed")),
            "cases_total": len(cases),
            "findings": len(result.get("findings") or []),
            "seed_kind": result.get("seed_kind"),
            "result": result_path,
            "verifier": self.verifier.describe() if (called and self.verifier) else None,
            "verifier_called": called,
            "duration_s": round(time.monotonic() - started, 3),
        }
        self.run.append(event)
        state.verified = event
        return True

    def _operator(self, operator: str, samples: list[SampleState]) -> None:
        task = operator_prompt(
            operator, prompt_set=self.settings["prompt_set"], chip_family=self.settings["chip_family"]
        )
        rounds = self.settings["mode"] == "rounds"
        index = 0
        while index < self._target():
            if rounds and any(s.correct for s in samples[:index]):
                return
            state = samples[index] if index < len(samples) else None
            if state is None or state.generated is None:
                state = self._generate(operator, index, self._messages(operator, task, samples, index))
                if state is None:
                    return
                samples.append(state)
            if state.verified is None and not self._verify(operator, state):
                return
            index += 1

    def _done(self, operator: str, samples: list[SampleState]) -> bool:
        if self.settings["mode"] == "rounds" and any(s.correct for s in samples):
            return True
        judged = [s for s in samples if s.generated and (s.verified or self.verifier is None)]
        return len(judged) >= self._target()

    # -- the session -------------------------------------------------------------------------------
    def execute(self) -> SessionResult:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        states = self.run.samples()
        operators = self.settings["operators"]
        todo = [op for op in operators if not self._done(op, states.get(op, []))]
        self.run.append(
            {
                "event": "session",
                "action": "start",
                "client": f"{CLIENT_NAME} {__version__}",
                "workers": self.options.workers,
                "budget_usd": self.options.budget_usd,
                "prices": self.options.prices.record() if self.options.prices else None,
                "todo": len(todo),
            }
        )
        sources: dict[str, list[str]] = {}
        for op in operators:
            sources.setdefault(op.split("::", 1)[0], []).append(op)
        progress = Progress(
            TextColumn("{task.description:<8}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("passed {task.fields[passed]}"),
            TimeElapsedColumn(),
            console=self.console,
            disable=not self.options.progress,
            transient=False,
        )
        tasks = {}
        passed: dict[str, int] = {}
        with progress:
            for source, ops in sources.items():
                done = [op for op in ops if op not in todo]
                passed[source] = sum(1 for op in done if any(s.correct for s in states.get(op, [])))
                tasks[source] = progress.add_task(source, total=len(ops), completed=len(done), passed=passed[source])

            def work(op: str) -> None:
                samples = list(states.get(op, []))
                try:
                    self._operator(op, samples)
                except _Stop:
                    return
                if self._done(op, samples):
                    source = op.split("::", 1)[0]
                    with self._lock:
                        if any(s.correct for s in samples):
                            passed[source] += 1
                        progress.update(tasks[source], advance=1, passed=passed[source])

            executor = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, self.options.workers))
            futures = [executor.submit(work, op) for op in todo]
            try:
                pending = set(futures)
                while pending:
                    finished, pending = concurrent.futures.wait(pending, timeout=0.5)
                    for future in finished:
                        error = future.exception()
                        if error is not None:
                            self._halt("aborted", f"{type(error).__name__}: {error}")
            except KeyboardInterrupt:
                self._halt("interrupted", "interrupted")
                executor.shutdown(wait=False, cancel_futures=True)
                self.run.append({"event": "session", "action": "end", "status": "interrupted"})
                raise
            executor.shutdown(wait=True)
        states = self.run.samples()
        left = [op for op in operators if not self._done(op, states.get(op, []))]
        if self.stop.is_set():
            status, message = self.stop_status, self.stop_reason
        elif left:
            status, message = "incomplete", f"{len(left)} operators unfinished (API errors); run again to resume"
        else:
            status, message = "complete", "complete"
        summary = run_summary(self.run, self.settings, self.options.prices)
        summary["status"] = status
        summary["unfinished"] = left
        (self.run.path / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
        self.run.append({"event": "session", "action": "end", "status": status, "message": message})
        return SessionResult(status, message, summary)
