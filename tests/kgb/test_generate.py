"""`kgb generate` end to end through the real SDK clients against the fake model servers, verified by the
real harness (the CPU Triton interpreter). The model is the only fake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgb.rundir import RunDir
from kgb.submission import build_from_run
from tests.kgb.conftest import FAST
from tests.kgb.fakes import (
    ANTHROPIC_USAGE,
    CORRECT_ADD,
    OPENAI_USAGE,
    WRONG_ADD,
    Reply,
    by_operator,
    fenced,
)

OPENAI_COUNTS = {"prompt_tokens": 1500, "completion_tokens": 900, "cached_tokens": 512, "reasoning_tokens": 300}


def events(run_dir: Path, kind: str) -> list[dict]:
    return [e for e in RunDir(run_dir).events() if e.get("event") == kind]


def test_rounds_with_reflection_local_verification(kgb, openai_server, tmp_path, capsys):
    """Round 0 is wrong (after a 429), round 1 gets the verifier's feedback and is right: pass@1 = 0, pass@2 = 1."""
    openai_server.script = [
        Reply(status=429, body={"error": {"message": "slow down", "type": "rate_limit"}}, headers={"Retry-After": "0"}),
        Reply(text=fenced(WRONG_ADD)),
        Reply(text=fenced(CORRECT_ADD)),
    ]
    out = tmp_path / "run"
    code = kgb(
        "generate",
        "--model",
        "fake-coder",
        "--base-url",
        openai_server.base_url,
        "--operators",
        "aten::add",
        "--rounds",
        "3",
        "--reflection",
        "--temperature",
        "0.2",
        "--max-tokens",
        "4096",
        "--price-input",
        "2",
        "--price-output",
        "8",
        "--price-cached",
        "0.5",
        "--out",
        out,
        *FAST,
    )
    assert code == 0, capsys.readouterr()
    posts = openai_server.completions()
    assert len(posts) == 3  # 429, round 0, round 1; round 2 not needed
    assert posts[1]["json"]["temperature"] == 0.2 and posts[1]["json"]["max_tokens"] == 4096
    assert posts[1]["headers"]["authorization"] == "Bearer sk-test-openai"
    feedback = posts[2]["json"]["messages"][0]["content"]
    assert "y = x - alpha * z" in feedback  # the previous code
    assert "Verdict: incorrect" in feedback and "failing case" in feedback

    generated = events(out, "generated")
    verified = events(out, "verified")
    assert [g["sample"] for g in generated] == [0, 1]
    assert [v["verdict"] for v in verified] == ["incorrect", "correct"]
    assert all(v["verifier"]["mode"] == "local" and v["seed_kind"] == "public" for v in verified)
    first = generated[0]["response"]
    assert first["usage"] == OPENAI_COUNTS
    assert first["usage_raw"] == OPENAI_USAGE  # exactly what the server sent
    assert first["model"] == "fake-coder-7b-2026-01-01"
    assert first["retries"] == 1 and "429" in first["retry_errors"][0]
    assert generated[1]["request"]["feedback_from"] == 0
    cost = ((1500 - 512) * 2 + 512 * 0.5 + 900 * 8) / 1e6
    assert generated[0]["cost_usd"] == pytest.approx(cost)
    transcript = json.loads((out / generated[1]["transcript"]).read_text())
    assert transcript["request"]["messages"][0]["content"] == feedback
    assert (out / generated[1]["code"]["path"]).read_text() == CORRECT_ADD

    summary = json.loads((out / "summary.json").read_text())
    overall = summary["sets"]["all"]
    assert overall["pass_at"] == {"1": 0.0, "2": 1.0, "3": 1.0}
    assert overall["prompt_tokens"] == 3000 and overall["completion_tokens"] == 900 * 2
    assert overall["cached_tokens"] == 1024 and overall["reasoning_tokens"] == 600
    assert overall["cost_usd"] == pytest.approx(2 * cost, abs=1e-6)
    assert summary["verify_calls"] == 2 and summary["retries"] == 1

    files, metadata = build_from_run(
        RunDir(out), name=None, provider="Tests", model_name=None, model_version=None, chip="cpu", public=True
    )
    assert files == {"aten__add.py": WRONG_ADD, "aten__add.1.py": CORRECT_ADD}
    usage = metadata["operators"]["aten::add"]
    assert [{k: u[k] for k in OPENAI_COUNTS} for u in usage] == [OPENAI_COUNTS, OPENAI_COUNTS]
    assert usage[0]["turns"] == 1 and usage[0]["wall_time_s"] >= 0
    assert "Verdict: incorrect" in usage[1]["transcript"]
    kgb_notes = metadata["notes"]["kgb"]
    assert kgb_notes["tokens"] == "metered" and kgb_notes["protocol"] == "rounds" and kgb_notes["reflection"]
    assert kgb_notes["models_reported"] == ["fake-coder-7b-2026-01-01"]
    assert kgb_notes["verify_calls"] == 2
    assert kgb_notes["generation"]["temperature"] == 0.2
    assert metadata["scaffold"]["kind"] == "pass_at_k" and metadata["track"] == "llm"

    # a finished run resumes to nothing: no request is made again
    assert kgb("resume", out, *FAST) == 0
    assert len(openai_server.completions()) == 3


