"""A step-through agent debugger for the classroom.

Taught in notebooks 05 (the ReAct loops) and 06 (the native loop).

A teacher projects the notebook and advances an agent one decision at a
time.  One click on 「下一步」 = exactly one model call plus the tool
executions it asked for.  After each click the debugger shows

* the message chain as a table, the messages that this step added or changed
  highlighted (``tables.show_messages(..., highlight=...)``);
* what was parsed from the reply: Thought / Action / Action Input /
  Observation for a prompt-based ReAct loop (05), or the ``tool_calls`` and
  each tool's result for the native loop (06);
* the tokens used so far (``usage`` of every response) and, once the loop
  has stopped, why it stopped.

The debugger does not contain a loop of its own: it drives the course's
step-able loops (``loop.StepLoop``: ``react.LineReAct`` / ``react.JsonReAct``
and ``agent.Agent``), which all offer ``start(question)``, ``step()``,
``done``, ``stopped_reason``, ``messages`` and ``max_steps``.  Anything else
with ``start``/``step``/``done`` works too (without the ``max_steps`` box if
it has no such attribute).

``AgentDebugger`` is the logic (plain Python, tested with a fake server);
``debugger_view(dbg)`` / ``DebuggerView`` is the ipywidgets display with the
buttons 「下一步」「运行到结束」「重置」 and an editable ``max_steps`` box.
Button handlers run in the kernel and block it while the model answers; the
busy state shows in the status line.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
from dataclasses import dataclass
from typing import Any, Callable

from .loop import Step, stop_reason_text
from .messages import to_dict
from .number_check import CHECKED_TOOL
from .recording import recording
from .replies import describe_error, read_usage
from .tables import NO_MATH_CLASS, show_messages
from .texts import t

@dataclass
class DebugStep:
    """What one click of 「下一步」 did.

    Attributes:
        number: 1, 2, ... in this run.
        step: whatever the loop's ``step()`` returned (a ``loop.Step`` for the course's loops).
        new_indices: indices in ``messages`` of the messages that appeared or changed.
        details: ``(label, text)`` rows: ``Thought``/``Action``/``Action Input``/
            ``Observation``/``Answer``/``Error`` for ReAct; ``tool_call``/``→ 结果``/
            ``content`` for native tool calls.
        model_calls: how many ``chat.completions.create`` calls the step made (1; 2 when
            the number check dropped a reply and asked again).
        prompt_tokens, completion_tokens: this step's ``usage`` (0 if the server sent none).
        log: what the loop printed during the step (its trace line).
    """

    number: int
    step: Any
    new_indices: list[int]
    details: list[tuple[str, str]]
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    log: str = ""


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


class AgentDebugger:
    """Drive a step-able agent loop one model call at a time and keep what each step did.

    Args:
        loop: a loop object with ``start(question)``, ``step()``, ``done`` and
            ``stopped_reason``, and its messages as ``messages()`` or ``messages``
            (``react.LineReAct``, ``react.JsonReAct``, the native loop of ``agent.py``).
            Its ``client`` (if it has one) is watched to count model calls and tokens.
        question: the task; ``reset()`` starts the loop again on it.
        max_steps: if given, sets the loop's step limit (its ``max_steps``).

    Attributes:
        messages: the loop's message chain now (dicts).
        highlight: indices of the messages the last step added or changed.
        steps: one ``DebugStep`` per step taken since the last reset.
        error: the text of the last error (API error, network ...), or None.
            A failed step records nothing; clicking 「下一步」 again retries it.
    Raises:
        TypeError: ``loop`` lacks ``start()``/``step()``.
    """

    def __init__(self, loop: Any, question: str, max_steps: int | None = None):
        for name in ("start", "step"):
            if not callable(getattr(loop, name, None)):
                raise TypeError(t("debugger.not_a_loop", loop=type(loop).__name__, method=name))
        self.loop, self.question = loop, question
        self.limit_name = "max_steps" if hasattr(loop, "max_steps") else None
        if max_steps is not None:
            self.max_steps = max_steps
        self.reset()

    # -- state ---------------------------------------------------------------
    @property
    def done(self) -> bool:
        """True once the loop has stopped."""
        return bool(getattr(self.loop, "done", False))

    @property
    def stopped_reason(self) -> str | None:
        """The loop's own ``stopped_reason`` (None while it runs)."""
        return getattr(self.loop, "stopped_reason", None) if self.done else None

    def stop_text(self) -> str:
        """Why the loop stopped, in Chinese (``""`` while it runs)."""
        reason = self.stopped_reason
        if not self.done:
            return ""
        return t("debugger.stop_text", why=stop_reason_text(reason), reason=repr(reason))

    @property
    def max_steps(self) -> int | None:
        """The loop's step limit (``max_steps``; None if it has none); settable, at least 1."""
        return getattr(self.loop, self.limit_name) if self.limit_name else None

    @max_steps.setter
    def max_steps(self, value: int) -> None:
        if self.limit_name is None:
            raise AttributeError(t("debugger.no_max_steps", name=type(self.loop).__name__))
        setattr(self.loop, self.limit_name, max(1, int(value)))

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.steps)

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.steps)

    @property
    def total_tokens(self) -> int:
        """Tokens used since the last reset (prompt + completion, from each response's ``usage``)."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def answer(self) -> str | None:
        """The loop's final answer once done (its ``answer``, else the last assistant text)."""
        if not self.done:
            return None
        answer = getattr(self.loop, "answer", None)
        if isinstance(answer, str) and answer:
            return answer
        for msg in reversed(self.messages):
            if msg.get("role") == "assistant" and isinstance(msg.get("content"), str) and msg["content"].strip():
                return msg["content"]
        return None

    def _read_messages(self) -> list[dict]:
        messages = getattr(self.loop, "messages", [])
        if callable(messages):
            messages = messages()
        return [to_dict(m) for m in messages or []]

    # -- actions -------------------------------------------------------------
    def reset(self) -> None:
        """Start the loop again on the same question (the step limit is kept)."""
        self.loop.start(self.question)
        self.steps: list[DebugStep] = []
        self.messages = self._read_messages()
        self.highlight: list[int] = []
        self.error: str | None = None

    def step(self) -> DebugStep | None:
        """Advance the loop by one model call plus its tool executions.

        Returns:
            The new ``DebugStep``, or None when the loop is already done or the
            step failed (then ``error`` says why and nothing was recorded).
        Never raises for API/network/tool errors.
        """
        if self.done:
            return None
        self.error = None
        before = self.messages
        printed = io.StringIO()
        client = getattr(self.loop, "client", None)
        watch = recording(client) if client is not None and hasattr(client, "chat") else contextlib.nullcontext(None)
        try:
            with watch as seen, contextlib.redirect_stdout(printed):
                step = self.loop.step()
        except Exception as exc:  # noqa: BLE001 - shown in the widget; the loop recorded nothing
            self.error = describe_error(exc)
            return None
        after = self._read_messages()
        new = [i for i, msg in enumerate(after) if i >= len(before) or msg != before[i]]
        prompt, completion = self._tokens(step, seen)
        info = DebugStep(
            number=len(self.steps) + 1,
            step=step,
            new_indices=new,
            details=self._details(step, after, new),
            model_calls=len(seen.requests) if seen is not None else 1,
            prompt_tokens=prompt,
            completion_tokens=completion,
            log=printed.getvalue().strip(),
        )
        self.steps.append(info)
        self.messages, self.highlight = after, new
        return info

    def run_to_end(self, on_step: Callable[[DebugStep], Any] | None = None) -> int:
        """Step until the loop is done (or a step fails); returns the number of steps taken.

        ``on_step(info)`` is called after every step (the view redraws there).
        A safety cap of ``max_steps + 3`` steps guards against a loop that never ends.
        """
        taken = 0
        cap = (self.max_steps or 20) + 3
        while not self.done and taken < cap:
            info = self.step()
            if info is None:
                break
            taken += 1
            if on_step is not None:
                on_step(info)
        return taken

    # -- reading a step ------------------------------------------------------
    @staticmethod
    def _tokens(step: Any, seen: Any) -> tuple[int, int]:
        """This step's tokens: from the ``loop.Step``, else from the recorded responses' usage."""
        if isinstance(step, Step) and (step.prompt_tokens is not None or step.completion_tokens is not None):
            return _int(step.prompt_tokens), _int(step.completion_tokens)
        prompt = completion = 0
        for response in getattr(seen, "responses", []):
            usage = read_usage(response) or {}
            prompt += _int(usage.get("prompt_tokens"))
            completion += _int(usage.get("completion_tokens"))
        return prompt, completion

    def _details(self, step: Any, messages: list[dict], new: list[int]) -> list[tuple[str, str]]:
        """Rows describing the step: ReAct fields, or the native tool calls, or (any other loop) the new messages."""
        if not isinstance(step, Step):
            return self._message_details(messages, new)
        if getattr(self.loop, "protocol", None) == "native":
            rows = self._native_details(step, messages, new)
        else:
            rows = self._react_details(step)
        if step.reasoning:  # the model's thinking: shown first, never parsed or sent back
            rows = [(t("debugger.label_reasoning"), step.reasoning), *rows]
        return [*rows, (t("debugger.label_cut"), step.cut)] if step.cut else rows

    @staticmethod
    def _react_details(step: Step) -> list[tuple[str, str]]:
        """Rows for a ReAct step: Thought / Action / Action Input / Observation / Answer / Error."""
        rows = [
            ("Thought", step.thought),
            ("Action", step.action),
            ("Action Input", step.action_input),
            ("Observation", step.observation),
            ("Answer", step.answer),
            ("Error", step.error),
        ]
        out = [(label, _text(value)) for label, value in rows if value not in (None, "")]
        return out or [("reply", step.reply)]

    @staticmethod
    def _native_details(step: Step, messages: list[dict], new: list[int]) -> list[tuple[str, str]]:
        """Rows for a native step: each tool call and its observation, the text, the corrective message."""
        out: list[tuple[str, str]] = []
        for call in step.dropped:  # the number check dropped the first reply and asked again
            out.append((t("debugger.label_dropped"), f"{call.name}({call.arguments_text})  {call.observation}"))
        if step.dropped:
            out.append((t("debugger.label_note"), t("debugger.resent_note", tool=CHECKED_TOOL)))
        for call in step.tool_calls:
            out.append(("tool_call", f"{call.name}({call.arguments_text})  [id={call.id}]"))
            note = t("debugger.repeated_note", first_step=call.first_step) if call.repeated else ""
            out.append((t("debugger.label_result"), note + call.observation))
        # The text next to the calls (unless it was the calls themselves, written as JSON), or the answer.
        recovered = any(call.recovered for call in step.tool_calls)
        text = step.answer or (step.reply if step.tool_calls and not recovered and step.reply.strip() else None)
        if step.observation:
            out.append((t("debugger.label_correction"), step.observation))
        elif text:
            out.append(("content", text))
        if step.kind == "final":
            out.append((t("debugger.label_note"), t("debugger.final_without_tools")))
        forced = [messages[i] for i in new if messages[i].get("role") == "user" and messages[i].get("content") != step.observation]
        if forced:  # the loop appended its "answer now, no more tools" message
            out.append((t("debugger.label_next"), t("debugger.stopping_next")
                        + _text(forced[-1].get("content"))))
        return out or [("content", t("debugger.empty_reply"))]

    @staticmethod
    def _message_details(messages: list[dict], new: list[int]) -> list[tuple[str, str]]:
        """Rows read from the new messages alone (any loop that keeps a message list)."""
        out: list[tuple[str, str]] = []
        results = {m.get("tool_call_id"): m.get("content") for i, m in enumerate(messages) if i in new and m.get("role") == "tool"}
        for i in new:
            msg = messages[i]
            if msg.get("role") != "assistant":
                if msg.get("role") == "user":
                    out.append(("user", _text(msg.get("content"))))
                continue
            for call in msg.get("tool_calls") or []:
                fn = call.get("function") or {}
                out.append(("tool_call", f"{fn.get('name', '?')}({_text(fn.get('arguments'))})  [id={call.get('id', '')}]"))
                if call.get("id") in results:
                    out.append((t("debugger.label_result"), _text(results[call.get("id")])))
            if isinstance(msg.get("content"), str) and msg["content"].strip():
                out.append(("content", msg["content"]))
        return out


