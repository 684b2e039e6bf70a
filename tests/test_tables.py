"""course_lib.tables: message chains, responses and loop steps as tables (notebooks 01, 05, 06)."""

from __future__ import annotations

import pandas as pd

from course_lib.loop import Step, ToolCallRecord
from course_lib.tables import (
    AGENT_STEP_COLUMNS,
    REACT_STEP_COLUMNS,
    Table,
    agent_steps_frame,
    messages_frame,
    react_steps_frame,
    response_frame,
    shorten,
    show_messages,
    show_response,
)
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
        Step(1, "action", thought="查天气", action="get_weather", action_input={"city": "北京"},
             observation="北京：晴" * 50, prompt_tokens=100, completion_tokens=10),
        Step(2, "answer", thought=None, answer="北京晴。", prompt_tokens=130, completion_tokens=8),
    ]


def test_react_steps_frame_one_row_per_request():
    frame = react_steps_frame(_react_steps(), max_chars=20)
    assert list(frame.index) == [1, 2] and list(frame.columns) == REACT_STEP_COLUMNS[1:]
    assert frame.loc[1, "action_input"] == '{"city": "北京"}'
    assert frame.loc[1, "observation"].endswith("…[+180 chars]") and frame.loc[2, "thought"] == ""
    assert frame.loc[2, "answer"] == "北京晴。" and list(frame["prompt_tokens"]) == [100, 130]


def test_agent_steps_frame_one_row_per_tool_call_tokens_once():
    calls = [ToolCallRecord("c1", "get_weather", {"city": "北京"}, '{"city": "北京"}', "北京：晴"),
             ToolCallRecord("c2", "get_weather", {"city": "北京"}, '{"city": "北京"}', "北京：晴\n（注意：重复）",
                            repeated=True, first_step=1)]
    steps = [Step(1, "tool_calls", tool_calls=calls, prompt_tokens=50, completion_tokens=20),
             Step(2, "invalid", observation="格式错误", error="读不出来", prompt_tokens=60, completion_tokens=5),
             Step(3, "final", answer="北京晴。")]
    frame = agent_steps_frame(steps)
    assert list(frame.columns) == AGENT_STEP_COLUMNS
    assert list(frame["tool"]) == ["get_weather", "get_weather", "", ""]
    assert list(frame["repeated"]) == [False, True, False, False]
    assert list(frame["observation"]) == ["北京：晴", "北京：晴\n（注意：重复）", "格式错误", ""]
    assert list(frame["answer"]) == ["", "", "", "北京晴。"]
    assert frame["prompt_tokens"].isna().tolist() == [False, True, False, True]  # a request's tokens once
    assert frame["prompt_tokens"][0] == 50 and frame["prompt_tokens"][2] == 60
    assert str(frame["prompt_tokens"].dtype) == "Int64"


def test_dollar_signs_are_not_math_in_the_html_only():
    table = show_messages([{"role": "user", "content": "我有 $25 和 $30 两张券"}], title="$ 标题 $")
    page = table._repr_html_()
    assert "$" not in page and "我有 &#36;25 和 &#36;30 两张券" in page and "mathjax_ignore" in page and "tex2jax_ignore" in page
    assert "我有 $25 和 $30 两张券" in str(table) and "$ 标题 $" in str(table)
    assert table.frame["content"].iloc[0] == "我有 $25 和 $30 两张券"
