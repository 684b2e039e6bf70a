"""course_runtime/door_rules.py: the class door's request allowlist, reply cleaning and stream counting.

(a) the allowlist covers every field the course sends (an ``ast`` survey of the lessons, the library,
the solutions, the bench and the student answers); (b) bodies the ``openai`` SDK builds for the lessons'
calls pass; (c) each attack of the security review is refused with a sentence naming the field, without
raising; (d) ``clean_reply`` removes the cache measures and keeps the rest; (e) ``ReplyStream`` forwards
the same bytes however the stream is split, and counts.
"""

from __future__ import annotations

import ast
import json
import math
import time
from pathlib import Path

import httpx2
import nbformat
import openai
import pytest

from course_runtime import door_rules
from course_runtime.door_rules import (APPLY_TEMPLATE_FIELDS, CHAT_FIELDS, TOKENIZE_FIELDS, ReplyStream, ReplyTooBig,
                                       clean_reply, clean_reply_bytes, estimate_prompt_tokens, screen_request)

ROOT = Path(__file__).resolve().parent.parent
CAP = 8192  # the course's context per slot
CHAT = "/v1/chat/completions"


def screen(body, path=CHAT):
    return screen_request(path, body, max_tokens=CAP)


# ---------------------------------------------------------------------------
# (a) the survey
# ---------------------------------------------------------------------------
SDK_ONLY = {"extra_headers", "extra_query", "extra_body", "timeout"}  # SDK arguments, not body fields
REQUEST_KWARGS_ONLY = {"provider"}  # messages.request_kwargs's own argument


