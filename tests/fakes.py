"""The unit tests' fake chat-completions server: the course's ``ScriptedModel``, strict.

``FakeLLM`` is ``course_lib.checkers.scripted.ScriptedModel`` (one scripted
server for checkers and tests; see there for the reply forms: a string, a
dict with ``tool_calls``/``content``/``finish_reason``/``usage``, an
``httpx2.Response`` or an exception), except that a request after the script
has run out fails the test unless ``default`` is given.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

from course_lib.tools import WEATHER_TOOL, get_weather
from course_lib.tools.registry import Tool, ToolRegistry

from course_lib.checkers.scripted import ScriptedModel


class FakeLLM(ScriptedModel):
    """A ``ScriptedModel`` for tests: ``default`` answers once the script is over (None = fail the test)."""

    base_url = "http://fake.local/v1"
    api_key = "test-key-not-real"

    def __init__(self, replies: list[Any] | None = None, model: str = "fake-model", default: Any = None):
        super().__init__(replies or [], when_done=default, model=model)


def raw_completion(message: dict, finish_reason: str = "stop") -> httpx2.Response:
    """A hand-written server answer, for shapes ``ScriptedModel.completion`` does not produce
    (e.g. ``arguments`` sent as an object, or a missing tool-call id)."""
    return httpx2.Response(
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


def sse_response(deltas: list[Any], finish_reason: str | None = "stop", usage: dict | None = None) -> httpx2.Response:
    """A hand-written streamed answer (``text/event-stream``): one chunk per item of ``deltas``.

    Each item is a ``choices[0].delta`` dict, or a whole chunk dict (one with a
    ``choices`` key) sent as it is.  A last chunk carries ``finish_reason``
    (none if None), and a usage chunk follows when ``usage`` is given.
    """
    head = {"id": "chatcmpl-sse", "object": "chat.completion.chunk", "created": 0, "model": "fake-model"}
    chunks = [d if "choices" in d else {**head, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    if finish_reason is not None:
        chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish_reason}]})
    if usage is not None:
        chunks.append({**head, "choices": [], "usage": usage})
    body = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


FILTERED = [{"prompt_index": 0, "content_filter_results": {"violence": {"filtered": True, "severity": "medium"}}}]


def no_choices(**extra: Any) -> httpx2.Response:
    """HTTP 200 with ``"choices": []`` (Azure's content filter, some relays); ``extra`` fields are added."""
    body = {"id": "chatcmpl-empty", "object": "chat.completion", "created": 0, "model": "fake-model", "choices": []}
    return httpx2.Response(200, json={**body, **extra})


def lone_surrogate_completion(text: str = "好的\ud83d") -> httpx2.Response:
    """A reply whose JSON holds a lone UTF-16 surrogate escape (``"\\ud83d"``: half an emoji)."""
    body = {"id": "chatcmpl-half", "object": "chat.completion", "created": 0, "model": "fake-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}
    return httpx2.Response(200, headers={"content-type": "application/json"}, content=json.dumps(body).encode())


def bad_request(message: str, param: str | None = None) -> httpx2.Response:
    """HTTP 400 in the OpenAI error shape, as a provider sends it for a body it refuses."""
    return httpx2.Response(400, json={"error": {"message": message, "type": "invalid_request_error",
                                               "param": param, "code": None}})


class StrictLLM(FakeLLM):
    """A ``FakeLLM`` that answers 400 to a body its endpoint would refuse, as the real one does.

    Args:
        check: called with each request body (a dict); returns the endpoint's
            error message, or None when the body is acceptable.
    Attributes:
        rejected: the bodies answered with 400 (also in ``requests``).
    """

    def __init__(self, check: Any, replies: list[Any] | None = None, **kwargs: Any):
        super().__init__(replies, **kwargs)
        self.check = check
        self.rejected: list[dict] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content or b"{}")
        problem = self.check(body)
        if problem:
            self.requests.append(body)
            self.rejected.append(body)
            return bad_request(problem)
        return super().__call__(request)


def openai_reasoning_check(body: dict) -> str | None:
    """What OpenAI answers for gpt-5*/o1/o3/o4-mini (messages as the API writes them)."""
    if "max_tokens" in body:
        return "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
    if "stop" in body:
        return "Unsupported parameter: 'stop' is not supported with this model."
    if "temperature" in body and body["temperature"] != 1:
        return (f"Unsupported value: 'temperature' does not support {body['temperature']} with this model. "
                "Only the default (1) value is supported.")
    return None


def dashscope_qwen3_check(body: dict) -> str | None:
    """DashScope's answer to a non-streaming Qwen3 request that does not turn thinking off."""
    if not body.get("stream") and body.get("enable_thinking") is not False:
        return "<400> InternalError.Algo.InvalidParameter: parameter.enable_thinking must be set to false for non-streaming calls"
    return None


def relay_stream_options_check(body: dict) -> str | None:
    """A one-api/new-api style relay that does not know ``stream_options``."""
    if "stream_options" in body:
        return "Unknown parameter: 'stream_options'"
    return None


# The approval tests' shop (test_approval.py, test_approval_gate.py): one read tool, one write tool.
ORDER_SCHEMA = {"type": "function", "function": {
    "name": "place_order", "description": "下单",
    "parameters": {"type": "object", "properties": {"product_id": {"type": "string"}, "quantity": {"type": "integer"}},
                   "required": ["product_id", "quantity"]}}}


def shop():
    """A read tool and a write tool that needs approval and records every write it makes: ``(written, registry)``."""
    written: list[dict] = []

    def place_order(product_id: str, quantity: int) -> str:
        written.append({"product_id": product_id, "quantity": quantity})
        return json.dumps({"order_id": len(written), "product_id": product_id, "quantity": quantity})

    registry = ToolRegistry([Tool("get_weather", get_weather, WEATHER_TOOL),
                             Tool("place_order", place_order, ORDER_SCHEMA, needs_approval=True)])
    return written, registry


class BadRepr:
    """What a student's function may return that breaks a careless checker: its ``repr``, truth and ``==`` all raise."""

    def __repr__(self):
        raise RuntimeError("no repr")

    def __bool__(self):
        raise RuntimeError("no bool")

    def __eq__(self, other):
        raise RuntimeError("no eq")

    __hash__ = object.__hash__


def yields_true(*args):
    """A generator function: what a student gets by writing ``yield`` for ``return``."""
    yield True


def checker_fails(checker, answer, capsys, key=None):
    """Run an exercise checker on ``answer``: it must fail with a ❌ line and no traceback, and with
    the hint ``key`` when one is given.  Returns the checker's result."""
    result = checker(answer)
    out = capsys.readouterr().out
    assert result.passed is False, (getattr(answer, "__name__", answer), result.message)
    assert "❌" in out and "Traceback" not in out
    if key:
        assert result.hint == key, (result.hint, result.message)
    return result


def checker_passes(checker, answer, capsys):
    """Run an exercise checker on ``answer``: it must pass with a ✅ line."""
    result = checker(answer)
    assert result.passed is True, (getattr(answer, "__name__", answer), result.message)
    assert "✅" in capsys.readouterr().out
