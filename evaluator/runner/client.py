"""HTTP client of the runner API, with retries and exponential backoff for transient failures."""

from __future__ import annotations

import logging
import time

import requests

log = logging.getLogger("kgb.runner")

RETRY_STATUSES = {429, 500, 502, 503, 504}


class ApiError(Exception):
    """A definite answer from the site (4xx other than 429): retrying will not change it."""

    def __init__(self, status: int, code: str, detail: str):
        super().__init__(f"{status} {code}: {detail}")
        self.status, self.code, self.detail = status, code, detail


class SiteUnreachable(Exception):
    pass


class SiteClient:
    def __init__(self, site: str, token: str, *, max_wait_s: float = 300.0, timeout_s: float = 30.0):
        self.base = site.rstrip("/") + "/api/runner/"
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Runner {token}"
        self.max_wait_s = max_wait_s
        self.timeout_s = timeout_s

    def _request(self, method: str, path: str, payload: dict | None = None) -> dict:
        delay, waited = 1.0, 0.0
        while True:
            try:
                response = self.session.request(method, self.base + path, json=payload, timeout=self.timeout_s)
            except requests.RequestException as error:
                problem = f"{type(error).__name__}: {error}"
            else:
                if response.status_code < 400:
                    return response.json()
                if response.status_code not in RETRY_STATUSES:
                    try:
                        body = response.json()
                    except ValueError:
                        body = {}
                    code = (
                        body.get("error") or ("unauthorized" if response.status_code == 401 else "error")
                        if isinstance(body, dict)
                        else "error"
                    )
                    detail = (body.get("detail") if isinstance(body, dict) else None) or response.text[:500]
                    raise ApiError(response.status_code, str(code), str(detail))
                problem = f"HTTP {response.status_code}"
            if waited >= self.max_wait_s:
                raise SiteUnreachable(f"{method} {path}: {problem} (gave up after {waited:.0f} s)")
            log.warning("%s %s: %s; retrying in %.0f s", method, path, problem, delay)
            time.sleep(delay)
            waited += delay
            delay = min(delay * 2, 30.0)

    def config(self) -> dict:
        return self._request("GET", "config")

    def heartbeat(self, environment: dict) -> dict:
        return self._request("POST", "heartbeat", {"environment": environment})

    def claim(self, job_id: str) -> dict:
        return self._request("POST", f"jobs/{job_id}/claim")

    def renew_lease(self, job_id: str, lease: str) -> dict:
        return self._request("POST", f"jobs/{job_id}/lease", {"lease": lease})

    def post_result(self, job_id: str, result: dict, lease: str | None = None) -> dict:
        return self._request("POST", f"jobs/{job_id}/result", {"result": result, "lease": lease})

    def fail(self, job_id: str, error: str, lease: str | None = None) -> dict:
        body = {"error": error[-4000:] or "unknown runner error", "lease": lease}
        return self._request("POST", f"jobs/{job_id}/fail", body)