# ---------------------------------------------------------------------------
# The view
# ---------------------------------------------------------------------------

_LABEL_COLOURS = {
    "Thought": "#e0e7ff", "Action": "#dcfce7", "Action Input": "#dcfce7", "Observation": "#fef3c7",
    "Answer": "#bbf7d0", "Error": "#fee2e2", "tool_call": "#dcfce7", "content": "#bbf7d0",
}
# Rows whose label comes from texts.py: coloured by key (the label is looked up when drawn).
_TEXT_LABEL_COLOURS = {
    "debugger.label_result": "#fef3c7", "debugger.label_correction": "#fee2e2",
    "debugger.label_next": "#fde68a", "debugger.label_note": "#e5e7eb",
}


def _label_colour(label: str) -> str:
    if label in _LABEL_COLOURS:
        return _LABEL_COLOURS[label]
    by_text = {t(key): colour for key, colour in _TEXT_LABEL_COLOURS.items()}
    return by_text.get(label, "#f3f4f6")


def details_html(details: list[tuple[str, str]]) -> str:
    """The parsed rows of a step as a small two-column HTML table."""
    rows = "".join(
        f"<tr><th style='text-align:left;vertical-align:top;padding:2px 8px;background:{_label_colour(label)}'>"
        f"{html.escape(label)}</th><td style='white-space:pre-wrap;text-align:left;padding:2px 8px'>{html.escape(text)}</td></tr>"
        for label, text in details
    )
    return f"<table class='course-debugger-details {NO_MATH_CLASS}' style='border-collapse:collapse'>{rows}</table>"


