"""Traces of an agent run, without an account: OpenTelemetry spans in a local file (notebook 10).

A *span* is one timed piece of work: a name, a start and an end, attributes
(``key -> value``), a status, and the id of the span it is part of (its
parent).  All the spans of one run share a *trace id*; together they are the
run's trace.  One run of the native loop (``agent.Agent``) gives three kinds:

==========================  =====================================  ==============================
``invoke_agent {name}``     the whole run (``Agent.run``), the root  span kind INTERNAL
``chat {model}``            one model request (``Agent.send``)       span kind CLIENT
``execute_tool {tool}``     one tool call (``Agent.answer_call``)  span kind INTERNAL
==========================  =====================================  ==============================

so a run with one tool call is ``invoke_agent`` ⊃ ``chat``, ``execute_tool``,
``chat``.  The names and the ``gen_ai.*`` attributes follow OpenTelemetry's
semantic conventions for generative AI (status: Development), release v1.41.0:
https://github.com/open-telemetry/semantic-conventions/blob/v1.41.0/docs/gen-ai/gen-ai-spans.md
(the ``chat`` and ``execute_tool`` spans) and ``gen-ai-agent-spans.md`` next to it
(the "invoke agent internal span"); the GenAI conventions are now developed in
https://github.com/open-telemetry/semantic-conventions-genai, which names them the same.
The provider is ``gen_ai.provider.name``: it replaced ``gen_ai.system`` of v1.36.0 and earlier
(``opentelemetry-semantic-conventions`` 0.66b2, installed with the sdk, marks ``gen_ai.system``
deprecated, "Replaced by ``gen_ai.provider.name``").
``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result`` - and the
question and answer kept here as ``llm_course.question`` / ``llm_course.answer`` - are
"Opt-In" in the spec: content that may be sensitive.  They are recorded here
because the file never leaves this computer.  Attributes the spec does not
define start with ``llm_course.`` - the course's own namespace, after the service name
``llm-agent-course`` (``llm_course.tool.ok``, ``llm_course.stopped_reason``, the caller's
``case_id`` ...).

Nothing leaves the machine: the spans are recorded with the official
``opentelemetry-sdk`` through its own ``TracerProvider`` (the process-wide
provider of ``opentelemetry.trace`` is never set) and a
``SimpleSpanProcessor`` with a small file exporter (``_FileExporter``): no collector, no
network, no account.  Each finished span is written at once as ONE line of
JSON, the object ``ReadableSpan.to_json(indent=None)`` writes (what the sdk's
``ConsoleSpanExporter`` prints) - ``name``,
``context.trace_id`` / ``context.span_id`` (``"0x..."`` hex), ``parent_id``,
``kind``, ``start_time`` / ``end_time`` (ISO 8601, UTC), ``status``,
``attributes``, ``events``, ``links``, ``resource`` - so a span appears in the
file when it ends: children before their parent.  ``json.dumps`` writes Chinese
as ``\\uXXXX`` escapes; the file is opened as UTF-8 all the same.
``load_spans`` reads the file back; ``spans_table`` and ``plot_timeline`` show it.

Use::

    with Tracer(Path("traces/run.jsonl")) as tracer:
        result = tracer.run(agent, "北京和上海哪个更热？", case_id="P1")
    spans = load_spans(Path("traces/run.jsonl"))   # the latest run: this Tracer's spans
    spans_table(spans)          # one row per span
    plot_timeline(spans)        # the last trace as a timeline

Runs, and a file that does not grow without bound: each ``Tracer`` is one *run*
with its own id (``Tracer.run_id``, e.g. ``"20261204T184512Z-3f2a1c"``), kept in every
span's resource as ``llm_course.run_id`` (the course's namespace; a resource
attribute because it is the same for everything one Tracer records).  The
spans of every run are appended to the same file; ``load_spans`` gives the
latest run (the run of the file's last span) unless asked for ``run="all"`` or
one run id, so the same case ids run again are not read as one run.  When a
new Tracer opens a file that already holds ``keep_runs`` runs (default
``KEEP_RUNS`` = 5), it first rewrites the file with the last ``keep_runs - 1``
of them (a new file beside it, then ``os.replace``), so the file holds at most
``keep_runs`` runs (lines that are not spans stay, but for torn ones: a JSON
object cut short).  It does not cut a file that another open Tracer of this
process writes to, nor one whose rewrite fails (Windows refuses to replace a
file another program has open): that file is cut by a later Tracer.  A
Tracer that recorded nothing (every case reused) leaves no run in the file.
Lines written before runs had ids have no run id: they count as one run, the
oldest (as ``Spans.runs`` shows them: None).

Lines that are not spans - a last line torn when the kernel was stopped
while it was written, a line edited by hand - are skipped, counted
(``Spans.skipped``) and named in one Chinese sentence; a new Tracer starts a
new line after a torn one, so its spans never stick to it.

``OTEL_SDK_DISABLED=true`` (any case, as the sdk reads it in
``TracerProvider.__init__``; OpenTelemetry's configuration spec: "Disable the
SDK for all signals") is honoured: the sdk's provider hands out a no-op
tracer, so a Tracer then records no span and writes no file, and says so once
when it is made; the agent runs as usual, ``last_trace_id`` stays None, and
``load_spans`` of a path with nothing in it says why instead of failing.

Times: the sdk stamps a span with the wall clock (``time.time_ns``), which
can step back (NTP, a resumed virtual machine) and make a span end before it
started.  Here every start, end and event time is given to the sdk
explicitly: the wall clock read once when a run starts, plus the monotonic
``time.perf_counter_ns`` since (as OpenTelemetry JS does with
``performance.timeOrigin + performance.now()``), and never before a time this
Tracer gave already.  Durations are then never negative and a child lies
inside its parent; the timestamps may be off the wall clock by as much as it
stepped during the run.

Attribute values: OpenTelemetry's attribute types are str, bool, int
(64-bit signed), float and homogeneous arrays of them (the spec's
"Attribute" in common/README.md; ``opentelemetry.attributes`` turns anything
else into ``str`` with a warning, and ``to_json`` then fails on bytes and writes
NaN as ``NaN``, which is not JSON).  ``attribute_value`` turns what a caller
passes into one of them first: numpy numbers into Python ones, a NaN or an
infinity into the text ``"NaN"`` / ``"Infinity"`` / ``"-Infinity"`` (JSON's
missing numbers as Python's json spells them: the file stays strict JSON),
``Decimal`` into its exact text (``"19.90"``), an int beyond 64 bits into its
digits, bytes into UTF-8 text, a set into a sorted list, a list of one scalar
type into a list (ints and floats mixed: floats), and anything else - a dict,
nested or mixed lists - into JSON text.

The loop is not changed: ``Tracer.wrap(agent)`` puts a traced ``send`` and
``answer_call`` on the agent *instance* (instance attributes shadow the class's
methods) and takes them away again on exit.  Only the native loop has these
two hooks; the ReAct loops (``react.py``) send and run their tools inside
``step`` and cannot be traced this way (``TypeError``).
"""

