"""Chat boxes for the classroom (ipywidgets), with the logic kept apart from the display.

Taught in notebooks 01 (no memory), 02 (memory) and 04 (tools).

``ChatSession`` is plain Python - tests drive it with a fake transport -
and ``chat_box(session)`` wraps it in a text box, a send button, a busy
indicator, the reply (streamed token by token) and the live message table.
Without a widget front-end (a plain terminal, nbclient) the box still prints
as a plain-text table.

Three modes, used in the notebooks:

* ``ChatSession(client, MODEL)``                       - no memory (01): every
  request carries only ``[system, user]``;
* ``ChatSession(client, MODEL, memory=True)``          - memory (02): the whole
  history is sent each time;
* ``ChatSession(client, MODEL, memory=True, tools=[PRODUCT_TOOL])`` - tools (04):
  the model may call ``query_by_product_name``.  Each ``send`` is then one run
  of the native loop of notebook 06, ``agent.Agent``, continuing the
  conversation: the same steps, the same ``max_steps`` and forced final answer,
  the same records; the chat box only streams its requests (``Agent.send``)
  and shows the tool messages in the table.

A tool that changes something (``needs_approval``, notebook 08) never runs on
the model's word alone here either: the Agent's approval gate holds the turn,
``send`` returns ``""`` with ``notice`` naming the call, ``waiting`` lists it,
and the box shows 「批准」「拒绝」; ``decide(decision)`` (a click) answers it
and the turn goes on.  ``approve=`` passes a policy to the Agent instead.

Streaming: when ``send`` is given ``on_token`` (``chat_box`` does this), every
request is made with ``stream=True`` and ``stream_options={"include_usage": True}``
(OpenAI Chat Completions streaming; llama-server sends the usage in a last
chunk with no choices); ``replies.collect_stream`` assembles the chunks.
Text pieces are passed to ``on_token`` as they arrive.  A tool step streams too, but its deltas are ``tool_calls`` pieces,
not text: the box shows "🔧 调用工具…" for such a step instead of tokens.
"""

from __future__ import annotations

import html
from typing import Any, Callable

from .agent import Agent
from .approval import Decision, approve, reject
from .messages import has_text, request_kwargs
from .records import stop_reason_text
from .replies import Reply, collect_stream, describe_error, read_reply
from course_runtime.request_rules import stream_usage_unavailable
from .tables import NO_MATH_CLASS, show_messages
from .texts import t
from .tools.registry import ToolRegistry, default_registry, names_of

DEFAULT_SYSTEM = "你是一个友好、简洁的中文助手。"

def _tool_registry(tools: list[dict], registry: Any) -> Any:
    """The registry that runs ``tools``: the given one, or the course tools of the same names."""
    if registry is not None:
        return registry
    known = default_registry()
    picked = []
    for name in names_of(tools):
        tool = known.get(name)
        if tool is None:
            raise ValueError(t("widgets.unknown_tool", name=repr(name)))
        picked.append(tool)
    return ToolRegistry(picked)


