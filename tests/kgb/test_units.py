"""Code extraction, pass@k, importers, `kgb verify`, and the no-Django rule."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kgb.extract import extract_code
from kgb.importers import import_agent, import_upstream
from kgb.scoring import OperatorOutcome, Prices, pass_at_k_unbiased, summarize
from tests.kgb.fakes import CORRECT_ADD, ROOT, WRONG_ADD


@pytest.mark.parametrize(
    ("text", "rule", "code", "problem"),
    [
        ("Intro\n```python\nA = 1\n```\nthen\n```python\nB = 2\n```", "first", "A = 1\n", ""),
        ("```python\nA = 1\n```\n```python\nBB = 22\n```", "last", "BB = 22\n", ""),
        ("```python\nA = 1\n```\n```python\nBB = 22\n```", "longest", "BB = 22\n", ""),
        ("```bash\npip install triton\n```\n```python\nA = 1\n```", "first", "A = 1\n", ""),  # python preferred
        ("```\nA = 1\n```", "first", "A = 1\n", ""),
        ("~~~py\nA = 1\n~~~", "first", "A = 1\n", ""),
        ("````python\nx = '```'\n````", "first", "x = '```'\n", ""),
        ("Just prose, no code.", "first", None, "no code block"),
        ("```python\nimport triton\ndef f(", "first", None, "truncated"),
        ("```python\n\n```", "first", None, "empty code block"),
    ],
)
def test_extraction(text, rule, code, problem):
    extraction = extract_code(text, rule)
    assert (extraction.code, extraction.problem) == (code, problem)


def test_pass_at_k_estimators():
    assert pass_at_k_unbiased(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k_unbiased(10, 3, 5) == pytest.approx(1 - (7 * 6 * 5 * 4 * 3) / (10 * 9 * 8 * 7 * 6))
    assert pass_at_k_unbiased(2, 1, 5) == 1.0  # n < k: the empirical success of the n samples
    outcomes = [
        OperatorOutcome("aten::add", ["incorrect", "correct"], {"prompt_tokens": 10, "completion_tokens": 5}, 0.0, 1.0),
        OperatorOutcome("aten::mul", ["correct"], {"prompt_tokens": 20, "completion_tokens": 5}, 0.0, 1.0),
        OperatorOutcome("cublas::cublasSaxpy_v2", ["no_code", "incorrect"], {}, 0.0, 1.0),
    ]
    ops = ["aten::add", "aten::mul", "cublas::cublasSaxpy_v2", "aten::sub"]  # aten::sub never attempted
    rounds = summarize(outcomes, operators=ops, mode="rounds", k_max=2)
    assert rounds["sets"]["all"]["pass_at"] == {"1": 0.25, "2": 0.5}
    assert rounds["sets"]["aten"]["pass_at"] == {"1": pytest.approx(1 / 3), "2": pytest.approx(2 / 3)}
    assert rounds["sets"]["all"]["tokens_per_success"] == 20
    samples = summarize(outcomes, operators=ops, mode="samples", k_max=2)
    assert samples["sets"]["all"]["pass_at"]["1"] == pytest.approx((0.5 + 1 + 0 + 0) / 4)
    assert Prices(2, 8, 0.5).cost(
        {"prompt_tokens": 1000, "cached_tokens": 400, "completion_tokens": 100}
    ) == pytest.approx((600 * 2 + 400 * 0.5 + 100 * 8) / 1e6)


def test_import_upstream_pass_at_k_folder(tmp_path):
    (tmp_path / "round_0").mkdir()
    (tmp_path / "round_1").mkdir()
    (tmp_path / "round_0" / "aten::add.py").write_text(WRONG_ADD)
    (tmp_path / "round_1" / "aten::add.py").write_text(CORRECT_ADD)
    (tmp_path / "round_0" / "vllm13::rms_norm.py").write_text("def rms_norm(out, input, weight, epsilon):\n    pass\n")
    (tmp_path / "args.json").write_text(
        json.dumps({"model_name": "GLM-5.0", "temperature": 0.8, "max_rounds": 5, "reflection": True})
    )
    results = {
        "total_operators": 2,
        "total_passed": 1,
        "final_pass_rate": 0.5,
        "rounds_summary": [
            {"round": 0, "total_passed": 0, "pass_rate": 0.0},
            {"round": 1, "total_passed": 1, "pass_rate": 0.5},
        ],
        "operator_details": {
            "aten::add": {
                "passed": True,
                "generated_codes_by_round": {"0": WRONG_ADD, "1": CORRECT_ADD},
                "first_pass_round": 1,
            },
            "vllm13::rms_norm": {"passed": False, "generated_codes_by_round": {}, "first_pass_round": None},
        },
    }
    (tmp_path / "pass_at_k_results.json").write_text(json.dumps(results))
    files, metadata = import_upstream(
        tmp_path, name=None, provider="Zhipu AI", model_name=None, model_version=None, chip="h200", public=True
    )
    assert files == {
        "aten__add.py": WRONG_ADD,
        "aten__add.1.py": CORRECT_ADD,
        "vllm13__rms_norm.py": "def rms_norm(out, input, weight, epsilon):\n    pass\n",
    }
    assert metadata["model"] == {"provider": "Zhipu AI", "name": "GLM-5.0", "version": ""}
    assert metadata["operators"] == {}  # upstream's LLM track records no tokens
    notes = metadata["notes"]["kgb"]
    assert notes["tokens"] == "not recorded" and notes["rounds"] == 5 and notes["reflection"] is True
    assert notes["first_pass_round"]["aten::add"] == 1 and metadata["scaffold"]["kind"] == "pass_at_k"


def _claude_code_log() -> str:
    events = [
        {"type": "system", "subtype": "init"},
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "usage": {
                    "input_tokens": 10,
                    "output_tokens": 200,
                    "cache_creation_input_tokens": 3000,
                    "cache_read_input_tokens": 0,
                },
            },
        },
        {"type": "user", "message": {"content": "tool result"}},
        {
            "type": "assistant",
            "message": {
                "id": "m2",
                "usage": {
                    "input_tokens": 5,
                    "output_tokens": 400,
                    "cache_creation_input_tokens": 100,
                    "cache_read_input_tokens": 3000,
                },
            },
        },
        {"type": "result", "result": "Done.\n```python\n" + WRONG_ADD + "```"},
    ]
    return "\n".join(json.dumps(e) for e in events) + "\nnot json\n"


def test_import_agent_workspaces(tmp_path):
    workspaces = tmp_path / "workspaces"
    (workspaces / "add").mkdir(parents=True)
    (workspaces / "add" / "cc_output.jsonl").write_text(_claude_code_log())
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "add.py").write_text(CORRECT_ADD)  # the run's kernel wins over the log's last block
    (workspaces / "rms_norm").mkdir()
    steps = [
        {
            "type": "step_finish",
            "part": {
                "tokens": {
                    "total": 1000,
                    "input": 900,
                    "output": 80,
                    "reasoning": 20,
                    "cache": {"read": 500, "write": 0},
                }
            },
        },
        {
            "type": "step_finish",
            "part": {
                "tokens": {
                    "total": 5000,
                    "input": 4000,
                    "output": 700,
                    "reasoning": 300,
                    "cache": {"read": 3500, "write": 0},
                }
            },
        },
        {"type": "step_finish", "part": {"tokens": {"total": 0}}},
    ]
    (workspaces / "rms_norm" / "oc_output.json").write_text("\n".join(json.dumps(s) for s in steps))
    (workspaces / "rms_norm" / "kernel.py").write_text("def rms_norm(out, input, weight, epsilon):\n    pass\n")
    (tmp_path / "progress.json").write_text(json.dumps({"operators": {"add": {"duration_seconds": 611.5}}}))
    files, metadata = import_agent(
        tmp_path,
        scaffold=None,
        name=None,
        provider="Anthropic",
        model_name="Claude Opus",
        model_version="4.6",
        chip="h200",
        public=True,
    )
    assert files["aten__add.py"] == CORRECT_ADD and "vllm13__rms_norm.py" in files
    add = metadata["operators"]["aten::add"]
    # upstream's count: sum over assistant events of input + output + cache creation + cache read
    assert add["prompt_tokens"] + add["completion_tokens"] == (10 + 200 + 3000 + 0) + (5 + 400 + 100 + 3000)
    assert (add["prompt_tokens"], add["completion_tokens"], add["cached_tokens"], add["turns"]) == (6115, 600, 3000, 2)
    assert add["wall_time_s"] == 611.5 and "cache_read_input_tokens" in add["transcript"]
    rms = metadata["operators"]["vllm13::rms_norm"]
    assert rms["prompt_tokens"] + rms["completion_tokens"] == 5000  # the last non-zero running total
    assert (rms["completion_tokens"], rms["reasoning_tokens"], rms["cached_tokens"]) == (1000, 300, 3500)
    assert metadata["track"] == "agent" and metadata["scaffold"]["name"] == "claude-code+opencode"
    assert metadata["notes"]["kgb"]["tokens"] == "agent-log"


def test_import_refuses_unknown_operators(kgb, tmp_path, capsys):
    (tmp_path / "run" / "workspaces" / "not_an_op").mkdir(parents=True)
    (tmp_path / "run" / "workspaces" / "not_an_op" / "cc_output.jsonl").write_text("{}\n")
    assert (
        kgb("import", "agent", tmp_path / "run", "--out", tmp_path / "out", "--chip", "h200", "--model-label", "m") == 2
    )
    assert "workspaces that name no catalog operator: not_an_op" in capsys.readouterr().err


def test_kgb_verify_locally(kgb, tmp_path, capsys):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(CORRECT_ADD)
    bad.write_text(WRONG_ADD)
    assert kgb("verify", good, "--operator", "aten::add") == 0
    assert "Verdict: correct" in capsys.readouterr().out
    assert kgb("verify", bad, "--operator", "aten::add") == 1
    assert "failing case" in capsys.readouterr().out
    assert kgb("verify", bad, "--operator", "aten::nope") == 2
    assert kgb("verify", bad, "--operator", "aten::add", "--chip", "h200") == 2
    assert "needs --site" in capsys.readouterr().err


def test_the_client_never_imports_django():
    code = (
        "import sys, kgb.cli, kgb.generate, kgb.submission, kgb.importers, kgb.mcp_server, kgb.verify;"
        "kgb.mcp_server.build_server(); from kgb.cli import resolve_operators; resolve_operators(['aten::add'], None);"
        "sys.exit(1 if any(m == 'django' or m.startswith('django.') for m in sys.modules) else 0)"
    )
    env = {"PATH": "/usr/bin:/bin", "TRITON_INTERPRET": "1"}
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env).returncode == 0
    assert subprocess.run(
        [sys.executable, "-m", "kgb", "--version"], cwd=ROOT, capture_output=True, text=True
    ).stdout.startswith("kgb ")


def test_remote_verifier_speaks_the_test_mode_contract(tmp_path):
    """Until the site serves POST /api/v1/verify/ (docs/client.md, "Test mode"), a stub holds the client to
    the contract: a quota 429 with Retry-After is waited out, a 202 job is polled, the result comes back."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from kgb.verify import RemoteVerifier, SiteClient

    seen: list[tuple[str, str, dict | None]] = []
    answers = [
        (429, {"detail": "test-mode quota: 30 per hour on cpu"}, {"Retry-After": "0"}),
        (202, {"id": "j1", "status": "queued", "status_url": "/api/v1/verify/j1/"}, {}),
        (200, {"id": "j1", "status": "running", "status_url": "/api/v1/verify/j1/"}, {}),
        (200, {"id": "j1", "status": "done", "result": {"verdict": "correct", "seed_kind": "test", "cases": []}}, {}),
    ]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _answer(self):
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length)) if length else None
            seen.append((self.command, self.path, body))
            status, payload, headers = answers.pop(0)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        client = SiteClient(f"http://127.0.0.1:{httpd.server_address[1]}", "tok", backoff_s=0.01)
        verifier = RemoteVerifier(client=client, chip="cpu", tier="smoke", poll_s=0.01)
        result = verifier.verify("aten::add", CORRECT_ADD)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert result["verdict"] == "correct" and verifier.calls == 1
    assert [(m, p) for m, p, _ in seen] == [
        ("POST", "/api/v1/verify/"),
        ("POST", "/api/v1/verify/"),
        ("GET", "/api/v1/verify/j1/"),
        ("GET", "/api/v1/verify/j1/"),
    ]
    assert seen[0][2] == {"operator": "aten::add", "chip": "cpu", "tier": "smoke", "source": CORRECT_ADD}
