"""The trace file of ``course_lib/tracing.py`` (notebook 10): appending spans, cutting old runs, reading lines back.

Machinery under the lesson's ``Tracer``; not taught.

Each finished span is appended as ONE line of JSON, the object
``ReadableSpan.to_json(indent=None)`` writes (what the sdk's
``ConsoleSpanExporter`` prints) - ``name``, ``context.trace_id`` /
``context.span_id`` (``"0x..."`` hex), ``parent_id``, ``kind``, ``start_time`` /
``end_time`` (ISO 8601, UTC), ``status``, ``attributes``, ``events``, ``links``,
``resource`` - so a span appears in the file when it ends: children before
their parent.  ``json.dumps`` writes Chinese as ``\\uXXXX`` escapes; the file is
opened as UTF-8 all the same.

Several kernels may write one file: every append and every cut holds the
file's lock (``file_locked``: ``.run.jsonl.lock`` beside it), and the file is
opened per batch (``FileExporter``), so a cut that replaces the file never
loses a span another kernel writes.  The cut (``cut_old_runs``) rewrites the
file with the last ``keep_runs - 1`` runs (a new file beside it, then
``os.replace``); lines that are not spans stay, but for torn ones (a JSON
object cut short, ``torn``).  A file that cannot be read, replaced (Windows: open
in another program) or locked is left for a later Tracer to cut.  A new
append after a torn half line starts on a new line (``ends_a_line``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from . import server_process
from .texts import t

# How long a kernel waits for the trace file's lock (another kernel appending or cutting holds it for milliseconds).
FILE_LOCK_S = 10.0
# The resource attribute that names a span's run (one id per Tracer).
RUN_ID_KEY = "llm_course.run_id"


def same_file(path: Path) -> str:
    """A key that is equal for two spellings of one path (relative / absolute, case on Windows)."""
    return os.path.normcase(str(path.resolve()))


def lock_path(path: Path) -> Path:
    """The lock file of the trace file ``path``: ``.run.jsonl.lock`` beside it."""
    return path.with_name(f".{path.name}.lock")


def file_locked(path: Path, timeout: float = FILE_LOCK_S):
    """Hold the trace file's lock (``server_process.locked``: ``filelock``, fcntl on POSIX, msvcrt on Windows)
    for the block: every kernel appends spans and cuts old runs under it, so a cut never replaces the file
    under a write.

    Raises:
        filelock.Timeout: another process held it for ``timeout`` s.
    """
    return server_process.locked(lock_path(path), timeout=timeout)


class FileExporter(SpanExporter):
    """Append each finished span to the trace file as one JSON line, opening the file for each batch
    under its lock (``file_locked``).

    Not one file handle held for the Tracer's life: another kernel that cuts the old runs replaces the
    file (``os.replace``), and a handle kept open would go on writing into the replaced file - those
    spans were lost (Linux, macOS; Windows refused the replace instead).  A half line left by a stopped
    write gets its newline first (``load_spans`` skips it).  A file that cannot be written (a read-only
    folder, the lock held 10 s) loses that span and says so once (``tracing.write_failed``).
    """

    def __init__(self, path: Path):
        self.path = path
        self._said = False

    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        lines = "".join(span.to_json(indent=None) + "\n" for span in spans)
        try:
            with file_locked(self.path):
                half_line = not ends_a_line(self.path)
                with open(self.path, "a", encoding="utf-8", newline="\n") as file:
                    file.write(("\n" if half_line else "") + lines)
        except Exception as error:  # noqa: BLE001 - OSError or filelock.Timeout: the run goes on without this span
            if not self._said:
                self._said = True
                print(t("tracing.write_failed", path=self.path, error=f"{type(error).__name__}: {error}"))
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Nothing to close: the file is opened per batch."""


