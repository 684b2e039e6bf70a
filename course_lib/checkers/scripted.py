"""A scripted stand-in for the model, so a checker can test tool-calling code exactly.

Whether a real model decides to call a tool is its own judgment; whether the
student's code handles a tool call correctly is not.  So checkers for the
function-calling exercises hand the student's function this client instead
of the real one: it answers from a fixed script (a tool call, then a text)
and keeps every request body, and the checker looks at what was sent.

Nothing goes over the network: the ``openai`` client talks to an
``httpx.MockTransport``.  The replies have the shape of the Chat Completions
API (``content`` None next to ``tool_calls``, ``finish_reason`` "tool_calls").
"""

from __future__ import annotations

import json
from typing import Any, Sequence

import httpx
import openai

# Said once the script has run out, so student code that asks too often gets an
# answer (and the checker counts the requests) instead of crashing.
SCRIPT_OVER = "（脚本里没有更多回答了）"


class ScriptedModel:
    """Answers ``/chat/completions`` from a script.

    Args:
        replies: one entry per request, in order.  A string is an assistant
            text; a dict ``{"tool_calls": [(name, arguments_dict), ...]}`` is an
            assistant message that calls those tools (ids ``call_s<request>_<k>``).
    Attributes:
        requests: the JSON body of every request received (dicts), in order.
    """

    def __init__(self, replies: Sequence[Any]):
        self.replies = list(replies)
        self.requests: list[dict] = []

    def client(self) -> openai.OpenAI:
        """An ``openai.OpenAI`` client whose requests this script answers (no retries)."""
        return openai.OpenAI(
            base_url="http://scripted.checker/v1",
            api_key="not-a-real-key",
            max_retries=0,
            http_client=httpx.Client(transport=httpx.MockTransport(self._handle)),
        )

    def _handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        self.requests.append(body)
        reply = self.replies.pop(0) if self.replies else SCRIPT_OVER
        n = len(self.requests)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if isinstance(reply, str):
            message["content"] = reply
            finish = "stop"
        else:
            message["tool_calls"] = [
                {
                    "id": self.call_id(n, k),
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
                }
                for k, (name, args) in enumerate(reply["tool_calls"])
            ]
            finish = "tool_calls"
        prompt_tokens = len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4
        return httpx.Response(
            200,
            json={
                "id": f"chatcmpl-scripted-{n}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model") or "scripted",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 5, "total_tokens": prompt_tokens + 5},
            },
        )

    @staticmethod
    def call_id(request_number: int, k: int = 0) -> str:
        """The id of the ``k``-th tool call in the reply to request ``request_number`` (1-based)."""
        return f"call_s{request_number}_{k}"
