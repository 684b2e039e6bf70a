"""Tests for course_lib.messages (issue 5, items 1-3) and the message table (item 9).

Every SDK object here comes from the real openai client talking to FakeLLM
(httpx2.MockTransport, no network), so the tests see what a notebook sees.
"""

from __future__ import annotations

import json
import sys
import warnings

import httpx2
import pytest

from fakes import FakeLLM, raw_completion, sdk_message

from course_lib import messages as M
from course_lib.texts import t
from course_lib.messages import MessageError, content_text, normalize, request_kwargs, to_dict, to_wire, validate
from course_lib.providers import PRESETS, Provider

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "查询城市天气",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
USER = {"role": "user", "content": "北京和上海天气怎么样？"}


def call(call_id, name="get_weather", arguments='{"city": "北京"}'):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def asks(*call_ids, content=None):
    return {"role": "assistant", "content": content, "tool_calls": [call(i) for i in call_ids]}


def tool(call_id, content="晴 25°C"):
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def none_paths(value, path="$"):
    """Every path in ``value`` whose value is None."""
    if value is None:
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in none_paths(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in none_paths(v, f"{path}[{i}]")]
    return []


# --------------------------------------------------------------------------- item 1: normalize


def test_sdk_message_becomes_plain_dict_without_none_fields():
    msg = sdk_message("你好！")
    assert msg.refusal is None and msg.tool_calls is None  # the SDK object carries None fields ...
    d = to_dict(msg)
    assert d == {"role": "assistant", "content": "你好！"}  # ... the dict does not
    assert type(d) is dict
    json.dumps(d)


def test_sdk_tool_call_message_keeps_the_original_arguments_string():
    odd = '{ "city" :"北京",  "unit": "celsius" }'  # unusual spacing must survive byte for byte
    msg = sdk_message({"content": "", "tool_calls": [("get_weather", odd)]})
    d = to_dict(msg)
    assert d["tool_calls"][0]["function"]["arguments"] == odd
    assert d["tool_calls"][0]["id"] == msg.tool_calls[0].id
    assert none_paths(d) == []
    wire = to_wire([USER, msg, tool(msg.tool_calls[0].id)])
    assert wire[1]["tool_calls"][0]["function"]["arguments"] == odd


def test_provider_extras_are_kept():
    message = {"role": "assistant", "content": "答案是 3。", "reasoning_content": "1+2=3", "x_vendor": {"k": 1}}
    msg = sdk_message(raw_completion(message))
    d = to_dict(msg)
    assert d["reasoning_content"] == "1+2=3"
    assert d["x_vendor"] == {"k": 1}
    assert to_wire([USER, msg])[1]["reasoning_content"] == "1+2=3"


