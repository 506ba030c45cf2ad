"""The command-line client against a live server: upload by token, errors printed per file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from leaderboard import cli
from leaderboard.models import Submission
from tests.factories import ChipFactory, OperatorFactory, UserFactory
from tests.leaderboard.helpers import KERNEL, make_metadata


@pytest.fixture
def solution_dir(tmp_path: Path) -> Path:
    (tmp_path / "aten__add.py").write_text(KERNEL)
    (tmp_path / "metadata.json").write_bytes(make_metadata())
    (tmp_path / "notes.txt").write_text("not part of the zip")
    return tmp_path


@pytest.fixture
def site(live_server, transactional_db):
    ChipFactory(slug="cpu", device_type="cpu", family="cpu", timing_meaningful=False)
    OperatorFactory(source="aten", name="add")
    token = Token.objects.create(user=UserFactory())
    return live_server.url, token.key


def test_cli_submits_a_directory(site, solution_dir, capsys, sent_tasks):
    url, token = site
    assert cli.main(["submit", str(solution_dir), "--site", url, "--token", token]) == 0
    submission = Submission.objects.get()
    assert f"submitted {submission.pk} (1 files)" in capsys.readouterr().out
    assert submission.attempts.get().file_name == "aten__add.py"
    assert len(sent_tasks) == 1


def test_cli_prints_each_error(site, solution_dir, capsys):
    url, token = site
    (solution_dir / "aten__nope.py").write_text(KERNEL)
    assert cli.main(["submit", str(solution_dir), "--site", url, "--token", token]) == 1
    assert "aten__nope.py: unknown operator 'aten::nope'" in capsys.readouterr().err
    assert not Submission.objects.exists()


def test_cli_with_a_bad_token(site, solution_dir, capsys):
    url, _ = site
    assert cli.main(["submit", str(solution_dir), "--site", url, "--token", "wrong"]) == 1
    assert "401" in capsys.readouterr().err


def test_cli_does_not_import_django():
    code = "import sys, leaderboard.cli; sys.exit(1 if any(m.startswith('django') for m in sys.modules) else 0)"
    assert subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2]).returncode == 0
