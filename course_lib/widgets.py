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
  the model may call ``query_by_product_name``; calls are read with
  ``tool_calls.read_assistant`` and run with ``tool_calls.execute`` through a
  ``ToolRegistry``, and the tool messages appear in the table.

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

from .messages import has_text, request_kwargs
from .providers import stream_usage_unavailable
from .replies import Reply, collect_stream, describe_error, read_reply
from .tables import NO_MATH_CLASS, show_messages
from .texts import t
from .tool_calls import execute, read_assistant

DEFAULT_SYSTEM = "你是一个友好、简洁的中文助手。"

def _tool_registry(tools: list[dict], registry: Any) -> Any:
    """The registry that runs ``tools``: the given one, or the course tools of the same names."""
    if registry is not None:
        return registry
    from .tools.registry import ToolRegistry, default_registry

    known = default_registry()
    picked = []
    for schema in tools:
        name = (schema.get("function") or {}).get("name")
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
        max_steps: model requests one ``send`` may make (the same name as
            every loop's limit, ``loop.StepLoop.max_steps``); if the last one
            still asks for tools, they are answered with an error instead of
            run, and ``notice`` says so.  At least 1.

    Attributes:
        history: every message of the conversation (dicts), shown in the table.
        turn: the messages of the current/last ``send`` (user, assistant, tool ...).
        last_request: the ``messages`` the model actually saw in the last request.
        last_usage: the ``usage`` dict of the last response (None if the server sent none).
        total_tokens: ``total_tokens`` summed over the whole session.
        error: the last error text, or None.
        notice: a remark about the last reply that is not an error (e.g. the
            model wrote a tool call as text that could not be read, or the reply
            was cut at max_tokens - ``replies.CUT_REPLIES``), or None.
    Raises:
        ValueError: ``tools`` names a tool that is not a course tool and no
            ``registry`` is given; ``max_steps`` below 1.
    """

    def __init__(self, client: Any, model: str, memory: bool = False, system: str = DEFAULT_SYSTEM,
                 max_tokens: int = 300, temperature: float = 0.7, tools: list[dict] | None = None,
                 registry: Any = None, max_steps: int = 4):
        self.client, self.model, self.memory = client, model, memory
        self.system = {"role": "system", "content": system}
        self.max_tokens, self.temperature = max_tokens, temperature
        self.tools = list(tools or [])
        self.registry = _tool_registry(self.tools, registry) if self.tools else None
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
        self._in_progress = False  # True while send() runs: ``turn`` is not in ``history`` yet

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

    def _call(self, request: list[dict], on_token: Callable[[str], Any] | None,
              on_reset: Callable[[], Any] | None = None) -> Reply:
        """One model call, streamed when ``on_token`` is given; returns the ``replies.Reply``."""
        kwargs = request_kwargs(self.model, request, tools=self.tools or None,
                                max_tokens=self.max_tokens, temperature=self.temperature)
        if on_token is None:
            reply = read_reply(self.client.chat.completions.create(**kwargs))
        else:
            stream = self.client.chat.completions.create(**kwargs, stream=True, stream_options={"include_usage": True})
            reply = collect_stream(stream, on_token, on_reset)
        return reply

    def send(self, text: str, on_token: Callable[[str], Any] | None = None,
             on_update: Callable[[], Any] | None = None, on_reset: Callable[[], Any] | None = None) -> str | None:
        """Send one user message; return the reply text, or None after an error (kept in ``error``).

        Args:
            text: what the user typed.  Empty/whitespace is refused (``error``
                says so) and nothing is sent.
            on_token: if given, the requests stream (``stream=True``) and each
                text piece is passed to it as it arrives.
            on_update: called (no arguments) whenever ``turn`` grows: after the
                user message, after each assistant message and after each
                batch of tool messages - the widget redraws its table then.
            on_reset: called when text already passed to ``on_token`` was the
                model's thinking after all (``replies.collect_stream``).
        Returns:
            The final reply text: ``""`` if the model only called tools until
            ``max_steps`` ran out, or sent an empty reply (``notice`` says
            which; an empty reply is not added to the history).
        Errors never raise here (API errors, network errors, invalid messages):
        the text goes to ``error``, the history stays as it was before the call,
        and the widget shows it.
        """
        self.error = self.notice = None
        if not text or not text.strip():
            self.error = t("widgets.empty_input")
            return None
        base = self.history if self.memory else [self.system]
        self.turn = [{"role": "user", "content": text.strip()}]
        self._in_progress = True
        updated = on_update or (lambda: None)
        updated()
        reply = ""
        try:
            for step in range(1, self.max_steps + 1):
                request = [*base, *self.turn]
                answered = self._call(request, on_token, on_reset)
                self.last_request = request
                self.last_usage = answered.usage
                self.total_tokens += int((answered.usage or {}).get("total_tokens") or 0)
                if not self.tools:
                    reply = answered.text
                    if has_text(reply):
                        self.turn.append(answered.message)
                        self.notice = answered.cut  # a reply cut at max_tokens (or filtered) says so
                        updated()
                    else:  # not kept: an empty assistant message would make the next request invalid
                        self.notice = t("widgets.empty_reply")
                    break
                turn = read_assistant(answered.message, self.registry)
                if not turn.calls and not has_text(turn.message.get("content")):
                    self.notice = t("widgets.empty_reply")
                    break
                self.turn.append(turn.message)
                updated()
                if not turn.calls:
                    reply = turn.text or ""
                    self.notice = answered.cut
                    if turn.error:
                        self.notice = t("widgets.unreadable_call", error=turn.error)
                    break
                if step == self.max_steps:
                    self.turn += [{"role": "tool", "tool_call_id": c.id, "content": "错误：本轮工具调用次数已用完，工具没有运行。"}
                                  for c in turn.calls]
                    self.notice = t("widgets.max_steps_reached", max_steps=self.max_steps)
                    updated()
                    break
                self.turn += execute(turn.calls, self.registry)
                updated()
        except Exception as exc:  # noqa: BLE001 - the widget must show every error, never die
            self.error = describe_error(exc)
            self.turn = []
            self._in_progress = False
            updated()
            return None
        self.history = [*self.history, *self.turn]
        self._in_progress = False
        return reply

    def reset(self) -> None:
        """Forget the conversation (the system prompt stays)."""
        self.history = [self.system]
        self.turn = []
        self._in_progress = False
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
        self.send_button.on_click(self.on_send)
        self.reset_button.on_click(self.on_reset)
        self.widget = w.VBox([w.HBox([self.text, self.send_button, self.reset_button]), self.status, self.reply, self.table])
        self.widget.add_class("course-chat-box")
        self.reply.add_class("course-chat-reply")
        self._streamed: list[str] = []
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
        if turn and turn[-1].get("role") == "tool":
            self.status.value = t("widgets.reading_results")
            self._streamed = []
        elif turn and turn[-1].get("tool_calls"):
            names = ", ".join((c.get("function") or {}).get("name", "?") for c in turn[-1]["tool_calls"])
            self.status.value = html.escape(t("widgets.calling_tools", names=names))
            self._streamed = []  # text streamed in this step was the call itself (written as JSON), not a reply
            self._show_reply("")

    # -- handlers --------------------------------------------------------
    def on_send(self, _: Any = None) -> None:
        """Click handler of 「发送」: send ``text.value``; errors end up in ``status``."""
        self.send_button.disabled = self.text.disabled = self.reset_button.disabled = True
        self.status.value = t("widgets.thinking")
        self._streamed = []
        self._show_reply("")
        try:
            reply = self.session.send(
                self.text.value, on_token=self._on_token if self.stream else None, on_update=self._on_update,
                on_reset=self._on_reset,
            )
        except Exception as exc:  # noqa: BLE001 - send() should not raise; a redraw might
            self.session.error, reply = describe_error(exc), None
        finally:
            self.send_button.disabled = self.text.disabled = self.reset_button.disabled = False
        if reply is None:
            self.status.value = _error_html(self.session.error or t("widgets.unknown_error"))
            self._show_reply("")
            self.redraw()
            return
        self.text.value = ""
        self._show_reply(reply)
        usage = self.session.last_usage or {}
        tokens = t("widgets.tokens", prompt_tokens=usage.get("prompt_tokens"), completion_tokens=usage.get("completion_tokens"),
                   total_tokens=self.session.total_tokens) if usage else ""
        if not usage and self.stream and stream_usage_unavailable(self.session.client):
            tokens = t("providers.no_stream_usage")  # a relay that refused stream_options
        notice = _error_html(self.session.notice) if self.session.notice else ""
        self.status.value = " ".join(x for x in [f"<span style='color:#555'>{tokens}</span>" if tokens else "", notice] if x)
        self.redraw()

    def on_reset(self, _: Any = None) -> None:
        """Click handler of 「清空对话」."""
        self.session.reset()
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