def test_anthropic_messages_usage(kgb, anthropic_server, tmp_path):
    anthropic_server.default = Reply(text="```python\nprint('no kernel')\n```")
    out = tmp_path / "run"
    assert (
        kgb(
            "generate",
            "--api",
            "anthropic",
            "--model",
            "claude-fake",
            "--base-url",
            anthropic_server.base_url,
            "--operators",
            "aten::add",
            "--samples",
            "1",
            "--verify",
            "none",
            "--out",
            out,
            *FAST,
        )
        == 0
    )
    post = anthropic_server.completions()[0]
    assert post["path"] == "/v1/messages" and "sk-ant-test" in (
        post["headers"].get("x-api-key", "") + post["headers"].get("authorization", "")
    )
    assert post["json"]["max_tokens"] == 16384 and post["json"]["model"] == "claude-fake"
    response = events(out, "generated")[0]["response"]
    assert response["usage"] == {
        "prompt_tokens": 120 + 80 + 1400,  # input_tokens exclude cache reads and writes
        "completion_tokens": 700,
        "cached_tokens": 1400,
        "reasoning_tokens": 250,
    }
    assert response["usage_raw"] == ANTHROPIC_USAGE
    assert response["model"] == "claude-fake-4-6-20260101" and response["finish_reason"] == "stop"


def test_prose_and_truncated_replies_are_failed_samples(kgb, openai_server, tmp_path):
    openai_server.script = [
        Reply(text="I would write a Triton kernel that adds the two tensors elementwise."),
        Reply(text="```python\nimport triton\n@triton.jit\ndef _k(x", finish="length"),
    ]
    out = tmp_path / "run"
    assert (
        kgb(
            "generate",
            "--model",
            "m",
            "--base-url",
            openai_server.base_url,
            "--operators",
            "aten::add",
            "--samples",
            "2",
            "--out",
            out,
            *FAST,
        )
        == 0
    )
    generated = events(out, "generated")
    assert [g["code"]["problem"] for g in generated] == ["no code block", "truncated"]
    assert generated[1]["code"]["truncated"] is True
    verified = events(out, "verified")
    assert [v["verdict"] for v in verified] == ["no_code", "no_code"]
    assert not any(v["verifier_called"] for v in verified)  # nothing to run
    files, metadata = build_from_run(
        RunDir(out), name=None, provider=None, model_name=None, model_version=None, chip="cpu", public=True
    )
    assert set(files) == {"aten__add.py", "aten__add.1.py"}
    assert all(text.startswith("# kgb: the model's reply held no usable code") for text in files.values())
    assert len(metadata["operators"]["aten::add"]) == 2  # their tokens count


def test_a_hang_past_the_timeout_is_retried(kgb, openai_server, tmp_path):
    openai_server.script = [Reply(hang_s=3.0)]
    openai_server.default = Reply(text=fenced(CORRECT_ADD))
    out = tmp_path / "run"
    assert (
        kgb(
            "generate",
            "--model",
            "m",
            "--base-url",
            openai_server.base_url,
            "--operators",
            "aten::add",
            "--verify",
            "none",
            "--timeout",
            "0.5",
            "--out",
            out,
            *FAST,
        )
        == 0
    )
    response = events(out, "generated")[0]["response"]
    assert response["retries"] == 1 and "Timeout" in response["retry_errors"][0]


