"""Builders of submission uploads for the leaderboard tests."""

from __future__ import annotations

import io
import json
import zipfile

KERNEL = "import triton\nimport triton.language as tl\n\n\ndef add_Tensor(a, b, alpha=1):\n    return a\n"


def make_zip(files: dict[str, bytes | str], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, content in files.items():
            archive.writestr(name, content.encode() if isinstance(content, str) else content)
    return buffer.getvalue()


def make_metadata(**overrides) -> bytes:
    metadata = {
        "schema": "kgb-submission/1",
        "name": "test run",
        "model": {"provider": "Example AI", "name": "model-x", "version": "1"},
        "scaffold": {"name": "my-agent", "version": "0.1", "kind": "agent"},
        "track": "agent",
        "target_chip": "cpu",
        "public": True,
        "operators": {
            "aten::add": {
                "prompt_tokens": 1000,
                "completion_tokens": 200,
                "cached_tokens": 100,
                "turns": 3,
                "wall_time_s": 12.5,
            }
        },
    }
    for key, value in overrides.items():
        if value is None:
            metadata.pop(key, None)
        else:
            metadata[key] = value
    return json.dumps(metadata).encode()
