"""course_lib.tables: message chains, responses and loop steps as tables (notebooks 01, 05, 06)."""

from __future__ import annotations

import pandas as pd

from course_lib.records import STEP_COLUMNS, ActionStep, AnswerStep, FinalStep, InvalidStep, ToolCall, ToolCallsStep, ToolResult
from course_lib.tables import (
    Table,
    messages_frame,
    response_frame,
    show_messages,
    show_response,
    steps_frame,
)
from course_lib.texts import shorten
from fakes import FakeLLM, sdk_message

USER = {"role": "user", "content": "北京和上海天气怎么样？"}


def tool(call_id, content="晴 25°C"):
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def test_shorten_marks_what_it_cuts():
    assert shorten("abcdef", 4) == "abcd…[+2 chars]"
    assert shorten("abcd", 4) == "abcd" and shorten("abcdef", None) == "abcdef"


def test_messages_frame_columns_and_index():
    frame = messages_frame([USER, {"role": "assistant", "content": None, "tool_calls": []}, tool("c1", "晴")])
    assert list(frame.columns) == ["role", "content", "tool_calls", "tool_call_id"] and frame.index.name == "#"
    assert list(frame["role"]) == ["user", "assistant", "tool"] and frame.loc[1, "content"] == ""
    assert frame.loc[2, "tool_call_id"] == "c1"


def test_table_never_cuts_silently():
    long = "天气" * 300  # 600 characters
    table = show_messages([USER, {"role": "assistant", "content": long}])
    assert long in str(table)  # default: everything shown
    short = show_messages([USER, {"role": "assistant", "content": long}], max_chars=50)
    assert long[:50] + "…[+550 chars]" in str(short)
    assert short.frame.loc[1, "content"] == long[:50] + "…[+550 chars]"


def test_table_shows_content_verbatim_and_tool_calls():
    msg = sdk_message({"content": "", "tool_calls": [("get_weather", {"city": "北京"})]})
    chain = [USER, msg, tool(msg.tool_calls[0].id, "北京：晴")]
    text = str(show_messages(chain, title="一次工具调用", highlight=[2]))
    assert text.startswith("一次工具调用")
    assert '  tool_calls: get_weather({"city": "北京"})  [id=' + msg.tool_calls[0].id + "]" in text
    assert "北京：晴" in text and "<- new" in text
    html = show_messages(chain)._repr_html_()
    assert "get_weather" in html and "<table" in html


def test_table_copes_with_object_arguments_and_odd_content():
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "x", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "北京"}}}]}
    text = str(show_messages([USER, message, {"role": "user", "content": [{"type": "text", "text": "部分一"}]}]))
    assert 'get_weather({"city": "北京"})' in text and "部分一" in text
    assert str(show_messages([])) == "(empty)"


def test_response_table_plain_text():
    fake = FakeLLM(["你好！"])
    resp = fake.client().chat.completions.create(model="fake-model", messages=[USER])
    text = str(show_response(resp))
    assert "choices[0].message.content" in text and "你好！" in text and "finish_reason" in text