class DebuggerView:
    """The ipywidgets face of an ``AgentDebugger``; build it with ``debugger_view(dbg)``.

    Widgets (attributes): ``next_button`` 「下一步」, ``run_button`` 「运行到结束」,
    ``reset_button`` 「重置」, ``max_steps`` (IntText, labelled with the loop's
    limit name), ``status`` (HTML: step, tokens, busy state, stop reason,
    errors), ``details`` (HTML: what the last step parsed), ``chain`` (HTML:
    the message table, CSS class ``course-debugger-chain``), ``log`` (HTML: one
    line per step) and ``widget`` (the VBox, CSS class ``course-debugger``).
    Handlers: ``on_next``, ``on_run``, ``on_reset``.  Jupyter displays the view
    as its widget; ``str()`` gives a plain-text summary.
    """

    def __init__(self, debugger: AgentDebugger, max_chars: int | None = 200):
        import ipywidgets as w

        self.debugger, self.max_chars = debugger, max_chars
        self.next_button = w.Button(description=t("debugger.next"), button_style="primary", icon="step-forward")
        self.run_button = w.Button(description=t("debugger.run_to_end"), icon="fast-forward")
        self.reset_button = w.Button(description=t("debugger.reset"), icon="undo")
        label = debugger.limit_name or "max_steps"
        self.max_steps = w.IntText(value=debugger.max_steps or 0, description=label, disabled=debugger.limit_name is None,
                                   layout=w.Layout(width="170px"), style={"description_width": "initial"})
        self.question = w.HTML("<b>" + html.escape(t("debugger.question")) + "</b>" + html.escape(debugger.question))
        self.status = w.HTML("")
        self.details = w.HTML("")
        self.chain = w.HTML("")
        self.chain.add_class("course-debugger-chain")
        self.status.add_class("course-debugger-status")
        self.log = w.HTML("")
        self.next_button.on_click(self.on_next)
        self.run_button.on_click(self.on_run)
        self.reset_button.on_click(self.on_reset)
        self.max_steps.observe(self._on_max_steps, names="value")
        controls = w.HBox([self.next_button, self.run_button, self.reset_button, self.max_steps])
        self.widget = w.VBox([self.question, controls, self.status, self.details, self.chain, self.log])
        self.widget.add_class("course-debugger")
        self._busy = False
        self.redraw()

    # -- drawing ---------------------------------------------------------
    def _status_html(self, busy: str = "") -> str:
        d = self.debugger
        limit = f" / {d.limit_name}={d.max_steps}" if d.limit_name else ""
        parts = [t("debugger.step_count", step=f"<b>{len(d.steps)}</b>", limit=limit),
                 t("debugger.tokens", prompt_tokens=d.prompt_tokens, completion_tokens=d.completion_tokens,
                   total_tokens=f"<b>{d.total_tokens}</b>")]
        if busy:
            parts.append(f"<span style='color:#92400e'>{html.escape(busy)}</span>")
        elif d.error:
            parts.append(f"<span style='color:#b91c1c'>{html.escape(t('debugger.error', error=d.error))}</span>")
        elif d.done:
            parts.append(f"<span style='color:#166534'>{html.escape(t('debugger.finished', why=d.stop_text()))}</span>")
        else:
            parts.append(t("debugger.hint_next"))
        return " · ".join(parts)

    def redraw(self, busy: str = "") -> None:
        """Refresh every part from the debugger's state (``busy``: a text shown while waiting)."""
        d = self.debugger
        self.status.value = self._status_html(busy)
        if d.steps:
            last = d.steps[-1]
            calls = t("debugger.model_calls", model_calls=last.model_calls) if last.model_calls != 1 else ""
            self.details.value = "<b>" + html.escape(t("debugger.parsed_title", number=last.number)) + "</b>" + html.escape(calls) + details_html(last.details)
        else:
            self.details.value = "<i>" + html.escape(t("debugger.not_started")) + "</i>"
        self.chain.value = show_messages(
            d.messages, max_chars=self.max_chars, title=t("debugger.chain_title", n_messages=len(d.messages)),
            highlight=d.highlight,
        )._repr_html_()
        lines = [html.escape(s.log) for s in d.steps if s.log]
        self.log.value = ("<pre style='font-size:90%;margin:4px 0'>" + "\n".join(lines) + "</pre>") if lines else ""
        idle = not busy
        self.next_button.disabled = self.run_button.disabled = not idle or d.done
        self.reset_button.disabled = not idle
        self.max_steps.disabled = not idle or d.limit_name is None

    # -- handlers --------------------------------------------------------
    def _guard(self, work: Callable[[], Any]) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            work()
        except Exception as exc:  # noqa: BLE001 - never a dead cell
            self.debugger.error = describe_error(exc)
        finally:
            self._busy = False
            self.redraw()

    def on_next(self, _: Any = None) -> None:
        """「下一步」: one model call plus its tool executions."""
        self._guard(lambda: (self.redraw(busy=t("debugger.waiting", step=len(self.debugger.steps) + 1)), self.debugger.step()))

    def on_run(self, _: Any = None) -> None:
        """「运行到结束」: step until the loop stops, redrawing after every step."""
        def work() -> None:
            self.redraw(busy=t("debugger.waiting", step=len(self.debugger.steps) + 1))
            self.debugger.run_to_end(on_step=lambda info: self.redraw(busy=t("debugger.waiting", step=info.number + 1)))
        self._guard(work)

    def on_reset(self, _: Any = None) -> None:
        """「重置」: start again on the same question."""
        self._guard(self.debugger.reset)

    def _on_max_steps(self, change: dict) -> None:
        if self.debugger.limit_name is None:
            return
        value = change["new"]
        if value is None or value < 1:
            self.max_steps.value = max(1, self.debugger.max_steps or 1)
            return
        self.debugger.max_steps = value
        if not self._busy:
            self.status.value = self._status_html()

    # -- display ---------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # The widget for JupyterLab; the plain-text table for front-ends without widgets (nbclient, a terminal).
        bundle = self.widget._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = str(self)
        return bundle

    def __str__(self) -> str:
        d = self.debugger
        head = f"AgentDebugger: {d.question} | steps={len(d.steps)} tokens={d.total_tokens}"
        if d.done:
            head += f" | {d.stop_text()}"
        return head + "\n" + str(show_messages(d.messages, max_chars=self.max_chars, highlight=d.highlight))

    __repr__ = __str__


def debugger_view(debugger: AgentDebugger, max_chars: int | None = 200) -> Any:
    """Return the widget for ``debugger`` (a ``DebuggerView``; Jupyter displays it).

    ``max_chars`` shortens long table cells (the system prompt) with an explicit
    ``…[+N chars]`` marker; None shows everything.  Without ipywidgets,
    returns the plain message table instead.
    """
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return show_messages(debugger.messages, max_chars=max_chars, highlight=debugger.highlight)
    return DebuggerView(debugger, max_chars=max_chars)


def debug_agent(loop: Any, question: str, max_steps: int | None = None, max_chars: int | None = 200) -> Any:
    """Shortcut: ``debugger_view(AgentDebugger(loop, question, max_steps))``."""
    return debugger_view(AgentDebugger(loop, question, max_steps), max_chars=max_chars)
