"""Issue 21 item 3 in Chromium: the upload form picks a registered model (its prices and release date named), a
new name close to a registered one is questioned before anything is stored, and staff merge duplicates."""

from __future__ import annotations

import datetime
import json

import pytest

from leaderboard.models import LLMModel, Submission
from tests.browser.helpers import log_in
from tests.factories import ChipFactory, LLMModelFactory, OperatorFactory, SubmissionFactory, UserFactory
from tests.leaderboard.helpers import KERNEL, make_metadata, make_zip

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OPUS = {"provider": "Anthropic", "name": "Claude Opus 4.6", "version": "4.6"}  # the metadata of the issue


@pytest.fixture
def opus(live_server):
    ChipFactory(slug="cpu", name="CPU", vendor="any", family="cpu", device_type="cpu", timing_meaningful=False)
    OperatorFactory(source="aten", name="add")
    model = LLMModelFactory(
        provider="Anthropic",
        name="Claude Opus",
        version="4.6",
        reviewed=True,
        price_input_per_mtok=15,
        price_output_per_mtok=75,
        release_date=datetime.date(2026, 2, 5),
    )
    return live_server.url, model


def test_the_upload_form_questions_a_near_duplicate_and_picks_the_registered_model(page, opus, tmp_path):
    url, model = opus
    user = UserFactory()
    archive, metadata = tmp_path / "s.zip", tmp_path / "metadata.json"
    archive.write_bytes(make_zip({"aten__add.py": KERNEL}))
    metadata.write_bytes(make_metadata(model=OPUS))
    log_in(page, url, user.username, next_path="/submissions/new/")
    page.set_input_files("#id_archive", str(archive))
    page.set_input_files("#id_metadata", str(metadata))
    page.get_by_role("button", name="Upload and evaluate").click()
    errors = page.locator("#upload-errors").inner_text()
    assert "'Claude Opus 4.6 4.6' is not registered, but close to Anthropic Claude Opus 4.6" in errors
    assert "$15/$75 per M in/out tokens, released 2026-02-05" in errors
    assert not Submission.objects.exists() and LLMModel.objects.count() == 1

    picked = page.locator("#id_model option", has_text="Anthropic Claude Opus 4.6")
    assert "$15/$75 per M in/out tokens" in picked.inner_text()
    page.select_option("#id_model", str(model.pk))
    page.set_input_files("#id_archive", str(archive))
    page.set_input_files("#id_metadata", str(metadata))
    page.get_by_role("button", name="Upload and evaluate").click()
    page.wait_for_url("**/submissions/*/")
    submission = Submission.objects.get()
    assert submission.model == model and LLMModel.objects.count() == 1
    assert "Claude Opus 4.6 ·" in page.locator("h1 + p").inner_text()

    metadata.write_bytes(json.dumps({**json.loads(make_metadata(model=OPUS)), "name": "confirmed"}).encode())
    page.goto(url + "/submissions/new/")
    page.check("#id_new_model")  # it is another model: registered as the metadata names it
    page.set_input_files("#id_archive", str(archive))
    page.set_input_files("#id_metadata", str(metadata))
    page.get_by_role("button", name="Upload and evaluate").click()
    page.wait_for_url("**/submissions/*/")
    assert str(Submission.objects.get(name="confirmed").model) == "Claude Opus 4.6 4.6"


def test_staff_merge_a_duplicate_model_in_the_admin(page, opus):
    url, model = opus
    duplicate = LLMModelFactory(**OPUS)
    submission = SubmissionFactory(name="filed under the duplicate", model=duplicate)
    staff = UserFactory(is_staff=True, is_superuser=True)
    log_in(page, url, staff.username, next_path="/admin/leaderboard/llmmodel/")
    for pk in (model.pk, duplicate.pk):
        page.check(f"input[name=_selected_action][value='{pk}']")
    page.select_option("select[name=action]", "merge_into_reviewed")
    page.get_by_role("button", name="Go").click()
    assert "Merged Claude Opus 4.6 4.6 into Claude Opus 4.6: 1 submission(s) moved." in page.locator(
        ".messagelist"
    ).inner_text()
    submission.refresh_from_db()
    assert submission.model == model and list(LLMModel.objects.all()) == [model]
