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

The debugger does not contain a loop of its own.  It drives any loop with
the course's small interface (``loop_base.py``): ``start(question)``, ``step()``
returning a ``records.Step``, ``done`` and ``result()`` (a
``records.RunResult``: the messages, the answer, ``stopped_reason``), plus an
optional ``max_steps`` - ``react.LineReAct`` / ``react.JsonReAct`` (05) and
``agent.Agent`` (06).  What a step shows is the step's own ``details()``
(``records.py``); rows are coloured by each row's ``field``.

``AgentDebugger`` is the logic (plain Python, tested with a fake server);
``debugger_view(dbg)`` / ``DebuggerView`` is the ipywidgets display with the
buttons 「下一步」「运行到结束」「重置」 and an editable ``max_steps`` box.

Human approval (notebook 08): when a loop waits for a person (``loop.waiting``:
a call to a tool that needs a yes, and no ``approve`` hook decided it - the
native loop and the ReAct loops alike, through their ``approval.ApprovalGate``),
the view shows 「批准」「拒绝」 and 「按修改的参数执行」 with the call's arguments
in an editable box; a click is ``loop.decide`` for the first waiting call, and
once none waits the turn runs (``AgentDebugger.decide``).
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

from .approval import Decision, approve, edit, reject
from .records import Detail, Step, stop_reason_text
from .replies import describe_error
from .tables import NO_MATH_CLASS, show_messages
from .texts import t

# What a loop must offer to be driven (loop_base.py); ``max_steps`` is optional.
LOOP_INTERFACE = ("start", "step", "result")


@dataclass
class DebugStep:
    """What one click of 「下一步」 did.

    Attributes:
        number: the loop's step number (1, 2, ...); a turn that waited for a person shows twice with one number.
        step: the ``records.Step`` the loop's ``step()`` returned.
        new_indices: indices in ``messages`` of the messages that appeared or changed.
        details: the step's ``details()`` (``records.Detail`` rows: label, text and ``field``),
            plus a 「下一步」 row when the loop appended its "answer now" message.
        model_calls: model requests the step made (``Step.requests``: 1, or 2 when the number
            check dropped a reply and asked again).
        prompt_tokens, completion_tokens: this step's ``usage`` (0 if the server sent none).
        log: what the loop printed during the step (its trace lines).
    """

    number: int
    step: Step
    new_indices: list[int]
    details: list[Detail]
    model_calls: int = 1
    prompt_tokens: int = 0
    completion_tokens: int = 0
    log: str = ""