def _sources() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for i, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                lines = [ln for ln in cell.source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
                out.append((f"{path.name}#{i}", "\n".join(lines)))
    for pattern in ("course_lib/**/*.py", "solutions/**/*.py", "bench/**/*.py", "tests/student_answers/*.py"):
        for path in sorted(ROOT.glob(pattern)):
            out.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    return out


def _is_request_call(node: ast.Call) -> bool:
    name = ast.unparse(node.func)
    return name.endswith("completions.create") or name.split(".")[-1] == "request_kwargs"


def _dict_keys(node: ast.AST) -> set[str]:
    """String keys of a dict literal / ``dict(k=...)`` (either branch of ``a if c else b``)."""
    if isinstance(node, ast.IfExp):
        return _dict_keys(node.body) | _dict_keys(node.orelse)
    if isinstance(node, ast.Dict):
        return {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return {k.arg for k in node.keywords if k.arg}
    return set()


def survey(sources: list[tuple[str, str]] | None = None) -> dict[str, set[str]]:
    """Body field -> where the course sends it, for chat completions, /tokenize and /apply-template.

    Found: the keywords of every ``*.completions.create(...)`` / ``request_kwargs(...)`` call; for a
    ``**name`` there, the keys of dict literals assigned to ``name`` in the same source; for a
    ``**options`` / ``**self.options`` that a function or class takes as ``**kwargs``, the keywords of
    the calls to that function or class anywhere; ``extra_body={...}`` literals' keys; and the keys of
    the ``json=`` dict of an ``httpx2.post`` / ``client.post`` to ``/tokenize`` or ``/apply-template``.
    """
    found: dict[str, set[str]] = {CHAT: set(), "/tokenize": set(), "/apply-template": set()}
    where: dict[str, set[str]] = {}
    forwarding: dict[str, set[str]] = {}  # function/class name -> its named parameters
    trees = []
    for name, source in _sources() if sources is None else sources:
        try:
            trees.append((name, ast.parse(source)))
        except SyntaxError:
            continue
    for name, tree in trees:
        assigned: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, set()).update(_dict_keys(node.value))
        for scope in ast.walk(tree):
            if not isinstance(scope, (ast.FunctionDef, ast.ClassDef)):
                continue
            spread = {ast.unparse(k.value) for n in ast.walk(scope) if isinstance(n, ast.Call) and _is_request_call(n)
                      for k in n.keywords if k.arg is None}
            functions = [scope] if isinstance(scope, ast.FunctionDef) else [
                f for f in scope.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"]
            for function in functions:
                kwarg = function.args.kwarg.arg if function.args.kwarg else None
                if kwarg is None:
                    continue
                kept = {ast.unparse(target) for n in ast.walk(function) if isinstance(n, ast.Assign)
                        and isinstance(n.value, ast.Name) and n.value.id == kwarg for target in n.targets}
                if spread & ({kwarg} | kept):  # the **kwargs end up in a request
                    params = {a.arg for a in function.args.args + function.args.kwonlyargs}
                    forwarding.setdefault(scope.name, set()).update(params)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            if _is_request_call(node):
                for keyword in node.keywords:
                    if keyword.arg is None and isinstance(keyword.value, ast.Name):
                        keys = assigned.get(keyword.value.id, set()) - REQUEST_KWARGS_ONLY
                    elif keyword.arg == "extra_body":
                        keys = _dict_keys(keyword.value)
                    elif keyword.arg is None or keyword.arg in SDK_ONLY | REQUEST_KWARGS_ONLY:
                        keys = set()
                    else:
                        keys = {keyword.arg}
                    for key in keys:
                        found[CHAT].add(key)
                        where.setdefault(key, set()).add(name)
            url = next((a for a in node.args[:1]), None)
            if ast.unparse(node.func).split(".")[-1] == "post" and url is not None:
                text = ast.unparse(url)
                path = "/tokenize" if "/tokenize" in text else "/apply-template" if "/apply-template" in text else None
                body = next((k.value for k in node.keywords if k.arg == "json"), None)
                if path and body is not None:
                    keys = _dict_keys(body) or (assigned.get(body.id, set()) if isinstance(body, ast.Name) else set())
                    found[path] |= keys
    for name, tree in trees:  # calls to the functions and classes that forward **kwargs into a request
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                callee = ast.unparse(node.func).split(".")[-1]
                # f(...) or a class C(...) / module.C(...); not obj.method(...) (names clash across files)
                if callee in forwarding and (isinstance(node.func, ast.Name) or callee[:1].isupper()):
                    for keyword in node.keywords:
                        if keyword.arg and keyword.arg not in forwarding[callee] | SDK_ONLY | REQUEST_KWARGS_ONLY:
                            found[CHAT].add(keyword.arg)
                            where.setdefault(keyword.arg, set()).add(f"{name} ({callee})")
    survey.where = where
    return found


def test_the_survey_finds_what_the_lessons_send():
    found = survey()
    # the walker works: the fields every lesson series uses are found
    assert {"model", "messages", "max_tokens", "temperature", "tools", "tool_choice", "parallel_tool_calls",
            "stop", "stream", "stream_options", "response_format", "seed"} <= found[CHAT], found[CHAT]
    assert found["/tokenize"] == {"content"} and found["/apply-template"] == {"messages", "tools"}


def test_every_field_the_course_sends_is_allowed():
    found = survey()
    missing = {key: sorted(survey.where.get(key, ())) for key in found[CHAT] - set(CHAT_FIELDS)}
    assert not missing, f"the course sends fields the class door refuses (add them to door_rules): {missing}"
    assert found["/tokenize"] <= set(TOKENIZE_FIELDS)
    assert found["/apply-template"] <= set(APPLY_TEMPLATE_FIELDS)


def test_the_survey_test_can_fail():
    lesson = ("client.chat.completions.create(model=MODEL, messages=m, logprobs=True)\n"
              "OPTIONS = {'top_logprobs': 3}\n"
              "client.chat.completions.create(model=MODEL, messages=m, **OPTIONS)\n"
              "def ask(question, **extra):\n"
              "    return client.chat.completions.create(model=MODEL, messages=question, **extra)\n"
              "ask('q', frequency_penalty=1)\n")
    found = survey([("new_lesson.py", lesson)])
    assert {"logprobs", "top_logprobs", "frequency_penalty"} <= found[CHAT] - set(CHAT_FIELDS)


# ---------------------------------------------------------------------------
# (b) bodies as the openai SDK builds them
# ---------------------------------------------------------------------------
def _reply_json() -> dict:
    return {
        "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
            "role": "assistant", "content": None, "reasoning_content": "先查天气。",
            "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"北京\"}"},
                            "id": "call_0"}]}}],
        "created": 1700000000, "model": "qwen2.5-7b-instruct", "system_fingerprint": "b11434-abc",
        "object": "chat.completion",
        "usage": {"completion_tokens": 12, "prompt_tokens": 120, "total_tokens": 132,
                  "prompt_tokens_details": {"cached_tokens": 100}},
        "id": "chatcmpl-1",
        "timings": {"cache_n": 100, "prompt_n": 20, "prompt_ms": 31.2, "prompt_per_token_ms": 1.56,
                    "prompt_per_second": 641.0, "predicted_n": 12, "predicted_ms": 240.0,
                    "predicted_per_token_ms": 20.0, "predicted_per_second": 50.0},
    }


