"""Tests for course_lib.tool_calls (issue 5, items 4-7).

The model side goes through the real openai SDK and FakeLLM (or a raw
httpx2.Response for shapes FakeLLM does not write), so each test sees the
message a loop would see.
"""

from __future__ import annotations

import json
import warnings

import httpx2
import pytest

from fakes import FakeLLM, raw_completion, sdk_message

from course_lib.messages import request_kwargs, validate
from course_lib.records import ToolResult
from course_lib.tool_calls import (AssistantTurn, ToolCall, execute, find_text_calls, read_arguments, read_assistant, run_call)
from course_lib.tools import Tool, ToolRegistry, default_registry
from course_lib.texts import t

REGISTRY = default_registry()
NAMES = REGISTRY.names  # get_weather, calculate, query_by_product_name, search_knowledge
USER = {"role": "user", "content": "北京天气怎么样？"}


def raw_call(call_id, arguments, name="get_weather"):
    call = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not ...:
        call["id"] = call_id
    return call


def assert_round_trip_valid(turn: AssistantTurn, registry=REGISTRY):
    """The turn's message plus the replies of execute() form a chain the API accepts."""
    replies = execute(turn.calls, registry)
    validate([USER, turn.message, *replies])
    return replies


# --------------------------------------------------------------------------- item 4: arguments


def parse_arguments(arguments):
    """``read_arguments`` without the JSON text it stores: ``(value, error)``."""
    value, _, error = read_arguments(arguments)
    return value, error


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ('{"city": "北京"}', {"city": "北京"}),
        ({"city": "北京"}, {"city": "北京"}),
        ("", {}),
        ("   \n", {}),
        (None, {}),
        ("null", {}),
        ("{}", {}),
        ('{"text": "第一行\n第二行"}', {"text": "第一行\n第二行"}),  # raw newline inside a string
    ],
)
def test_parse_arguments_reads_every_form(arguments, expected):
    assert parse_arguments(arguments) == (expected, None)


@pytest.mark.parametrize(
    "arguments, words",
    [
        ('{"city": "北京"', ["不是合法的 JSON", '{"city": "北京"']),
        ("city=北京", ["不是合法的 JSON", "city=北京"]),
        ("[1, 2]", ["JSON 对象", "数组"]),
        ("42", ["JSON 对象", "数字"]),
        ('"北京"', ["JSON 对象", "字符串"]),
        ("true", ["JSON 对象", "布尔值"]),
        (["北京"], ["JSON 对象", "数组"]),
        (7, ["JSON 对象", "数字"]),
    ],
)
def test_parse_arguments_explains_what_it_cannot_read(arguments, words):
    value, error = parse_arguments(arguments)
    assert value is None
    for word in words:
        assert word in error


def test_parse_arguments_quotes_long_garbage_shortened():
    value, error = parse_arguments("{" + "x" * 1000)
    assert value is None and "…[+" in error and len(error) < 400


