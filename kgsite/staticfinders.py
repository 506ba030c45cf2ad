"""Serve plotly.js straight from the installed plotly wheel as `vendor/plotly.min.js`, so the
4.8 MB bundle is neither committed nor fetched from a CDN (collectstatic copies it like any file)."""

from __future__ import annotations

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PREFIX = "vendor"
NAME = "plotly.min.js"


def _storage() -> FileSystemStorage:
    storage = FileSystemStorage(location=str(Path(plotly.__file__).resolve().parent / "package_data"))
    storage.prefix = PREFIX  # collectstatic places listed files under this prefix
    return storage


class PlotlyFinder(BaseFinder):
    def find(self, path: str, find_all: bool = False, **kwargs):
        if path != f"{PREFIX}/{NAME}":
            return []  # Django's finders answer "nothing here" with an empty list in both modes
        match = _storage().path(NAME)
        return [match] if find_all else match

    def list(self, ignore_patterns):
        yield NAME, _storage()
