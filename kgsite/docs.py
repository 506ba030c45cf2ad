"""The repository's docs/*.md served as site pages, rendered by markdown-it-py (CommonMark and tables; raw HTML
in a document is shown as text, so a page carries no markup the Content-Security-Policy would have to trust).

A link between documents (`accounts.md#shared-names`) becomes a link to that document's page; headings get the
GitHub-style ids those anchors name. Only files found under docs/ are served, by a name looked up in that list.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from markdown_it import MarkdownIt
from markdown_it.token import Token

from kgsite.errors import NotFound

DOCS_DIR = Path(settings.BASE_DIR) / "docs"


@dataclass(frozen=True)
class Doc:
    slug: str  # the path under docs/ without ".md": "submission_format", "benchmarks/leaderboard"
    title: str
    path: Path


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip().replace("`", "")
    return path.stem.replace("_", " ")


@cache
def docs() -> dict[str, Doc]:
    """Every document, by slug (read once per process: the files ship with the code)."""
    found = {path.relative_to(DOCS_DIR).with_suffix("").as_posix(): path for path in DOCS_DIR.rglob("*.md")}
    return {slug: Doc(slug, _title(path), path) for slug, path in sorted(found.items())}


def heading_id(text: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _doc_url(slug: str) -> str:
    return reverse("doc_page", args=[slug])


def _link_target(href: str, here: str) -> str:
    """A relative link to another document, as the URL of its page; anything else unchanged."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path.endswith(".md"):
        return href
    slug = posixpath.normpath(posixpath.join(posixpath.dirname(here), parts.path)).removesuffix(".md")
    if slug not in docs():
        return href
    return _doc_url(slug) + (f"#{parts.fragment}" if parts.fragment else "")


def _rewrite(tokens: list[Token], here: str) -> None:
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and index + 1 < len(tokens):
            token.attrSet("id", heading_id(tokens[index + 1].content))
        for child in token.children or []:
            if child.type == "link_open":
                child.attrSet("href", _link_target(str(child.attrGet("href") or ""), here))


_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")


def render(slug: str) -> tuple[Doc, str]:
    """The document and its HTML; NotFound for a name that is not a document."""
    doc = docs().get(slug)
    if doc is None:
        raise NotFound(f"no document {slug[:60]!r}")
    tokens = _markdown.parse(doc.path.read_text(encoding="utf-8"))
    _rewrite(tokens, slug)
    return doc, _markdown.renderer.render(tokens, _markdown.options, {})
