"""Reading the data files a student may edit by hand: data/*.json and data/products.csv.

Used by every tool and by ``eval_set`` (issue 56, item 5): shop_notes.py, weather.py,
knowledge.py, orders.py (reviews) and products.py (the CSV) read their file here, so each
slip a hand edit can make is caught the same way:

* the file is read as UTF-8 with or without a BOM (``utf-8-sig``: Notepad on Windows writes one);
* bytes that are not UTF-8 (the file was saved as GBK / "ANSI", or as UTF-16), a JSON syntax error
  (a trailing comma, a missing quote, Chinese punctuation in place of JSON's), an entry without one
  of its fields or with a value of the wrong kind, a CSV row with too many or too few cells, a price
  that is not a number - each raises ``DataFileError``: ONE Chinese sentence (``course_lib/texts.py``,
  ``data_file.*``) with the file, the line (and column where there is one) and the fix;
* a tool never raises into the loop: it catches ``DataFileError`` and answers ``tool_failure(error)``,
  the sentence as a ``ToolFailure`` starting with 「错误：」 (``failure.py``), which the model reads.

Line and column are 1-based and count characters (what an editor shows); for JSON they come from
``json.JSONDecodeError`` (``lineno``, ``colno``), for bytes that are not UTF-8 from
``UnicodeDecodeError.start``, for an entry from where the entry (or its field) starts in the text.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from ..texts import t
from .failure import ToolFailure

ROOT = Path(__file__).resolve().parents[2]
_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace (RFC 8259, section 2)
# Chinese punctuation a student may type in place of JSON's , : " [ ] { } (an input method left on).
_CHINESE_PUNCTUATION = "，：“”‘’【】｛｝［］；"
# What each field kind accepts, and its name in the sentences.
KINDS = {"text": (str,), "number": (int, float), "list": (list,)}
_KIND_NAMES = {"text": "data_file.kind_text", "number": "data_file.kind_number", "list": "data_file.kind_list",
               "object": "data_file.kind_object", "integer": "data_file.kind_integer"}


class DataFileError(ValueError):
    """A data file that cannot be used; ``str(error)`` is one Chinese sentence naming the file, the line and the fix.

    Attributes:
        path: the file (``pathlib.Path``).
        line: 1-based line of the problem, or None (a missing file, a wrong header has line 1).
        column: 1-based column in characters, or None where only the line is known.
    """

    def __init__(self, message: str, path: Path, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.path, self.line, self.column = Path(path), line, column


def shown(path: str | Path) -> str:
    """``path`` as the sentences write it: ``data/shop_notes.json`` (relative, with ``/``) inside the course
    folder - what ``git checkout`` takes there - else the whole path."""
    path = Path(path).resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def tool_failure(error: DataFileError) -> ToolFailure:
    """What a tool answers for a broken data file: ``ToolFailure("错误：" + the sentence)`` (never raises)."""
    return ToolFailure(t("data_file.tool_failure", error=error))


def read_text(path: str | Path) -> str:
    """The text of ``path``, read as UTF-8 (``utf-8-sig``: a BOM at the start is dropped).

    Raises:
        DataFileError: the file is missing or cannot be opened, or holds bytes that are not UTF-8
            (the line and column of the first one).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as error:
        raise DataFileError(t("data_file.missing", path=shown(path)), path) from error
    except OSError as error:
        raise DataFileError(t("data_file.unreadable", path=shown(path), error=error.strerror or error), path) from error
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        start = data.rfind(b"\n", 0, error.start) + 1
        line = data.count(b"\n", 0, error.start) + 1
        column = len(data[start:error.start].decode("utf-8-sig", errors="replace")) + 1
        raise DataFileError(t("data_file.not_utf8", path=shown(path), line=line, column=column),
                            path, line, column) from error


