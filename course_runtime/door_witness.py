"""What the class door saw each student send: the texts of their messages and the tools their model called.

The capstone's exam (``exam_desk``) takes a student's submission - each answer with the tool results and tool
names of the run - on the student's word.  Everything a run reads, though, goes through the door: a tool's
result is sent back to the model as a ``tool`` message (the native loop) or inside a ``user`` message (the
ReAct loops), and every tool call the model made is in the ``assistant`` messages of the next request.  So the
door keeps, per student, the recent distinct texts of those messages (``MAX_TEXTS`` per student, each cut to
``MAX_TEXT_CHARS``) and the names of the tools called, and the desk checks a submission against them
(``saw_text``, ``saw_tool``): a tool result the door never saw did not come from a run through it.

Kept in memory only (a restart forgets it, as the door's counts) and bounded: at most ``MAX_TEXTS`` texts of
``MAX_TEXT_CHARS`` characters and ``MAX_TOOLS`` names per student.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

MAX_TEXTS = 400  # distinct message texts kept per student (the oldest go first)
MAX_TEXT_CHARS = 4000  # characters kept of one text
MAX_TOOLS = 200  # distinct tool names kept per student
PROBE_CHARS = 300  # the part of a submitted tool result looked for (its start, stripped)


class DoorWitness:
    """Per student: the message texts and tool names the door passed (``note``), and the checks on them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._texts: dict[str, OrderedDict[str, None]] = {}
        self._tools: dict[str, OrderedDict[str, None]] = {}

    def note(self, name: str, parsed: Any) -> None:
        """Keep what a chat request of ``name`` carries: ``tool`` and ``user`` texts, ``assistant`` tool names."""
        messages = parsed.get("messages") if isinstance(parsed, dict) else None
        if not isinstance(messages, list):
            return
        texts, tools = [], []
        for message in messages:
            if not isinstance(message, dict):
                continue
            content = message.get("content")
            if message.get("role") in ("tool", "user") and isinstance(content, str) and content.strip():
                texts.append(content[:MAX_TEXT_CHARS])
            for call in message.get("tool_calls") or () if message.get("role") == "assistant" else ():
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict) and isinstance(function.get("name"), str):
                    tools.append(function["name"][:64])
        with self._lock:
            _keep(self._texts.setdefault(name, OrderedDict()), texts, MAX_TEXTS)
            _keep(self._tools.setdefault(name, OrderedDict()), tools, MAX_TOOLS)

    def saw_text(self, name: str, text: str) -> bool:
        """Whether the start of ``text`` (``PROBE_CHARS``, stripped) is in a text ``name`` sent through the door."""
        probe = text.strip()[:PROBE_CHARS]
        if not probe:
            return True  # an empty tool result proves nothing either way
        with self._lock:
            kept = list(self._texts.get(name, ()))
        return any(probe in seen for seen in kept)

    def saw_tool(self, name: str, tool: str) -> bool:
        """Whether ``name``'s model called a tool named ``tool`` in a request the door passed."""
        with self._lock:
            return tool in self._tools.get(name, ())


def _keep(kept: OrderedDict[str, None], items: list[str], most: int) -> None:
    for item in items:
        kept[item] = None
        kept.move_to_end(item)
    while len(kept) > most:
        kept.popitem(last=False)