class AgentDebugger:
    """Drive a loop one step (one model call plus its tools) at a time and keep what each step did.

    Args:
        loop: an object with ``start(question)``, ``step()`` (returns a ``records.Step``),
            ``done`` and ``result()`` (a ``records.RunResult``); ``max_steps`` if it has a limit.
        question: the task; ``reset()`` starts the loop again on it.
        max_steps: if given, sets the loop's step limit (its ``max_steps``).

    Attributes:
        messages: the loop's message chain now (dicts, from ``result().messages``).
        highlight: indices of the messages the last step added or changed.
        steps: one ``DebugStep`` per step taken since the last reset.
        error: the text of the last error (API error, network ...), or None.
            A failed step records nothing; clicking 「下一步」 again retries it.
    Raises:
        TypeError: ``loop`` lacks one of ``start()`` / ``step()`` / ``result()``.
    """

    def __init__(self, loop: Any, question: str, max_steps: int | None = None):
        for name in LOOP_INTERFACE:
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
        return bool(self.loop.done)

    @property
    def stopped_reason(self) -> str | None:
        """The run's ``stopped_reason`` (a ``records.StopReason``; None while it runs)."""
        return self.loop.result().stopped_reason if self.done else None

    def stop_text(self) -> str:
        """Why the loop stopped, in Chinese (``""`` while it runs)."""
        if not self.done:
            return ""
        reason = self.stopped_reason
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
    def loop_steps(self) -> int:
        """The steps the loop has taken (its ``steps``); a turn that waited for a person is one step."""
        steps = getattr(self.loop, "steps", None)
        return len(steps) if steps is not None else len(self.steps)

    @property
    def waiting(self) -> list:
        """The calls (``records.ToolCall``) the loop holds for a person's decision; ``[]`` when none
        (or when the loop has no approval gate: a loop of your own)."""
        return list(getattr(self.loop, "waiting", None) or [])

    @property
    def answer(self) -> str | None:
        """The run's final answer once done (``result().answer``), else None."""
        return self.loop.result().answer if self.done else None

    # -- actions -------------------------------------------------------------
    def reset(self) -> None:
        """Start the loop again on the same question (the step limit is kept)."""
        self.loop.start(self.question)
        self.steps: list[DebugStep] = []
        self.messages = self.loop.result().messages
        self.highlight: list[int] = []
        self.error: str | None = None

    def step(self) -> DebugStep | None:
        """Advance the loop by one step: one model call (two after a dropped reply) plus its tools.

        Returns:
            The new ``DebugStep``, or None when the loop is already done or the
            step failed (then ``error`` says why and nothing was recorded).
        Never raises for API/network/tool errors.
        """
        if self.done:
            return None
        self.error = None
        before, stopping = self.messages, getattr(self.loop, "stopping", None)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                step = self.loop.step()
        except Exception as exc:  # noqa: BLE001 - shown in the widget; the loop recorded nothing
            self.error = describe_error(exc)
            return None
        after = self.loop.result().messages
        details = step.details()
        if getattr(self.loop, "stopping", None) and not stopping and not self.done:
            # The native loop appended its "answer now, no more tools" message for the next request.
            details.append(Detail("next", t("debugger.label_next"), t("debugger.stopping_next") + after[-1]["content"]))
        info = DebugStep(
            number=step.number,  # the loop's own step number (a turn that waited for a person keeps its number)
            step=step,
            new_indices=[i for i, msg in enumerate(after) if i >= len(before) or msg != before[i]],
            details=details,
            model_calls=step.requests,
            prompt_tokens=step.prompt_tokens or 0,
            completion_tokens=step.completion_tokens or 0,
            log=printed.getvalue().strip(),
        )
        self.steps.append(info)
        self.messages, self.highlight = after, info.new_indices
        return info

    def decide(self, decision: Decision) -> DebugStep | None:
        """A person's decision for the first waiting call (``loop.decide``); once no call waits,
        the held turn runs at once (``step()``: the tools run, no new model request).

        Returns:
            The ``DebugStep`` of the finished turn, or None when calls still wait, nothing
            waited, or it failed (then ``error`` says why).
        Never raises.
        """
        self.error = None
        if not self.waiting:
            self.error = t("debugger.nothing_waiting")
            return None
        try:
            self.loop.decide(self.waiting[0], decision)
        except (TypeError, ValueError) as exc:
            self.error = str(exc)
            return None
        return None if self.waiting else self.step()

    def run_to_end(self, on_step: Callable[[DebugStep], Any] | None = None) -> int:
        """Step until the loop is done, waits for a person, or a step fails; returns the steps taken.

        ``on_step(info)`` is called after every step (the view redraws there).
        A safety cap of ``max_steps + 3`` steps guards against a loop that never ends.
        """
        taken = 0
        cap = (self.max_steps or 20) + 3
        while not self.done and not self.waiting and taken < cap:
            info = self.step()
            if info is None:
                break
            taken += 1
            if on_step is not None:
                on_step(info)
        return taken


# ---------------------------------------------------------------------------
# The view
# ---------------------------------------------------------------------------

# The colour of a details row, by its ``records.Detail.field`` (never by its translated label).
FIELD_COLOURS = {
    "thought": "#e0e7ff", "reasoning": "#e0e7ff", "action": "#dcfce7", "input": "#dcfce7", "tool_call": "#dcfce7",
    "observation": "#fef3c7", "result": "#fef3c7", "answer": "#bbf7d0", "content": "#bbf7d0",
    "error": "#fee2e2", "correction": "#fee2e2", "cut": "#fee2e2", "dropped": "#fee2e2",
    "next": "#fde68a", "note": "#e5e7eb", "approval": "#fbcfe8",
}