from __future__ import annotations

import json
import math
import numbers
import os
import secrets
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from course_runtime import server_process
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace import SpanKind, Status, StatusCode

from .loop_base import LoopBase
from .plots import _finish, chart_text
from .texts import t
from .tools.failure import ToolWaiting

SERVICE_NAME = "llm-agent-course"
DEFAULT_AGENT_NAME = "course-agent"
DEFAULT_PROVIDER = "openai"  # the API the course's client speaks, when no provider is known
# The course's provider presets (providers.PRESETS) whose name is one of the spec's well-known values.
PROVIDER_NAMES = {"openai": "openai", "deepseek": "deepseek"}
OPERATIONS = ("invoke_agent", "chat", "execute_tool")
# The columns of spans_table, in order.
SPAN_COLUMNS = ["trace", "depth", "operation", "span", "start_ms", "duration_ms", "input_tokens", "output_tokens",
                "tool", "ok", "status"]
# Bar colours of plot_timeline, one per operation, and the edge of a span that ended in an error.
COLOURS = {"invoke_agent": "#94a3b8", "chat": "#3b82f6", "execute_tool": "#f59e0b"}
ERROR_COLOUR = "#dc2626"
LEGEND_KEYS = {"invoke_agent": "tracing.chart_agent", "chat": "tracing.chart_chat", "execute_tool": "tracing.chart_tool"}
# How many runs (Tracers) a trace file keeps: a new Tracer cuts the file to the last KEEP_RUNS - 1 first.
KEEP_RUNS = 5
# The resource attribute that names a span's run (one id per Tracer).
RUN_ID_KEY = "llm_course.run_id"
# OTEL_SDK_DISABLED: the variable of OpenTelemetry's environment-variable spec that turns the sdk off.
SDK_DISABLED_VARIABLE = "OTEL_SDK_DISABLED"
# An attribute int is signed 64-bit (OpenTelemetry's common spec, "Attribute").
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
# How deep attribute_value follows nested containers before it writes the rest as text (a list that holds itself).
MAX_DEPTH = 20
_NOT_SCALAR = object()
# The Tracers of this process whose file is open: a new Tracer does not cut a file one of them writes.
_OPEN: "weakref.WeakSet[Tracer]" = weakref.WeakSet()
# How long a kernel waits for the trace file's lock (another kernel appending or cutting holds it for milliseconds).
FILE_LOCK_S = 10.0


def provider_name(agent: Any) -> str:
    """``gen_ai.provider.name`` for ``agent``: the spec's well-known value for the course's
    ``openai`` and ``deepseek`` presets, the preset's own name for the others (a custom value,
    which the spec allows), ``"openai"`` when the agent has no ``providers.Provider``."""
    name = getattr(getattr(agent, "provider", None), "name", None)
    if not name:
        return DEFAULT_PROVIDER
    return PROVIDER_NAMES.get(name, name)


def sdk_disabled() -> bool:
    """True when ``OTEL_SDK_DISABLED`` is ``true`` (any case, spaces around allowed): the rule the sdk's
    ``TracerProvider.__init__`` applies, which then hands out no-op tracers (no span is recorded)."""
    return os.environ.get(SDK_DISABLED_VARIABLE, "").strip().lower() == "true"


# -- attribute values ----------------------------------------------------------------------


def _text(value: Any) -> str:
    """``str(value)``, or the type's name when even that fails."""
    try:
        return str(value)
    except Exception:  # a broken __str__ must not cost the span
        return f"<{type(value).__name__}>"