def cut_old_runs(path: Path, keep_runs: int) -> None:
    """Rewrite ``path`` with the spans of its last ``keep_runs - 1`` runs when it holds ``keep_runs`` or more.

    Runs in the order they first appear.  A line that is not a span stays where it is (the file may
    not be only the course's), unless it is a JSON object cut short (``torn``: a
    span whose writing was stopped).  A file with fewer runs (a file that is not a trace file has
    none) is left as it is; so is one that cannot be read or replaced (another program has it open
    on Windows, a read-only folder, the lock held by another kernel for 10 s): a later Tracer cuts it.
    The cut holds the file's lock (``file_locked``), as every append does: a span another kernel
    writes meanwhile waits for the new file, never goes into the replaced one.
    """
    try:
        with file_locked(path):
            _cut_locked(path, keep_runs)
    except Exception:  # noqa: BLE001 - filelock.Timeout or OSError (no lock file possible): a later Tracer cuts it
        return


def _cut_locked(path: Path, keep_runs: int) -> None:
    """``cut_old_runs``'s work, with the trace file's lock held."""
    try:
        data = path.read_bytes()
    except OSError:
        return
    lines = [(span, raw) for _, raw, span, _ in scan(data) if span is not None or not torn(raw)]
    runs = list(dict.fromkeys(span["run_id"] for span, _ in lines if span is not None))
    if len(runs) < keep_runs:
        return
    keep = set(runs[len(runs) - (keep_runs - 1):])
    kept = b"".join(raw + b"\n" for span, raw in lines if span is None or span["run_id"] in keep)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(kept)
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass


def torn(raw: bytes) -> bool:
    """True for a line that starts a JSON object but is not JSON: a span whose writing was stopped."""
    if not raw.lstrip().startswith(b"{"):
        return False
    try:
        json.loads(raw)
    except ValueError:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        return True
    return False


def ends_a_line(path: Path) -> bool:
    """True when ``path`` is missing, empty or ends with a newline (not with a torn half line)."""
    try:
        with open(path, "rb") as file:
            if file.seek(0, os.SEEK_END) == 0:
                return True
            file.seek(-1, os.SEEK_END)
            return file.read(1) == b"\n"
    except OSError:
        return True


def _hex(value: Any) -> str:
    """``"0x1a2b..."`` (how to_json writes ids) -> ``"1a2b..."``; anything but a str is not an id (TypeError)."""
    if not isinstance(value, str):
        raise TypeError(type(value).__name__)  # the id is not text: not a span
    return value.removeprefix("0x")


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)  # "2025-01-01T08:00:00.123456Z": UTC


def span_from_json(data: Any) -> dict:
    """One line's JSON object as ``load_spans`` gives it (KeyError / TypeError / ValueError if not a span)."""
    context = data["context"]
    start, end = _time(data["start_time"]), _time(data["end_time"])
    status = data.get("status") or {}
    resource = dict((data.get("resource") or {}).get("attributes") or {})
    parent = data.get("parent_id")
    return {
        "name": data["name"],
        "trace_id": _hex(context["trace_id"]),
        "span_id": _hex(context["span_id"]),
        "parent_id": None if parent is None else _hex(parent),
        "kind": str(data.get("kind", "")).removeprefix("SpanKind."),
        "start": start,
        "end": end,
        "duration_ms": (end - start).total_seconds() * 1000,
        "attributes": dict(data.get("attributes") or {}),
        "status": status.get("status_code", "UNSET"),
        "status_description": status.get("description") or "",
        "events": list(data.get("events") or []),
        "resource": resource,
        "run_id": resource.get(RUN_ID_KEY),
    }


def scan(data: bytes) -> Iterator[tuple[int, bytes, dict | None, str]]:
    """``(line number, raw line, span or None, why not)`` for each non-blank line of a trace file's bytes."""
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            span = span_from_json(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:  # JSONDecodeError: ValueError
            yield number, raw, None, f"{type(exc).__name__}: {exc}"
        else:
            yield number, raw, span, ""