def test_5xx_until_retries_run_out_leaves_the_run_resumable(kgb, openai_server, tmp_path, capsys):
    openai_server.default = Reply(status=503, body={"error": {"message": "overloaded", "type": "server_error"}})
    out = tmp_path / "run"
    args = ("--model", "m", "--base-url", openai_server.base_url, "--operators", "aten::add", "--verify", "none")
    assert kgb("generate", *args, "--max-retries", "2", "--out", out, *FAST) == 1
    assert len(openai_server.completions()) == 3  # one try and two retries
    error = events(out, "api_error")[0]
    assert "503" in error["error"] and error["operator"] == "aten::add"
    assert "resume" in capsys.readouterr().out
    assert not events(out, "generated")

    openai_server.default = Reply(text=fenced(CORRECT_ADD))
    assert kgb("resume", out, *FAST) == 0
    assert [g["sample"] for g in events(out, "generated")] == [0]


def test_budget_stops_the_run_and_a_larger_budget_resumes_it(kgb, openai_server, tmp_path, capsys):
    openai_server.default = Reply(text=fenced(CORRECT_ADD))
    out = tmp_path / "run"
    # each reply: (1500 + 900) tokens x $10 per million = $0.024
    prices = ("--price-input", "10", "--price-output", "10", "--price-cached", "10")
    code = kgb(
        "generate",
        "--model",
        "m",
        "--base-url",
        openai_server.base_url,
        "--operators",
        "aten::add,aten::mul,aten::sub",
        "--verify",
        "none",
        "--workers",
        "1",
        "--budget-usd",
        "0.03",
        *prices,
        "--out",
        out,
        *FAST,
    )
    assert code == 3
    assert "budget" in capsys.readouterr().out
    assert len(events(out, "generated")) == 2  # $0.024 < $0.03 allowed the second; $0.048 stopped the third
    assert json.loads((out / "summary.json").read_text())["status"] == "budget"

    assert kgb("resume", out, "--budget-usd", "0.03", *FAST) == 3  # still spent: no new request
    assert len(openai_server.completions()) == 2
    assert kgb("resume", out, "--budget-usd", "1", *FAST) == 0
    assert len(openai_server.completions()) == 3
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sets"]["all"]["cost_usd"] == pytest.approx(3 * 0.024)
    assert sorted(g["operator"] for g in events(out, "generated")) == ["aten::add", "aten::mul", "aten::sub"]


def test_a_reply_recorded_but_not_verified_is_verified_on_resume_without_a_new_request(
    kgb, openai_server, tmp_path, monkeypatch
):
    from kgb.errors import KgbError
    from kgb.verify import LocalVerifier

    openai_server.default = Reply(text=fenced(CORRECT_ADD))
    out = tmp_path / "run"

    def broken(self, operator_id, source):
        raise KgbError("the harness is down")

    with monkeypatch.context() as patch:
        patch.setattr(LocalVerifier, "_verify", broken)
        assert (
            kgb(
                "generate",
                "--model",
                "m",
                "--base-url",
                openai_server.base_url,
                "--operators",
                "aten::add",
                "--out",
                out,
                *FAST,
            )
            == 1
        )
    assert len(events(out, "generated")) == 1 and not events(out, "verified")
    assert kgb("resume", out, *FAST) == 0
    assert len(openai_server.completions()) == 1  # the recorded reply was verified, not asked for again
    assert events(out, "verified")[0]["verdict"] == "correct"