def _plain(value: Any) -> Any:
    """A numpy number or array as Python's own value (its ``tolist()``: ``np.int64(3)`` -> 3, an array -> a
    list), anything else as it is.  By the type's module, so numpy is not imported here."""
    if type(value).__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        return value.tolist()
    return value


def _scalar(value: Any) -> Any:
    """``value`` as one attribute scalar (str, bool, int, float), or ``_NOT_SCALAR`` for a container
    or an object.  NaN / ±inf -> ``"NaN"`` / ``"Infinity"`` / ``"-Infinity"`` (JSON has no such numbers)."""
    value = _plain(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="backslashreplace")
    if isinstance(value, Decimal):
        return str(value)  # exact ("19.90"); "NaN", "Infinity", "-Infinity" for those
    if isinstance(value, numbers.Integral):
        number = int(value)
        return number if INT64_MIN <= number <= INT64_MAX else str(number)
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "Infinity" if number > 0 else "-Infinity"
        return number
    return _NOT_SCALAR


def _sorted(items: Any) -> list:
    """A set's items in a stable order: sorted, or by type name and text when they do not compare."""
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=lambda v: (type(v).__name__, _text(v)))


def _jsonable(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data (dict with str keys, list, str, bool, int, float, None): no NaN."""
    if value is None:
        return None
    scalar = _scalar(value)
    if scalar is not _NOT_SCALAR:
        return scalar
    if depth >= MAX_DEPTH:
        return _text(value)
    value = _plain(value)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else _text(_jsonable(k, MAX_DEPTH)): _jsonable(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, Set):
        return [_jsonable(v, depth + 1) for v in _sorted(value)]
    if isinstance(value, Sequence):
        return [_jsonable(v, depth + 1) for v in value]
    return _text(value)


def attribute_value(value: Any) -> Any:
    """``value`` as an OpenTelemetry attribute value the trace file can hold as strict JSON.

    Returns:
        None for None (the attribute is left out: OpenTelemetry refuses None); a str, bool, int or
        float (numpy numbers as Python ones; NaN / ±inf as ``"NaN"`` / ``"Infinity"`` /
        ``"-Infinity"``; ``Decimal`` as its exact text; an int beyond signed 64 bits as its digits;
        bytes as UTF-8 text); a list of one of those types for a list, tuple, numpy array or set
        (a set sorted; ints among floats become floats); anything else - a dict, nested or mixed
        lists, an object - as JSON text (``ensure_ascii=False``) or ``str(value)``.  Never raises.

    The types are OpenTelemetry's "Attribute" (specification/common/README.md): a string, a
    boolean, a double or a signed 64-bit integer, or a homogeneous array of one of them.
    """
    try:
        if value is None:
            return None
        scalar = _scalar(value)
        if scalar is not _NOT_SCALAR:
            return scalar
        value = _plain(value)
        if isinstance(value, Set):
            items = _sorted(value)
        elif isinstance(value, Sequence):
            items = list(value)
        elif isinstance(value, Mapping):
            return json.dumps(_jsonable(value), ensure_ascii=False, allow_nan=False)
        else:
            return _text(value)
        scalars = [_scalar(v) if v is not None else _NOT_SCALAR for v in items]
        kinds = {type(v) for v in scalars}
        if _NOT_SCALAR not in scalars:
            if len(kinds) <= 1:
                return scalars
            if kinds == {int, float}:
                return [float(v) for v in scalars]
        return json.dumps(_jsonable(items), ensure_ascii=False, allow_nan=False)
    except Exception:  # anything unforeseen: the run and the span go on, the value as text
        return _text(value)


def _set(span: Any, attributes: dict[str, Any]) -> None:
    """Set the attributes whose value is not None, each as ``attribute_value`` makes it."""
    for key, value in attributes.items():
        value = attribute_value(value)
        if value is not None:
            span.set_attribute(key, value)


def _caller_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """``case_id="P1"`` -> ``{"llm_course.case_id": "P1"}``; a key with a dot is kept as it is."""
    return {key if "." in key else f"llm_course.{key}": value for key, value in attributes.items()}


# -- span times -----------------------------------------------------------------------------


class _Clock:
    """Span timestamps in nanoseconds since the epoch that never go back.

    ``anchor()`` (at the start of each run) reads the wall clock once (``time.time_ns``), but never
    earlier than a time already given; ``now()`` is that anchor plus ``time.perf_counter_ns`` since
    (monotonic, ``time.get_clock_info("perf_counter").monotonic``, and fine-grained on Windows too).
    """

    def __init__(self) -> None:
        self._last = 0
        self._wall = self._mono = 0
        self.anchor()

    def anchor(self) -> None:
        self._wall = max(time.time_ns(), self._last + 1)
        self._mono = time.perf_counter_ns()

    def now(self) -> int:
        self._last = max(self._last, self._wall + time.perf_counter_ns() - self._mono)
        return self._last


@contextmanager
def _recorded(span: Any, clock: _Clock) -> Iterator[Any]:
    """Make ``span`` current; an exception inside (``KeyboardInterrupt`` too) is recorded on it -
    an ``exception`` event, status ERROR, ``error.type`` - and raised again.  A tool that waits for a
    person (``tools.failure.ToolWaiting``: an agent used as a tool) is no error: the span gets
    ``llm_course.tool.waiting`` True and its status stays UNSET.  The span then ends, at ``clock``'s
    time (not the sdk's wall clock)."""
    with trace.use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
        try:
            yield span
        except ToolWaiting:  # not an error: the run stops and waits for a person's decision
            span.set_attribute("llm_course.tool.waiting", True)
            raise
        except BaseException as exc:
            span.record_exception(exc, timestamp=clock.now())
            span.set_attribute("error.type", type(exc).__qualname__)
            span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {_text(exc)}"))
            raise
        finally:
            span.end(end_time=clock.now())


# -- the file: runs, and cutting the old ones ----------------------------------------------


def new_run_id() -> str:
    """A run id: the UTC time a Tracer was made and 6 random hex digits, ``"20261204T184512Z-3f2a1c"``."""
    return f"{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def _same_file(path: Path) -> str:
    """A key that is equal for two spellings of one path (relative / absolute, case on Windows)."""
    return os.path.normcase(str(path.resolve()))


def _lock_path(path: Path) -> Path:
    """The lock file of the trace file ``path``: ``.run.jsonl.lock`` beside it."""
    return path.with_name(f".{path.name}.lock")


@contextmanager
def _file_locked(path: Path, timeout: float = FILE_LOCK_S) -> Iterator[None]:
    """Hold the trace file's lock (``server_process.locked``: ``filelock``, fcntl on POSIX, msvcrt on Windows)
    for the block: every kernel appends spans and cuts old runs under it, so a cut never replaces the file
    under a write.

    Raises:
        filelock.Timeout: another process held it for ``timeout`` s.
    """
    with server_process.locked(_lock_path(path), timeout=timeout):
        yield


class _FileExporter(SpanExporter):
    """Append each finished span to the trace file as one JSON line, opening the file for each batch
    under its lock (``_file_locked``).

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
            with _file_locked(self.path):
                torn = not _ends_a_line(self.path)
                with open(self.path, "a", encoding="utf-8", newline="\n") as file:
                    file.write(("\n" if torn else "") + lines)
        except Exception as error:  # noqa: BLE001 - OSError or filelock.Timeout: the run goes on without this span
            if not self._said:
                self._said = True
                print(t("tracing.write_failed", path=self.path, error=f"{type(error).__name__}: {error}"))
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Nothing to close: the file is opened per batch."""


def _cut_old_runs(path: Path, keep_runs: int) -> None:
    """Rewrite ``path`` with the spans of its last ``keep_runs - 1`` runs when it holds ``keep_runs`` or more.

    Runs in the order they first appear.  A line that is not a span stays where it is (the file may
    not be only the course's), unless it is a JSON object cut short (``_torn``: a
    span whose writing was stopped).  A file with fewer runs (a file that is not a trace file has
    none) is left as it is; so is one that cannot be read or replaced (another program has it open
    on Windows, a read-only folder, the lock held by another kernel for 10 s): a later Tracer cuts it.
    The cut holds the file's lock (``_file_locked``), as every append does: a span another kernel
    writes meanwhile waits for the new file, never goes into the replaced one.
    """
    try:
        with _file_locked(path):
            _cut_locked(path, keep_runs)
    except Exception:  # noqa: BLE001 - filelock.Timeout or OSError (no lock file possible): a later Tracer cuts it
        return


def _cut_locked(path: Path, keep_runs: int) -> None:
    """``_cut_old_runs``'s work, with the trace file's lock held."""
    try:
        data = path.read_bytes()
    except OSError:
        return
    lines = [(span, raw) for _, raw, span, _ in _scan(data) if span is not None or not _torn(raw)]
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


def _torn(raw: bytes) -> bool:
    """True for a line that starts a JSON object but is not JSON: a span whose writing was stopped."""
    if not raw.lstrip().startswith(b"{"):
        return False
    try:
        json.loads(raw)
    except ValueError:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        return True
    return False


def _ends_a_line(path: Path) -> bool:
    """True when ``path`` is missing, empty or ends with a newline (not with a torn half line)."""
    try:
        with open(path, "rb") as file:
            if file.seek(0, os.SEEK_END) == 0:
                return True
            file.seek(-1, os.SEEK_END)
            return file.read(1) == b"\n"
    except OSError:
        return True


class Tracer:
    """Record agent runs as OpenTelemetry spans in one local JSON-lines file; one Tracer is one run.

    Args:
        path: the file (created with its folder if needed; new spans are appended after the
            older runs' lines, on a new line after a torn one).
        keep_runs: how many runs (Tracers) the file keeps, this one included (default ``KEEP_RUNS``
            = 5): a file that holds ``keep_runs`` runs already is first cut to the last
            ``keep_runs - 1`` (see the module's docstring for when it is not).

    Attributes:
        path: the file.
        run_id: this Tracer's run id (``new_run_id``), in every span's resource as ``llm_course.run_id``.
        provider: this tracer's own ``opentelemetry.sdk.trace.TracerProvider`` (never the global one),
            with the resource ``service.name = "llm-agent-course"`` and the run id.
        disabled: True when ``OTEL_SDK_DISABLED=true`` was set when it was made (``sdk_disabled``):
            it records nothing and writes no file, and said so once (printed) when it was made.
        last_trace_id: the trace id (32 hex digits) of the last ``run``, or None (none yet, or disabled).

    Use it as a context manager, or call ``close()`` when done (both flush the spans still held).

    Raises:
        ValueError: ``keep_runs`` is not a whole number of at least 1.
        OSError: the folder cannot be made or the file cannot be opened for appending.
    """

    def __init__(self, path: Path | str, *, keep_runs: int = KEEP_RUNS):
        if isinstance(keep_runs, bool) or not isinstance(keep_runs, int) or keep_runs < 1:
            raise ValueError(t("tracing.keep_runs", value=keep_runs))
        self.path = Path(path)
        self.keep_runs = keep_runs
        self.run_id = new_run_id()
        self.disabled = sdk_disabled()
        self.last_trace_id: str | None = None
        self.closed = False
        self._clock = _Clock()
        # Every span is kept (not OTEL_TRACES_SAMPLER's choice); close() shuts it down, not the exit.
        self.provider = TracerProvider(resource=Resource.create({"service.name": SERVICE_NAME, RUN_ID_KEY: self.run_id}),
                                       sampler=ALWAYS_ON, shutdown_on_exit=False)
        if self.disabled:
            print(t("tracing.sdk_disabled", path=self.path))
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            key = _same_file(self.path)
            if not any(not other.closed and _same_file(other.path) == key for other in list(_OPEN)):
                _cut_old_runs(self.path, keep_runs)
            with open(self.path, "a", encoding="utf-8"):  # made, or refused now (OSError), not at the first span
                pass
            self.provider.add_span_processor(SimpleSpanProcessor(_FileExporter(self.path)))
            _OPEN.add(self)
        self._tracer = self.provider.get_tracer("course_lib.tracing")  # the sdk's no-op tracer when disabled

    # -- the run: one trace ----------------------------------------------------------

    def run(self, agent: Any, question: Any, *, agent_name: str = DEFAULT_AGENT_NAME, **attributes: Any) -> Any:
        """Run ``agent.run(question)`` as one new trace; returns what ``agent.run`` returns.

        The root span ``invoke_agent {agent_name}`` holds ``gen_ai.operation.name``, ``gen_ai.agent.name``,
        ``gen_ai.provider.name``, ``gen_ai.request.model``, the run's tokens (``gen_ai.usage.input_tokens``
        / ``output_tokens``, summed over its requests), ``llm_course.stopped_reason``, ``llm_course.steps``,
        ``llm_course.question``, ``llm_course.answer`` and the caller's ``attributes``; each model request
        and each tool call is a child span (see ``wrap``).  Times come from this Tracer's clock
        (wall clock at the start, monotonic since: durations are never negative).

        Args:
            agent: an ``agent.Agent`` (any, also one with an ``approve`` hook).
            question: as for ``Agent.run``.
            agent_name: ``gen_ai.agent.name`` (default ``"course-agent"``).
            **attributes: more attributes of the root span: ``case_id="P1"`` is recorded as
                ``llm_course.case_id``; a key with a dot (``**{"app.user": "x"}``) as it is.  Any value:
                ``attribute_value`` makes it one OpenTelemetry accepts.
        Raises:
            TypeError: ``agent`` is not a loop with ``send`` and ``answer_call`` (the ReAct loops).
            RuntimeError: the tracer is closed.
            whatever ``agent.run`` raises (recorded on the root span first, hooks restored).
        """
        self._require_open()
        with self.wrap(agent):
            self._clock.anchor()
            span = self._tracer.start_span(
                f"invoke_agent {agent_name}", context=otel_context.Context(), kind=SpanKind.INTERNAL,  # a new trace
                attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent_name,
                            "gen_ai.provider.name": provider_name(agent)}, start_time=self._clock.now())
            _set(span, {"gen_ai.request.model": getattr(agent, "model", None), **_caller_attributes(attributes)})
            context = span.get_span_context()
            self.last_trace_id = format(context.trace_id, "032x") if context.is_valid else None
            with _recorded(span, self._clock):
                result = None
                try:
                    result = agent.run(question)
                    _set(span, {"llm_course.answer": getattr(result, "answer", None)})
                    return result
                finally:  # also for a run that raised: what it had done so far
                    steps = list(getattr(agent, "steps", []))
                    stopped = getattr(result, "stopped_reason", None)  # "waiting" lives on the result only
                    _set(span, {"gen_ai.usage.input_tokens": sum(s.prompt_tokens or 0 for s in steps),
                                "gen_ai.usage.output_tokens": sum(s.completion_tokens or 0 for s in steps),
                                "llm_course.steps": len(steps), "llm_course.question": getattr(agent, "question", None),
                                "llm_course.stopped_reason": stopped or getattr(agent, "stopped_reason", None)
                                or "running"})

    @contextmanager
    def wrap(self, agent: Any) -> Iterator[Any]:
        """Trace ``agent``'s two hooks while the block runs; they are put back on exit (also after an error).

        ``agent.send(request)`` becomes a ``chat {model}`` span (``gen_ai.request.model``,
        ``gen_ai.request.max_tokens``, ``gen_ai.request.temperature``, ``gen_ai.usage.input_tokens`` /
        ``output_tokens``, ``gen_ai.response.finish_reasons``, ``llm_course.request.tools``: how many tools
        were offered); ``agent.answer_call(call, step)`` an ``execute_tool {name}`` span
        (``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``,
        ``gen_ai.tool.call.result`` when it worked, ``llm_course.tool.ok``, ``llm_course.tool.approval``,
        ``llm_course.tool.repeated``, ``llm_course.step``; status ERROR with the tool's text when not ok).
        Their parent is the span current when they run (``run``'s root span).

        Raises:
            TypeError: ``agent`` has no ``send`` / ``answer_call`` hooks (the ReAct loops).
        """
        if not (isinstance(agent, LoopBase) and callable(getattr(agent, "send", None))
                and callable(getattr(agent, "answer_call", None))):
            raise TypeError(t("tracing.not_native", kind=type(agent).__name__))
        own = {name: vars(agent)[name] for name in ("send", "answer_call") if name in vars(agent)}
        send, answer_call = agent.send, agent.answer_call  # the hooks as they are now (maybe already replaced)
        provider = provider_name(agent)
        clock = self._clock

        def traced_send(request: dict) -> Any:
            model = request.get("model")
            span = self._tracer.start_span(
                f"chat {model}", kind=SpanKind.CLIENT,
                attributes={"gen_ai.operation.name": "chat", "gen_ai.provider.name": provider},
                start_time=clock.now())
            _set(span, {"gen_ai.request.model": model,
                        "gen_ai.request.max_tokens": request.get("max_tokens", request.get("max_completion_tokens")),
                        "gen_ai.request.temperature": request.get("temperature"),
                        "llm_course.request.tools": len(request.get("tools") or [])})
            with _recorded(span, clock):
                reply = send(request)
                _set(span, {"gen_ai.usage.input_tokens": reply.prompt_tokens,
                            "gen_ai.usage.output_tokens": reply.completion_tokens,
                            "gen_ai.response.finish_reasons": [reply.finish_reason] if reply.finish_reason else None})
                return reply

        def traced_answer_call(call: Any, step: int) -> Any:
            span = self._tracer.start_span(
                f"execute_tool {call.name}", kind=SpanKind.INTERNAL,
                attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function"},
                start_time=clock.now())
            _set(span, {"gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.id or None,
                        "gen_ai.tool.call.arguments": call.arguments_text, "llm_course.step": step})
            with _recorded(span, clock):
                result = answer_call(call, step)
                _set(span, {"llm_course.tool.ok": result.ok, "llm_course.tool.approval": result.approval,
                            "llm_course.tool.repeated": result.repeated})
                if result.ok:
                    _set(span, {"gen_ai.tool.call.result": result.observation})
                else:  # the tool did not run or failed: the text the model got says why
                    why = ("rejected" if result.approval == "reject" else "interrupted" if result.interrupted
                           else "tool_error")
                    _set(span, {"error.type": why})
                    span.set_status(Status(StatusCode.ERROR, result.observation))
                return result

        agent.send, agent.answer_call = traced_send, traced_answer_call
        try:
            yield agent
        finally:
            for name in ("send", "answer_call"):
                if name in own:
                    setattr(agent, name, own[name])
                else:
                    vars(agent).pop(name, None)  # the class's method shows through again

    # -- the file --------------------------------------------------------------------

    def close(self) -> None:
        """Flush the spans and stop recording; calling it again does nothing."""
        if not self.closed:
            self.closed = True
            self.provider.shutdown()
            _OPEN.discard(self)

    def __enter__(self) -> "Tracer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _require_open(self) -> None:
        if self.closed:
            raise RuntimeError(t("tracing.closed", path=self.path))


# -- reading the file back ----------------------------------------------------------------


class Spans(list):
    """``load_spans``'s answer: a plain list of span dicts, with what reading the file found.

    Attributes:
        skipped: how many non-blank lines of the file were not spans (a torn last line, a line
            edited by hand, text that is not UTF-8); counted over the whole file.
        run_id: the run these spans are of (``llm_course.run_id``), or None for ``run="all"`` and for
            lines written before runs had ids.
        runs: every run id in the file, oldest first (None for the lines without one).
    """

    def __init__(self, spans: Sequence[dict] = (), *, skipped: int = 0, run_id: str | None = None,
                 runs: Sequence[str | None] = ()):
        super().__init__(spans)
        self.skipped = skipped
        self.run_id = run_id
        self.runs = list(runs)


def _hex(value: Any) -> str:
    """``"0x1a2b..."`` (how to_json writes ids) -> ``"1a2b..."``; anything but a str is not an id (TypeError)."""
    if not isinstance(value, str):
        raise TypeError(type(value).__name__)  # the id is not text: not a span
    return value.removeprefix("0x")


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)  # "2025-01-01T08:00:00.123456Z": UTC


