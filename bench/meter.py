"""Count requests and tokens the same way for every loop: from the HTTP responses.

``Meter.http_client()`` returns an ``httpx2.Client`` whose event hooks read
each ``/chat/completions`` response: wall time, ``usage.prompt_tokens``,
``usage.completion_tokens``.  The course's loops get an ``openai.OpenAI``
client built on it; LangChain's ``ChatOpenAI`` and smolagents'
``OpenAIServerModel`` take the same ``httpx2.Client``.  So the numbers in the
results table never depend on how a framework reports usage itself.

``recording_tools(runs)`` wraps the four course tools so that every call that
really runs is appended to ``runs`` as ``(name, arguments)``, whichever loop
or framework made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import httpx2

from course_lib.replies import collect_stream
from course_runtime.request_log import RequestLog
from course_lib.tools.registry import Tool, ToolRegistry, default_registry

TIMEOUT_S = 180.0


@dataclass
class Exchange:
    """One chat request as seen on the wire (seconds; tokens from ``usage``, None if absent)."""

    seconds: float
    status: int
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None = None


@dataclass
class Meter:
    """Collects one ``Exchange`` per chat request made through ``http_client()``."""

    exchanges: list[Exchange] = field(default_factory=list)

    def _collect(self, line: dict) -> None:
        self.exchanges.append(Exchange(line["seconds"], line["status"], line["prompt_tokens"],
                                       line["completion_tokens"], line["finish_reason"]))

    def http_client(self, transport: httpx2.BaseTransport | None = None) -> httpx2.Client:
        """A fresh ``httpx2.Client`` that reports to this meter (through ``providers.RequestLog``).

        ``transport``: for tests (e.g. the fake chat server); default the network.
        """
        return httpx2.Client(timeout=TIMEOUT_S, transport=transport,
                            event_hooks=RequestLog(on_line=self._collect, read_stream=collect_stream).hooks())

    def totals(self) -> dict:
        """``{"requests", "prompt_tokens", "completion_tokens", "last_finish_reason"}`` over every exchange so far."""
        return {
            "requests": len(self.exchanges),
            "prompt_tokens": sum(e.prompt_tokens or 0 for e in self.exchanges),
            "completion_tokens": sum(e.completion_tokens or 0 for e in self.exchanges),
            "last_finish_reason": self.exchanges[-1].finish_reason if self.exchanges else None,
        }


def _recording(name: str, function: Callable[..., Any], runs: list) -> Callable[..., Any]:
    def wrapper(**arguments: Any) -> Any:
        runs.append((name, dict(arguments)))
        return function(**arguments)

    wrapper.__name__ = name
    wrapper.__doc__ = function.__doc__
    return wrapper


def recording_tools(runs: list) -> ToolRegistry:
    """The four course tools (same schemas), each appending ``(name, arguments)`` to ``runs`` when it runs."""
    return ToolRegistry(
        Tool(tool.name, _recording(tool.name, tool.function, runs), tool.schema)
        for tool in (default_registry().get(name) for name in default_registry().names)
    )