def _why(text: str, error: json.JSONDecodeError) -> str:
    """The likely slip behind a JSON syntax error - a trailing comma, a missing quote or comma, Chinese
    punctuation, an empty file, something after the end - as the sentence's bracketed hint
    (``data_file.why_*``), or ``""`` when none fits."""
    here = text[error.pos:error.pos + 1]
    before = text[:error.pos].rstrip(" \t\r\n")[-1:]
    if not text.strip():
        key = "data_file.why_empty"
    elif here and here in _CHINESE_PUNCTUATION:
        key = "data_file.why_chinese_punctuation"
    elif before == "," and here in ("]", "}"):
        key = "data_file.why_trailing_comma"
    elif error.msg.startswith(("Unterminated string", "Invalid control character", "Expecting ':' delimiter",
                               "Expecting property name")) \
            or (error.msg.startswith("Expecting value") and here.strip() and here not in ",]}"):
        key = "data_file.why_missing_quote"  # a text without its opening quote reads as a bad value
    elif error.msg.startswith("Expecting ',' delimiter"):
        key = "data_file.why_missing_comma"
    elif error.msg.startswith("Extra data"):
        key = "data_file.why_extra"
    else:
        return ""
    return t(key)


def read_json(path: str | Path) -> Any:
    """``path`` read (``read_text``) and parsed with ``json.loads``: whatever the file holds (list, dict ...).

    Raises:
        DataFileError: as ``read_text``, or the text is not JSON (line and column of
            ``json.JSONDecodeError``, and the likely slip where one fits).
    """
    return _parse(Path(path))[0]


def _parse(path: Path) -> tuple[Any, str]:
    """``read_json``'s value and the text it came from (for the lines of ``read_records``)."""
    text = read_text(path)
    try:
        return json.loads(text), text
    except json.JSONDecodeError as error:
        raise DataFileError(t("data_file.bad_json", path=shown(path), line=error.lineno, column=error.colno,
                              why=_why(text, error)), path, error.lineno, error.colno) from error


def _members(text: str, start: int) -> list[tuple[str | int, int]]:
    """The members of the JSON list or object that starts at ``text[start]`` (text that parses):
    ``(index or key, where its value starts)``, in order."""
    decoder = json.JSONDecoder()
    closing = "]" if text[start] == "[" else "}"
    found: list[tuple[str | int, int]] = []
    i = _SPACE.match(text, start + 1).end()
    while text[i] != closing:
        if closing == "}":
            name, i = decoder.raw_decode(text, i)
            i = _SPACE.match(text, _SPACE.match(text, i).end() + 1).end()  # past the ':'
        else:
            name = len(found)
        found.append((name, i))
        i = _SPACE.match(text, decoder.raw_decode(text, i)[1]).end()
        if text[i] == ",":
            i = _SPACE.match(text, i + 1).end()
    return found


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _value(value: Any) -> str:
    """A value as a sentence shows it: JSON, at most 30 characters."""
    shown_value = json.dumps(value, ensure_ascii=False)
    return shown_value if len(shown_value) <= 30 else shown_value[:30] + "…"


def _is(value: Any, kind: str) -> bool:
    return isinstance(value, KINDS[kind]) and not isinstance(value, bool)


def _check_entry(path: Path, text: str, entry: Any, offset: int, fields: dict[str, str],
                 optional: dict[str, str]) -> None:
    """Raise ``DataFileError`` when ``entry`` (starting at ``text[offset]``) is not an object with ``fields``."""
    where = {"path": shown(path), "line": _line(text, offset)}
    if not isinstance(entry, dict):
        raise DataFileError(t("data_file.not_an_entry", **where, kind=t(_KIND_NAMES["object"]), value=_value(entry)),
                            path, where["line"])
    for field in fields:
        if field not in entry:
            raise DataFileError(t("data_file.missing_field", **where, field=json.dumps(field, ensure_ascii=False),
                                  fields=", ".join(json.dumps(f, ensure_ascii=False) for f in fields)),
                                path, where["line"])
    for field, kind in {**fields, **optional}.items():
        if field in entry and not _is(entry[field], kind):
            line = _line(text, dict(_members(text, offset))[field])
            raise DataFileError(t("data_file.wrong_type", path=shown(path), line=line, field=field,
                                  kind=t(_KIND_NAMES[kind]), value=_value(entry[field])), path, line)