def test_arguments_sent_as_an_object_by_the_server():
    """The SDK keeps an object where it declares a str; read_assistant copes and sends a str back."""
    message = {"role": "assistant", "content": "", "tool_calls": [raw_call("call_a", {"city": "北京"})]}
    fake = FakeLLM([raw_completion(message), "北京晴。"])
    client = fake.client()
    resp = client.chat.completions.create(model="fake-model", messages=[USER])
    assert resp.choices[0].message.tool_calls[0].function.arguments == {"city": "北京"}  # what the SDK gives us
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        turn = read_assistant(resp.choices[0].message, NAMES)
    (call,) = turn.calls
    assert call.arguments == {"city": "北京"} and call.error is None
    assert call.arguments_text == '{"city": "北京"}'
    assert turn.message["tool_calls"][0]["function"]["arguments"] == '{"city": "北京"}'
    replies = assert_round_trip_valid(turn)
    assert replies == [{"role": "tool", "tool_call_id": "call_a", "content": "北京：晴，25°C，湿度40%"}]
    client.chat.completions.create(**request_kwargs("fake-model", [USER, turn.message, *replies]))
    sent = fake.requests[1]["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(sent, str) and json.loads(sent) == {"city": "北京"}


@pytest.mark.parametrize("arguments", ["", "  ", None, "null"])
def test_no_arguments_are_stored_as_an_empty_object(arguments):
    msg = sdk_message(raw_completion({"role": "assistant", "content": None, "tool_calls": [raw_call("c1", arguments)]}))
    turn = read_assistant(msg, NAMES)
    assert turn.calls[0].arguments == {} and turn.calls[0].arguments_text == "{}"
    assert turn.message["tool_calls"][0]["function"]["arguments"] == "{}"
    # get_weather needs a city: the registry says so instead of the loop crashing
    assert "缺少必填参数 city" in assert_round_trip_valid(turn)[0]["content"]


def test_valid_arguments_string_is_kept_exactly():
    odd = '{"city":"北京" ,"unit":"celsius"}'
    turn = read_assistant(sdk_message({"content": "", "tool_calls": [("get_weather", odd)]}), NAMES)
    assert turn.calls[0].arguments_text == odd
    assert turn.message["tool_calls"][0]["function"]["arguments"] == odd


def test_broken_arguments_are_stored_as_valid_json_and_answered_with_the_error():
    """llama-server answers HTTP 500 if broken arguments are sent back, so "{}" is stored."""
    broken = '{"city": "北京"'
    turn = read_assistant(sdk_message({"content": "", "tool_calls": [("get_weather", broken)]}), NAMES)
    (call,) = turn.calls
    assert call.arguments is None and call.arguments_text == "{}" and "不是合法的 JSON" in call.error
    assert turn.message["tool_calls"][0]["function"]["arguments"] == "{}"
    (reply,) = assert_round_trip_valid(turn)
    assert reply["content"].startswith("错误：")
    assert broken in reply["content"]  # the model sees what it actually sent
    assert "没有运行" in reply["content"] and "city（必填）" in reply["content"]


# --------------------------------------------------------------------------- item 5: ids


@pytest.mark.parametrize(
    "ids",
    [
        [..., ...],  # no id key at all
        ["", ""],
        [None, "call_ok"],
        ["dup", "dup"],
        ["   ", "dup"],
    ],
)
def test_missing_empty_or_duplicate_ids_are_replaced_once(ids):
    calls = [raw_call(i, json.dumps({"city": c}, ensure_ascii=False)) for i, c in zip(ids, ["北京", "上海"])]
    msg = sdk_message(raw_completion({"role": "assistant", "content": "", "tool_calls": calls}))
    turn = read_assistant(msg, NAMES)
    stored = [c["id"] for c in turn.message["tool_calls"]]
    assert stored == [c.id for c in turn.calls]  # the same id in the message and in the ToolCall
    assert len(set(stored)) == 2 and all(isinstance(i, str) and i.strip() for i in stored)
    for original, new in zip(ids, stored):
        if isinstance(original, str) and original.strip() and original != "dup":
            assert new == original  # good ids are kept
    assert stored[0] != "dup" or stored[1] != "dup"
    replies = assert_round_trip_valid(turn)
    assert [r["tool_call_id"] for r in replies] == stored
    assert [r["content"] for r in replies] == ["北京：晴，25°C，湿度40%", "上海：多云，28°C，湿度65%"]


def test_first_of_duplicate_ids_is_kept():
    message = {"role": "assistant", "content": None, "tool_calls": [raw_call("dup", "{}"), raw_call("dup", "{}")]}
    turn = read_assistant(message)
    assert turn.calls[0].id == "dup" and turn.calls[1].id.startswith("call_") and turn.calls[1].id != "dup"


def test_read_assistant_does_not_change_its_input():
    message = {"role": "assistant", "content": "  ", "tool_calls": [raw_call("", {"city": "北京"})]}
    before = json.dumps(message, sort_keys=True)
    read_assistant(message, NAMES)
    assert json.dumps(message, sort_keys=True) == before


# --------------------------------------------------------------------------- item 6: calls in content


FENCED = '好的，我来查询。\n```json\n{"name": "get_weather", "arguments": {"city": "北京"}}\n```'


def test_fenced_json_call_in_content_is_recovered_end_to_end():
    fake = FakeLLM([FENCED, "北京今天晴，25°C。"])
    client = fake.client()
    messages = [USER]
    resp = client.chat.completions.create(**request_kwargs("fake-model", messages, tools=REGISTRY.schemas()))
    turn = read_assistant(resp.choices[0].message, NAMES)
    assert turn.error is None and turn.text is None
    (call,) = turn.calls
    assert call.recovered and call.name == "get_weather" and call.arguments == {"city": "北京"}
    assert call.id.startswith("call_")
    assert turn.message["content"] is None
    assert turn.message["tool_calls"] == [
        {"id": call.id, "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}
    ]
    messages += [turn.message, *execute(turn.calls, REGISTRY)]
    final = client.chat.completions.create(**request_kwargs("fake-model", messages, tools=REGISTRY.schemas()))
    assert read_assistant(final.choices[0].message, NAMES).text == "北京今天晴，25°C。"
    body = fake.requests[1]["messages"]
    assert body[1]["tool_calls"][0]["id"] == body[2]["tool_call_id"] == call.id
    assert body[2]["content"] == "北京：晴，25°C，湿度40%"


@pytest.mark.parametrize(
    "content, expected",
    [
        ('{"name": "get_weather", "arguments": {"city": "北京"}}', [("get_weather", {"city": "北京"})]),
        ('{"name": "get_weather", "parameters": {"city": "北京"}}', [("get_weather", {"city": "北京"})]),
        ('{"name": "get_weather", "arguments": "{\\"city\\": \\"北京\\"}"}', [("get_weather", {"city": "北京"})]),
        ('{"type": "function", "function": {"name": "calculate", "arguments": {"expression": "2*3"}}}',
         [("calculate", {"expression": "2*3"})]),
        ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "上海"}}\n</tool_call>', [("get_weather", {"city": "上海"})]),
        ("```\n{'name': 'get_weather', 'arguments': {'city': '北京'}}\n```", [("get_weather", {"city": "北京"})]),
        ('{"name": "Get_Weather", "arguments": {"city": "北京"}}', [("get_weather", {"city": "北京"})]),
        (
            '```json\n{"name": "get_weather", "arguments": {"city": "北京"}}\n```\n'
            '```json\n{"name": "get_weather", "arguments": {"city": "上海"}}\n```',
            [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})],
        ),
        (
            '[{"name": "get_weather", "arguments": {"city": "北京"}}, {"name": "calculate", "arguments": {"expression": "1+1"}}]',
            [("get_weather", {"city": "北京"}), ("calculate", {"expression": "1+1"})],
        ),
    ],
)
def test_bare_and_fenced_calls_in_content(content, expected):
    turn = read_assistant(sdk_message(content), NAMES)
    assert turn.error is None
    assert [(c.name, c.arguments) for c in turn.calls] == expected
    assert all(c.recovered for c in turn.calls)
    assert len({c.id for c in turn.calls}) == len(expected)
    assert turn.message["content"] is None and len(turn.message["tool_calls"]) == len(expected)
    assert_round_trip_valid(turn)