def test_arguments_sent_as_object_dump_without_warnings():
    """Some servers send arguments as an object; pydantic would warn at every dump."""
    message = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "北京"}}}]}
    msg = sdk_message(raw_completion(message, "tool_calls"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = to_dict(msg)
        wire = to_wire([USER, msg, tool("call_a")])
    assert d["tool_calls"][0]["function"]["arguments"] == {"city": "北京"}  # to_dict keeps what was sent
    assert json.loads(wire[1]["tool_calls"][0]["function"]["arguments"]) == {"city": "北京"}  # the wire gets a str
    assert isinstance(wire[1]["tool_calls"][0]["function"]["arguments"], str)


def test_dict_holding_sdk_tool_calls_is_converted_all_the_way_down():
    """The common student pattern {"role": "assistant", "tool_calls": msg.tool_calls}."""
    msg = sdk_message({"content": "", "tool_calls": [("get_weather", {"city": "北京"})]})
    hand_made = {"role": "assistant", "content": msg.content, "tool_calls": msg.tool_calls}
    d = to_dict(hand_made)
    assert all(type(c) is dict for c in d["tool_calls"])
    json.dumps(d)
    wire = to_wire([USER, hand_made, tool(msg.tool_calls[0].id)])
    assert wire[1]["tool_calls"][0]["id"] == msg.tool_calls[0].id
    assert wire[1]["content"] is None


def test_to_dict_copies_and_rejects_other_types():
    original = asks("call_1")
    d = to_dict(original)
    d["tool_calls"][0]["function"]["name"] = "changed"
    assert original["tool_calls"][0]["function"]["name"] == "get_weather"
    for bad in ("user: hi", None, 42, ["role", "user"]):
        with pytest.raises(TypeError):
            to_dict(bad)


def test_normalize_mixed_list_and_names_the_bad_index():
    msg = sdk_message("好的")
    out = normalize([USER, msg])
    assert out == [USER, {"role": "assistant", "content": "好的"}]
    assert out[0] is not USER
    with pytest.raises(TypeError, match=r"messages\[1\]"):
        normalize([USER, "just a string"])


# --------------------------------------------------------------------------- item 2: validate


def test_valid_chains_pass():
    validate([USER])
    validate([USER, asks("a", "b"), tool("a"), tool("b"), {"role": "assistant", "content": "都是晴天"}])
    validate([USER, asks("a"), tool("a"), asks("b"), tool("b")])  # tool result may end the list
    validate([{"role": "system", "content": "s"}, {"role": "developer", "content": "d"}, USER])


def test_validate_accepts_sdk_objects_too():
    msg = sdk_message({"content": "", "tool_calls": [("get_weather", {"city": "北京"})]})
    validate([USER, msg, tool(msg.tool_calls[0].id)])
    with pytest.raises(MessageError):
        validate([USER, msg])


def test_orphan_tool_message_names_its_index():
    """Tool results appended without the assistant message that asked for them."""
    with pytest.raises(MessageError) as err:
        validate([USER, tool("call_1")])
    assert err.value.index == 1
    assert str(err.value).startswith("messages[1]：")
    assert "call_1" in str(err.value)


def test_tool_message_must_answer_the_nearest_assistant():
    chain = [USER, asks("a"), tool("a"), {"role": "assistant", "content": "晴"}, USER, asks("b"), tool("a")]
    with pytest.raises(MessageError) as err:
        validate(chain)
    assert err.value.index == 6


def test_two_parallel_calls_one_reply():
    with pytest.raises(MessageError) as err:
        validate([USER, asks("a", "b"), tool("a"), {"role": "user", "content": "然后呢？"}])
    assert err.value.index == 1  # the assistant message whose call is unanswered
    assert "工具调用 b 在 messages[3]（user）之前没有 role='tool' 的回复" in str(err.value)
    assert "messages[3]" in str(err.value)
    with pytest.raises(MessageError) as err:  # also at the end of the list
        validate([USER, asks("a", "b"), tool("a")])
    assert err.value.index == 1


def test_answered_twice_and_duplicate_ids():
    with pytest.raises(MessageError) as err:
        validate([USER, asks("a"), tool("a"), tool("a")])
    assert err.value.index == 3 and "两次" in str(err.value)
    with pytest.raises(MessageError) as err:
        validate([USER, asks("a", "a"), tool("a"), tool("a")])
    assert err.value.index == 1


@pytest.mark.parametrize("content", [None, "", "   \n", []])
def test_assistant_with_neither_content_nor_tool_calls(content):
    for extra in ({}, {"tool_calls": []}, {"tool_calls": None}):
        with pytest.raises(MessageError) as err:
            validate([USER, {"role": "assistant", "content": content, **extra}])
        assert err.value.index == 1
        assert "既没有 content 也没有 tool_calls" in str(err.value)


def test_unknown_role_and_missing_call_id():
    with pytest.raises(MessageError) as err:
        validate([USER, {"role": "function", "content": "x"}])
    assert err.value.index == 1
    with pytest.raises(MessageError, match="没有 id"):
        validate([USER, {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "x"}}]}])


def test_message_error_is_a_value_error_raised_before_anything_is_sent(fake_llm):
    client = fake_llm.client()
    with pytest.raises(ValueError):
        client.chat.completions.create(**request_kwargs("m", [USER, tool("call_1")]))
    assert fake_llm.requests == []


# --------------------------------------------------------------------------- item 3: the wire


@pytest.mark.parametrize("content", [None, "", "  \n\t"])
def test_assistant_with_tool_calls_always_carries_content(content):
    wire = to_wire([USER, asks("a", content=content), tool("a")])
    assert "content" in wire[1] and wire[1]["content"] is None


def test_assistant_content_kept_when_it_has_text():
    wire = to_wire([USER, asks("a", content="我来查一下。"), tool("a")])
    assert wire[1]["content"] == "我来查一下。"


