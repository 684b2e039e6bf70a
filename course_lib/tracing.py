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

The names and the ``gen_ai.*`` attributes follow OpenTelemetry's semantic
conventions for generative AI (Development), v1.41.0: gen-ai-spans.md and
gen-ai-agent-spans.md in https://github.com/open-telemetry/semantic-conventions
(now developed in semantic-conventions-genai); the provider is
``gen_ai.provider.name``, which replaced ``gen_ai.system``.  The spec's
"Opt-In" content (tool arguments and results, the question and the answer)
is recorded because the file never leaves this computer; attributes the
spec does not define start with ``llm_course.``.

Use::

    with Tracer(Path("traces/run.jsonl")) as tracer:
        result = tracer.run(agent, "北京和上海哪个更热？", case_id="P1")
    spans = load_spans(Path("traces/run.jsonl"))   # the latest run: this Tracer's spans
    spans_table(spans)          # one row per span
    plot_timeline(spans)        # the last trace as a timeline

The official ``opentelemetry-sdk`` records the spans, with its own
``TracerProvider`` (the process-wide one is never set), no collector, no
network.  Each Tracer is one *run* (``run_id``); the file keeps the last
``KEEP_RUNS``.  ``Tracer.wrap`` traces the loop without changing it: a traced
``send`` and ``answer_call`` on the agent instance, taken away on exit (only
the native loop has these hooks).  ``OTEL_SDK_DISABLED=true`` is honoured.
The file, its lock and its cut are ``course_runtime/trace_files.py``; attribute
values and times the sdk can store are ``course_runtime/span_values.py``.
"""

from __future__ import annotations

import os
import secrets
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace import SpanKind, Status, StatusCode

from course_runtime.span_values import SpanClock, as_text, attribute_value
from course_runtime.trace_files import RUN_ID_KEY, FileExporter, cut_old_runs, same_file, scan

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
# OTEL_SDK_DISABLED: the variable of OpenTelemetry's environment-variable spec that turns the sdk off.
SDK_DISABLED_VARIABLE = "OTEL_SDK_DISABLED"
# The Tracers of this process whose file is open: a new Tracer does not cut a file one of them writes.
_OPEN: "weakref.WeakSet[Tracer]" = weakref.WeakSet()


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


def _set(span: Any, attributes: dict[str, Any]) -> None:
    """Set the attributes whose value is not None, each as ``attribute_value`` makes it."""
    for key, value in attributes.items():
        value = attribute_value(value)
        if value is not None:
            span.set_attribute(key, value)


def _caller_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """``case_id="P1"`` -> ``{"llm_course.case_id": "P1"}``; a key with a dot is kept as it is."""
    return {key if "." in key else f"llm_course.{key}": value for key, value in attributes.items()}


@contextmanager
def _recorded(span: Any, clock: SpanClock) -> Iterator[Any]:
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
            span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {as_text(exc)}"))
            raise
        finally:
            span.end(end_time=clock.now())


# -- runs ----------------------------------------------------------------------------------


def new_run_id() -> str:
    """A run id: the UTC time a Tracer was made and 6 random hex digits, ``"20261204T184512Z-3f2a1c"``."""
    return f"{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


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
        self._clock = SpanClock()
        # Every span is kept (not OTEL_TRACES_SAMPLER's choice); close() shuts it down, not the exit.
        self.provider = TracerProvider(resource=Resource.create({"service.name": SERVICE_NAME, RUN_ID_KEY: self.run_id}),
                                       sampler=ALWAYS_ON, shutdown_on_exit=False)
        if self.disabled:
            print(t("tracing.sdk_disabled", path=self.path))
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            key = same_file(self.path)
            if not any(not other.closed and same_file(other.path) == key for other in list(_OPEN)):
                cut_old_runs(self.path, keep_runs)
            with open(self.path, "a", encoding="utf-8"):  # made, or refused now (OSError), not at the first span
                pass
            self.provider.add_span_processor(SimpleSpanProcessor(FileExporter(self.path)))
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
    for number, _, span, why in scan(path.read_bytes()):
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
