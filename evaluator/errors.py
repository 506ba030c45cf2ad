"""The evaluator's refusals: named cases of the application errors in kgsite.errors, so callers can
tell them apart (a runner reads `code`; tests and the leaderboard catch the class)."""

from __future__ import annotations

from kgsite.errors import ApplicationError, Conflict, Forbidden, Invalid, NotFound, Unavailable


class JobNotFound(NotFound):
    pass


class JobForbidden(Forbidden):
    """The job is another chip's: a runner learns nothing more about it."""


class JobConflict(Conflict):
    pass


class MalformedResult(Invalid):
    """A result or results bundle off the job/result contract (evaluator.harness.contract.ContractError
    says which key): refused whole, nothing stored."""

    code = "malformed_result"


class QueueLimitExceeded(ApplicationError):
    """The owner already has as many queued and running jobs as KGB_MAX_QUEUED_JOBS_PER_USER allows."""

    code = "queue_limit"
    status = 429


class HiddenCasesUnavailable(Unavailable):
    """KGB_HIDDEN_CASES_FILE is set but unusable: held-out jobs wait (runners retry a 503) rather
    than run without the cases the operator meant them to have."""

    code = "hidden_cases_unavailable"


class VerifyQuotaExceeded(ApplicationError):
    """The user's test-mode checks on a chip this hour are spent (KGB_VERIFY_PER_HOUR or their VerifyQuota):
    answered 429 with Retry-After, the seconds until the oldest check of the hour stops counting."""

    code = "verify_quota"
    status = 429

    def __init__(self, message: str, *, retry_after_s: int):
        super().__init__(message)
        self.retry_after_s = retry_after_s
