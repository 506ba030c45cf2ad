"""One Celery worker of the runner agent (one per accelerator), started by evaluator.runner.agent.

It reads its settings and the runner token from stdin (never argv or the environment, which the
candidate processes it runs could read), builds its own Celery app (no Django) and consumes the
chip's queue with late acknowledgement and a prefetch of one.

Each claim answers a lease: while the job runs, a LeaseKeeper thread in the process running it
renews the lease (so it lives exactly as long as that process), and the result or failure is
sent with it. A message whose claim answers `leased` is a duplicate of a job running elsewhere:
it is acknowledged and dropped.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
import traceback

from celery import Celery, signals
from celery.exceptions import Reject, SoftTimeLimitExceeded

from evaluator.runner.client import ApiError, SiteClient, SiteUnreachable

log = logging.getLogger("kgb.runner")

# set once per worker process (and per pool child for the harness)
SETTINGS: dict = {}
CLIENT: SiteClient | None = None
HARNESS = None
SECRETS: tuple[str, ...] = ()  # the runner token, scrubbed from every result
NOT_ACTIVE_BACKOFF_S = 5.0
ORPHAN_GRACE_S = 30.0
# acknowledged without work: the job is final, or (leased) running under another delivery's live lease
FINAL_CLAIM_ANSWERS = {"already_recorded", "job_failed", "job_cancelled", "not_found", "leased"}


class LeaseKeeper:
    """Renews a job's claim lease every `renew_every_s` until stopped, from a thread of the process
    that runs the job: if that process dies, renewals stop and the site queues the job again once
    the lease runs out. A renewal refused as `lease_lost` ends the keeping (the job went to another
    delivery, or is final); the run goes on and its result is refused or a duplicate."""

    def __init__(self, job_id: str, lease: dict):
        self.job_id = job_id
        self.lease_id = lease.get("id")
        self.every_s = max(0.2, float(lease.get("renew_every_s") or 10.0))
        self.lease_s = max(self.every_s, float(lease.get("seconds") or 3 * self.every_s))
        self.lost = threading.Event()
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> LeaseKeeper:
        if self.lease_id:
            self.thread = threading.Thread(target=self._run, daemon=True, name=f"lease-{self.job_id[:8]}")
            self.thread.start()
        return self

    def _run(self) -> None:
        # its own HTTP session (requests sessions are not thread-safe). A slow answer still counts
        # (a lease that ran out is renewed as long as no one took the job), so a request may take a
        # whole lease; retries of a failed one stop at the next renewal's time
        client = SiteClient(SETTINGS["site"], SECRETS[0], max_wait_s=self.every_s, timeout_s=self.lease_s)
        while not self.stopped.wait(self.every_s):
            try:
                client.renew_lease(self.job_id, self.lease_id)
            except ApiError as error:
                log.warning("job %s: lease renewal refused (%s); no more renewals", self.job_id, error)
                self.lost.set()
                return
            except SiteUnreachable as error:
                log.warning("job %s: lease renewal failed: %s", self.job_id, error)

    def stop(self) -> None:
        self.stopped.set()
        if self.thread is not None:
            self.thread.join(timeout=self.every_s + 5)


def build_app(settings: dict) -> Celery:
    config = settings["config"]
    app = Celery("kgb-runner", broker=config["broker_url"], set_as_current=True)
    transport_options = dict(config.get("broker_transport_options") or {})
    # Redis: a message whose whole agent died comes back after this long (must exceed the longest job)
    transport_options.setdefault("visibility_timeout", int(settings.get("visibility_timeout_s", 3600)))
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        result_backend=None,
        task_serializer="json",
        accept_content=["json"],
        broker_transport_options=transport_options,
        broker_connection_retry_on_startup=True,
        worker_enable_remote_control=False,
        worker_send_task_events=False,
        worker_hijack_root_logger=True,
        # a safety net when a message carries no limits of its own (the site sets them per job)
        task_soft_time_limit=settings.get("default_soft_time_limit_s", 3600),
        task_time_limit=settings.get("default_time_limit_s", 4000),
    )
    app.task(name=config["task_name"], bind=True, acks_late=True, reject_on_worker_lost=True)(evaluate_task)
    return app


def _make_harness():
    if SETTINGS.get("fake_harness"):
        from evaluator.runner.fake import FakeHarness

        return FakeHarness()
    from evaluator.harness import RANKED_FAIL_FAST, Harness
    from evaluator.harness.backends import DEFAULT_TIMING_PROTOCOL, parse_timing_protocol

    config = SETTINGS["config"]
    # a site from before the protocol was configurable ranks the harness defaults
    flush, clock = parse_timing_protocol(config.get("timing_protocol") or DEFAULT_TIMING_PROTOCOL)
    # the token is scrubbed from every result in any common encoding (the sandbox keeps it out of
    # the candidate's reach; this is the second line)
    return Harness(
        device=None,
        chip=config["chip"],
        pool_size=1,
        flush=flush,
        clock=clock,
        secrets=SECRETS,
        fail_fast_after=RANKED_FAIL_FAST,
    )


@signals.worker_process_init.connect
def _start_harness(**_: object) -> None:
    # in each pool child, after the fork: the warm candidate pool lives as long as the child
    global HARNESS
    HARNESS = _make_harness().__enter__()


@signals.worker_process_shutdown.connect
def _stop_harness(**_: object) -> None:
    if HARNESS is not None:
        HARNESS.__exit__(None, None, None)


def _evaluate(job_id: str, payload: dict) -> dict:
    from evaluator.harness.contract import Job
    from evaluator.runner.fake import FakeHarness

    # the claim answers the job and its lease; a malformed job raises ContractError (reported as a failure)
    job = Job.from_dict({key: value for key, value in payload.items() if key != "lease"})
    kwargs = {
        "tier": job.tier,
        "seed": job.seed,
        "secret_seed": job.secret_seed,
        "timeout_s": int(job.timeout_s),
        "file_name": job.solution.file_name,
        "hidden_cases": [dict(case) for case in job.hidden_cases] if job.hidden_cases is not None else None,
    }
    if isinstance(HARNESS, FakeHarness):
        kwargs["job_id"] = job_id
    return HARNESS.evaluate(job.operator, job.solution.source, **kwargs)


def evaluate_task(task, job_id: str) -> dict:
    """Claim, evaluate, report. A runner-level failure is reported (the site decides whether to
    redeliver); a result that cannot be delivered sends the message back to the queue."""
    try:
        payload = CLIENT.claim(job_id)
    except ApiError as error:
        if error.code in FINAL_CLAIM_ANSWERS:
            log.info("job %s: %s; acknowledging", job_id, error.code)
            return {"job_id": job_id, "skipped": error.code}
        if error.status == 403:
            log.error("job %s is not for this runner's chip: dropping the message", job_id)
            raise Reject(str(error), requeue=False) from None
        # draining, disabled or rotated: leave the job to another runner
        log.warning("job %s: claim refused (%s); returning it to the queue", job_id, error)
        time.sleep(NOT_ACTIVE_BACKOFF_S)
        raise Reject(str(error), requeue=True) from None
    except SiteUnreachable as error:
        raise Reject(str(error), requeue=True) from None

    lease = payload.get("lease") or {}
    # the lease is held until the result (or failure) is delivered, not only while evaluating: a
    # slow site must not see a live runner as lost
    keeper = LeaseKeeper(job_id, lease).start()
    try:
        return _evaluate_and_report(job_id, payload, lease.get("id"))
    finally:
        keeper.stop()


def _evaluate_and_report(job_id: str, payload: dict, lease_id: str | None) -> dict:
    try:
        result = _evaluate(job_id, payload)
    except SoftTimeLimitExceeded:
        return _report_failure(
            job_id, f"runner time limit exceeded (harness timeout {payload.get('timeout_s')} s)", lease_id
        )
    except Exception:  # the harness itself broke: report it, the site redelivers or gives up
        return _report_failure(job_id, "harness error:\n" + traceback.format_exc()[-3000:], lease_id)

    try:
        answer = CLIENT.post_result(job_id, result, lease=lease_id)
    except SiteUnreachable as error:
        raise Reject(str(error), requeue=True) from None
    except ApiError as error:
        log.error("job %s: result refused: %s", job_id, error)
        if error.status == 400:
            return _report_failure(job_id, f"the site refused the harness result: {error.detail}", lease_id)
        return {"job_id": job_id, "refused": error.code}
    log.info("job %s: %s%s", job_id, answer.get("verdict"), " (duplicate)" if answer.get("duplicate") else "")
    return {"job_id": job_id, "verdict": answer.get("verdict")}


def _report_failure(job_id: str, error: str, lease_id: str | None = None) -> dict:
    """Tell the site (it re-queues or fails the job). If the site cannot be told, the message goes
    back to the broker rather than being acknowledged with the job left running."""
    try:
        CLIENT.fail(job_id, error, lease=lease_id)
    except SiteUnreachable as unreachable:
        raise Reject(str(unreachable), requeue=True) from None
    except ApiError as refused:
        log.warning("job %s: failure report refused: %s", job_id, refused)
    return {"job_id": job_id, "failed": error[:200]}


def _stop_when_orphaned(parent_pid: int) -> None:
    # the worker runs in its own session (so the agent can kill it with its pool); if the agent
    # itself dies, shut down warm instead of consuming jobs unsupervised
    while os.getppid() == parent_pid:
        time.sleep(2)
    log.warning("the runner agent is gone: warm shutdown")
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(ORPHAN_GRACE_S)
    os.killpg(0, signal.SIGKILL)  # still here (a hung broker connection): end the whole session


def main() -> int:
    global CLIENT, SECRETS
    from evaluator.harness import sandbox

    sandbox.set_undumpable()  # it holds the runner token: no same-uid process may read its memory
    SETTINGS.update(json.loads(sys.stdin.readline()))
    sys.stdin.close()
    sys.stdin = open(os.devnull)  # Celery's CLI inspects stdin; the settings pipe is closed
    token = SETTINGS.pop("token")
    SECRETS = (token,)
    CLIENT = SiteClient(SETTINGS["site"], token)
    app = build_app(SETTINGS)
    # the site lists the ranked queue before the test-mode one (older sites name only the ranked queue)
    queues = SETTINGS["config"].get("queues") or [SETTINGS["config"]["queue"]]
    argv = [
        "worker",
        "--queues",
        ",".join(queues),
        "--concurrency",
        str(SETTINGS.get("concurrency", 1)),
        "--pool",
        "prefork",
        "--hostname",
        SETTINGS["hostname"],
        "--loglevel",
        SETTINGS.get("loglevel", "INFO"),
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    threading.Thread(target=_stop_when_orphaned, args=(os.getppid(),), daemon=True, name="orphan-watch").start()
    log.info("worker %s (pid %d) consuming %s", SETTINGS["hostname"], os.getpid(), ", ".join(queues))
    app.worker_main(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