class ChatSession:
    """One conversation with the model.

    Args:
        client: an ``openai.OpenAI`` client.
        model: model id.
        memory: False = every request carries only ``[system, user]`` (plus this
            turn's tool messages) - notebook 01; True = the whole history is
            sent each time - notebook 02.
        system: the system prompt.
        max_tokens, temperature: passed to every request (max_tokens in tokens).
        tools: tool schemas offered to the model (e.g. ``[PRODUCT_TOOL]``) -
            notebook 04; None = a plain chat.
        registry: the ``ToolRegistry`` (or ``{name: function}`` dict) that runs
            the calls; default: the course tools named in ``tools``.
        max_steps: with tools, the ``agent.Agent``'s ``max_steps``: steps with tools one
            ``send`` may take; after them one last request without tools asks for
            the answer, and ``notice`` says so.  At least 1.
        approve: with tools, the Agent's approval hook (``approval.py``) for the tools that
            need a person's yes; None = such a call waits for ``decide`` (the box's buttons).

    Attributes:
        history: every message of the conversation (dicts), shown in the table.
        turn: the messages of the current/last ``send`` (user, assistant, tool ...).
        last_request: the ``messages`` the model actually saw in the last request.
        last_usage: the ``usage`` dict of the last response (None if the server sent none).
        total_tokens: ``total_tokens`` summed over the whole session.
        error: the last error text, or None.
        notice: a remark about the last reply that is not an error (the loop
            forced its final answer, or the reply was cut at max_tokens -
            ``replies.cut_text``), or None.
        agent: with tools, the ``agent.Agent`` of the last ``send`` (its ``steps`` are the records).
        waiting: the calls that wait for a person's decision (``decide``); ``[]`` when none.
    Raises:
        ValueError: ``tools`` names a tool that is not a course tool and no
            ``registry`` is given; ``max_steps`` below 1.
    """

    def __init__(self, client: Any, model: str, memory: bool = False, system: str = DEFAULT_SYSTEM,
                 max_tokens: int = 300, temperature: float = 0.7, tools: list[dict] | None = None,
                 registry: Any = None, max_steps: int = 4,
                 approve: Callable[[Any], Decision | None] | None = None):
        self.client, self.model, self.memory = client, model, memory
        self.system = {"role": "system", "content": system}
        self.max_tokens, self.temperature = max_tokens, temperature
        self.tools = list(tools or [])
        self.registry = _tool_registry(self.tools, registry) if self.tools else None
        self.agent: Agent | None = None
        self.approve = approve
        if max_steps < 1:
            raise ValueError(t("loops.max_steps_low", max_steps=max_steps))
        self.max_steps = max_steps
        self.history: list[dict] = [self.system]
        self.turn: list[dict] = []
        self.last_request: list[dict] = []
        self.last_usage: dict | None = None
        self.total_tokens = 0
        self.error: str | None = None
        self.notice: str | None = None
        self._in_progress = False  # True while send() runs or a call waits: ``turn`` is not in ``history`` yet
        self._turn_start = 0  # with tools: where the turn begins in agent.messages

    @property
    def waiting(self) -> list:
        """The calls (``records.ToolCall``) of the turn in progress that wait for a person's decision."""
        return list(self.agent.waiting) if self.agent is not None and self._in_progress else []

    @property
    def mode(self) -> str:
        """``"tools"``, ``"memory"`` or ``"no-memory"``."""
        return "tools" if self.tools else ("memory" if self.memory else "no-memory")

    def shown_messages(self) -> tuple[list[dict], list[int]]:
        """What the table shows, and which rows are new.

        Returns:
            ``(messages, highlight)``: with memory, the whole history (the turn
            in progress included); without memory, the system prompt plus the
            last turn only - everything earlier was never sent.  ``highlight``
            are the indices of the last turn's messages.
        """
        if self.memory:
            messages = [*self.history, *self.turn] if self._in_progress else list(self.history)
        else:
            messages = [self.system, *self.turn]
        start = len(messages) - len(self.turn)
        return messages, list(range(start, len(messages)))

    def _call(self, kwargs: dict, on_token: Callable[[str], Any] | None,
              on_reset: Callable[[], Any] | None = None) -> Reply:
        """One model call with the ``create`` arguments ``kwargs``, streamed when ``on_token`` is
        given; returns the ``replies.Reply`` and keeps its ``usage``."""
        if on_token is None:
            reply = read_reply(self.client.chat.completions.create(**kwargs))
        else:
            stream = self.client.chat.completions.create(**kwargs, stream=True, stream_options={"include_usage": True})
            reply = collect_stream(stream, on_token, on_reset)
        self.last_request = kwargs["messages"]
        self.last_usage = reply.usage
        self.total_tokens += int((reply.usage or {}).get("total_tokens") or 0)
        return reply

    def _run_agent(self, send: Callable[[dict], Reply], updated: Callable[[], Any], messages: list[dict] | None = None) -> str:
        """Tools: one run of ``agent.Agent`` continuing ``messages`` (a new ``send``; None: go on with
        the run that waited, after ``decide``), stepped until it ends or a call waits for a person
        (then ``""``, and ``notice`` names the call).  The turn grows step by step."""
        if messages is not None:
            # parallel_tool_calls=None: the requests leave it out, as the chat box always did (the server's default)
            self.agent = Agent(self.client, self.model, self.registry, tools=self.tools, max_steps=self.max_steps,
                               max_tokens=self.max_tokens, temperature=self.temperature, parallel_tool_calls=None,
                               trace=None, approve=self.approve)
            self.agent.start(messages)
            self._turn_start = len(messages) - 1  # the turn (from its user message) in agent.messages
        self.agent.send = send  # the hook: the chat box streams its requests
        while not self.agent.done and not self.agent.waiting:
            self.agent.step()
            self.turn = self.agent.messages[self._turn_start:]
            updated()
        if self.agent.waiting:
            calls = t("agent.list_separator").join(f"{c.name} {c.arguments_text}" for c in self.agent.waiting)
            self.notice = t("widgets.approval_waiting", calls=calls)
            return ""
        result = self.agent.result()
        if result.stopped_reason in ("max_steps", "repeated_calls"):
            self.notice = t("widgets.final_answer_forced", why=stop_reason_text(result.stopped_reason),
                            max_steps=self.max_steps)
        else:
            self.notice = result.steps[-1].cut
        return result.answer or ""

    def send(self, text: str, on_token: Callable[[str], Any] | None = None,
             on_update: Callable[[], Any] | None = None, on_reset: Callable[[], Any] | None = None) -> str | None:
        """Send one user message; return the reply text, or None after an error (kept in ``error``).

        Args:
            text: what the user typed.  Empty/whitespace is refused (``error``
                says so) and nothing is sent; so is a new message while a call
                waits for a decision (``decide`` first, or ``reset``).
            on_token: if given, the requests stream (``stream=True``) and each
                text piece is passed to it as it arrives.
            on_update: called (no arguments) whenever ``turn`` grows: after the
                user message, and after each reply (with tools: after each step
                of the agent, its tool messages included) - the widget redraws then.
            on_reset: called when text already passed to ``on_token`` was the
                model's thinking after all (``replies.collect_stream``).
        Returns:
            The final reply text: with tools, the ``agent.Agent`` run's answer (``""`` if
            its last request gave none, or while a call waits for ``decide``: ``notice``
            says which); ``""`` for an empty reply (``notice`` says so; it is not added to the history).
        Errors never raise here (API errors, network errors, invalid messages):
        the text goes to ``error``, the history stays as it was before the call,
        and the widget shows it.
        """
        self.error = self.notice = None
        if self.waiting:
            self.error = t("widgets.decide_first", names=t("agent.list_separator").join(c.name for c in self.waiting))
            return None
        if not text or not text.strip():
            self.error = t("widgets.empty_input")
            return None
        base = self.history if self.memory else [self.system]
        self.turn = [{"role": "user", "content": text.strip()}]
        self._in_progress = True
        updated = on_update or (lambda: None)
        updated()
        on_call = lambda kwargs: self._call(kwargs, on_token, on_reset)  # noqa: E731
        run = self._run_agent if self.tools else self._plain_reply
        return self._answer(lambda: run(on_call, updated, [*base, *self.turn]), updated)

    def decide(self, decision: Decision, on_token: Callable[[str], Any] | None = None,
               on_update: Callable[[], Any] | None = None, on_reset: Callable[[], Any] | None = None) -> str | None:
        """A person's decision (``approval.approve()`` / ``reject(...)`` / ``edit({...})``) for the first
        waiting call; once none waits, the turn goes on (the tools run, the model is asked again).

        Returns:
            As ``send``: the answer, ``""`` while a call still waits, None after an error
            (``error``: nothing waits, ``decision`` is not a ``Decision``, or the request failed).
        """
        self.error = self.notice = None
        if not self.waiting:
            self.error = t("widgets.nothing_waiting")
            return None
        try:
            self.agent.decide(self.waiting[0], decision)
        except (TypeError, ValueError) as exc:  # the call keeps waiting
            self.error = str(exc)
            return None
        updated = on_update or (lambda: None)
        on_call = lambda kwargs: self._call(kwargs, on_token, on_reset)  # noqa: E731
        return self._answer(lambda: self._run_agent(on_call, updated), updated)

    def _plain_reply(self, send: Callable[[dict], Reply], updated: Callable[[], Any], messages: list[dict]) -> str:
        """No tools: one request with ``messages``; the reply joins the turn (a refusal is shown as the
        reply, and ``notice`` says so)."""
        answered = send(request_kwargs(self.model, messages, max_tokens=self.max_tokens, temperature=self.temperature))
        reply = answered.text or answered.refusal
        if has_text(reply):
            self.turn.append(answered.message if answered.text else {"role": "assistant", "content": reply})
            self.notice = answered.cut  # a reply cut at max_tokens (or filtered, refused, broken off) says so
            updated()
        else:  # not kept: an empty assistant message would make the next request invalid
            self.notice = t("widgets.empty_reply")
        return reply

    def _answer(self, work: Callable[[], str], updated: Callable[[], Any]) -> str | None:
        """Run ``work`` (a reply, or the agent until it ends or waits); the finished turn joins the
        history.  An error drops the turn (``error`` says why), the history stays as it was."""
        try:
            reply = work()
        except Exception as exc:  # noqa: BLE001 - the widget must show every error, never die
            self.error = describe_error(exc)
            self.turn = []
            self._in_progress = False
            updated()
            return None
        if not self.waiting:
            self.history = [*self.history, *self.turn]
            self._in_progress = False
        return reply

    def reset(self) -> None:
        """Forget the conversation (the system prompt stays)."""
        self.history = [self.system]
        self.turn = []
        self._in_progress = False
        self.agent = None  # a turn that waited for a decision is dropped: nothing of it ran
        self.last_request = []
        self.last_usage = None
        self.total_tokens = 0
        self.error = self.notice = None