def read_records(path: str | Path, fields: dict[str, str], optional: dict[str, str] | None = None,
                 key: str | None = None) -> list[dict]:
    """A JSON list of entries (objects): data/shop_notes.json, data/knowledge.json, data/reviews.json.

    Args:
        path: the file.
        fields: the fields every entry has, and their kind: ``"text"`` (a JSON string),
            ``"number"`` (a JSON number) or ``"list"``; e.g. ``{"id": "text", "title": "text", "text": "text"}``.
        optional: fields an entry may have, checked for their kind when present.
        key: the list is the value of this key of the top-level object (``"reviews"``); None: the
            top level is the list.
    Returns:
        The entries as parsed (dicts; other fields kept).
    Raises:
        DataFileError: as ``read_json``; or the top level is not what it should be; or an entry is
            not an object, lacks a field (the line where the entry starts) or holds a value of the
            wrong kind (the line of that value).
    """
    path = Path(path)
    data, text = _parse(path)
    top = _SPACE.match(text).end()
    if key is not None:
        if not isinstance(data, dict) or key not in data:
            raise DataFileError(t("data_file.wrong_top", path=shown(path), kind=" {%s: [...]}" % json.dumps(key),
                                  value=_value(data)), path, _line(text, top))
        if not isinstance(data[key], list):
            line = _line(text, dict(_members(text, top))[key])
            raise DataFileError(t("data_file.wrong_type", path=shown(path), line=line, field=key,
                                  kind=t(_KIND_NAMES["list"]), value=_value(data[key])), path, line)
        entries, start = data[key], dict(_members(text, top))[key]
    else:
        if not isinstance(data, list):
            raise DataFileError(t("data_file.wrong_top", path=shown(path), kind=t(_KIND_NAMES["list"]),
                                  value=_value(data)), path, _line(text, top))
        entries, start = data, top
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict) or any(f not in entry or not _is(entry[f], k) for f, k in fields.items()) \
                or any(f in entry and not _is(entry[f], k) for f, k in (optional or {}).items()):
            _check_entry(path, text, entry, _members(text, start)[n][1], fields, optional or {})
    return entries


def read_table(path: str | Path, fields: dict[str, str]) -> dict[str, dict]:
    """A JSON object whose values are entries (objects): data/weather.json (``{city: {...}}``).

    Args and errors as ``read_records`` (``fields`` every entry has); the top level must be an object.
    Returns:
        ``{name: entry}`` as parsed.
    """
    path = Path(path)
    data, text = _parse(path)
    top = _SPACE.match(text).end()
    if not isinstance(data, dict):
        raise DataFileError(t("data_file.wrong_top", path=shown(path), kind=t(_KIND_NAMES["object"]),
                              value=_value(data)), path, _line(text, top))
    for name, entry in data.items():
        if not isinstance(entry, dict) or any(f not in entry or not _is(entry[f], k) for f, k in fields.items()):
            _check_entry(path, text, entry, dict(_members(text, top))[name], fields, {})
    return data


def read_csv(path: str | Path, columns: tuple[str, ...], numbers: dict[str, type]) -> list[tuple]:
    """A CSV file with the header ``columns`` (data/products.csv), read with the ``csv`` module.

    Args:
        path: the file (UTF-8, with or without a BOM; any line ending).
        columns: the header, exactly, in order.
        numbers: the columns that hold numbers and their type, ``float`` or ``int``
            (e.g. ``{"price": float, "stock_quantity": int}``); every other cell stays text.
    Returns:
        One tuple per row in ``columns`` order, each cell stripped of surrounding spaces.  Blank
        rows (nothing, or only commas: what a spreadsheet leaves of a cleared row) are skipped.
    Raises:
        DataFileError: as ``read_text``; the header differs (line 1); a row has more or fewer cells
            than ``columns`` (the line where the row starts); a number cell does not convert.
    """
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    rows = []
    try:
        header = next(reader, [])
        if tuple(header) != tuple(columns):
            raise DataFileError(t("data_file.csv_columns", path=shown(path), columns=",".join(columns),
                                  found=",".join(header)), path, 1)
        while True:
            start = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                break
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(columns):
                raise DataFileError(t("data_file.csv_cells", path=shown(path), line=start, count=len(row),
                                      expected=len(columns)), path, start)
            values: list[Any] = [cell.strip() for cell in row]
            for index, name in enumerate(columns):
                if name in numbers:
                    try:
                        values[index] = numbers[name](values[index])
                    except ValueError:
                        kind = t(_KIND_NAMES["integer" if numbers[name] is int else "number"])
                        raise DataFileError(t("data_file.csv_number", path=shown(path), line=start, column=name,
                                              value=_value(values[index]), kind=kind), path, start) from None
            rows.append(tuple(values))
    except csv.Error as error:
        raise DataFileError(t("data_file.bad_csv", path=shown(path), line=reader.line_num), path,
                            reader.line_num) from error
    return rows