@pytest.mark.parametrize(
    "content",
    [
        '```json\n{"name": "get_weather", "arguments": {"city": "北京"}\n```',  # unclosed
        '{"name": "get_weather", "arguments": {"city": 北京}}',  # unquoted string
        '```json\n{"name": "get_weather" "arguments": {"city": "北京"}}\n```',  # missing comma
    ],
)
def test_broken_json_call_gives_an_error_not_an_answer(content):
    turn = read_assistant(sdk_message(content), NAMES)
    assert turn.calls == []
    assert turn.error and "JSON" in turn.error
    for name in NAMES:
        assert name in turn.error
    assert turn.text == content  # kept for the trace; the loop must not show it as the answer
    assert "tool_calls" not in turn.message
    validate([USER, turn.message, {"role": "user", "content": turn.error}])  # the corrective turn is valid


def test_unregistered_tool_in_content_gives_an_error_naming_the_tools():
    turn = read_assistant(sdk_message('{"name": "search_web", "arguments": {"q": "天气"}}'), NAMES)
    assert turn.calls == [] and "search_web" in turn.error
    assert all(name in turn.error for name in NAMES)
    both = '{"name": "get_weather", "arguments": {"city": "北京"}} {"name": "book_flight", "arguments": {}}'
    mixed = read_assistant({"role": "assistant", "content": both}, NAMES)  # one unknown name: nothing is run
    assert mixed.calls == [] and "book_flight" in mixed.error and "get_weather" in mixed.error


@pytest.mark.parametrize(
    "content",
    [
        "我们有 {足球, 篮球} 两种球。",
        "公式是 f(x) = {x | x > 0}，请记住。",
        '商品信息：{"name": "足球", "price": 120}',  # a "name" key, but data, not a call
        '示例：{"product_name": "足球"}',
        "def f():\n    return {'a': 1}",
        "{{{{{{{{",
        '我不能直接调用 "name": 这种格式，直接回答：北京晴。',
    ],
)
def test_prose_with_braces_is_not_misread(content):
    turn = read_assistant({"role": "assistant", "content": content}, NAMES)
    assert turn.calls == [] and turn.error is None and turn.text == content
    assert turn.message == {"role": "assistant", "content": content}