def _error_html(text: str) -> str:
    return f"<span style='color:#b91c1c'>⚠️ {html.escape(text)}</span>"


class ChatBox:
    """The ipywidgets view of a ``ChatSession``: build it with ``chat_box(session)``.

    Widgets (attributes, for tests and curious students): ``text`` (Text),
    ``send_button`` and ``reset_button`` (Button), ``status`` (HTML: busy
    indicator, errors, tokens), ``reply`` (HTML: the answer, growing token by
    token when streaming), ``table`` (HTML: the message table), and
    ``widget`` (the VBox holding them).  ``on_send()`` / ``on_reset()`` are the
    click handlers.  Jupyter displays a ChatBox as its widget; ``str()`` gives
    the plain-text table.

    Approval (notebook 08): ``approval`` (HBox, CSS class ``course-chat-approval``,
    shown only while a call waits for a person, ``session.waiting``) holds
    ``approve_button`` 「批准」 and ``reject_button`` 「拒绝」; their handlers
    ``on_approve`` / ``on_reject`` are ``session.decide``.  While a call waits,
    「发送」 is off: the turn is finished first (or dropped with 「清空对话」).
    """

    def __init__(self, session: ChatSession, stream: bool = True):
        import ipywidgets as w

        self.session, self.stream = session, stream
        self.text = w.Text(placeholder=t("widgets.placeholder"), layout=w.Layout(width="60%"))
        self.send_button = w.Button(description=t("widgets.send"), button_style="primary", icon="paper-plane")
        self.reset_button = w.Button(description=t("widgets.clear"), icon="trash")
        self.status = w.HTML("")
        self.reply = w.HTML("")
        self.table = w.HTML("")
        self.approve_button = w.Button(description=t("widgets.approve"), button_style="success", icon="check")
        self.reject_button = w.Button(description=t("widgets.reject"), button_style="danger", icon="times")
        self.approval = w.HBox([self.approve_button, self.reject_button])
        self.approval.add_class("course-chat-approval")
        self.send_button.on_click(self.on_send)
        self.reset_button.on_click(self.on_reset)
        self.approve_button.on_click(self.on_approve)
        self.reject_button.on_click(self.on_reject)
        self.widget = w.VBox([w.HBox([self.text, self.send_button, self.reset_button]), self.status, self.approval,
                              self.reply, self.table])
        self.widget.add_class("course-chat-box")
        self.reply.add_class("course-chat-reply")
        self._streamed: list[str] = []
        self._buttons()
        self.redraw()

    # -- drawing ---------------------------------------------------------
    def title(self) -> str:
        if self.session.memory:
            return t("widgets.full_history")
        return t("widgets.this_turn_only")

    def redraw(self) -> None:
        """Redraw the table from the session."""
        messages, highlight = self.session.shown_messages()
        self.table.value = show_messages(messages, title=self.title(), highlight=highlight)._repr_html_()

    def _show_reply(self, text: str, live: bool = False) -> None:
        cursor = "▌" if live else ""
        self.reply.value = (
            f"<div class='{NO_MATH_CLASS}' style='white-space:pre-wrap;border-left:3px solid #16a34a;padding:4px 8px;margin:4px 0'>"
            f"<b>{html.escape(t('widgets.assistant'))}</b>{html.escape(text)}{cursor}</div>" if text or live else ""
        )

    def _on_token(self, piece: str) -> None:
        self._streamed.append(piece)
        self._show_reply("".join(self._streamed), live=True)

    def _on_reset(self) -> None:  # what streamed so far was the model's thinking: not the answer
        self._streamed = []
        self._show_reply("", live=True)

    def _on_update(self) -> None:
        turn = self.session.turn
        self.redraw()
        if turn and turn[-1].get("role") == "tool":  # a step ran tools; the model reads their results next
            calls = next(m["tool_calls"] for m in reversed(turn) if m.get("tool_calls"))
            names = ", ".join((c.get("function") or {}).get("name", "?") for c in calls)
            self.status.value = html.escape(t("widgets.reading_results", names=names))
            self._streamed = []  # text streamed in this step was the call itself (written as JSON), not a reply
            self._show_reply("")

    def _buttons(self, busy: bool = False) -> None:
        """Which buttons work now: nothing while busy; only 「批准」「拒绝」「清空对话」 while a call waits."""
        waiting = bool(self.session.waiting)
        self.send_button.disabled = self.text.disabled = busy or waiting
        self.reset_button.disabled = busy
        self.approve_button.disabled = self.reject_button.disabled = busy or not waiting
        self.approval.layout.display = "flex" if waiting else "none"

    # -- handlers --------------------------------------------------------
    def on_send(self, _: Any = None) -> None:
        """Click handler of 「发送」: send ``text.value``; errors end up in ``status``."""
        self._run(lambda callbacks: self.session.send(self.text.value, **callbacks))

    def on_approve(self, _: Any = None) -> None:
        """Click handler of 「批准」: the waiting call runs as the model wrote it, and the turn goes on."""
        self._run(lambda callbacks: self.session.decide(approve(by=t("widgets.by_button")), **callbacks))

    def on_reject(self, _: Any = None) -> None:
        """Click handler of 「拒绝」: the waiting call does not run; the model reads that the person declined."""
        decision = reject(t("widgets.rejected_reason"), by=t("widgets.by_button"))
        self._run(lambda callbacks: self.session.decide(decision, **callbacks))

    def _run(self, work: Callable[[dict], str | None]) -> None:
        """Run ``work(callbacks)`` (``session.send`` or ``session.decide``) with the box busy, then show what came back."""
        self._buttons(busy=True)
        self.status.value = t("widgets.thinking")
        self._streamed = []
        self._show_reply("")
        callbacks = dict(on_token=self._on_token if self.stream else None, on_update=self._on_update, on_reset=self._on_reset)
        try:
            reply = work(callbacks)
        except Exception as exc:  # noqa: BLE001 - send() should not raise; a redraw might
            self.session.error, reply = describe_error(exc), None
        finally:
            self._buttons()
        if reply is None:
            self.status.value = _error_html(self.session.error or t("widgets.unknown_error"))
            self._show_reply("")
            self.redraw()
            return
        self.text.value = ""
        self._show_reply(reply)
        if self.session.waiting:  # a write waits for 「批准」 or 「拒绝」: say which call
            self.status.value = f"<span style='color:#9d174d'>{html.escape(self.session.notice or '')}</span>"
            self.redraw()
            return
        usage = self.session.last_usage or {}
        tokens = t("widgets.tokens", prompt_tokens=usage.get("prompt_tokens"), completion_tokens=usage.get("completion_tokens"),
                   total_tokens=self.session.total_tokens) if usage else ""
        if not usage and self.stream and stream_usage_unavailable(self.session.client):
            tokens = t("providers.no_stream_usage")  # a relay that refused stream_options
        notice = _error_html(self.session.notice) if self.session.notice else ""
        self.status.value = " ".join(x for x in [f"<span style='color:#555'>{tokens}</span>" if tokens else "", notice] if x)
        self.redraw()

    def on_reset(self, _: Any = None) -> None:
        """Click handler of 「清空对话」 (a call that waited for a decision is dropped: it never ran)."""
        self.session.reset()
        self._buttons()
        self.status.value = ""
        self._show_reply("")
        self.redraw()

    # -- display ---------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # The widget for JupyterLab; the plain-text table for front-ends without widgets (nbclient, a terminal).
        bundle = self.widget._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = str(self)
        return bundle

    def __str__(self) -> str:
        messages, highlight = self.session.shown_messages()
        return str(show_messages(messages, title=self.title(), highlight=highlight))

    __repr__ = __str__


def chat_box(session: ChatSession, stream: bool = True) -> Any:
    """Return a chat box for ``session``.

    Layout: a text field, 「发送」 and 「清空对话」 buttons, a status line (busy
    indicator, errors, tokens used), the reply (token by token when
    ``stream`` is True) and the message table with the last turn highlighted.
    With ``memory=False`` the table shows only what the model saw this time,
    so students see that earlier turns are missing.

    Returns:
        A ``ChatBox`` (Jupyter shows its widget); if ipywidgets is not
        installed, the plain message table (``tables.Table``) of the history instead.
    """
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return show_messages(session.history)
    return ChatBox(session, stream=stream)
