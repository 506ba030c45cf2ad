"""Fetch every public page of a site booted as production (.ci/prod_boot.sh) and fail on any error.

Starts from the pages of the main navigation and the API, follows every same-site link (at most a few URLs of
each route: one submission page stands for the others), and fetches each static file the pages use. Every
page must answer 200 with the production headers (HSTS, Content-Security-Policy); every static file must be
whitenoise's hashed, compressed, immutable copy. Standard library only: runs on the CI machine as it is.

    python .ci/prod_smoke.py http://127.0.0.1:8000
"""

from __future__ import annotations

import gzip
import re
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

SEEDS = [
    "/",
    "/leaderboard/",
    "/leaderboard/multi-source/",
    "/leaderboard/multi-chip/",
    "/leaderboard/reported/",
    "/operators/",
    "/api/docs/",
    "/api/schema/",
    "/accounts/login/",
    "/accounts/signup/",
    "/admin/login/",
    "/api/v1/leaderboard/",
    "/api/v1/submissions/",
    "/api/v1/reported/",
]
PER_ROUTE = 4  # URLs fetched per route (path with its ids replaced), query strings included
MAX_PAGES = 300
TIMEOUT_S = 30
# every request as the TLS-terminating proxy forwards it (KGB_BEHIND_PROXY=1)
PROXY_HEADERS = {"X-Forwarded-Proto": "https", "User-Agent": "kgb-prod-smoke"}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={**PROXY_HEADERS, **(headers or {})})
    try:
        with OPENER.open(request, timeout=TIMEOUT_S) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.pages: list[str] = []
        self.assets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            self.pages.append(values["href"])
        for name in ("src", "href", "data-plotly-src"):
            value = values.get(name)
            if value and "/static/" in value and (tag != "a"):
                self.assets.append(value)


def route(path: str) -> str:
    path = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "{uuid}", path)
    path = re.sub(r"/\d+/", "/{n}/", path)
    return re.sub(r"^/operators/[^/]+/", "/operators/{id}/", path)


def main(site: str) -> int:
    started = time.monotonic()
    origin = urlsplit(site)
    problems: list[str] = []

    # production security is on: plain HTTP is sent to HTTPS, and the proxy's header is believed
    status, headers, _ = fetch(site + "/", headers={"X-Forwarded-Proto": "http"})
    if status != 301 or not headers.get("location", "").startswith("https://"):
        problems.append(f"/ over plain HTTP: {status} {headers.get('location')} (expected a 301 to https://)")

    queue = list(SEEDS)
    seen: set[str] = set()
    per_route: Counter[str] = Counter()
    assets: set[str] = set()
    signed_in_only: set[str] = set()
    pages = 0
    while queue and pages < MAX_PAGES:
        target = queue.pop(0)
        if target in seen:
            continue
        seen.add(target)
        key = route(urlsplit(target).path)
        if per_route[key] >= PER_ROUTE and target not in SEEDS:
            continue
        per_route[key] += 1
        pages += 1
        status, headers, body = fetch(site + target)
        if status == 302 and urlsplit(headers.get("location", "")).path == "/accounts/login/":
            signed_in_only.add(key)  # a page for signed-in users (linked from the header): it sends to the login
            continue
        if status != 200:
            problems.append(f"{target}: {status}")
            continue
        kind = headers.get("content-type", "")
        if "strict-transport-security" not in headers:
            problems.append(f"{target}: no Strict-Transport-Security")
        if not kind.startswith("text/html"):
            continue
        if "default-src 'self'" not in headers.get("content-security-policy", ""):
            problems.append(f"{target}: no Content-Security-Policy")
        parser = Links()
        parser.feed(body.decode("utf-8", "replace"))
        assets.update(urlsplit(urljoin(site + target, a)).path for a in parser.assets)
        for href in parser.pages:
            link = urlsplit(urljoin(site + target, href))
            if link.netloc != origin.netloc or link.path.startswith(("/admin/", "/static/")):
                continue
            if link.path.endswith("/logout/"):
                continue
            queue.append(link.path + (f"?{link.query}" if link.query else ""))

    for asset in sorted(assets):
        status, headers, body = fetch(site + asset, headers={"Accept-Encoding": "gzip"})
        if status != 200:
            problems.append(f"{asset}: {status}")
            continue
        if not re.search(r"\.[0-9a-f]{12}\.\w+$", asset):
            problems.append(f"{asset}: not a hashed name (collectstatic's manifest)")
        if "immutable" not in headers.get("cache-control", ""):
            problems.append(f"{asset}: Cache-Control {headers.get('cache-control')!r}, not whitenoise's immutable")
        if asset.endswith((".css", ".js")) and headers.get("content-encoding") != "gzip":
            problems.append(f"{asset}: not served compressed")
        elif headers.get("content-encoding") == "gzip":
            gzip.decompress(body)

    status, _, _ = fetch(site + "/no-such-page/")
    if status != 404:
        problems.append(f"/no-such-page/: {status} (expected the 404 page)")

    routes = ", ".join(sorted(per_route))
    print(
        f"prod smoke: {pages} pages over {len(per_route)} routes, {len(assets)} static files, "
        f"{time.monotonic() - started:.1f} s"
    )
    print(f"routes: {routes}")
    if signed_in_only:
        print(f"sent to the login page (signed-in users only): {', '.join(sorted(signed_in_only))}")
    if not assets or pages < len(SEEDS):
        problems.append("too little was fetched: the crawl found no static files or lost its seeds")
    for problem in problems:
        print("PROBLEM", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/")))