def test_without_tools_text_is_never_read_as_a_call():
    turn = read_assistant(sdk_message(FENCED))
    assert turn.calls == [] and turn.error is None and turn.text == FENCED


def test_whitespace_content_next_to_real_tool_calls_is_none():
    turn = read_assistant(sdk_message({"content": " \n ", "tool_calls": [("get_weather", {"city": "北京"})]}), NAMES)
    assert turn.message["content"] is None and turn.text is None
    assert turn.calls[0].recovered is False


def test_real_text_next_to_tool_calls_is_kept_and_content_not_scanned():
    content = '我先查一下。{"name": "calculate", "arguments": {"expression": "1+1"}}'
    turn = read_assistant(sdk_message({"content": content, "tool_calls": [("get_weather", {"city": "北京"})]}), NAMES)
    assert turn.text == content and turn.message["content"] == content
    assert [c.name for c in turn.calls] == ["get_weather"]


def test_plain_answer_and_empty_reply():
    turn = read_assistant(sdk_message("北京今天晴。"), NAMES)
    assert (turn.calls, turn.text, turn.error) == ([], "北京今天晴。", None)
    assert turn.message == {"role": "assistant", "content": "北京今天晴。"}
    empty = read_assistant(sdk_message("   "), NAMES)
    assert (empty.calls, empty.text, empty.error) == ([], None, None)


def test_extras_survive_read_assistant():
    message = {"role": "assistant", "content": "", "reasoning_content": "想一想",
               "tool_calls": [{**raw_call("c1", "{}"), "index": 0, "extra_content": {"sig": "abc"}}]}
    turn = read_assistant(sdk_message(raw_completion(message)), NAMES)
    assert turn.message["reasoning_content"] == "想一想"
    assert turn.message["tool_calls"][0]["extra_content"] == {"sig": "abc"}
    assert "index" not in turn.message["tool_calls"][0]


def test_find_text_calls_directly():
    calls, broken = find_text_calls('先 {"name": "calculate", "arguments": {"expression": "2+2"}} 再说', NAMES)
    assert calls == [("calculate", {"expression": "2+2"})] and broken == []
    calls, broken = find_text_calls('{"name": "calculate"}', NAMES)  # a registered name alone counts
    assert calls == [("calculate", None)]


# --------------------------------------------------------------------------- item 7: running the calls


def calls_for(*pairs):
    message = {"role": "assistant", "content": None,
               "tool_calls": [raw_call(f"c{i}", args, name) for i, (name, args) in enumerate(pairs)]}
    return read_assistant(message, NAMES).calls


def test_unknown_tool_reply_lists_the_available_tools():
    (reply,) = execute(calls_for(("book_flight", '{"to": "上海"}')), REGISTRY)
    assert reply["tool_call_id"] == "c0" and reply["content"].startswith("错误：")
    assert "book_flight" in reply["content"] and all(n in reply["content"] for n in NAMES)


@pytest.mark.parametrize(
    "arguments, words",
    [('{"town": "北京"}', ["缺少必填参数 city"]), ('{"city": "北京", "date": "明天"}', ["没有参数 date"])],
)
def test_arguments_that_do_not_fit_the_schema(arguments, words):
    (reply,) = execute(calls_for(("get_weather", arguments)), REGISTRY)
    assert reply["content"].startswith("错误：") and all(w in reply["content"] for w in words)


def test_a_tool_that_raises_is_answered_and_the_loop_goes_on():
    def boom(city):
        raise RuntimeError("数据源不可用")

    registry = ToolRegistry([Tool("get_weather", boom, REGISTRY.get("get_weather").schema)])
    calls = calls_for(("get_weather", '{"city": "北京"}'), ("get_weather", '{"city": "上海"}'))
    replies = execute(calls, registry)
    assert [r["tool_call_id"] for r in replies] == ["c0", "c1"]
    assert all("RuntimeError" in r["content"] and "数据源不可用" in r["content"] for r in replies)


def test_unreadable_arguments_do_not_run_the_tool():
    ran = []
    schema = REGISTRY.get("get_weather").schema
    registry = ToolRegistry([Tool("get_weather", lambda city: ran.append(city) or "晴", schema)])
    replies = execute(calls_for(("get_weather", "{oops"), ("get_weather", '{"city": "北京"}')), registry)
    assert ran == ["北京"]  # only the readable call ran
    assert "没有运行" in replies[0]["content"] and replies[1]["content"] == "晴"
    (unknown,) = execute(calls_for(("nope", "{oops")), registry)  # unknown name wins over bad JSON
    assert "不存在" in unknown["content"] and "get_weather" in unknown["content"]


