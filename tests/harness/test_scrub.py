"""Every string of a result is scrubbed of known secrets in their common encodings: the reason,
case reasons, findings, timing notes and stderr (defence in depth behind the sandbox)."""

from __future__ import annotations

import base64
import codecs
import json
import urllib.parse

import pytest

from evaluator.harness import Harness
from evaluator.harness.result import scrub_result, secret_variants
from tests.harness.specs_tiny import ADD_ONE_CASE

SECRET = "kgbr_tok1_Zq8mVx3Lp0RtY7sNw2"


def encodings(secret: str) -> dict[str, str]:
    raw = secret.encode()
    return {
        "plain": secret,
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "base64": base64.b64encode(raw).decode(),
        "base64 shifted by one byte": base64.b64encode(b"x" + raw).decode(),
        "base64 shifted by two bytes": base64.b64encode(b"xy" + raw).decode(),
        "urlsafe base64": base64.urlsafe_b64encode(raw).decode(),
        "base32": base64.b32encode(raw).decode(),
        "reversed": secret[::-1],
        "url-quoted": urllib.parse.quote(secret, safe=""),
        "rot13": codecs.encode(secret, "rot13"),
        "byte list": str(list(raw)),
        "escaped": "".join(f"\\x{b:02x}" for b in raw),
    }


def core(encoded: str) -> str:
    """What must not survive: the encoding minus a few characters at each end that depend on its
    neighbours (base64 and base32 alignment)."""
    return encoded[3:-3]


@pytest.mark.parametrize("name", sorted(encodings(SECRET)))
def test_every_string_of_a_result_loses_the_secret_in_this_encoding(name):
    encoded = encodings(SECRET)[name]
    result = {
        "reason": f"case 0: boom {encoded} boom",
        "cases": [{"reason": f"x{encoded}y", "timing": {"note": encoded}}],
        "findings": [{"layer": "trace", "detail": f"({encoded})"}],
        "stderr_tail": f"line\n{encoded}\n",
    }
    scrub_result(result, secrets=[SECRET], paths=[])
    text = json.dumps(result)
    assert core(encoded) not in text, (name, text)
    assert "<redacted>" in result["reason"] and "<redacted>" in result["cases"][0]["timing"]["note"]


def test_variants_are_long_enough_not_to_match_ordinary_text():
    assert all(len(v) >= 8 for v in secret_variants(SECRET))


def test_private_paths_and_control_characters_go():
    result = {"reason": "open /tmp/kgb-cand-abc/x.py\x1b[31m failed", "stderr_tail": ""}
    scrub_result(result, secrets=[], paths=["/tmp/kgb-cand-abc"])
    assert result["reason"] == "open <tmp>/x.py[31m failed"


LEAKER = f"""
import base64
SECRET = {SECRET!r}
print("stdout", SECRET[::-1], flush=True)
raise RuntimeError("leak " + SECRET.encode().hex() + " " + base64.b64encode(b"a" + SECRET.encode()).decode())
"""


def test_a_registered_secret_never_reaches_the_result_end_to_end():
    """The runner's token is registered with the harness; a candidate that knows it (here: it is
    in the source) cannot publish it through its error or output in any of these encodings."""
    with Harness(device="cpu", static_policy=False, secrets=(SECRET,)) as harness:
        result = harness.evaluate(ADD_ONE_CASE, LEAKER, tier="smoke", timeout_s=60)
    assert result["verdict"] == "compile_error"
    text = json.dumps(result)
    for encoded in (SECRET, SECRET[::-1], SECRET.encode().hex(), base64.b64encode(b"a" + SECRET.encode()).decode()):
        assert core(encoded) not in text, encoded
    assert "<redacted>" in result["reason"] and "<redacted>" in result["stderr_tail"]
