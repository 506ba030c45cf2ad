"""Issue 15, item 6: under the Content-Security-Policy every page still works in a real browser. Chromium
reports each refused script, style or connection as a `securitypolicyviolation` event; none may happen, the
charts and Swagger UI must draw, and what moved out of inline handlers (confirming a delete) must still work."""

from __future__ import annotations

import pytest

from leaderboard.models import Submission
from leaderboard.services import refresh_leaderboard_entries
from tests.factories import ChipFactory, OperatorFactory, SubmissionFactory, UserFactory
from tests.leaderboard.conftest import evaluate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


@pytest.fixture
def site(live_server):
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    mi300x = ChipFactory(slug="mi300x", name="AMD MI300X", vendor="AMD", family="amd")
    ops = [OperatorFactory(source="aten", name=n) for n in ("add", "mul", "sin")]
    owner = UserFactory(username="owner")
    submissions = [
        SubmissionFactory(name="fast run", target_chip=h200, uploader=owner, status="complete"),
        SubmissionFactory(name="amd run", target_chip=mi300x, uploader=owner, status="complete"),
    ]
    for op, speedup in zip(ops, (2.0, 1.5, 0.7), strict=True):
        evaluate(submissions[0], op, h200, speedup=speedup)
        evaluate(submissions[1], op, mi300x, speedup=speedup / 2)
        evaluate(submissions[0], op, mi300x, speedup=speedup / 3, sample_index=1)
    for submission in submissions:
        refresh_leaderboard_entries(submission_id=submission.pk)
    return live_server.url, submissions[0], owner


def _violations(page) -> list[str]:
    return page.evaluate("window.__cspViolations")


def test_no_page_breaks_the_content_security_policy(page, site):
    url, submission, owner = site
    page.context.add_init_script(RECORD_VIOLATIONS)
    attempt = submission.attempts.first()
    pages = [
        "/",
        "/leaderboard/?chip=",
        "/leaderboard/multi-source/",
        "/leaderboard/multi-chip/",
        "/leaderboard/reported/",
        "/operators/",
        "/operators/aten::add/",
        f"/submissions/{submission.pk}/",
        f"/attempts/{attempt.pk}/",
        "/api/docs/",
        "/api/v1/submissions/",
        "/accounts/login/",
        "/accounts/signup/",
    ]
    for path in pages:
        response = page.goto(url + path)
        assert response.status == 200, path
        assert "default-src 'self'" in response.headers["content-security-policy"], path
        page.wait_for_load_state("networkidle")
        if path.startswith(("/leaderboard/?", "/leaderboard/multi-chip/")):
            page.wait_for_function(
                "() => [...document.querySelectorAll('[data-chart]')].every(el => el.dataset.rendered === '1')"
                " && document.querySelectorAll('[data-chart]').length > 0"
            )
            assert page.locator(".js-plotly-plot .main-svg").first.is_visible(), path
        if path == "/api/docs/":
            page.wait_for_selector("#swagger-ui .opblock")  # Swagger UI drew the operations of the schema
        assert _violations(page) == [], path


def test_deleting_asks_for_confirmation_without_inline_script(page, site):
    url, submission, owner = site
    page.context.add_init_script(RECORD_VIOLATIONS)
    page.goto(url + "/accounts/login/")
    page.fill("#id_username", owner.username)
    page.fill("#id_password", "correct horse battery staple")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(url + "/")
    page.goto(f"{url}/submissions/{submission.pk}/")
    asked: list[str] = []

    def dismiss(dialog):
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.get_by_role("button", name="Delete").click()
    page.wait_for_timeout(300)
    assert asked == ["Delete this submission and all its results?"]
    assert Submission.objects.filter(pk=submission.pk).exists()  # dismissed: nothing was sent

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete").click()
    page.wait_for_url("**/accounts/")
    assert not Submission.objects.filter(pk=submission.pk).exists()
    assert _violations(page) == []
