"""Chat boxes for the classroom (ipywidgets), with the logic kept apart from the display.

``ChatSession`` is plain Python - tests drive it with a fake transport -
and ``chat_box(session)`` wraps it in a text box, a send button, a busy
indicator and the live message table.  Without a widget front-end (a plain
terminal, nbclient), ``chat_box`` still returns something that prints.
"""

from __future__ import annotations

from typing import Any

import openai

from .messages import request_kwargs, to_dict
from .tables import show_messages

DEFAULT_SYSTEM = "你是一个友好、简洁的中文助手。"


class ChatSession:
    """One conversation with the model.

    Args:
        client: an ``openai.OpenAI`` client.
        model: model id.
        memory: False = every request carries only ``[system, user]`` (notebook 01);
            True = the whole history is sent each time (notebook 02).
        system: the system prompt.
        max_tokens, temperature: passed to every request.

    Attributes:
        history: every message of the conversation (dicts), shown in the table.
        last_request: the ``messages`` the model actually saw last time.
        error: the last error text, or None.
    """

    def __init__(self, client: Any, model: str, memory: bool = False, system: str = DEFAULT_SYSTEM,
                 max_tokens: int = 300, temperature: float = 0.7):
        self.client, self.model, self.memory = client, model, memory
        self.system = {"role": "system", "content": system}
        self.max_tokens, self.temperature = max_tokens, temperature
        self.history: list[dict] = [self.system]
        self.last_request: list[dict] = []
        self.error: str | None = None

    def send(self, text: str) -> str | None:
        """Send one user message; return the reply text, or None after an error (kept in ``error``).

        An empty message is refused (``error`` says so) and nothing is sent.
        Errors from the API never raise here: the widget shows them instead.
        """
        self.error = None
        if not text or not text.strip():
            self.error = "请输入一句话再发送。"
            return None
        user = {"role": "user", "content": text.strip()}
        request = [*self.history, user] if self.memory else [self.system, user]
        try:
            response = self.client.chat.completions.create(
                **request_kwargs(self.model, request, max_tokens=self.max_tokens, temperature=self.temperature)
            )
        except (openai.OpenAIError, ValueError) as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            return None
        reply = to_dict(response.choices[0].message)
        self.last_request = request
        self.history += [user, reply]
        return reply.get("content") or ""

    def reset(self) -> None:
        """Forget the conversation (the system prompt stays)."""
        self.history = [self.system]
        self.last_request = []
        self.error = None


def chat_box(session: ChatSession) -> Any:
    """Return an ipywidgets chat box for ``session``.

    Layout: a text field and a "发送" button, a status line (busy indicator
    and errors), then the message table.  With ``memory=False`` the table
    shows the request the model last saw, so students see that earlier turns
    are missing.  Returns the ``VBox``; if ipywidgets is unavailable, returns
    the plain message table instead.
    """
    try:
        import ipywidgets as w
        from IPython.display import display
    except ImportError:
        return show_messages(session.history)

    text = w.Text(placeholder="输入一句话，然后点「发送」", layout=w.Layout(width="70%"))
    button = w.Button(description="发送", button_style="primary")
    status = w.HTML("")
    table = w.Output()

    def redraw() -> None:
        table.clear_output()
        with table:
            if session.memory:
                display(show_messages(session.history, title="完整对话（每次都会发给模型）"))
            else:
                display(show_messages(session.last_request, title="模型这一次真正看到的 messages"))

    def on_send(_: Any = None) -> None:
        button.disabled = text.disabled = True
        status.value = "⏳ 模型思考中…"
        try:
            reply = session.send(text.value)
        finally:
            button.disabled = text.disabled = False
        if reply is None:
            status.value = f"<span style='color:#b91c1c'>⚠️ {session.error}</span>"
            return
        status.value = ""
        text.value = ""
        redraw()

    button.on_click(on_send)
    redraw()
    return w.VBox([w.HBox([text, button]), status, table])
