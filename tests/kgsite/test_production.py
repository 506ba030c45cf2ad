"""Issue 15, item 5: the site as production serves it. The test suite itself uses plain static storage
(KGB_TESTING); here the README's `collectstatic --noinput` runs with the production storage (whitenoise's
compressed manifest), then every page renders against that manifest (a {% static %} the manifest lacks is
a 500 in production). `.ci/prod_boot.sh` boots the whole thing with gunicorn and PostgreSQL."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from django.test import override_settings

from leaderboard.services import refresh_leaderboard_entries
from tests.factories import ChipFactory, OperatorFactory, SubmissionFactory, UserFactory
from tests.leaderboard.conftest import evaluate

PRODUCTION_STATIC = "whitenoise.storage.CompressedManifestStaticFilesStorage"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": PRODUCTION_STATIC},
}


def _collectstatic(root) -> str:
    """The README's `collectstatic --noinput` into `root` with the production storage; its output."""
    with override_settings(STATIC_ROOT=root, STORAGES=STORAGES):
        output = io.StringIO()
        call_command("collectstatic", interactive=False, verbosity=1, stdout=output)
        return output.getvalue()


@pytest.fixture
def site_data(db):
    chip = ChipFactory(slug="h200", name="NVIDIA H200")
    operator = OperatorFactory(source="aten", name="add")
    submission = SubmissionFactory(name="a run", target_chip=chip, status="complete")
    evaluation = evaluate(submission, operator, chip, speedup=1.3)
    refresh_leaderboard_entries(submission_id=submission.pk)
    return operator, submission, evaluation.attempt


def test_collectstatic_then_every_page_renders_against_the_production_manifest(client, tmp_path, site_data):
    operator, submission, attempt = site_data
    root = tmp_path / "staticfiles"
    output = _collectstatic(root)
    assert "post-processed" in output
    assert (root / "staticfiles.json").is_file()
    for name in ("css/site.css", "js/site.js", "vendor/htmx.min.js", "vendor/plotly.min.js"):
        stem, _, extension = name.rpartition(".")
        assert list(root.glob(f"{stem}.*.{extension}")), name  # the hashed copy the pages link to
    public = [
        "/",
        "/leaderboard/",
        "/leaderboard/multi-source/",
        "/leaderboard/multi-chip/",
        "/leaderboard/reported/",
        "/operators/",
        f"/operators/{operator.id}/",
        f"/submissions/{submission.pk}/",
        f"/attempts/{attempt.pk}/",
        "/api/docs/",
        "/accounts/login/",
        "/accounts/signup/",
        "/admin/login/",
    ]
    signed_in = ["/accounts/", "/submissions/new/"]
    with override_settings(STATIC_ROOT=root, STORAGES=STORAGES):
        for url in public + ["SIGN IN"] + signed_in:
            if url == "SIGN IN":
                client.force_login(UserFactory())
                continue
            response = client.get(url)
            assert response.status_code == 200, url
            linked = re.findall(r'(?:src|href)="/static/([^"]+)"', response.content.decode())
            assert linked, url
            for path in linked:  # each one a hashed name that collectstatic wrote
                assert re.search(r"\.[0-9a-f]{12}\.", path), (url, path)
                assert (root / path).is_file(), (url, path)
        browsable = client.get("/api/v1/submissions/", HTTP_ACCEPT="text/html")
        assert browsable.status_code == 200 and "/static/css/drf-api." in browsable.content.decode()
        assert client.get("/no-such-page/").status_code == 404