def test_no_null_fields_on_the_wire():
    chain = [
        {"role": "system", "content": "s", "name": None},
        USER,
        {"role": "assistant", "content": "你好", "tool_calls": None, "function_call": None, "refusal": None},
        {"role": "user", "content": "查天气"},
        {"role": "assistant", "content": None, "tool_calls": [{**call("a"), "index": 0, "extra": None}]},
        tool("a"),
        {"role": "assistant", "content": "晴", "tool_calls": []},
    ]
    wire = to_wire(chain)
    assert none_paths(wire) == ["$[4].content"]  # the one allowed null
    assert "tool_calls" not in wire[2] and "tool_calls" not in wire[6]
    assert wire[4]["tool_calls"][0] == call("a")  # "index" (streaming only) and None extras dropped


@pytest.mark.parametrize(
    "content, expected",
    [
        ("晴 25°C", "晴 25°C"),
        ('"already a JSON string"', '"already a JSON string"'),  # never encoded twice
        ('{"temp": 25}', '{"temp": 25}'),
        ({"city": "北京", "temp": 25}, '{"city": "北京", "temp": 25}'),
        ([{"id": 1}, {"id": 2}], '[{"id": 1}, {"id": 2}]'),
        (None, t("tools.no_result")),  # an empty tool message is refused by strict servers
        ("", t("tools.no_result")),
        (42, "42"),
        (True, "true"),
    ],
)
def test_tool_message_is_exactly_three_keys_with_string_content(content, expected):
    msg = {"role": "tool", "tool_call_id": "a", "content": content, "name": "get_weather", "extra": 1}
    wire = to_wire([USER, asks("a"), msg])
    assert wire[2] == {"role": "tool", "tool_call_id": "a", "content": expected}


def test_tool_content_helper():
    assert M.tool_content("x") == "x"
    assert M.tool_content(None) == t("tools.no_result")
    assert json.loads(M.tool_content({"城市": "北京"})) == {"城市": "北京"}
    assert "北京" in M.tool_content({"城市": "北京"})  # Chinese stays readable
    assert M.tool_content(True) == "true" and M.tool_content(False) == "false"  # JSON, decided once
    assert M.tool_content((1, 2)) == "[1, 2]" and M.tool_content([1, "二"]) == '[1, "二"]'
    assert M.tool_content(300) == "300" and M.tool_content(2.5) == "2.5"
    assert M.tool_content(object) == str(object)


@pytest.mark.parametrize(
    "arguments, expected",
    [('{"city": "北京"}', '{"city": "北京"}'), ({"city": "北京"}, '{"city": "北京"}'), ("", "{}"), ("  ", "{}"), (None, "{}")],
)
def test_arguments_always_go_out_as_a_string(arguments, expected):
    wire = to_wire([USER, {"role": "assistant", "content": None, "tool_calls": [call("a", arguments=arguments)]}, tool("a")])
    assert wire[1]["tool_calls"][0]["function"]["arguments"] == expected
    assert M.arguments_text(arguments) == expected


