"""Issue 21: the status pages are the site's own pages in a real browser — its stylesheet applied (the dark
header, the big status number), readable at 1400 and 390 px without a horizontal scroll, no refused resource."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1400, 390])
def test_the_404_page_is_styled_and_fits(live_server, browser, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    response = page.goto(f"{live_server.url}/operators-typo/aten::_softmax/")
    assert response.status == 404
    assert page.get_by_role("heading", name="Page not found").is_visible()
    header = page.evaluate("getComputedStyle(document.querySelector('.site-header')).backgroundColor")
    assert header == "rgb(15, 23, 42)"  # site.css's header colour: the stylesheet loaded
    status_size = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.error-status')).fontSize)")
    assert status_size > 40
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.get_by_label("Looking for an operator?").fill("softmax")
    page.get_by_role("button", name="Search operators").click()
    page.wait_for_url("**/operators/?q=softmax")
    assert not failed
    context.close()
