"""The model's API, through the official SDKs: OpenAI-compatible chat completions (OpenAI, vLLM, SGLang,
Ollama, OpenRouter, ...) and Anthropic's Messages API.

The SDKs' own retries are switched off (`max_retries=0`) so that every retry is ours: tenacity retries
429, 5xx, connection errors and timeouts with exponential backoff and jitter (or the server's
Retry-After), and each retried error is recorded with the attempt. Other errors (400, 401, 404, a reply
that is not the API's JSON) are not retried: they are the caller's to fix.

Usage is taken from the reply exactly: `usage_raw` is the usage object as the server sent it, and
`usage` maps it onto the site's four counts:
- OpenAI-compatible: prompt = `prompt_tokens`, completion = `completion_tokens`, cached =
  `prompt_tokens_details.cached_tokens`, reasoning = `completion_tokens_details.reasoning_tokens`.
- Anthropic: its `input_tokens` exclude cache reads and writes, so prompt = `input_tokens` +
  `cache_creation_input_tokens` + `cache_read_input_tokens`, cached = `cache_read_input_tokens`,
  completion = `output_tokens` (thinking included, as billed), reasoning =
  `output_tokens_details.thinking_tokens`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

import tenacity

from kgb.errors import KgbError, ProviderError

APIS = ("openai", "anthropic")
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")
MAX_RETRY_AFTER_S = 120.0


@dataclasses.dataclass
class Completion:
    text: str  # the reply's text (Anthropic: its text blocks joined)
    model_reported: str  # the model id the server says answered
    finish_reason: str  # normalised: "stop", "length" (hit max_tokens), or the server's own word
    usage: dict[str, int]  # the four site counts, see the module docstring
    usage_raw: dict[str, Any]  # the usage object exactly as the server sent it
    response_id: str
    retries: int  # retried errors before this reply
    retry_errors: list[str]
    request_s: float  # wall time of the call, retries and waits included
    raw: dict[str, Any]  # the whole reply as JSON (for the transcript)


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 6
    backoff_s: float = 2.0  # first wait; doubles per retry with full jitter
    max_backoff_s: float = 60.0


def check_base_url(url: str | None) -> str | None:
    if url is None:
        return None
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise KgbError(f"--base-url must be an http(s) URL such as http://127.0.0.1:8001/v1, not {url!r}")
    return url.rstrip("/")


def _status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after")
    try:
        return min(MAX_RETRY_AFTER_S, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our backoff


class _WaitRetryAfterOrBackoff(tenacity.wait.wait_base):
    """The server's Retry-After when it sent one, else exponential backoff with full jitter."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.backoff = tenacity.wait_random_exponential(multiplier=policy.backoff_s, max=policy.max_backoff_s)

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        after = _retry_after(exc) if exc else None
        return after if after is not None else self.backoff(retry_state)


def _describe(exc: BaseException) -> str:
    status = _status_of(exc)
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{type(exc).__name__}" + (f" {status}" if status else "") + f": {message[:300]}"


class Provider:
    """One API client. `complete(messages)` returns a Completion or raises ProviderError."""

    api = ""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str,
        timeout_s: float,
        retry: RetryPolicy,
        extra_body: dict[str, Any] | None = None,
        max_tokens_param: str = "max_tokens",
    ) -> None:
        self.model = model
        self.base_url = check_base_url(base_url)
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.retry = retry
        self.extra_body = extra_body or {}
        self.max_tokens_param = max_tokens_param
        self._client = self._make_client()
        self._sdk = self._sdk_module()

    def _sdk_module(self) -> Any:
        raise NotImplementedError

    def _make_client(self) -> Any:
        raise NotImplementedError

    def _call(self, messages: list[dict[str, str]], *, temperature: float | None, max_tokens: int) -> Any:
        raise NotImplementedError

    def _parse(self, response: Any) -> tuple[str, str, str, dict[str, int], dict[str, Any], str]:
        raise NotImplementedError

    def _transient(self, exc: BaseException) -> bool:
        sdk = self._sdk
        if isinstance(exc, sdk.APIConnectionError):  # timeouts included
            return True
        if isinstance(exc, sdk.APIStatusError):
            status = _status_of(exc) or 0
            return status in (408, 409, 429) or status >= 500
        return False

    def preflight(self) -> list[str]:
        """List the server's models (free) to fail early on a bad URL or key. Returns the model ids, or an
        empty list where the server has no model listing (some OpenAI-compatible servers)."""
        try:
            page = self._client.models.list()
            return [m.id for m in (getattr(page, "data", None) or []) if getattr(m, "id", None)]
        except self._sdk.AuthenticationError as exc:
            raise KgbError(
                f"the server at {self.base_url or 'the default URL'} refused the API key ({_describe(exc)})"
            ) from None
        except self._sdk.APIConnectionError as exc:
            raise KgbError(f"cannot reach {self.base_url or 'the API'}: {_describe(exc)}; check --base-url") from None
        except (self._sdk.APIStatusError, self._sdk.APIResponseValidationError, ValueError, TypeError, AttributeError):
            return []  # no listing here (404, or a reply of another shape): the first request will tell

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float | None,
        max_tokens: int,
        on_retry: Callable[[str], None] | None = None,
    ) -> Completion:
        errors: list[str] = []

        def before_sleep(state: tenacity.RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            line = _describe(exc) if exc else "retry"
            errors.append(line)
            if on_retry:
                on_retry(line)

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception(self._transient),
            wait=_WaitRetryAfterOrBackoff(self.retry),
            stop=tenacity.stop_after_attempt(self.retry.max_retries + 1),
            before_sleep=before_sleep,
            reraise=True,
        )
        started = time.monotonic()
        try:
            response = retrying(self._call, messages, temperature=temperature, max_tokens=max_tokens)
        except self._sdk.APIResponseValidationError as exc:
            raise ProviderError(f"the server's reply is not a {self.api} API response ({_describe(exc)})") from None
        except self._sdk.APIError as exc:
            transient = self._transient(exc)
            suffix = f" (after {len(errors)} retries)" if errors else ""
            raise ProviderError(f"{_describe(exc)}{suffix}", transient=transient, status=_status_of(exc)) from None
        try:
            text, model, finish, usage, usage_raw, response_id = self._parse(response)
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            # a 200 reply that is not the API's JSON (an HTML error page, a proxy's text)
            raise ProviderError(f"the server's reply is not a {self.api} API response ({exc})") from None
        if not isinstance(text, str):
            raise ProviderError(f"the server's reply is not a {self.api} API response (no text)")
        raw = response.model_dump(mode="json") if hasattr(response, "model_dump") else {"text": text}
        return Completion(
            text=text,
            model_reported=model or "",
            finish_reason=finish or "",
            usage=usage,
            usage_raw=usage_raw,
            response_id=response_id or "",
            retries=len(errors),
            retry_errors=errors,
            request_s=round(time.monotonic() - started, 3),
            raw=raw,
        )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _dump(obj: Any) -> dict[str, Any]:
    if obj is None:
        return {}
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", exclude_unset=True)
    return dict(obj) if isinstance(obj, dict) else {}