def test_replies_are_strings_in_call_order():
    schema = {"type": "function", "function": {"name": "echo", "parameters": {"type": "object", "properties": {"v": {}}}}}
    registry = ToolRegistry([Tool("echo", lambda v=None: v, dict(schema))])
    values = [{"a": "北京"}, [1, 2], None, 3.5, '"quoted"']
    calls = calls_for(*[("echo", {"v": v}) for v in values])
    replies = execute(calls, registry)
    assert [r["tool_call_id"] for r in replies] == [f"c{i}" for i in range(len(values))]
    assert [r["content"] for r in replies] == ['{"a": "北京"}', "[1, 2]", t("tools.no_result"), "3.5", '"quoted"']
    assert all(set(r) == {"role", "tool_call_id", "content"} for r in replies)


def test_execute_never_raises_even_with_a_broken_registry():
    class Exploding:  # a registry's interface is call(name, arguments) -> (text, ok) (ToolRegistry.call)
        names = ["get_weather"]

        def call(self, name, arguments):
            raise KeyError(name)

    calls = calls_for(("get_weather", '{"city": "北京"}'))
    (reply,) = execute(calls, Exploding())
    assert reply["content"].startswith("错误：") and "KeyError" in reply["content"]
    result = run_call(calls[0], Exploding())
    assert result.ok is False and result.message() == reply
    assert execute([], REGISTRY) == []


def test_run_call_says_whether_the_tool_ran():
    """run_call answers one call with a records.ToolResult; ok is True only when the tool ran."""
    (good,) = calls_for(("get_weather", '{"city": "北京"}'))
    result = run_call(good, REGISTRY)
    assert isinstance(result, ToolResult)
    assert (result.id, result.name, result.arguments, result.arguments_text) == (good.id, "get_weather", {"city": "北京"}, '{"city": "北京"}')
    assert result.ok is True and result.observation == REGISTRY.call("get_weather", {"city": "北京"})[0]
    assert result.message() == {"role": "tool", "tool_call_id": good.id, "content": result.observation}
    assert result.call_text == 'get_weather({"city": "北京"})'
    assert (result.repeated, result.first_step, result.recovered, result.missing_numbers) == (False, None, False, [])
    # Not run: an unknown tool, unreadable arguments, arguments that do not fit, a tool that raised.
    unknown = run_call(ToolCall("c1", "get_stock", {"code": "1"}, '{"code": "1"}'), REGISTRY)
    assert unknown.ok is False and unknown.observation.startswith("错误：") and "get_weather" in unknown.observation
    (broken,) = calls_for(("get_weather", '{"city": "北京"'))
    assert broken.error is not None
    unreadable = run_call(broken, REGISTRY)
    assert unreadable.ok is False and unreadable.observation.startswith("错误：") and unreadable.arguments_text == "{}"
    wrong = run_call(ToolCall("c2", "get_weather", {"town": "北京"}, '{"town": "北京"}'), REGISTRY)
    assert wrong.ok is False and wrong.observation.startswith("错误：")
    raising = run_call(ToolCall("c3", "add", {"a": 1}, '{"a": 1}'), {"add": lambda a, b: a + b})
    assert raising.ok is False and "TypeError" in raising.observation
    assert run_call(ToolCall("c4", "add", {"a": 1, "b": 2}, '{"a": 1, "b": 2}'), {"add": lambda a, b: a + b}).ok is True
    assert run_call(ToolCall("c5", "sub", {}, "{}"), {"add": lambda a, b: a + b}).ok is False
    # A call that does not run is answered by ToolResult.not_run: it holds its call, ok False.
    reused = ToolResult.not_run(good, "早先的结果")
    assert (reused.observation, reused.ok, reused.call, reused.id, reused.name) == ("早先的结果", False, good, good.id, good.name)


def test_execute_with_a_plain_dict_of_functions():
    functions = {"add": lambda a, b: a + b}
    call = ToolCall("c1", "add", {"a": 1, "b": 2}, '{"a": 1, "b": 2}')
    assert execute([call], functions) == [{"role": "tool", "tool_call_id": "c1", "content": "3"}]
    (reply,) = execute([ToolCall("c2", "sub", {}, "{}")], functions)
    assert "不存在" in reply["content"] and "add" in reply["content"]
    (reply,) = execute([ToolCall("c3", "add", {"a": 1}, '{"a": 1}')], functions)  # missing b: TypeError caught
    assert reply["content"].startswith("错误：") and "TypeError" in reply["content"]