def test_response_frame_reads_every_field():
    fake = FakeLLM([{"content": "你好！", "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}}])
    resp = fake.client().chat.completions.create(model="fake-model", messages=[USER])
    frame = response_frame(resp)
    assert frame.loc["choices[0].message.content", "value"] == "你好！"
    assert frame.loc["choices[0].message.tool_calls", "value"] == "None"
    assert frame.loc["choices[0].finish_reason", "value"] == "stop"
    assert [frame.loc[f"usage.{k}", "value"] for k in ("prompt_tokens", "completion_tokens", "total_tokens")] == ["12", "3", "15"]
    assert frame.loc["model", "value"] == "fake-model"
    assert frame.equals(response_frame(resp.model_dump()))  # a dict reads the same


def test_table_len_title_and_html_colours():
    table = Table(pd.DataFrame([{"role": "tool", "content": "x"}]), "标题", highlight=[0])
    assert len(table) == 1 and str(table).startswith("标题\n[0] tool <- new")
    assert "#fde68a" in table._repr_html_() and "标题" in table._repr_html_()


def _react_steps():
    return [
        ActionStep(1, thought="查天气", action="get_weather", action_input={"city": "北京"},
                   observation="北京：晴" * 50, prompt_tokens=100, completion_tokens=10),
        AnswerStep(2, thought=None, text="北京晴。", prompt_tokens=130, completion_tokens=8),
    ]


def test_steps_frame_of_a_react_run_one_row_per_request():
    frame = steps_frame(_react_steps(), max_chars=20)
    # reasoning (no thinking) and repeated (no native calls) are empty in every row: left out
    assert list(frame.columns) == [c for c in STEP_COLUMNS if c not in ("reasoning", "repeated")]
    assert list(frame["step"]) == [1, 2] and list(frame["kind"]) == ["action", "answer"]
    assert list(frame["tool"]) == ["get_weather", ""] and frame["input"].iloc[0] == '{"city": "北京"}'
    assert frame["observation"].iloc[0].endswith("…[+180 chars]") and frame["thought"].iloc[1] == ""
    assert frame["answer"].iloc[1] == "北京晴。" and list(frame["prompt_tokens"]) == [100, 130]


def test_steps_frame_of_a_native_run_one_row_per_tool_call_tokens_once():
    calls = [ToolResult(ToolCall("c1", "get_weather", {"city": "北京"}, '{"city": "北京"}'), "北京：晴"),
             ToolResult.not_run(ToolCall("c2", "get_weather", {"city": "北京"}, '{"city": "北京"}'), "北京：晴\n（注意：重复）",
                                ok=True, repeated=True, first_step=1)]
    steps = [ToolCallsStep(1, tool_calls=calls, prompt_tokens=50, completion_tokens=20),
             InvalidStep(2, observation="格式错误", error="读不出来", prompt_tokens=60, completion_tokens=5),
             FinalStep(3, text="北京晴。", reason="max_steps")]
    frame = steps_frame(steps)
    assert list(frame.columns) == [c for c in STEP_COLUMNS if c not in ("reasoning", "thought")]
    assert list(frame["kind"]) == ["tool_calls", "tool_calls", "invalid", "final"]
    assert list(frame["tool"]) == ["get_weather", "get_weather", "", ""]
    assert list(frame["repeated"]) == [False, True, "", ""]  # only a tool call is or is not a repeat
    assert list(frame["observation"]) == ["北京：晴", "北京：晴\n（注意：重复）", "格式错误", ""]
    assert list(frame["answer"]) == ["", "", "", "北京晴。"]
    assert frame["prompt_tokens"].isna().tolist() == [False, True, False, True]  # a request's tokens once
    assert frame["prompt_tokens"][0] == 50 and frame["prompt_tokens"][2] == 60
    assert str(frame["prompt_tokens"].dtype) == "Int64"


def test_steps_frame_puts_the_dropped_calls_first_with_the_tokens():
    dropped = [ToolResult.not_run(ToolCall("d1", "calculate", {"expression": "3 * 40"}, '{"expression": "3 * 40"}'), "没有运行：40",
                                  missing_numbers=["40"])]
    looked_up = [ToolResult(ToolCall("c1", "query_by_product_name", {"product_name": "足球"}, '{"product_name": "足球"}'), "120 元")]
    step = ToolCallsStep(1, reasoning="先算", dropped=dropped, requests=2, tool_calls=looked_up,
                         prompt_tokens=95, completion_tokens=16, finish_reason="tool_calls")
    frame = steps_frame([step])
    assert list(frame["kind"]) == ["dropped", "tool_calls"] and list(frame["step"]) == [1, 1]
    assert list(frame["tool"]) == ["calculate", "query_by_product_name"]
    assert list(frame["input"]) == ['{"expression": "3 * 40"}', '{"product_name": "足球"}']
    assert list(frame["observation"]) == ["没有运行：40", "120 元"]
    assert list(frame["reasoning"]) == ["先算", ""] and frame["prompt_tokens"].isna().tolist() == [False, True]
    assert list(frame["finish_reason"]) == ["tool_calls", "tool_calls"]
    assert steps_frame([]).empty


def test_dollar_signs_are_not_math_in_the_html_only():
    table = show_messages([{"role": "user", "content": "我有 $25 和 $30 两张券"}], title="$ 标题 $")
    page = table._repr_html_()
    assert "$" not in page and "我有 &#36;25 和 &#36;30 两张券" in page and "mathjax_ignore" in page and "tex2jax_ignore" in page
    assert "我有 $25 和 $30 两张券" in str(table) and "$ 标题 $" in str(table)
    assert table.frame["content"].iloc[0] == "我有 $25 和 $30 两张券"
