"""Ed25519 signing of results files on the runner's side (evaluator/harness/signing.py, the bundle CLI).

The harness stays pure torch + triton + stdlib: nothing imports `cryptography` until a key is made,
used or checked, and where it is missing the CLI says how to sign elsewhere before any job runs.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from evaluator.harness import signing
from evaluator.harness.pool import REPO_ROOT

REFUSE_CRYPTOGRAPHY = textwrap.dedent(
    """
    import sys

    class RefuseCryptography:
        def find_spec(self, name, path=None, target=None):
            if name == "cryptography" or name.startswith("cryptography."):
                raise ImportError("no cryptography on this machine")
            return None

    sys.meta_path.insert(0, RefuseCryptography())
    """
)


def run(script: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120, check=False
    )


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evaluator", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
        env=env,
        check=False,
    )


def document() -> dict:
    return {
        "schema": "kgb.results/1",
        "chip": "h200",
        "environment": {"device": "NVIDIA H200"},
        "results": [{"job_id": "j1", "result": {"verdict": "incorrect", "timing": {"speedup": 0.9}}}],
    }


def test_sign_and_verify_cover_the_whole_document_and_survive_a_json_round_trip():
    pem, public_key = signing.generate_key_pair()
    signed = document()
    signed["signature"] = signing.sign_document(signed, signing.load_private_key(pem))
    assert signed["signature"]["scheme"] == "ed25519"
    assert signed["signature"]["key_id"] == signing.key_id(signing.parse_public_key(public_key))
    assert signing.verify_document(json.loads(json.dumps(signed, indent=1)), public_key)
    for path, value in ((("results", 0, "result", "verdict"), "correct"), (("chip",), "mi300x")):
        tampered = json.loads(json.dumps(signed))
        target = tampered
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        assert not signing.verify_document(tampered, public_key)
    _, other_public = signing.generate_key_pair()
    assert not signing.verify_document(signed, other_public)


def test_malformed_signatures_and_keys_never_verify():
    pem, public_key = signing.generate_key_pair()
    signed = document()
    signed["signature"] = signing.sign_document(signed, signing.load_private_key(pem))
    for bad in (None, [], {"scheme": "ed25519"}, {**signed["signature"], "value": "%%%"}, {"hmac_sha256": "00"}):
        assert not signing.verify_document({**signed, "signature": bad}, public_key)
    assert signing.signature_problem({"token_id": "abc", "hmac_sha256": "00"}) == "retired"
    for text in ("", "ed25519:", "ed25519:AAAA", "rsa:" + public_key[8:]):
        with pytest.raises(signing.SigningError):
            signing.parse_public_key(text)
    with pytest.raises(signing.SigningError):
        signing.load_private_key(b"-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")


def test_the_harness_modules_do_not_import_cryptography():
    done = run(
        "import sys\n"
        "import evaluator.harness.signing, evaluator.harness.bundle, evaluator.__main__\n"
        "assert not any(m == 'cryptography' or m.startswith('cryptography.') for m in sys.modules)\n"
        "print('ok')\n"
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_without_cryptography_signing_fails_with_a_clear_way_out_and_unsigned_runs_work(tmp_path):
    key = tmp_path / "runner.key"
    pem, _ = signing.generate_key_pair()
    key.write_bytes(pem)
    jobs = tmp_path / "jobs.json"
    job = {"job_id": "j1", "operator": "aten::add", "tier": "nope", "solution": {"source": "x = 1\n"}}
    jobs.write_text(json.dumps({"schema": "kgb.jobs/1", "chip": "cpu", "jobs": [job]}))
    out = tmp_path / "results.json"
    main = (
        "import runpy, sys\nsys.argv = ['evaluator', *sys.argv[1:]]\nrunpy.run_module('evaluator', run_name='__main__')"
    )
    script = REFUSE_CRYPTOGRAPHY + main

    def no_cryptography(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120
        )

    refused = no_cryptography(
        "bundle", "run", str(jobs), "--out", str(out), "--device", "cpu", "--signing-key", str(key)
    )
    assert refused.returncode == 2 and "cryptography" in refused.stderr and "bundle sign" in refused.stderr
    assert not out.exists()  # refused before any job ran
    unsigned = no_cryptography("bundle", "run", str(jobs), "--out", str(out), "--device", "cpu")
    assert unsigned.returncode == 0, unsigned.stderr
    assert json.loads(out.read_text())["signature"] is None and "bundle sign" in unsigned.stderr
    assert no_cryptography("bundle", "keygen", "--out", str(tmp_path / "k2")).returncode == 2


def test_cli_keygen_then_run_unsigned_then_sign_elsewhere(tmp_path):
    key = tmp_path / "runner.key"
    made = cli("bundle", "keygen", "--out", str(key))
    assert made.returncode == 0, made.stderr
    public_key = made.stdout.strip()
    assert public_key.startswith("ed25519:") and signing.public_key_of(key.read_bytes()) == public_key
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    assert cli("bundle", "keygen", "--out", str(key)).returncode == 2  # never over an existing key

    jobs = tmp_path / "jobs.json"
    job = {"job_id": "j1", "operator": "aten::add", "tier": "nope", "solution": {"source": "x = 1\n"}}
    jobs.write_text(json.dumps({"schema": "kgb.jobs/1", "chip": "cpu", "jobs": [job]}))
    out = tmp_path / "results.json"
    environment = {key: value for key, value in os.environ.items() if key != "KGB_RUNNER_SIGNING_KEY_FILE"}
    assert cli("bundle", "run", str(jobs), "--out", str(out), "--device", "cpu", env=environment).returncode == 0
    assert json.loads(out.read_text())["signature"] is None
    signed = cli("bundle", "sign", str(out), "--signing-key", str(key), "--out", str(tmp_path / "signed.json"))
    assert signed.returncode == 0, signed.stderr
    assert signing.verify_document(json.loads((tmp_path / "signed.json").read_text()), public_key)

    # or signed as it runs, where `cryptography` is installed
    direct = tmp_path / "direct.json"
    ran = cli("bundle", "run", str(jobs), "--out", str(direct), "--device", "cpu", "--signing-key", str(key))
    assert ran.returncode == 0, ran.stderr
    assert signing.verify_document(json.loads(direct.read_text()), public_key)
    assert cli("bundle", "sign", str(jobs), "--signing-key", str(key)).returncode == 2  # not a results file