@pytest.fixture
def sdk():
    """An ``openai.OpenAI`` client whose requests are captured (``client.bodies``: (path, JSON))."""
    bodies: list[tuple[str, dict]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        bodies.append((request.url.path, body))
        if body.get("stream"):
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=STREAM)
        return httpx2.Response(200, json=_reply_json())

    transport = httpx2.MockTransport(handler)
    client = openai.OpenAI(base_url="http://door.test/v1", api_key="student-token",
                           http_client=httpx2.Client(transport=transport))
    client.bodies = bodies
    client.raw = httpx2.Client(transport=transport, base_url="http://door.test")
    return client


def _lesson_calls(client) -> None:
    from course_lib.judge import MODES
    from course_lib.messages import request_kwargs
    from course_lib.multi_agent import transfer_tool
    from course_lib.react import LINE_STOP
    from course_lib.tools.calculator import CALCULATOR_TOOL
    from course_lib.tools.weather import WEATHER_TOOL

    model = "qwen2.5-7b-instruct"
    system = {"role": "system", "content": "你是一个简洁的中文助手。"}
    user = {"role": "user", "content": "北京现在多少度？"}
    create = client.chat.completions.create
    create(model=model, messages=[system, user], max_tokens=100, temperature=0)                       # 01
    create(model=model, messages=[user], max_tokens=40, temperature=0.7, seed=2)                      # 01 seeds
    for _ in create(model=model, messages=[user], max_tokens=100, stream=True,
                    stream_options={"include_usage": True}):                                         # widgets
        pass
    reply = create(model=model, messages=[user], tools=[WEATHER_TOOL, CALCULATOR_TOOL], max_tokens=200,
                   temperature=0, parallel_tool_calls=False)                                         # 03
    message = reply.choices[0].message  # an SDK message, sent back as it is (reasoning_content too)
    create(model=model, messages=[user, message, {"role": "tool", "tool_call_id": "call_0", "content": "晴，25°C"}],
           tools=[WEATHER_TOOL], max_tokens=300)
    for choice in ("auto", "required", "none", {"type": "function", "function": {"name": "get_weather"}}):
        create(model=model, messages=[user], tools=[WEATHER_TOOL], tool_choice=choice, max_tokens=100)
    transfers = [transfer_tool("shop", "商品"), transfer_tool("weather", "天气")]
    create(model=model, messages=[system, user], tools=transfers, tool_choice="auto", temperature=0, max_tokens=100)
    create(model=model, messages=[system, user], max_tokens=200, temperature=0, stop=LINE_STOP)       # 05
    for mode in MODES.values():                                                                      # 10
        create(model=model, messages=[system, user], temperature=0, max_tokens=160,
               **({} if mode is None else {"response_format": mode}))
    create(model=model, messages=[{"role": "user", "content": [{"type": "text", "text": "你好"}]}], max_tokens=50)
    create(**request_kwargs(model, [system, user], tools=[WEATHER_TOOL], tool_choice="auto",
                            parallel_tool_calls=True, max_tokens=300, temperature=0))                # 04
    create(**request_kwargs("gpt-5-mini", [system, user], max_tokens=300, temperature=0))             # renamed field
    create(model=model, messages=[user], max_tokens=50, extra_body={"enable_thinking": False})
    client.raw.post("/tokenize", json={"content": "<|im_start|>user\n你好<|im_end|>"})                # 07
    client.raw.post("/apply-template", json={"messages": [system, user], "tools": [WEATHER_TOOL]})