def test_a_whole_agent_round_with_every_failure_at_once():
    """Missing id, object arguments, broken arguments and an unknown tool in one message."""
    message = {"role": "assistant", "content": "", "tool_calls": [
        raw_call(..., {"city": "北京"}),
        raw_call("dup", '{"expression": "2*21"}', "calculate"),
        raw_call("dup", '{"city": ', "get_weather"),
        raw_call("c9", "{}", "book_flight"),
    ]}
    fake = FakeLLM([raw_completion(message), "好的。"])
    client = fake.client()
    resp = client.chat.completions.create(**request_kwargs("fake-model", [USER], tools=REGISTRY.schemas()))
    turn = read_assistant(resp.choices[0].message, REGISTRY)  # a ToolRegistry works as tool_names
    replies = execute(turn.calls, REGISTRY)
    contents = [r["content"] for r in replies]
    assert contents[0] == "北京：晴，25°C，湿度40%" and contents[1] == "42"
    assert "不是合法的 JSON" in contents[2] and "不存在" in contents[3]
    client.chat.completions.create(**request_kwargs("fake-model", [USER, turn.message, *replies], tools=REGISTRY.schemas()))
    sent = fake.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool", "tool", "tool"]
    assert [c["id"] for c in sent[1]["tool_calls"]] == [m["tool_call_id"] for m in sent[2:]]
    assert all(json.loads(c["function"]["arguments"]) is not None for c in sent[1]["tool_calls"])


# --------------------------------------------------------------------------- issue 22: quotes and wide spaces


@pytest.mark.parametrize("content", [
    '{"name": "query_by_product_name", "arguments": {"product_name": "“跑步鞋”"}}',
    '{"name": "query_by_product_name", "arguments": {"product_name": "「跑步鞋」"}}',
    '{"name":\u3000"query_by_product_name",\u3000"arguments":\u3000{"product_name":\u3000"跑步鞋"}}',
    '{"name": "“query_by_product_name”", "arguments": {"product_name": "跑步鞋"}}',
])
def test_a_call_written_as_text_with_chinese_quotes_or_wide_spaces_looks_the_product_up(content):
    """The recovered call reaches the shop with 跑步鞋, not “跑步鞋” (which it does not sell: "[]")."""
    fake = FakeLLM([content])
    resp = fake.client().chat.completions.create(**request_kwargs("fake-model", [USER], tools=REGISTRY.schemas()))
    turn = read_assistant(resp.choices[0].message, NAMES)
    assert turn.error is None
    (call,) = turn.calls
    assert call.recovered and call.name == "query_by_product_name" and call.arguments == {"product_name": "跑步鞋"}
    (reply,) = assert_round_trip_valid(turn)
    assert '"product_name": "跑步鞋"' in reply["content"]


def test_a_call_written_as_text_keeps_quotes_inside_an_argument():
    turn = read_assistant(sdk_message('{"name": "search_knowledge", "arguments": {"query": "“长江”和“黄河”"}}'), NAMES)
    assert turn.calls[0].arguments == {"query": "“长江”和“黄河”"}


def test_one_name_for_each_way_of_running_a_tool():
    """Issue 46: one name per idea, never one name for two signatures.  The registry runs a tool by name
    (``call(name, arguments) -> (text, ok)``; ``McpTools`` keeps the same contract); ``tool_calls``
    runs one ``ToolCall`` safely (``run_call``) or a list into tool messages (``execute``); the native
    loop answers a turn's calls through the person's decision (``answer_call`` / ``answer_calls``)."""
    import inspect

    from course_lib import tool_calls
    from course_lib.agent import Agent
    from course_lib.mcp_client import McpTools
    from course_lib.tools.registry import ToolRegistry

    def params(function):
        return list(inspect.signature(function).parameters)

    assert not hasattr(ToolRegistry, "run") and not hasattr(tool_calls, "_run")
    assert not hasattr(Agent, "run_call") and not hasattr(Agent, "run_calls")
    assert params(ToolRegistry.call) == params(McpTools.call) == ["self", "name", "arguments"]
    assert params(tool_calls.run_call) == ["call", "registry"] and params(tool_calls.execute) == ["calls", "registry"]
    assert params(Agent.answer_call) == ["self", "call", "step"] and params(Agent.answer_calls) == ["self", "calls", "step"]