class OpenAIProvider(Provider):
    api = "openai"

    def _sdk_module(self) -> Any:
        import openai

        return openai

    def _make_client(self) -> Any:
        import openai

        return openai.OpenAI(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0)

    def _call(self, messages: list[dict[str, str]], *, temperature: float | None, max_tokens: int) -> Any:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, self.max_tokens_param: max_tokens}
        if temperature is not None:
            kwargs["temperature"] = temperature
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        return self._client.chat.completions.create(**kwargs)

    def _parse(self, response: Any) -> tuple[str, str, str, dict[str, int], dict[str, Any], str]:
        if isinstance(response, str | bytes) or not getattr(response, "choices", None):
            raise ValueError("no choices in the reply")
        choice = response.choices[0]
        text = choice.message.content or ""
        usage_obj = response.usage
        usage_raw = _dump(usage_obj)
        prompt_details = _dump(getattr(usage_obj, "prompt_tokens_details", None))
        completion_details = _dump(getattr(usage_obj, "completion_tokens_details", None))
        usage = {
            "prompt_tokens": _int(usage_raw.get("prompt_tokens")),
            "completion_tokens": _int(usage_raw.get("completion_tokens")),
            "cached_tokens": _int(prompt_details.get("cached_tokens")),
            "reasoning_tokens": _int(completion_details.get("reasoning_tokens")),
        }
        usage["cached_tokens"] = min(usage["cached_tokens"], usage["prompt_tokens"])
        return text, response.model, choice.finish_reason or "", usage, usage_raw, response.id


class AnthropicProvider(Provider):
    api = "anthropic"

    def _sdk_module(self) -> Any:
        import anthropic

        return anthropic

    def _make_client(self) -> Any:
        import anthropic

        return anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0)

    def _call(self, messages: list[dict[str, str]], *, temperature: float | None, max_tokens: int) -> Any:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [m for m in messages if m["role"] != "system"]
        kwargs: dict[str, Any] = {"model": self.model, "messages": turns, "max_tokens": max_tokens}
        if system:
            kwargs["system"] = system
        extra = dict(self.extra_body)
        if temperature is not None:
            # this SDK's typed parameters no longer include sampling settings; the API still takes them for
            # the models that support them, so it goes in the body
            extra.setdefault("temperature", temperature)
        if extra:
            kwargs["extra_body"] = extra
        return self._client.messages.create(**kwargs)

    def _parse(self, response: Any) -> tuple[str, str, str, dict[str, int], dict[str, Any], str]:
        if isinstance(response, str | bytes) or getattr(response, "content", None) is None:
            raise ValueError("no content in the reply")
        text = "".join(block.text for block in response.content if getattr(block, "type", "") == "text")
        usage_raw = _dump(response.usage)
        details = usage_raw.get("output_tokens_details") or {}
        cache_read = _int(usage_raw.get("cache_read_input_tokens"))
        usage = {
            "prompt_tokens": _int(usage_raw.get("input_tokens"))
            + _int(usage_raw.get("cache_creation_input_tokens"))
            + cache_read,
            "completion_tokens": _int(usage_raw.get("output_tokens")),
            "cached_tokens": cache_read,
            "reasoning_tokens": _int(details.get("thinking_tokens")) if isinstance(details, dict) else 0,
        }
        finish = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}.get(
            response.stop_reason or "", response.stop_reason or ""
        )
        return text, response.model, finish, usage, usage_raw, response.id


def make_provider(api: str, **kwargs: Any) -> Provider:
    if api == "openai":
        return OpenAIProvider(**kwargs)
    if api == "anthropic":
        return AnthropicProvider(**kwargs)
    raise KgbError(f"--api must be one of {', '.join(APIS)}, not {api!r}")
