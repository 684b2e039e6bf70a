"""A scripted stand-in for the model, so a checker can test tool-calling code exactly.

Used by the checkers of notebooks 03 and 06, and by the unit tests' fake
server (``tests/fakes.py`` builds ``FakeLLM`` on it) - the course has one
scripted chat server.

Whether a real model decides to call a tool is its own judgment; whether the
student's code handles a tool call correctly is not.  So checkers for the
function-calling exercises hand the student's function this client instead
of the real one: it answers from a fixed script (a tool call, then a text)
and keeps every request body, and the checker looks at what was sent.

Nothing goes over the network: the ``openai`` client talks to an
``httpx2.MockTransport``.  The replies have the shape of the Chat Completions
API (``content`` None next to ``tool_calls``, ``finish_reason`` "tool_calls");
a request with ``"stream": true`` gets the same reply as server-sent events
(``events``), so an answer written with ``stream=True`` is checked like any other.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

import httpx2
import openai

from ..messages import MessageError, validate
from . import t

# Said once the script has run out, so student code that asks too often gets an
# answer (and the checker counts the requests) instead of crashing.
SCRIPT_OVER = "（脚本里没有更多回答了）"
COMPLETION_TOKENS = 7  # reported for every scripted reply (unless the reply gives its own usage)


class ScriptedModel:
    """Answers ``/chat/completions`` from a script; an ``httpx2.MockTransport`` handler.

    Args:
        replies: one entry per request, in order:

            * a str: an assistant text;
            * a dict ``{"tool_calls": [...], "content": ..., "finish_reason": ...,
              "usage": {...}}`` (every key optional): ``tool_calls`` entries are
              ``(name, arguments)`` pairs (arguments a dict, or a str sent as it
              is; ids ``call_id(request, k)``) or full call dicts; ``tool_calls: []``
              is sent as ``[]``; ``finish_reason`` is sent as given, None as ``null``
              (without the key: ``"tool_calls"`` next to calls, else ``"stop"``);
            * an ``httpx2.Response``: returned as it is (e.g. a 429 or a 500);
            * an exception instance: raised (e.g. ``httpx2.ConnectError``).
        when_done: the reply used for every request after the script has run
            out (default ``SCRIPT_OVER``); None raises ``AssertionError`` instead.
        model: the model name answered when the request names none.
    Attributes:
        requests: the JSON body of every request received (dicts), in order.
    """

    base_url = "http://scripted.checker/v1"
    TEXT_PIECE = 2  # characters of text per streamed chunk (``events``)
    ARGUMENT_PIECE = 3  # characters of a tool call's arguments per streamed chunk
    api_key = "not-a-real-key"

    def __init__(self, replies: Sequence[Any] = (), when_done: Any = SCRIPT_OVER, model: str = "scripted"):
        self.replies = list(replies)
        self.when_done = when_done
        self.model = model
        self.requests: list[dict] = []

    def invalid_request(self) -> str | None:
        """The first problem of the requests received, as ``messages.validate(strict=True)`` says it
        (``"第 2 次请求：messages[1]：..."``), or None when every request could be sent to a strict API."""
        for number, body in enumerate(self.requests, 1):
            try:
                validate(body.get("messages") or [], strict=True)
            except MessageError as exc:
                return t("check.scripted.invalid_request", number=number, problem=exc)
        return None

    def refused_request(self) -> str | None:
        """The first request a real provider would refuse for its arguments (``checkers.request_problem``:
        a temperature out of range, an unknown message key ...), as ``"第 N 次请求：..."``, or None."""
        from . import request_problem

        for number, body in enumerate(self.requests, 1):
            problem = request_problem(body)
            if problem:
                return t("check.request.numbered", number=number, problem=problem)
        return None

    def add(self, *replies: Any) -> "ScriptedModel":
        """Append replies to the script; returns self."""
        self.replies.extend(replies)
        return self

    def client(self, **kwargs: Any) -> openai.OpenAI:
        """An ``openai.OpenAI`` client whose requests this script answers (``max_retries=0`` unless given)."""
        kwargs.setdefault("max_retries", 0)
        return openai.OpenAI(
            base_url=self.base_url,
            api_key=self.api_key,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self)),
            **kwargs,
        )

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content or b"{}")
        self.requests.append(body)
        if self.replies:
            reply = self.replies.pop(0)
        elif self.when_done is not None:
            reply = self.when_done
        else:
            raise AssertionError(t("check.script_over", name=type(self).__name__, request=len(self.requests)))
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, httpx2.Response):
            return reply
        completion = self.completion(reply, body)
        if body.get("stream"):  # answered as the API streams: server-sent events (notebook 01 teaches stream=True)
            return self.events(completion, bool((body.get("stream_options") or {}).get("include_usage")))
        return httpx2.Response(200, json=completion)

    def events(self, completion: dict, include_usage: bool = False) -> httpx2.Response:
        """``completion`` (a ``chat.completion`` dict) as a ``text/event-stream`` response, cut as llama-server cuts it.

        A role chunk, the text in pieces of ``TEXT_PIECE`` characters, each tool call in a chunk with
        its id, type, name and the first ``ARGUMENT_PIECE`` characters of ``arguments`` followed by
        chunks of the rest, a chunk with ``finish_reason``, a usage chunk when ``include_usage``, and
        ``data: [DONE]``.
        """
        head = {key: completion[key] for key in ("id", "created", "model")}
        head["object"] = "chat.completion.chunk"
        choice = completion["choices"][0]
        message = choice["message"]
        text, a = message.get("content") or "", self.ARGUMENT_PIECE
        deltas: list[dict] = [{"role": "assistant"}]
        deltas += [{"content": text[i:i + self.TEXT_PIECE]} for i in range(0, len(text), self.TEXT_PIECE)]
        for k, call in enumerate(message.get("tool_calls") or []):
            arguments = call["function"]["arguments"]
            deltas.append({"tool_calls": [{"index": k, "id": call["id"], "type": "function",
                                           "function": {"name": call["function"]["name"], "arguments": arguments[:a]}}]})
            deltas += [{"tool_calls": [{"index": k, "function": {"arguments": arguments[j:j + a]}}]}
                       for j in range(a, len(arguments), a)]
        chunks = [{**head, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice.get("finish_reason")}]})
        if include_usage:
            chunks.append({**head, "choices": [], "usage": completion.get("usage")})
        body = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())

    def completion(self, reply: Any, body: dict) -> dict:
        """The ``chat.completion`` JSON answering ``body`` with ``reply`` (a str or a dict, see the class)."""
        if isinstance(reply, str):
            reply = {"content": reply}
        n = len(self.requests)
        message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
        calls = []
        for k, call in enumerate(reply.get("tool_calls") or []):
            if isinstance(call, (tuple, list)):
                name, args = call
                arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
                call = {"id": self.call_id(n, k), "type": "function", "function": {"name": name, "arguments": arguments}}
            calls.append(call)
        if calls or reply.get("tool_calls") == []:  # [] as some providers send it with a plain text
            message["tool_calls"] = calls
        prompt_tokens = len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4
        usage = reply.get("usage") or {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": COMPLETION_TOKENS,
            "total_tokens": prompt_tokens + COMPLETION_TOKENS,
        }
        return {
            "id": f"chatcmpl-scripted-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model") or self.model,
            "choices": [
                {"index": 0, "message": message,
                 "finish_reason": reply["finish_reason"] if "finish_reason" in reply else ("tool_calls" if calls else "stop")}
            ],
            "usage": usage,
        }

    @staticmethod
    def call_id(request_number: int, k: int = 0) -> str:
        """The id of the ``k``-th tool call in the reply to request ``request_number`` (1-based)."""
        return f"call_s{request_number}_{k}"


# What real providers send next to tool calls besides "tool_calls" (issue 54): llama-server and others
# "stop", a reply cut at max_tokens "length" (notebook 06's seven calls), some a null finish_reason;
# and with a plain text some send "tool_calls": [].  Code that decides on finish_reason, or on
# "tool_calls is not None", breaks on them; code that reads whether tool_calls has calls does not.
QUIRK_FINISH_REASONS = ("stop", "tool_calls", "length", None)
QUIRK_CONTENT = "好的，我来查一下。"  # text some models write beside their calls


def with_quirks(replies: Sequence[Any], start: int = 0) -> list[Any]:
    """``replies`` (a script, as ``ScriptedModel`` takes it) with real providers' quirks, the same in every kernel.

    The k-th reply with tool calls (counted from ``start``) gets ``QUIRK_FINISH_REASONS[k % 4]`` as
    its ``finish_reason`` and, every other one, ``QUIRK_CONTENT`` beside its calls (unless it has a
    content); every other plain text (a str) is sent with ``tool_calls: []``.  Other replies stay.
    """
    out, calls, texts = [], start, start
    for reply in replies:
        if isinstance(reply, dict) and reply.get("tool_calls"):
            reply = {"finish_reason": QUIRK_FINISH_REASONS[calls % len(QUIRK_FINISH_REASONS)], **reply}
            if calls % 2 == 0:
                reply.setdefault("content", QUIRK_CONTENT)
            calls += 1
        elif isinstance(reply, str):
            reply = {"content": reply, "tool_calls": []} if texts % 2 == 0 else reply
            texts += 1
        out.append(reply)
    return out
