"""Issue 21 item 9 in Chromium (the documentation part): docs/*.md are site pages, reached from the navigation,
the upload page and the API page, with links between documents and their anchors working; no page points at a
repository path instead."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import log_in
from tests.factories import ChipFactory, OperatorFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_docs_are_site_pages_linked_from_where_they_are_needed(page, live_server):
    url = live_server.url
    ChipFactory(slug="cpu", name="CPU", vendor="any", family="cpu", device_type="cpu", timing_meaningful=False)
    log_in(page, url, UserFactory().username, next_path="/submissions/new/")
    page.get_by_test_id("format-link").click()
    page.wait_for_url("**/docs/submission_format/")
    doc = page.locator("#doc")
    assert doc.locator("h1").inner_text() == "Submission format"
    assert doc.locator("table th", has_text="rules").count() >= 1  # the field table is a table, not pipes
    assert "|---|" not in doc.inner_text()
    doc.get_by_role("link", name="docs/accounts.md").first.click()  # a link to another document ...
    page.wait_for_url("**/docs/accounts/#shared-names-models-and-scaffolds")
    assert page.locator("#shared-names-models-and-scaffolds").is_visible()  # ... and its anchor

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Docs").click()
    page.wait_for_url("**/docs/")
    page.locator("#doc-list").get_by_role("link", name="Runners and dispatch").click()
    page.wait_for_url("**/docs/runners/")
    assert page.goto(url + "/docs/nope/").status == 404

    page.goto(url + "/api/docs/")
    page.locator("p.lead").get_by_role("link", name="the submission format").click()
    page.wait_for_url("**/docs/submission_format/")


def test_an_aten_operator_page_names_its_reference_not_a_repository_path(page, live_server):
    OperatorFactory(source="aten", name="nonexistent_op")  # no catalog spec: no source to show
    page.goto(live_server.url + "/operators/aten::nonexistent_op/")
    text = page.locator("main").inner_text()
    assert "operators/catalog" not in text
    assert "PyTorch's own aten::nonexistent_op" in text


def test_an_operator_page_shows_its_cases_per_tier_tolerance_reference_and_prompt(page, live_server):
    OperatorFactory(source="aten", name="add")
    OperatorFactory(source="cublas", name="cublasSgemm_v2")
    page.goto(live_server.url + "/operators/aten::add/")
    smoke = page.get_by_test_id("cases-smoke")
    assert [h.strip() for h in smoke.locator("thead th").all_text_contents()][:3] == ["#", "shape", "dtype"]
    assert smoke.locator("tbody tr").count() == 4
    full = page.locator("details[data-tier=full]")
    assert "648 cases (the first 200 shown)" in full.locator("summary").inner_text()  # the real catalog's count
    tolerance = page.get_by_test_id("tolerance").inner_text()
    assert "atol = 0.0001 × R" in tolerance and "0.016 for bfloat16" in tolerance
    page.get_by_text("Show the prompt").click()
    assert "add_Tensor" in page.locator("details pre.plain").last.inner_text()

    page.goto(live_server.url + "/operators/cublas::cublasSgemm_v2/")
    assert "def cublasSgemm_v2" in page.locator(".highlight").first.inner_text()  # the reference source
    assert page.get_by_test_id("cases-full").locator("thead th", has_text="transa").count() == 1


def test_a_cublas_page_shows_the_vendor_check_not_an_internal_note(page, live_server):
    """Issue 21 item 9: a cuBLAS page said its check against real cuBLAS was "still to be run by the lead"; the run
    is recorded (bench/results/.../cublas_vendor.json), so the page gives its figures instead of the team's note."""
    from operators import registry

    spec = registry.get("cublas::cublasStrsm_v2")
    assert "still to be run by the lead" in spec.fidelity  # the catalog's text (operators/catalog/cublas/_blas.py)
    OperatorFactory(source="cublas", name="cublasStrsm_v2", fidelity=spec.fidelity)
    OperatorFactory(source="cublas", name="cublasSaxpy_v2", fidelity=registry.get("cublas::cublasSaxpy_v2").fidelity)
    page.goto(live_server.url + "/operators/cublas::cublasStrsm_v2/")
    main = page.locator("main").inner_text()
    assert "by the lead" not in main and "still to be run" not in main
    assert "Checked in tests/operators/test_cublas.py" in main  # the rest of the note stays
    check = page.get_by_test_id("vendor-check").inner_text()
    assert "Against real cuBLAS (NVIDIA H200" in check and "7 of 8 cases agree" in check
    assert "edge case 1: NAN-READ vs docs" in check  # the one disagreement, with its reason
    page.goto(live_server.url + "/operators/cublas::cublasSaxpy_v2/")
    check = page.get_by_test_id("vendor-check").inner_text()
    assert re.search(r"(\d+) of \1 cases agree\.", check), check