STREAM_EVENTS = [
    {"choices": [{"finish_reason": None, "index": 0, "delta": {"role": "assistant", "content": None}}]},
    {"choices": [{"finish_reason": None, "index": 0, "delta": {"content": "北京"}}]},
    {"choices": [{"finish_reason": None, "index": 0, "delta": {"content": "晴，"}}]},
    {"choices": [{"finish_reason": None, "index": 0, "delta": {"content": "25°C。"}}]},
    {"choices": [{"finish_reason": "stop", "index": 0, "delta": {}}]},
    {"choices": [], "usage": {"completion_tokens": 3, "prompt_tokens": 42, "total_tokens": 45,
                              "prompt_tokens_details": {"cached_tokens": 30}},
     "timings": {"cache_n": 30, "prompt_n": 12, "prompt_ms": 20.5, "prompt_per_token_ms": 1.7,
                 "prompt_per_second": 585.3, "predicted_n": 3, "predicted_ms": 60.0,
                 "predicted_per_token_ms": 20.0, "predicted_per_second": 50.0}},
]
COMMON = {"created": 1700000000, "id": "chatcmpl-7", "model": "qwen2.5-7b-instruct",
          "system_fingerprint": "b11434-abc", "object": "chat.completion.chunk"}


def _event(data: dict) -> bytes:
    # one server-sent event as llama-server writes it: "data: " + compact JSON + a blank line
    return b"data: " + json.dumps({**data, **COMMON}, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


STREAM = b"".join(_event(e) for e in STREAM_EVENTS) + b"data: [DONE]\n\n"


def test_the_bodies_the_sdk_builds_for_the_lessons_pass(sdk):
    _lesson_calls(sdk)
    assert len(sdk.bodies) >= 17
    for path, body in sdk.bodies:
        assert screen(body, path) is None, (path, json.dumps(body, ensure_ascii=False)[:300], screen(body, path))
    sent = {key for path, body in sdk.bodies if path == CHAT for key in body}
    assert {"stream_options", "response_format", "tool_choice", "seed", "stop", "max_completion_tokens",
            "enable_thinking", "parallel_tool_calls"} <= sent
    assert any("reasoning_content" in m for _, b in sdk.bodies for m in b.get("messages", []) if isinstance(m, dict))


def test_the_lessons_tools_fit_the_schema_caps():
    from course_lib.tools import registry
    from course_lib.tools.orders import GET_PRODUCT_TOOL, ORDER_TOOL, REVIEWS_TOOL
    from course_lib.tools.shop_notes import NOTES_TOOL, PRODUCT_TOOL
    from course_lib.tools.weather import WEATHER_TOOL

    tools = [WEATHER_TOOL, registry.CALCULATOR_TOOL, registry.KNOWLEDGE_TOOL, GET_PRODUCT_TOOL, ORDER_TOOL,
             REVIEWS_TOOL, NOTES_TOOL, PRODUCT_TOOL]
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    assert screen(body) is None
    assert screen({"messages": body["messages"], "tools": tools}, "/apply-template") is None


# ---------------------------------------------------------------------------
# (c) attacks
# ---------------------------------------------------------------------------
def _chat(**fields) -> dict:
    return {"model": "qwen2.5-7b-instruct", "messages": [{"role": "user", "content": "hi"}], **fields}


def _nested(levels: int, leaf=None) -> dict:
    value = leaf if leaf is not None else {}
    for _ in range(levels):  # built iteratively: no recursion here either
        value = {"a": value}
    return value


def _deep_list(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


ATTACKS = [
    ("grammar", _chat(grammar="root ::= " + "(" * 60_000 + "\"x\"" + ")" * 60_000)),
    ("n_probs", _chat(n_probs=100_000)),
    ("n", _chat(n=4)),
    ("n", _chat(n=True)),
    ("n", _chat(n=1.0)),
    ("id_slot", _chat(id_slot=0)),
    ("cache_prompt", _chat(cache_prompt=True)),
    ("samplers", _chat(samplers=["top_k"])),
    ("logit_bias", _chat(logit_bias={"123": 100})),
    ("response_fields", _chat(response_fields=["timings"])),
    ("timings_per_token", _chat(timings_per_token=True)),
    ("return_progress", _chat(return_progress=True)),
    ("n_cmpl", _chat(n_cmpl=4)),
    ("lora", _chat(lora=[{"id": 0, "scale": 1}])),
    ("max_tokens", _chat(max_tokens=CAP + 1)),
    ("max_tokens", _chat(max_tokens=-1)),
    ("max_tokens", _chat(max_tokens=True)),
    ("max_tokens", _chat(max_tokens=10.5)),
    ("max_completion_tokens", _chat(max_completion_tokens=10 ** 9)),
    ("top_logprobs", _chat(top_logprobs=100)),
    ("logprobs", _chat(logprobs=True)),
    ("response_format", _chat(response_format={"type": "json_schema", "json_schema": {  # over MAX_BODY_VALUES first
        "name": "x", "schema": {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "x" * 20}
                                                                 for i in range(40_000)}}}})),
    ("response_format.json_schema.schema", _chat(response_format={"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "string", "description": "x" * 1_000_000}}})),
    ("response_format.json_schema.schema", _chat(response_format={"type": "json_schema", "json_schema": {
        "name": "x", "schema": _nested(20)}})),
    ("response_format.json_schema.schema.minItems", _chat(response_format={"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "array", "items": {"type": "string"}, "minItems": 100_000}}})),
    ("response_format.json_schema.schema.pattern", _chat(response_format={"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "string", "pattern": "a{1000000}"}}})),
    ("response_format.json_schema.schema.pattern", _chat(response_format={"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "string", "pattern": "^[a-z]{2,100000}$"}}})),
    ("response_format.schema", _chat(response_format={"type": "json_object", "schema": {"type": "object"}})),
    ("response_format.type", _chat(response_format={"type": "regex"})),
    ("tools[0].function.parameters", _chat(tools=[{"type": "function", "function": {
        "name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "string", "maxLength": 10 ** 6}}}}}])),
    ("tools[0].function.parameters.properties.x.maxLength", _chat(tools=[{"type": "function", "function": {
        "name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "string", "maxLength": 10 ** 6}}}}}])),
    ("tools", _chat(tools=[{"type": "function", "function": {"name": f"f{i}"}} for i in range(1000)])),
    ("messages[0].cache_prompt", _chat(messages=[{"role": "user", "content": "hi", "cache_prompt": True}])),
    ("messages[1].role", _chat(messages=[{"role": "user", "content": "hi"}, {"role": "admin", "content": "x"}])),
    ("messages[0].content[0].type", _chat(messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "file:///etc/passwd"}}]}])),
    ("messages[0].content", _chat(messages=[{"role": "user", "content": "x" * 1_000_000}])),
    ("messages", _chat(messages=[{"role": "user", "content": "x"}] * 100_000)),
    ("messages", _chat(messages=_nested(100_000))),
    ("response_format", _chat(response_format=_nested(100_000))),
    ("stop", _chat(stop=_deep_list(100_000))),
    ("stop", _chat(stop=["a", "b", "c", "d", "e"])),
    ("stop", _chat(stop="x" * 10_000)),
    ("temperature", _chat(temperature=math.nan)),
    ("temperature", _chat(temperature=math.inf)),
    ("temperature", _chat(temperature=True)),
    ("temperature", _chat(temperature="0.5")),
    ("temperature", _chat(temperature=3)),
    ("top_p", _chat(top_p=1.5)),
    ("seed", _chat(seed=True)),
    ("seed", _chat(seed=1.5)),
    ("seed", _chat(seed=10 ** 40)),
    ("stream", _chat(stream="yes")),
    ("stream_options.continuous_usage_stats", _chat(stream=True, stream_options={"include_usage": True,
                                                                                  "continuous_usage_stats": True})),
    ("tool_choice", _chat(tool_choice="any")),
    ("model", _chat(model="m" * 10_000)),
    ("model", {"messages": [{"role": "user", "content": "hi"}]}),
    ("chat_template_kwargs", _chat(chat_template_kwargs={"enable_thinking": True})),
]


@pytest.mark.parametrize("field, body", ATTACKS, ids=[f"{i}-{a[0]}" for i, a in enumerate(ATTACKS)])
def test_each_attack_is_refused_with_a_sentence_naming_the_field(field, body):
    started = time.perf_counter()
    sentence = screen(body)
    assert isinstance(sentence, str) and field in sentence, sentence
    assert "unreadable" not in sentence and sentence != door_rules.t("door_rules.unreadable")
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("body", [[], "x", None, 5, 1.5, True, [{"model": "m"}]])
def test_a_body_that_is_not_an_object_is_refused(body):
    assert screen(body) == door_rules.t("door_rules.not_object", got=door_rules._kind(body))


@pytest.mark.parametrize("path, body, field", [
    ("/tokenize", {"content": "hi", "with_pieces": True}, "with_pieces"),
    ("/tokenize", {"content": [1, 2, 3]}, "content"),
    ("/tokenize", {}, "content"),
    ("/apply-template", {"messages": [], "chat_template_kwargs": {}}, "chat_template_kwargs"),
    ("/apply-template", {"messages": [{"role": "user", "content": "x", "id_slot": 1}]}, "messages[0].id_slot"),
    ("/completion", {"prompt": "x"}, "/completion"),
    ("/slots/0?action=erase", {}, "/slots/0"),
])
def test_the_other_paths_have_their_own_allowlist(path, body, field):
    sentence = screen(body, path)
    assert isinstance(sentence, str) and field in sentence, sentence


def test_a_non_string_key_or_a_python_object_is_refused_not_raised():
    assert screen(_chat(messages=[{"role": "user", "content": "x", 1: 2}])) is not None
    assert screen(_chat(temperature=object())) is not None
    assert screen(_chat(stop={"a", "b"})) is not None


def test_the_ordinary_values_pass():
    assert screen(_chat(response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {
        "type": "string", "pattern": "^[0-9]{3}-[a-z]{2,8}$", "maxLength": 200}}})) is None
    assert screen(_chat(max_tokens=CAP, temperature=0, top_p=1, seed=0, n=1, stop=None, stream=False)) is None
    assert screen(_chat(max_tokens=1, temperature=2.0, top_p=0.0, seed=-1, tools=None, tool_choice=None)) is None
    assert screen(_chat(messages=[{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"}])) is None


# ---------------------------------------------------------------------------
# (d) clean_reply
# ---------------------------------------------------------------------------
def test_clean_reply_removes_the_cache_measures_and_keeps_the_rest():
    reply = _reply_json()
    reply["prompt_progress"] = {"total": 120, "cache": 100, "processed": 20, "time_ms": 31.2}
    reply["__verbose"] = {"tokens_cached": 100, "id_slot": 2}
    before = json.loads(json.dumps(reply))
    cleaned = clean_reply(reply)
    assert reply == before  # not changed in place
    assert "timings" not in cleaned and "prompt_progress" not in cleaned and "__verbose" not in cleaned
    assert cleaned["usage"] == {"completion_tokens": 12, "prompt_tokens": 120, "total_tokens": 132}
    for key in ("choices", "created", "model", "system_fingerprint", "object", "id"):
        assert cleaned[key] == before[key]
    assert "cached_tokens" not in json.dumps(cleaned) and "cache_n" not in json.dumps(cleaned)


def test_clean_reply_bytes():
    raw = json.dumps(_reply_json(), ensure_ascii=False).encode()
    cleaned = json.loads(clean_reply_bytes(raw))
    assert cleaned == clean_reply(_reply_json())
    assert cleaned["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == "{\"city\":\"北京\"}"
    for content in (b"not json", b"\xff\xfe", b"[1, 2]", b"", b"[" * 100_000):
        assert clean_reply_bytes(content) is content
    plain = json.dumps({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
    assert clean_reply_bytes(plain) is plain  # nothing to remove: the same bytes
    assert clean_reply(["x"]) == ["x"]


def test_the_sdk_still_reads_a_cleaned_reply():
    from openai.types.chat import ChatCompletion
    cleaned = ChatCompletion.model_validate(json.loads(clean_reply_bytes(json.dumps(_reply_json()).encode())))
    assert cleaned.usage.prompt_tokens == 120 and cleaned.usage.prompt_tokens_details is None
    assert cleaned.choices[0].message.tool_calls[0].function.name == "get_weather"


# ---------------------------------------------------------------------------
# (e) ReplyStream
# ---------------------------------------------------------------------------
def _forward(pieces: list[bytes], estimate: int = 0) -> tuple[bytes, ReplyStream]:
    stream = ReplyStream(estimate)
    out = b"".join(stream.feed(p) for p in pieces) + stream.flush()
    return out, stream


def test_the_stream_is_cleaned_and_counted():
    out, stream = _forward([STREAM], estimate=7)
    assert b"cached_tokens" not in out and b"timings" not in out and b"cache_n" not in out
    assert out.endswith(b"data: [DONE]\n\n")
    lines = out.split(b"\n\n")
    assert lines[:5] == STREAM.split(b"\n\n")[:5]  # chunks with nothing to remove: byte for byte
    last = json.loads(lines[5][len(b"data: "):])
    assert last["usage"] == {"completion_tokens": 3, "prompt_tokens": 42, "total_tokens": 45}
    assert stream.completion_tokens_so_far == 3  # the role chunk and the finish chunk carry no token
    assert stream.usage == (42, 3) and stream.counted() == (42, 3)


@pytest.mark.parametrize("ending", [b"\n\n", b"\r\n\r\n"])
def test_every_split_forwards_the_same_bytes(ending):
    whole = STREAM.replace(b"\n\n", ending) + b": keep-alive comment" + ending
    expected, _ = _forward([whole])
    assert "°".encode() in whole  # there are multi-byte characters to split
    for cut in range(len(whole) + 1):
        out, stream = _forward([whole[:cut], whole[cut:]])
        assert out == expected, cut
        assert stream.counted() == (42, 3)
    out, stream = _forward([whole[i:i + 1] for i in range(len(whole))])
    assert out == expected and stream.counted() == (42, 3)


def test_usage_from_timings_alone_without_include_usage():
    events = STREAM_EVENTS[:4] + [{**STREAM_EVENTS[4], "timings": STREAM_EVENTS[5]["timings"]}]
    whole = b"".join(_event(e) for e in events) + b"data: [DONE]\n\n"
    out, stream = _forward([whole])
    assert stream.usage == (30 + 12, 3) and b"timings" not in out


def test_a_stream_cut_before_its_last_chunk_is_still_billed():
    body = _chat(messages=[{"role": "user", "content": "北京现在多少度？" * 10}])
    estimate = estimate_prompt_tokens(body)
    cut = STREAM.index(b"data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\"25")
    out, stream = _forward([STREAM[:cut + 40]], estimate)  # the third token's line is still open at the cut
    assert stream.usage is None
    assert stream.counted() == (estimate, 2) and estimate >= 80
    assert out.endswith(STREAM[cut:cut + 40])  # the open line is forwarded at flush, unchanged


def test_a_line_too_long_is_an_error_the_caller_sees():
    stream = ReplyStream(max_line=1000)
    stream.feed(b"data: {\"a\": \"" + b"x" * 900)
    with pytest.raises(ReplyTooBig):
        stream.feed(b"x" * 200)
    stream = ReplyStream(max_line=1000)
    with pytest.raises(ReplyTooBig):
        stream.feed(b"data: " + b"x" * 2000 + b"\n\n")
    assert issubclass(ReplyTooBig, ValueError)


def test_odd_lines_pass_unchanged():
    odd = b"data: [DONE]\n: comment\n\nevent: x\ndata: not json\ndata: [1,2]\ndata:{\"timings\":{\"cache_n\":1}}\n"
    out, stream = _forward([odd])
    assert out == odd.replace(b"data:{\"timings\":{\"cache_n\":1}}", b"data:{}")
    assert stream.counted() == (0, 0)


def test_estimate_prompt_tokens():
    assert estimate_prompt_tokens([]) == 1 and estimate_prompt_tokens({}) == 1
    assert estimate_prompt_tokens({"messages": "x"}) == 1
    chinese = "北京现在多少度" * 10  # 70 characters: at most 70 tokens for Qwen2.5
    assert estimate_prompt_tokens(_chat(messages=[{"role": "user", "content": chinese}])) >= 70 + 4
    digits = "1234567890" * 5  # Qwen2 writes each digit as a token
    assert estimate_prompt_tokens(_chat(messages=[{"role": "user", "content": digits}])) >= 50
    with_tools = _chat(tools=[{"type": "function", "function": {"name": "f", "description": "d" * 300}}])
    assert estimate_prompt_tokens(with_tools) >= 100