def test_samples_protocol_and_its_unbiased_pass_at_k(kgb, openai_server, tmp_path):
    openai_server.default = by_operator(
        {"aten::add": [Reply(text="no code"), Reply(text=fenced(CORRECT_ADD)), Reply(text="no code either")]}
    )
    out = tmp_path / "run"
    assert (
        kgb(
            "generate",
            "--model",
            "m",
            "--base-url",
            openai_server.base_url,
            "--operators",
            "aten::add",
            "--samples",
            "3",
            "--workers",
            "1",
            "--verify",
            "none",
            "--out",
            out,
            *FAST,
        )
        == 0
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode"] == "samples"
    # verify none: the one sample with code is not judged, the two without are failures
    assert summary["sets"]["all"]["pass_at"]["1"] == 0.0


def test_settings_that_contradict_the_run_are_refused(kgb, openai_server, tmp_path, capsys):
    openai_server.default = Reply(text=fenced(CORRECT_ADD))
    out = tmp_path / "run"
    base = ("--model", "m", "--base-url", openai_server.base_url, "--operators", "aten::add", "--verify", "none")
    assert kgb("generate", *base, "--out", out, *FAST) == 0
    capsys.readouterr()
    assert kgb("generate", *base, "--temperature", "0", "--out", out, *FAST) == 2
    assert "temperature: the run has 0.8, this command asks for 0.0" in capsys.readouterr().err
    assert kgb("generate", *base, "--out", out, *FAST) == 0  # the same settings resume


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--operators", "aten::addd"), "unknown operator: aten::addd"),
        (("--operators", "aten::add", "--base-url", "ftp://example.org"), "--base-url must be an http(s) URL"),
        (("--operators", "aten::add", "--samples", "2", "--reflection"), "--reflection feeds round r-1"),
        (("--operators", "aten::add", "--budget-usd", "5"), "--budget-usd needs the model's prices"),
        (("--operators", "aten::add", "--rounds", "11"), "--rounds must be between 1 and 10"),
        (("--source", "aten", "--operators", "aten::add"), "give either --operators"),
        (("--operators", "aten::add", "--verify", "remote"), "--verify remote needs --chip"),
    ],
)
def test_bad_input_gets_a_clear_error(kgb, tmp_path, capsys, args, message):
    assert kgb("generate", "--model", "m", *args, "--out", tmp_path / "run", *FAST) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run" / "attempts.jsonl").exists()


def test_a_missing_api_key(kgb, openai_server, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    args = ("--model", "m", "--base-url", openai_server.base_url, "--operators", "aten::add", "--verify", "none")
    assert kgb("generate", *args, "--out", tmp_path / "run", *FAST) == 2
    assert "no API key: set OPENAI_API_KEY" in capsys.readouterr().err
    assert not openai_server.requests
    assert kgb("generate", *args, "--no-api-key", "--out", tmp_path / "run", *FAST) == 0


def test_an_unreachable_server_and_a_refused_key(kgb, openai_server, tmp_path, capsys):
    port = openai_server.httpd.server_address[1]
    openai_server.stop()
    args = ("--model", "m", "--operators", "aten::add", "--verify", "none", "--out", tmp_path / "run", *FAST)
    assert kgb("generate", "--base-url", f"http://127.0.0.1:{port}/v1", *args) == 2
    assert "cannot reach http://127.0.0.1" in capsys.readouterr().err


def test_a_refused_key(kgb, openai_server, tmp_path, capsys):
    refusal = Reply(status=401, body={"error": {"message": "invalid api key", "type": "invalid_request_error"}})
    openai_server.models_reply = refusal
    args = ("--model", "m", "--base-url", openai_server.base_url, "--operators", "aten::add", "--verify", "none")
    assert kgb("generate", *args, "--out", tmp_path / "run", *FAST) == 2
    assert "refused the API key" in capsys.readouterr().err
    assert not openai_server.completions()
    # without the preflight the first request is refused: the run stops at once (not retried), resumable
    openai_server.default = refusal
    assert kgb("generate", *args, "--no-preflight", "--out", tmp_path / "run", *FAST) == 1
    assert "401" in capsys.readouterr().out
    assert len(openai_server.completions()) == 1
    assert events(tmp_path / "run", "api_error")[0]["status"] == 401


def test_a_reply_that_is_not_json(kgb, openai_server, tmp_path, capsys):
    openai_server.script = [Reply(raw="<html><body>502 Bad Gateway from the proxy</body></html>")]
    out = tmp_path / "run"
    args = ("--model", "m", "--base-url", openai_server.base_url, "--operators", "aten::add", "--verify", "none")
    assert kgb("generate", *args, "--out", out, *FAST) == 1
    assert "not a openai API response" in capsys.readouterr().out or events(out, "api_error")
    assert events(out, "api_error")
    openai_server.default = Reply(text=fenced(CORRECT_ADD))
    assert kgb("resume", out, *FAST) == 0
    assert len(events(out, "generated")) == 1
