"""Bad settings stop start-up with a message naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgsite import settings as site_settings

ROOT = Path(__file__).resolve().parents[2]
DEV_SECRET = site_settings._DEV_SECRET  # the key `make run` uses with DEBUG=1
GOOD_ENV = {
    "SECRET_KEY": "x" * 50,
    "ALLOWED_HOSTS": "example.org",
    "DEBUG": "0",
}


def _check(env_overrides: dict[str, str | None]) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KGB_", "DATABASE_URL", "CELERY_", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_"))
    }
    env.update(GOOD_ENV)
    env["KGB_VAR_DIR"] = str(ROOT / "var")
    for key, value in env_overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_good_production_settings_start() -> None:
    result = _check({})
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"SECRET_KEY": None}, "SECRET_KEY must be set"),
        ({"SECRET_KEY": "short"}, "SECRET_KEY must be at least 32 characters"),
        ({"SECRET_KEY": DEV_SECRET}, "SECRET_KEY is the public development key"),
        ({"SECRET_KEY": "django-insecure-" + "k" * 40}, "SECRET_KEY is the public development key"),
        ({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean"),
        ({"ALLOWED_HOSTS": " , "}, "ALLOWED_HOSTS is set but empty"),
        ({"ALLOWED_HOSTS": None}, "ALLOWED_HOSTS must be set when DEBUG is off"),
        ({"DATABASE_URL": "mysql://root@localhost/x"}, "DATABASE_URL scheme 'mysql' is not supported"),
        ({"DATABASE_URL": "not a url"}, "DATABASE_URL"),
        ({"CELERY_BROKER_URL": "sqs://queue"}, "CELERY_BROKER_URL='sqs://queue'"),
        ({"DB_CONN_MAX_AGE": "-1"}, "DB_CONN_MAX_AGE=-1 must be at least 0"),
        ({"KGB_MAX_REQUEST_BYTES": "lots"}, "KGB_MAX_REQUEST_BYTES='lots' is not an integer"),
        ({"KGB_RANKED_TIMING_PROTOCOL": "write:cupti"}, "KGB_RANKED_TIMING_PROTOCOL must be FLUSH:CLOCK"),
    ],
)
def test_bad_settings_fail_loudly(overrides: dict, message: str) -> None:
    result = _check(overrides)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_debug_mode_needs_no_secret() -> None:
    result = _check({"DEBUG": "1", "SECRET_KEY": None, "ALLOWED_HOSTS": None})
    assert result.returncode == 0, result.stderr


def test_production_mode_passes_check_deploy() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KGB_", "DATABASE_URL", "CELERY_", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_"))
    }
    env.update(
        {
            "SECRET_KEY": "k9" * 30 + "-unguessable-production-secret",
            "ALLOWED_HOSTS": "kgb.example.org",
            "DEBUG": "0",
            "KGB_VAR_DIR": str(ROOT / "var"),
        }
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_plotly_is_served_from_the_installed_wheel() -> None:
    from django.contrib.staticfiles import finders

    found = finders.find("vendor/plotly.min.js")
    assert found is not None and found.endswith("plotly/package_data/plotly.min.js")
    assert finders.find("vendor/not-there.js") is None