def _span(data: Any) -> dict:
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


def _scan(data: bytes) -> Iterator[tuple[int, bytes, dict | None, str]]:
    """``(line number, raw line, span or None, why not)`` for each non-blank line of a trace file's bytes."""
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            span = _span(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:  # JSONDecodeError: ValueError
            yield number, raw, None, f"{type(exc).__name__}: {exc}"
        else:
            yield number, raw, span, ""


def load_spans(path: Path | str, run: str | None = None, *, show: Callable[[str], Any] | None = print) -> Spans:
    """The spans of one run of a trace file (the latest by default), one dict per line, in the file's order.

    Args:
        path: a file written by ``Tracer`` (one ``ReadableSpan.to_json`` object per line).
        run: None for the latest run (the run of the file's last span: the last Tracer that recorded
            anything), ``"all"`` for every run the file keeps, or one run id (``Tracer.run_id``,
            ``Spans.runs``).
        show: called with one Chinese sentence when lines were skipped (how many, the first one's
            number and why), and when nothing was read because ``OTEL_SDK_DISABLED=true``; None = silent.
    Returns:
        ``Spans`` (a list) of dicts with ``name``, ``trace_id`` and ``span_id`` (hex, no ``0x``), ``parent_id``
        (hex, or None for a root span), ``kind`` (``"INTERNAL"``, ``"CLIENT"`` ...), ``start`` and
        ``end`` (``datetime``, UTC), ``duration_ms`` (float, milliseconds), ``attributes`` (dict;
        a list attribute is a list), ``status`` (``"UNSET"``, ``"OK"`` or ``"ERROR"``),
        ``status_description`` (str, ``""`` if none), ``events`` (list of dicts), ``resource`` (dict) and
        ``run_id`` (str, or None for lines written before runs had ids); ``.skipped`` counts the lines
        that are not spans (blank lines are not counted), ``.run_id`` and ``.runs`` name the runs.
    Raises:
        FileNotFoundError: there is no file at ``path`` (unless ``OTEL_SDK_DISABLED=true``: then an empty
            ``Spans`` and the sentence why).
        ValueError: ``run`` names no run of the file (the message lists the runs it has).
    """
    path = Path(path)
    if not path.is_file():
        if sdk_disabled():
            if show is not None:
                show(t("tracing.sdk_disabled_read", path=path))
            return Spans()
        raise FileNotFoundError(t("tracing.no_file", path=path))
    spans, skipped = [], []
    for number, _, span, why in _scan(path.read_bytes()):
        if span is None:
            skipped.append((number, why))
        else:
            spans.append(span)
    runs = list(dict.fromkeys(s["run_id"] for s in spans))
    if run == "all":
        chosen, selected = None, spans
    else:
        chosen = (spans[-1]["run_id"] if spans else None) if run is None else run
        if run is not None and run not in runs:
            raise ValueError(t("tracing.no_run", path=path, run=run, known=", ".join(map(str, runs)) or "-"))
        selected = [s for s in spans if s["run_id"] == chosen]
    if show is not None and skipped:
        show(t("tracing.skipped_lines", path=path, count=len(skipped), line=skipped[0][0], error=skipped[0][1]))
    if show is not None and not selected and sdk_disabled():
        show(t("tracing.sdk_disabled_read", path=path))
    return Spans(selected, skipped=len(skipped), run_id=chosen, runs=runs)

# -- a trace as a table and a timeline ----------------------------------------------------


def _ordered(spans: Sequence[dict]) -> list[tuple[dict, int]]:
    """``(span, depth)`` for each span: the traces in the order they started, each one's spans
    in start order (a parent before a child that started in the same microsecond)."""
    by_id = {s["span_id"]: s for s in spans}

    def depth(span: dict) -> int:
        level, seen = 0, {span["span_id"]}
        while span.get("parent_id") in by_id and span["parent_id"] not in seen:
            span = by_id[span["parent_id"]]
            seen.add(span["span_id"])
            level += 1
        return level

    first: dict[str, datetime] = {}
    for s in spans:
        first[s["trace_id"]] = min(first.get(s["trace_id"], s["start"]), s["start"])
    rows = [(s, depth(s)) for s in spans]
    return sorted(rows, key=lambda r: (first[r[0]["trace_id"]], r[0]["trace_id"], r[0]["start"], r[1], r[0]["end"]))


def _trace_labels(spans: Sequence[dict]) -> dict[str, str]:
    """Each trace's short name: its root's ``llm_course.case_id`` if it has one, else its id's first 8 hex digits."""
    labels = {s["trace_id"]: s["trace_id"][:8] for s in spans}
    for s in spans:
        case = s["attributes"].get("llm_course.case_id")
        if s.get("parent_id") is None and case is not None:
            labels[s["trace_id"]] = str(case)
    return labels


def _indented(name: str, depth: int) -> str:
    """``"└─ chat m"`` one level down; no-break spaces, which an HTML table does not swallow."""
    return name if depth == 0 else "\u00a0\u00a0\u00a0" * (depth - 1) + "└─ " + name


def spans_table(spans: Sequence[dict]) -> pd.DataFrame:
    """One row per span: the traces one after another, each one's spans in start order.

    Args:
        spans: ``load_spans``'s dicts (one or more traces).
    Returns:
        A DataFrame with columns ``SPAN_COLUMNS``: ``trace`` (the root's ``llm_course.case_id``, else the
        trace id's first 8 hex digits), ``depth`` (0 = the agent span, 1 = its chat / tool spans),
        ``operation`` (``gen_ai.operation.name``), ``span`` (the name, indented by depth),
        ``start_ms`` (milliseconds since the trace's first span started), ``duration_ms``
        (milliseconds), ``input_tokens`` / ``output_tokens`` (``gen_ai.usage.*``; on the agent span the
        run's total - do not add it to its requests'), ``tool`` (``gen_ai.tool.name``), ``ok``
        (``llm_course.tool.ok``, tool spans only) and ``status`` (``"UNSET"`` / ``"OK"`` / ``"ERROR"``).
    """
    rows = []
    labels = _trace_labels(spans)
    starts: dict[str, datetime] = {}
    for span, depth in _ordered(spans):
        start = starts.setdefault(span["trace_id"], span["start"])  # the first row of its trace starts first
        attributes = span["attributes"]
        rows.append({
            "trace": labels[span["trace_id"]], "depth": depth, "operation": attributes.get("gen_ai.operation.name"),
            "span": _indented(span["name"], depth),
            "start_ms": round((span["start"] - start).total_seconds() * 1000, 3),
            "duration_ms": round(span["duration_ms"], 3),
            "input_tokens": attributes.get("gen_ai.usage.input_tokens"),
            "output_tokens": attributes.get("gen_ai.usage.output_tokens"),
            "tool": attributes.get("gen_ai.tool.name"), "ok": attributes.get("llm_course.tool.ok"),
            "status": span["status"],
        })
    frame = pd.DataFrame(rows, columns=SPAN_COLUMNS)
    for column in ("input_tokens", "output_tokens"):
        frame[column] = frame[column].astype("Int64")  # whole numbers, <NA> where a span has none
    frame["ok"] = frame["ok"].astype("boolean")
    return frame


def _one_trace(spans: Sequence[dict], trace_id: str | None) -> list[dict]:
    """The spans of one trace: ``trace_id`` (the whole id, its first digits, or a case id), or the
    trace that started last."""
    if not spans:
        raise ValueError(t("tracing.no_spans"))
    labels = _trace_labels(spans)
    if trace_id is None:
        chosen = max(spans, key=lambda s: s["start"])["trace_id"]
    else:
        matches = {tid for tid, label in labels.items() if tid.startswith(trace_id.lower()) or label == trace_id}
        if len(matches) != 1:
            raise ValueError(t("tracing.no_trace", trace_id=trace_id, known=", ".join(dict.fromkeys(labels.values()))))
        chosen = matches.pop()
    return [s for s in spans if s["trace_id"] == chosen]


def plot_timeline(spans: Sequence[dict], trace_id: str | None = None, *,
                  show: Callable[[str], Any] | None = print) -> Figure:
    """One trace as a timeline (a Gantt chart): one bar per span, from its start to its end.

    Rows top to bottom in start order (the agent span first, its requests and tool calls below);
    x is milliseconds since the trace's first span started; the agent, chat and tool spans have
    their own colours (a legend says which), a span that ended in an error a red edge.

    Args:
        spans: ``load_spans``'s dicts.
        trace_id: which trace: its id (or its first digits, as ``spans_table`` shows them) or its
            ``llm_course.case_id``; default the trace that started last (the latest run).
        show: called with the Chinese sentence why the chart is empty when there are no spans; None = silent.
    Returns:
        A matplotlib ``Figure`` (shown as an image when it is the last expression of a cell); with no
        spans at all (nothing recorded yet, or ``OTEL_SDK_DISABLED=true``) an empty chart that says so.
    Raises:
        ValueError: no single trace matches ``trace_id``.
    """
    if not spans:
        if show is not None:
            show(t("tracing.no_spans"))
        fig, ax = plt.subplots(figsize=(10, 1.6))
        ax.set_axis_off()
        ax.set_title(chart_text("tracing.chart_empty"))
        return _finish(fig)
    rows = spans_table(_one_trace(spans, trace_id))
    operations = [op if op in COLOURS else "invoke_agent" for op in rows["operation"]]
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.4 * len(rows)))
    for op in OPERATIONS:
        mine = [k for k, o in enumerate(operations) if o == op]
        if not mine:
            continue
        ax.barh(mine, [max(rows["duration_ms"][k], 0.0) for k in mine], left=[rows["start_ms"][k] for k in mine],
                height=0.6, color=COLOURS[op],
                edgecolor=[ERROR_COLOUR if rows["status"][k] == "ERROR" else COLOURS[op] for k in mine],
                linewidth=[2 if rows["status"][k] == "ERROR" else 0.5 for k in mine])
    for k in range(len(rows)):
        end = rows["start_ms"][k] + rows["duration_ms"][k]
        ax.annotate(f"{rows['duration_ms'][k]:.1f} ms", (end, k), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(list(rows["span"]))
    ax.invert_yaxis()  # the agent span on top
    ax.set_xlim(left=0, right=max(float((rows["start_ms"] + rows["duration_ms"]).max()), 1e-3) * 1.15)
    ax.set_xlabel(chart_text("tracing.chart_x"))
    ax.set_title(chart_text("tracing.chart_title", trace=rows["trace"][0]))
    ax.grid(axis="x", alpha=0.3)
    handles = [Patch(color=COLOURS[op], label=chart_text(LEGEND_KEYS[op])) for op in OPERATIONS if op in operations]
    if (rows["status"] == "ERROR").any():
        handles.append(Patch(facecolor="white", edgecolor=ERROR_COLOUR, linewidth=2,
                             label=chart_text("tracing.chart_error")))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)  # beside the bars
    return _finish(fig)


__all__ = ["KEEP_RUNS", "SPAN_COLUMNS", "Spans", "Tracer", "attribute_value", "load_spans", "new_run_id", "plot_timeline",
           "provider_name", "sdk_disabled", "spans_table"]
