"""Errors the command line turns into one clear message and an exit status (never a traceback)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # the command ran and its subject failed (a kernel is incorrect, the site refused an upload)
EXIT_USAGE = 2  # bad input: unknown operator, bad URL, missing key, settings that contradict RUN_DIR
EXIT_BUDGET = 3  # the dollar budget is spent; the run is resumable with a larger --budget-usd
EXIT_INTERRUPTED = 130


class KgbError(Exception):
    """A problem the user can fix; `exit_code` is what `kgb` exits with."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class ProviderError(KgbError):
    """The model's API failed for a reason retrying does not fix (or after the retries ran out)."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str, *, transient: bool = False, status: int | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status


class SiteError(KgbError):
    """The KernelGenBench site refused or failed a request."""

    exit_code = EXIT_FAILED
