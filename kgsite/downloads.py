"""Safe downloads: a Content-Disposition that no request value can break, and CSV cells that a
spreadsheet shows instead of running.

- File names are built from the site's own words plus request values (a chip slug from the URL); every
  character outside [A-Za-z0-9._-] becomes "-", so a quote, `;`, `filename*=`, CR or LF in a value can
  neither add a parameter to the header nor make Django refuse it (a 500).
- CSV injection (OWASP): a text cell starting with = + - @ TAB or CR is a formula to Excel, LibreOffice and
  Google Sheets (`=HYPERLINK(...)`, `@SUM(...)`, `+cmd|...`). Such a cell is prefixed with a single quote,
  which the spreadsheet shows as text. Numbers are left alone (a negative drop stays a number).
"""

from __future__ import annotations

import re

from django.utils.http import content_disposition_header

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME_LENGTH = 120


def safe_filename(stem: str, extension: str) -> str:
    """`stem.extension` with only [A-Za-z0-9._-] in the stem (runs of anything else become one "-")."""
    clean = _UNSAFE_IN_NAME.sub("-", stem).strip("-.")[:MAX_NAME_LENGTH] or "download"
    return f"{clean}.{extension}"


def attachment(stem: str, extension: str) -> str:
    """The Content-Disposition value of a download named after `stem`."""
    return content_disposition_header(True, safe_filename(stem, extension))


def csv_cell(value: object) -> object:
    """A cell as it may go into a CSV file: None as empty, formula-looking text neutralised."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value
