"""Steps the browser tests share."""

from __future__ import annotations

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


def log_in(page, url: str, username: str, *, next_path: str = "/") -> None:
    page.goto(f"{url}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(url + next_path)