def details_html(details: list[Detail]) -> str:
    """A step's ``details()`` rows as a small two-column HTML table, each label coloured by its ``field``."""
    rows = "".join(
        f"<tr><th style='text-align:left;vertical-align:top;padding:2px 8px;"
        f"background:{FIELD_COLOURS.get(getattr(row, 'field', ''), '#f3f4f6')}'>{html.escape(row[0])}</th>"
        f"<td style='white-space:pre-wrap;text-align:left;padding:2px 8px'>{html.escape(row[1])}</td></tr>"
        for row in details
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

    Approval (notebook 08): ``approval`` (HBox, CSS class ``course-debugger-approval``,
    shown only while a call waits) holds ``approve_button`` 「批准」, ``reject_button``
    「拒绝」, ``edit_box`` (the waiting call's arguments as JSON, editable) and
    ``edit_button`` 「按修改的参数执行」; handlers ``on_approve``, ``on_reject``, ``on_edit``.
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
        self.approve_button = w.Button(description=t("debugger.approve"), button_style="success", icon="check")
        self.reject_button = w.Button(description=t("debugger.reject"), button_style="danger", icon="times")
        self.edit_box = w.Text(value="", layout=w.Layout(width="320px"))
        self.edit_button = w.Button(description=t("debugger.edit"), button_style="warning", icon="pencil")
        self.approve_button.on_click(self.on_approve)
        self.reject_button.on_click(self.on_reject)
        self.edit_button.on_click(self.on_edit)
        self.waiting_label = w.HTML("")
        self.approval = w.HBox([self.waiting_label, self.approve_button, self.reject_button, self.edit_box, self.edit_button])
        self.approval.add_class("course-debugger-approval")
        self._edit_for: Any = None  # the waiting call whose arguments edit_box holds (the object: ids repeat)
        self.widget = w.VBox([self.question, controls, self.approval, self.status, self.details, self.chain, self.log])
        self.widget.add_class("course-debugger")
        self._busy = False
        self.redraw()

    # -- drawing ---------------------------------------------------------
    def _status_html(self, busy: str = "") -> str:
        d = self.debugger
        limit = f" / {d.limit_name}={d.max_steps}" if d.limit_name else ""
        parts = [t("debugger.step_count", step=f"<b>{d.loop_steps}</b>", limit=limit),
                 t("debugger.tokens", prompt_tokens=d.prompt_tokens, completion_tokens=d.completion_tokens,
                   total_tokens=f"<b>{d.total_tokens}</b>")]
        if busy:
            parts.append(f"<span style='color:#92400e'>{html.escape(busy)}</span>")
        elif d.error:
            parts.append(f"<span style='color:#b91c1c'>{html.escape(t('debugger.error', error=d.error))}</span>")
        elif d.waiting:
            parts.append(f"<span style='color:#9d174d'>{html.escape(t('debugger.hint_approval'))}</span>")
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
        idle, waiting = not busy, d.waiting
        self.next_button.disabled = self.run_button.disabled = not idle or d.done or bool(waiting)
        self.reset_button.disabled = not idle
        self.approval.layout.display = "flex" if waiting else "none"
        for button in (self.approve_button, self.reject_button, self.edit_button):
            button.disabled = not idle or not waiting
        if waiting:
            call = waiting[0]
            self.waiting_label.value = "<b>" + html.escape(t("debugger.waiting_call", name=call.name)) + "</b>"
            if self._edit_for is not call:  # a new call (maybe with an old id, "call_0"): show its arguments
                self.edit_box.value, self._edit_for = call.arguments_text, call
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
        self._guard(lambda: (self.redraw(busy=t("debugger.waiting", step=self.debugger.loop_steps + 1)), self.debugger.step()))

    def on_run(self, _: Any = None) -> None:
        """「运行到结束」: step until the loop stops, redrawing after every step."""
        def work() -> None:
            self.redraw(busy=t("debugger.waiting", step=self.debugger.loop_steps + 1))
            self.debugger.run_to_end(on_step=lambda info: self.redraw(busy=t("debugger.waiting", step=info.number + 1)))
        self._guard(work)

    def _decide(self, decision: Callable[[], Decision]) -> None:
        self._guard(lambda: (self.redraw(busy=t("debugger.running_tools")), self.debugger.decide(decision())))

    def on_approve(self, _: Any = None) -> None:
        """「批准」: the first waiting call runs as the model wrote it."""
        self._decide(lambda: approve(by=t("debugger.by_button")))

    def on_reject(self, _: Any = None) -> None:
        """「拒绝」: the first waiting call does not run; the model is told the person declined."""
        self._decide(lambda: reject(t("debugger.rejected_reason"), by=t("debugger.by_button")))

    def on_edit(self, _: Any = None) -> None:
        """「按修改的参数执行」: the first waiting call runs with the JSON object in ``edit_box``."""
        try:
            arguments = json.loads(self.edit_box.value)
        except ValueError as exc:
            self.debugger.error = t("debugger.edit_not_json", error=exc)
            self.redraw()
            return
        if not isinstance(arguments, dict):
            self.debugger.error = t("debugger.edit_not_object", kind=type(arguments).__name__)
            self.redraw()
            return
        self._decide(lambda: edit(arguments, by=t("debugger.by_button")))

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

