"""A fake chat-completions server for unit tests: scripted replies, no network.

``FakeLLM`` is an ``httpx.MockTransport`` handler.  Give it a list of
replies; each request to ``/chat/completions`` pops the next one and the
request body is kept in ``requests`` so tests can check exactly what was sent.

A reply can be:
* a string                -> an assistant message with that content;
* a dict with ``tool_calls`` (list of ``(name, arguments)`` pairs or full
  call dicts) and optional ``content``/``finish_reason``/``usage``;
* an ``httpx.Response``   -> returned as it is (e.g. a 429 or a 500);
* an exception instance   -> raised (e.g. ``httpx.ConnectError``).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai


class FakeLLM:
    def __init__(self, replies: list[Any] | None = None, model: str = "fake-model", default: Any = None):
        self.replies = list(replies or [])
        self.default = default  # used when the script runs out (None = fail the test)
        self.requests: list[dict] = []
        self.model = model

    def add(self, *replies: Any) -> "FakeLLM":
        self.replies.extend(replies)
        return self

    def client(self, **kwargs: Any) -> openai.OpenAI:
        """An openai client whose HTTP goes to this fake (max_retries=0 unless given)."""
        kwargs.setdefault("max_retries", 0)
        return openai.OpenAI(
            base_url="http://fake.local/v1",
            api_key="test-key-not-real",
            http_client=httpx.Client(transport=httpx.MockTransport(self)),
            **kwargs,
        )

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        self.requests.append(body)
        if not self.replies and self.default is not None:
            self.replies.append(self.default)
        if not self.replies:
            raise AssertionError(f"FakeLLM got request #{len(self.requests)} but has no scripted reply left")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, httpx.Response):
            return reply
        return httpx.Response(200, json=self.completion(reply, body))

    def completion(self, reply: Any, body: dict) -> dict:
        if isinstance(reply, str):
            reply = {"content": reply}
        message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
        calls = []
        for i, call in enumerate(reply.get("tool_calls") or []):
            if isinstance(call, (tuple, list)):
                name, args = call
                call = {
                    "id": f"call_{len(self.requests)}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)},
                }
            calls.append(call)
        if calls:
            message["tool_calls"] = calls
        prompt_tokens = sum(len(json.dumps(m, ensure_ascii=False)) for m in body.get("messages", [])) // 4
        usage = reply.get("usage") or {"prompt_tokens": prompt_tokens, "completion_tokens": 7, "total_tokens": prompt_tokens + 7}
        return {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", self.model),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.get("finish_reason") or ("tool_calls" if calls else "stop"),
                }
            ],
            "usage": usage,
        }


def raw_completion(message: dict, finish_reason: str = "stop") -> httpx.Response:
    """A hand-written server answer, for shapes ``FakeLLM.completion`` does not produce
    (e.g. ``arguments`` sent as an object, or a missing tool-call id)."""
    return httpx.Response(
        200,
        json={
            "id": "chatcmpl-raw",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    )


def sdk_message(reply: Any, user: str = "北京天气怎么样？") -> Any:
    """The ``choices[0].message`` the openai SDK builds from ``reply`` (any FakeLLM reply)."""
    fake = FakeLLM([reply])
    messages = [{"role": "user", "content": user}]
    return fake.client().chat.completions.create(model="fake-model", messages=messages).choices[0].message
