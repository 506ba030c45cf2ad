"""The import direction of the apps is part of the design (docs/DESIGN.md, "Layout"): operators <-
evaluator <- leaderboard, settings import no app code, the harness and the vocabularies run without
Django. The contracts are in pyproject.toml ([tool.importlinter]); this runs them in the suite, so
CI fails on the first import that breaks one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_hold() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout
