"""Text that people read as a name (submission, model, scaffold): it must show what it is.

Control characters (a newline, an escape), bidirectional overrides and isolates (U+202E turns
"evil.py" into what reads as "yp.live"), zero-width and other invisible characters (two names that
look the same but are different records, a name that reads as another one) are refused wherever a
name is entered. Pure Python (no Django), so the upload validator can use it.
"""

from __future__ import annotations

import unicodedata

# general categories that never belong in a name: controls (Cc), format characters (Cf: bidi
# controls, zero-width space/joiners, word joiner, BOM, soft hyphen), surrogates (Cs: a JSON
# "\ud800" decodes to one), private use (Co), unassigned (Cn), line and paragraph separators
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# invisible characters of other categories: the combining grapheme joiner, Hangul fillers, the
# braille blank, variation selectors
INVISIBLE = frozenset(
    {0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)}
)


def unsafe_characters(text: str) -> list[str]:
    """The characters of `text` that a name may not hold, described as `U+202E RIGHT-TO-LEFT OVERRIDE`
    (each once, in order of appearance); empty when the text is fine."""
    found: list[str] = []
    for char in text:
        code = ord(char)
        if unicodedata.category(char) in REFUSED_CATEGORIES or code in INVISIBLE:
            label = f"U+{code:04X} {unicodedata.name(char, 'control character')}"
            if label not in found:
                found.append(label)
    return found


def unsafe_characters_message(text: str) -> str | None:
    """A sentence saying what is wrong with the text as a name, or None when nothing is."""
    found = unsafe_characters(text)
    if not found:
        return None
    return "must not contain control, bidirectional or invisible characters (found " + ", ".join(found[:3]) + ")"