def test_new_call_ids_are_unique():
    ids = {M.new_call_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(i.startswith("call_") for i in ids)


def test_request_kwargs_without_tools_leaves_tool_keys_out():
    for tools in (None, []):
        kw = request_kwargs("m", [USER], tools=tools, tool_choice="auto", parallel_tool_calls=True, max_tokens=50)
        assert set(kw) == {"model", "messages", "max_tokens"}


def test_request_kwargs_with_tools():
    kw = request_kwargs("m", [USER], tools=[WEATHER], tool_choice="auto", parallel_tool_calls=True)
    assert kw["tools"] == [WEATHER] and kw["tool_choice"] == "auto" and kw["parallel_tool_calls"] is True
    kw = request_kwargs("m", [USER], tools=[WEATHER])
    assert "tool_choice" not in kw and "parallel_tool_calls" not in kw


def test_parallel_tool_calls_only_where_the_preset_supports_it():
    for name, preset in PRESETS.items():
        provider = Provider(preset, "http://x/v1", "m")
        kw = request_kwargs("m", [USER], tools=[WEATHER], parallel_tool_calls=True, provider=provider)
        assert ("parallel_tool_calls" in kw) == preset.parallel_tool_calls, name
    assert PRESETS["local"].parallel_tool_calls and not PRESETS["ollama"].parallel_tool_calls


def test_request_kwargs_drops_none_extras_and_keeps_others():
    kw = request_kwargs("m", [USER], temperature=0, max_tokens=None, stop=["Observation:"])
    assert kw["temperature"] == 0 and kw["stop"] == ["Observation:"] and "max_tokens" not in kw


def test_the_request_body_the_server_receives(fake_llm):
    """A whole tool round trip; the second body is checked exactly as the server got it."""
    fake_llm.add({"content": "", "tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]})
    fake_llm.add("北京晴，上海多云。", "好的")
    client = fake_llm.client()
    local = Provider(PRESETS["local"], "http://fake.local/v1", "fake-model")
    messages = [USER]
    resp = client.chat.completions.create(
        **request_kwargs("fake-model", messages, tools=[WEATHER], parallel_tool_calls=True, provider=local, max_tokens=100)
    )
    assistant = resp.choices[0].message
    assert assistant.content == ""  # like llama-server: "" next to tool_calls
    messages.append(assistant)  # the SDK object itself
    messages.append({"role": "tool", "tool_call_id": assistant.tool_calls[0].id, "content": {"weather": "晴"}})
    messages.append({"role": "tool", "tool_call_id": assistant.tool_calls[1].id, "content": "多云", "name": "get_weather"})
    client.chat.completions.create(**request_kwargs("fake-model", messages, tools=[WEATHER], provider=local, max_tokens=100))
    client.chat.completions.create(**request_kwargs("fake-model", [USER], tool_choice="auto", max_tokens=10))

    first, second, third = fake_llm.requests
    assert first["parallel_tool_calls"] is True and first["tools"] == [WEATHER] and first["max_tokens"] == 100
    sent = second["messages"][1]
    assert sent["role"] == "assistant" and "content" in sent and sent["content"] is None
    assert [c["function"]["arguments"] for c in sent["tool_calls"]] == ['{"city": "北京"}', '{"city": "上海"}']
    assert none_paths(second["messages"]) == ["$[1].content"]
    for reply in second["messages"][2:]:
        assert set(reply) == {"role", "tool_call_id", "content"} and isinstance(reply["content"], str)
    assert json.loads(second["messages"][2]["content"]) == {"weather": "晴"}
    assert "parallel_tool_calls" not in second  # not asked for
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(third)  # no tools, no tool keys


def test_the_request_body_for_an_ollama_preset(fake_llm):
    fake_llm.add("好的")
    ollama = Provider(PRESETS["ollama"], "http://fake.local/v1", "fake-model")
    fake_llm.client().chat.completions.create(
        **request_kwargs("fake-model", [USER], tools=[WEATHER], tool_choice="auto", parallel_tool_calls=True, provider=ollama)
    )
    body = fake_llm.requests[0]
    assert body["tools"] == [WEATHER] and body["tool_choice"] == "auto" and "parallel_tool_calls" not in body


def test_chat_box_without_a_widget_front_end(monkeypatch, fake_llm):
    """Without ipywidgets the chat box is still a printable table."""
    from course_lib.widgets import ChatSession, chat_box

    fake_llm.add("你好！")
    session = ChatSession(fake_llm.client(), "fake-model")
    assert session.send("你好") == "你好！"
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets -> ImportError
    box = chat_box(session)
    text = str(box)
    assert "你好！" in text and "user" in text



def test_to_wire_repairs_text_that_cannot_be_encoded():
    from course_lib.messages import sendable_text
    wire = to_wire([{"role": "user", "content": "你好\ud83d"}, {"role": "assistant", "content": "好\ud83d\ude00"}])
    assert wire[0]["content"] == "你好\ufffd" and wire[1]["content"] == "好😀"
    json.dumps(wire, ensure_ascii=False).encode("utf-8")  # sendable
    assert sendable_text("普通文字") == "普通文字"


def test_strict_validation_names_what_a_strict_endpoint_refuses():
    """What to_wire would repair is an error for validate(strict=True): the list is checked as it is sent."""
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}
    good = [{"role": "user", "content": "北京？"}, {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "晴"}]
    validate(good, strict=True)
    untyped = {k: v for k, v in call.items() if k != "type"}
    as_dict = {**call, "function": {"name": "get_weather", "arguments": {"city": "北京"}}}
    for bad_call, words in [(untyped, "type"), (as_dict, "arguments")]:
        bad = [good[0], {**good[1], "tool_calls": [bad_call]}, good[2]]
        validate(bad)  # the course itself repairs these when it sends (to_wire)
        with pytest.raises(MessageError) as err:
            validate(bad, strict=True)
        assert err.value.index == 1 and words in str(err.value)
    with pytest.raises(MessageError, match="字符串"):
        validate([good[0], good[1], {**good[2], "content": 25}], strict=True)


def test_content_text_reads_every_shape_of_content():
    assert content_text("你好") == "你好" and content_text(None) == "" and content_text(42) == ""
    parts = [{"type": "text", "text": "你"}, {"type": "thinking", "thinking": "想"}, {"text": "好"},
             {"type": "image_url", "image_url": {"url": "x"}}, "不是部分", {"type": "text", "text": None}]
    assert content_text(parts) == "你好"  # only the text parts, joined
    assert content_text([]) == ""


# --------------------------------------------------------------------------- issue 44: a later system message

SYSTEM = {"role": "system", "content": "你是一个跑步教练。"}
LATER = {"role": "system", "content": "从现在起只用英文回答。"}


def rendered(messages, tools=None):
    """The prompt the course's chat template makes of ``messages``: jinja2 as llama-server's --jinja renders it."""
    import jinja2

    from course_runtime.local_server import TEMPLATE_PATH

    template = jinja2.Environment().from_string(TEMPLATE_PATH.read_text(encoding="utf-8"))
    return template.render(messages=messages, tools=tools, add_generation_prompt=True)


def test_a_later_system_message_is_sent_merged_into_the_first():
    chain = [SYSTEM, {"role": "user", "content": "我叫小明"}, {"role": "assistant", "content": "你好，小明！"}, LATER,
             USER, asks("a"), tool("a"), {"role": "assistant", "content": "Sunny."}, {"role": "user", "content": "谢谢"}]
    sent = request_kwargs("m", chain, tools=[WEATHER])["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user", "assistant", "tool", "assistant", "user"]
    assert sent[0] == {"role": "system", "content": SYSTEM["content"] + "\n\n" + LATER["content"]}
    assert sent[1:] == to_wire([m for m in chain if m is not LATER])[1:]  # the rest as it was, in order
    assert [m["role"] for m in chain].count("system") == 2  # the caller's list is not changed
    # one system message, first: the list goes out exactly as before
    assert request_kwargs("m", [SYSTEM, USER])["messages"] == [SYSTEM, USER]
    # no system message first: the later one leads; a developer message merges the same way
    assert request_kwargs("m", [USER, {"role": "assistant", "content": "好"}, LATER, USER])["messages"][0] == LATER
    developer = {"role": "developer", "content": "Be brief."}
    assert request_kwargs("m", [developer, USER, LATER])["messages"] == [
        {"role": "developer", "content": "Be brief.\n\n" + LATER["content"]}, USER]


@pytest.mark.parametrize("chain", [
    [SYSTEM, {"role": "user", "content": "我叫小明"}, {"role": "assistant", "content": "你好！"}, LATER, USER],
    [{"role": "user", "content": "我叫小明"}, {"role": "assistant", "content": "你好！"}, LATER, USER],
    [{"role": "developer", "content": "Be brief."}, USER],
    [SYSTEM, USER, asks("a", "b"), tool("a"), tool("b"), {"role": "system", "content": [{"type": "text", "text": "只用英文。"}]},
     {"role": "user", "content": "谢谢"}],
], ids=["later", "later-without-a-first", "developer-first", "later-as-parts"])
def test_the_chat_template_shows_the_model_every_system_message_as_request_kwargs_sends_it(chain):
    """The course's template and request_kwargs agree: the model reads the same prompt whether the list is sent
    as the student wrote it (the raw SDK) or as the course sends it (merged)."""
    sent = request_kwargs("m", chain, tools=[WEATHER])["messages"]
    prompt = rendered(chain, [WEATHER])
    assert prompt == rendered(sent, [WEATHER])
    for message in chain:
        if message["role"] in ("system", "developer"):
            assert content_text(message["content"]) in prompt.split("<|im_end|>")[0]  # in the system block
    assert prompt.count("<|im_start|>system") == 1 and "You are a helpful assistant." not in prompt


def test_the_chat_template_renders_the_usual_requests_as_before():
    """No later system message: the prompt is the one the template always made (the reference record stands)."""
    assert rendered([SYSTEM, USER]) == (f"<|im_start|>system\n{SYSTEM['content']}<|im_end|>\n"
                                        f"<|im_start|>user\n{USER['content']}<|im_end|>\n<|im_start|>assistant\n")
    assert rendered([USER]).startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n")
    with_tools = rendered([SYSTEM, USER], [WEATHER])
    assert with_tools.startswith(f"<|im_start|>system\n{SYSTEM['content']}\n\n# Tools\n")
