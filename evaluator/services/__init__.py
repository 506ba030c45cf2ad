"""Writes of the evaluator, by topic: the runner fleet (fleet), job dispatch (dispatch), results
(results) and air-gapped bundles (bundles). Every function is the one place its state change
happens; views, the runner API, admin actions and management commands all call these.

The names below are the evaluator's public write API; import them from here.
"""

from evaluator.errors import HiddenCasesUnavailable, JobConflict, JobForbidden, JobNotFound, QueueLimitExceeded
from evaluator.services.bundles import JOBS_SCHEMA, RESULTS_SCHEMA, ImportSummary, export_jobs, import_results
from evaluator.services.dispatch import (
    TASK_NAME,
    TIER_TIMEOUT_S,
    ClaimedJob,
    cancel_job,
    celery_app,
    check_job_access,
    check_queue_cap,
    claim_job,
    create_jobs,
    default_tier,
    fail_job,
    job_payload,
    public_seed,
    resend_queued_jobs,
    stale_after_s,
)
from evaluator.services.fleet import (
    TOKEN_PREFIX,
    activate_runner,
    audit_runner_edit,
    disable_runner,
    drain_runner,
    hash_token,
    parse_token_id,
    record_heartbeat,
    register_runner,
    rotate_token,
    runner_for_token,
)
from evaluator.services.results import is_ranked_protocol, record_result, timing_protocol

__all__ = [
    "JOBS_SCHEMA",
    "RESULTS_SCHEMA",
    "TASK_NAME",
    "TIER_TIMEOUT_S",
    "TOKEN_PREFIX",
    "ClaimedJob",
    "HiddenCasesUnavailable",
    "ImportSummary",
    "JobConflict",
    "JobForbidden",
    "JobNotFound",
    "QueueLimitExceeded",
    "activate_runner",
    "audit_runner_edit",
    "cancel_job",
    "celery_app",
    "check_job_access",
    "check_queue_cap",
    "claim_job",
    "create_jobs",
    "default_tier",
    "disable_runner",
    "drain_runner",
    "export_jobs",
    "fail_job",
    "hash_token",
    "import_results",
    "is_ranked_protocol",
    "job_payload",
    "parse_token_id",
    "public_seed",
    "record_heartbeat",
    "record_result",
    "register_runner",
    "resend_queued_jobs",
    "rotate_token",
    "runner_for_token",
    "stale_after_s",
    "timing_protocol",
]
