"""Verifiers: the local harness, or the site's test mode.

- `LocalVerifier` runs the harness on this machine (`evaluator.harness.Harness`): the CPU Triton
  interpreter (smoke tier, correctness only) or a local GPU. Public seeds; it is the same code the
  site's runners run, so a local pass predicts a ranked pass on the same device type.
- `RemoteVerifier` asks the site's test mode (`POST /api/v1/verify/`) to evaluate one kernel on one of
  its chips: an unranked run with public cases and a public seed that differs from the ranked one, never
  the hidden cases, rate-limited per user and chip. The reply is either the result (200) or a job to poll
  (202 with `status_url`). Ranked evaluation of a submission always re-runs with the secret seed.

Both return the harness's result document (schema kgb.result/1) and count their calls.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import requests
import tenacity

from kgb.errors import KgbError, SiteError

VERIFY_MODES = ("local", "remote", "none")
TIERS = ("smoke", "full")


class Verifier:
    mode = ""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        raise NotImplementedError

    def verify(self, operator_id: str, source: str) -> dict[str, Any]:
        with self._lock:
            self.calls += 1
        return self._verify(operator_id, source)

    def _verify(self, operator_id: str, source: str) -> dict[str, Any]:
        raise NotImplementedError

    def close(self) -> None:
        pass


class LocalVerifier(Verifier):
    mode = "local"

    def __init__(self, *, device: str = "cpu", tier: str | None = None, timeout_s: float = 300, pool_size: int = 1):
        super().__init__()
        self.device = device
        self.tier = tier or ("smoke" if device == "cpu" else "full")
        self.timeout_s = timeout_s
        self.pool_size = pool_size
        self._harness: Any = None
        self._start_lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        return {"mode": "local", "device": self.device, "tier": self.tier, "seed": "public"}

    @property
    def harness(self) -> Any:
        with self._start_lock:
            if self._harness is None:
                try:
                    from evaluator.harness import Harness
                    from evaluator.harness.evaluate import HarnessError
                except ImportError as exc:
                    raise KgbError(
                        f"local verification needs torch and triton ({exc}); or use --verify remote"
                    ) from None
                try:
                    self._harness = Harness(device=self.device, pool_size=self.pool_size)
                except HarnessError as exc:
                    raise KgbError(f"cannot start the local harness: {exc}") from None
            return self._harness

    def _verify(self, operator_id: str, source: str) -> dict[str, Any]:
        from evaluator.harness.evaluate import HarnessError

        try:
            return self.harness.evaluate(operator_id, source, tier=self.tier, timeout_s=self.timeout_s)
        except HarnessError as exc:
            raise KgbError(f"the harness could not judge {operator_id}: {exc}") from None

    def close(self) -> None:
        if self._harness is not None:
            self._harness.close()
            self._harness = None


def _site_transient(exc: BaseException) -> bool:
    if isinstance(exc, requests.ConnectionError | requests.Timeout):
        return True
    return isinstance(exc, _Retryable)


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _wait_site(policy_backoff_s: float) -> tenacity.wait.wait_base:
    backoff = tenacity.wait_random_exponential(multiplier=policy_backoff_s, max=120)

    class _Wait(tenacity.wait.wait_base):
        def __call__(self, state: tenacity.RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            after = getattr(exc, "retry_after", None)
            return min(600.0, after) if after is not None else backoff(state)

    return _Wait()


class SiteClient:
    """The site's REST API (requests only; no Django)."""

    def __init__(
        self, site: str, token: str | None, *, timeout_s: float = 60, retries: int = 5, backoff_s: float = 2.0
    ):
        from kgb.providers import check_base_url

        try:
            self.site = check_base_url(site) or ""
        except KgbError:
            raise KgbError(f"--site must be an http(s) URL such as http://127.0.0.1:8000, not {site!r}") from None
        self.token = token
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.token}"} if self.token else {}

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        url = path if path.startswith("http") else self.site + path

        def once() -> requests.Response:
            response = requests.request(method, url, headers=self.headers(), timeout=self.timeout_s, **kwargs)
            if response.status_code == 429 or response.status_code >= 500:
                after = response.headers.get("Retry-After")
                try:
                    wait = float(after) if after is not None else None
                except ValueError:
                    wait = None
                raise _Retryable(f"{response.status_code} {_detail(response)}", wait)
            return response

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception(_site_transient),
            wait=_wait_site(self.backoff_s),
            stop=tenacity.stop_after_attempt(self.retries + 1),
            reraise=True,
        )
        try:
            return retrying(once)
        except _Retryable as exc:
            raise SiteError(f"the site answered {exc} (after {self.retries} retries)") from None
        except requests.RequestException as exc:
            raise SiteError(f"cannot reach {self.site}: {type(exc).__name__}: {exc}") from None


def _detail(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300].strip()
    if isinstance(body, dict):
        if body.get("errors"):
            return "; ".join(f"{e.get('where')}: {e.get('message')}" for e in body["errors"] if isinstance(e, dict))
        return str(body.get("detail", body))[:300]
    return str(body)[:300]


class RemoteVerifier(Verifier):
    mode = "remote"

    def __init__(
        self,
        *,
        client: SiteClient,
        chip: str,
        tier: str = "smoke",
        run_label: str = "",
        poll_s: float = 2.0,
        max_wait_s: float = 1800,
    ) -> None:
        super().__init__()
        if not client.token:
            raise KgbError("remote verification needs a site token: --token or KGB_TOKEN (your account page)")
        if not chip:
            raise KgbError("remote verification needs --chip (a chip slug, e.g. cpu or h200)")
        self.client = client
        self.chip = chip
        self.tier = tier
        self.run_label = run_label
        self.poll_s = poll_s
        self.max_wait_s = max_wait_s

    def describe(self) -> dict[str, Any]:
        return {"mode": "remote", "site": self.client.site, "chip": self.chip, "tier": self.tier, "seed": "test-mode"}

    def _verify(self, operator_id: str, source: str) -> dict[str, Any]:
        payload = {"operator": operator_id, "chip": self.chip, "tier": self.tier, "source": source}
        if self.run_label:
            payload["run"] = self.run_label
        response = self.client.request("POST", "/api/v1/verify/", json=payload)
        if response.status_code == 404 and "verify" in response.url:
            raise SiteError(f"{self.client.site} has no test mode (POST /api/v1/verify/ answered 404)")
        if response.status_code not in (200, 201, 202):
            raise SiteError(f"test mode refused the request: {response.status_code} {_detail(response)}")
        body = _json(response)
        deadline = time.monotonic() + self.max_wait_s
        while body.get("status") in ("queued", "running") or (response.status_code == 202 and "result" not in body):
            if time.monotonic() > deadline:
                raise SiteError(f"test-mode verification of {operator_id} did not finish in {self.max_wait_s:.0f} s")
            time.sleep(self.poll_s)
            response = self.client.request("GET", body["status_url"])
            if response.status_code != 200:
                raise SiteError(f"test-mode status: {response.status_code} {_detail(response)}")
            body = _json(response)
        if body.get("status") == "failed":  # no verdict: the runner failed, or no runner took it in time
            raise SiteError(
                f"the test-mode check of {operator_id} failed on the site: {body.get('error') or 'no reason'}"
            )
        result = body.get("result")
        if not isinstance(result, dict) or "verdict" not in result:
            raise SiteError(f"test mode sent no result for {operator_id}: {str(body)[:300]}")
        return result


def _json(response: requests.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        raise SiteError(f"the site's reply is not JSON: {response.text[:200]!r}") from None
    if not isinstance(body, dict):
        raise SiteError("the site's reply is not a JSON object")
    return body
