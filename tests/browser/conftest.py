"""Playwright against Debian's Chromium and pytest-django's live_server (skipped when Chromium is absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator import services as evaluator_services

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Playwright's sync API runs an event loop in this thread; the ORM calls of the tests themselves are still
# synchronous, so Django's async-safety guard must be told so.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
            if not CHROMIUM.exists():
                item.add_marker(
                    pytest.mark.skip(reason="/usr/bin/chromium is not installed (apt-get install -y chromium)")
                )


# per module, not per session: while Playwright's sync API is open its event loop runs in this thread, and a
# later non-browser test on the same worker that calls asyncio.run() (the MCP client tests) would fail
@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)  # the CI machine may be busy
    yield page
    context.close()


@pytest.fixture(autouse=True)
def _no_broker(monkeypatch, settings):
    monkeypatch.setattr(evaluator_services.celery_app, "send_task", lambda *args, **kwargs: None)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.KGB_PRELIMINARY_MIN_OPERATORS = 2
