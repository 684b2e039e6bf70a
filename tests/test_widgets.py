"""The chat box: ChatSession logic and the ChatBox view, driven with a fake server.

``fakes.FakeLLM`` (a ``checkers.scripted.ScriptedModel``) answers a request with
``"stream": true`` with the same scripted reply as server-sent events
(``data: {chunk}`` lines, then ``data: [DONE]``), cut into small pieces the
way llama-server does, with a usage chunk at the end when
``stream_options.include_usage`` is set.
"""

from __future__ import annotations

import json

import httpx2
import pytest

from fakes import FILTERED, FakeLLM, lone_surrogate_completion, no_choices, raw_completion, sse_response

from course_lib.agent import EMPTY_REPLY_PROMPT, FINAL_ANSWER_PROMPT, REPEAT_NOTE, STOP_REASONS_TEXT, Agent
from course_lib.records import FinalStep, InvalidStep, ToolCallsStep, stop_reason_text
from course_lib.texts import t
from course_lib.tools import Tool, ToolRegistry
from course_lib.tools.products import PRODUCT_TOOL, query_by_product_name
from course_lib.widgets import ChatBox, ChatSession, chat_box


# ScriptedModel (under fakes.FakeLLM) answers a "stream": true request as server-sent events itself,
# two characters of text a chunk (ScriptedModel.TEXT_PIECE), as llama-server does.
StreamingFakeLLM = FakeLLM


@pytest.fixture
def fake():
    return StreamingFakeLLM()


# --------------------------------------------------------------------------- the three modes


def test_no_memory_sends_only_system_and_the_new_question(fake):
    fake.add("你好，小红！", "我不知道你叫什么。")
    session = ChatSession(fake.client(), "fake-model", memory=False, max_tokens=50)
    assert session.send("我叫小红。") == "你好，小红！"
    assert session.send("我叫什么？") == "我不知道你叫什么。"
    second = fake.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user"] and second[1]["content"] == "我叫什么？"
    assert fake.requests[1]["max_tokens"] == 50 and "tools" not in fake.requests[1]
    assert session.last_request == second
    messages, highlight = session.shown_messages()
    assert [m["role"] for m in messages] == ["system", "user", "assistant"] and highlight == [1, 2]
    assert len(session.history) == 5  # everything is still recorded


def test_memory_sends_the_whole_history(fake):
    fake.add("你好，小红！", "你叫小红。")
    session = ChatSession(fake.client(), "fake-model", memory=True)
    session.send("我叫小红。")
    session.send("我叫什么？")
    sent = fake.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"] == "你好，小红！"
    messages, highlight = session.shown_messages()
    assert len(messages) == 5 and highlight == [3, 4]
    assert session.mode == "memory"


def test_tools_mode_runs_the_product_tool_and_answers(fake):
    fake.add({"tool_calls": [("query_by_product_name", {"product_name": "球"})], "content": ""}, "我们卖篮球和足球。")
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL])
    assert session.mode == "tools" and session.registry.names == ["query_by_product_name"]
    assert session.send("你好，你家都卖什么球？") == "我们卖篮球和足球。"
    assert fake.requests[0]["tools"] == [PRODUCT_TOOL]
    assert {k for k in fake.requests[0] if k != "messages"} == {"model", "tools", "max_tokens", "temperature"}  # as before
    roles = [m["role"] for m in session.history]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assistant, tool = session.history[2], session.history[3]
    assert assistant["content"] is None  # "" next to tool_calls is cleaned by read_assistant
    assert tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert "球" in tool["content"] and tool["content"].startswith("[")  # the real SQLite tool ran
    second = fake.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]


def test_tools_mode_recovers_a_call_written_as_text(fake):
    fake.add('{"name": "query_by_product_name", "arguments": {"product_name": "跑步鞋"}}', "有跑步鞋。")
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL])
    assert session.send("有跑步鞋吗？") == "有跑步鞋。"
    assert [m["role"] for m in session.history] == ["system", "user", "assistant", "tool", "assistant"]


def test_tools_mode_asks_for_the_final_answer_without_tools_after_max_steps(fake):
    """max_steps steps with tools (the agent.Agent's), then one request WITHOUT tools asks for the answer."""
    ball = {"tool_calls": [("query_by_product_name", {"product_name": "球"})]}
    shoe = {"tool_calls": [("query_by_product_name", {"product_name": "跑步鞋"})]}
    fake.add(ball, shoe, "我们卖篮球、足球和跑步鞋。")
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL], max_steps=2)
    assert session.send("球") == "我们卖篮球、足球和跑步鞋。"  # the answer comes from the request without tools
    assert len(fake.requests) == 3 and all("tools" in body for body in fake.requests[:2])
    final = fake.requests[2]
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(final)
    prompt = FINAL_ANSWER_PROMPT.format(reason=STOP_REASONS_TEXT["max_steps"].format(max_steps=2))
    assert final["messages"][-1] == {"role": "user", "content": prompt}
    assert session.notice == t("widgets.final_answer_forced", why=stop_reason_text("max_steps"), max_steps=2)
    assert "max_steps=2" in session.notice
    assert [m["role"] for m in session.history] == ["system", "user", "assistant", "tool", "assistant", "tool", "user", "assistant"]
    assert session.history[-2]["content"] == prompt and session.history[-1] == {"role": "assistant", "content": "我们卖篮球、足球和跑步鞋。"}
    assert [type(s) for s in session.agent.steps] == [ToolCallsStep, ToolCallsStep, FinalStep]
    fake.add("好的")
    assert session.send("谢谢") == "好的" and session.notice is None  # the history is still a valid chain
    assert "tools" in fake.requests[3]  # a new send offers the tools again


def test_tools_mode_does_not_run_an_identical_call_again(fake):
    ran = []

    def counted(product_name: str, limit: int = 10):
        ran.append(product_name)
        return query_by_product_name(product_name, limit)

    call = {"tool_calls": [("query_by_product_name", {"product_name": "球"})]}
    fake.add(call, call, "有篮球。")
    registry = ToolRegistry([Tool("query_by_product_name", counted, PRODUCT_TOOL)])
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL], registry=registry)
    assert session.send("卖什么球") == "有篮球。" and ran == ["球"]
    first, second = [m["content"] for m in session.history if m["role"] == "tool"]
    assert second == first + "\n" + REPEAT_NOTE.format(step=1)


def test_tools_mode_an_empty_or_unreadable_reply_gets_a_corrective_message(fake):
    broken = '{"name": "query_by_product_name", "arguments": {"product_name": 球}}'
    fake.add("", broken, "有篮球。")
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL])
    assert session.send("卖什么球") == "有篮球。" and session.notice is None
    kinds = [s.kind for s in session.agent.steps]
    assert kinds == ["empty", "invalid", "answer"] and isinstance(session.agent.steps[1], InvalidStep)
    assert [m["role"] for m in session.history] == ["system", "user", "user", "assistant", "user", "assistant"]
    assert session.history[2] == {"role": "user", "content": EMPTY_REPLY_PROMPT}
    assert session.history[4] == {"role": "user", "content": session.agent.steps[1].observation}
    assert all("tools" in body for body in fake.requests)  # the loop went on with the tools


def test_tools_mode_streams_every_request_through_the_agents_send_hook(fake):
    """The chat box runs agent.Agent and streams through its public hook Agent.send: every request
    of the run streams, the forced final one included, and its usage is counted."""
    fake.add({"tool_calls": [("query_by_product_name", {"product_name": "球"})]}, "有篮球。")
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL], max_steps=1)
    pieces: list[str] = []
    assert session.send("卖什么球", on_token=pieces.append) == "有篮球。"
    assert isinstance(session.agent, Agent) and "send" in vars(session.agent)  # the hook, set on the instance
    assert len(fake.requests) == 2 and "tools" in fake.requests[0] and "tools" not in fake.requests[1]
    assert all(body["stream"] is True and body["stream_options"] == {"include_usage": True} for body in fake.requests)
    assert "".join(pieces) == "有篮球。"  # the first reply was only a call: no text
    steps = session.agent.steps
    assert [s.kind for s in steps] == ["tool_calls", "final"] and all(s.prompt_tokens for s in steps)
    assert session.last_request == fake.requests[1]["messages"]
    assert session.total_tokens == sum(s.prompt_tokens + s.completion_tokens for s in steps)
    assert session.last_usage["prompt_tokens"] == steps[-1].prompt_tokens


def test_unknown_tool_without_a_registry_is_refused(fake):
    schema = {"type": "function", "function": {"name": "launch_rocket", "parameters": {"type": "object"}}}
    with pytest.raises(ValueError, match="launch_rocket"):
        ChatSession(fake.client(), "fake-model", tools=[schema])


# --------------------------------------------------------------------------- errors


def test_errors_are_kept_not_raised(fake):
    fake.add(httpx2.Response(500, json={"error": {"message": "boom"}}), httpx2.ConnectError("refused"))
    session = ChatSession(fake.client(), "fake-model", memory=True)
    assert session.send("你好") is None and "boom" in session.error
    assert session.send("你好") is None and "Connection" in session.error
    assert session.history == [session.system] and session.turn == []
    assert session.send("   ") is None and session.error == "请输入一句话再发送。"
    assert len(fake.requests) == 2


# --------------------------------------------------------------------------- streaming


def test_streaming_passes_pieces_as_they_arrive(fake):
    fake.add("一二三四五")
    session = ChatSession(fake.client(), "fake-model", memory=True)
    pieces: list[str] = []
    assert session.send("数数", on_token=pieces.append) == "一二三四五"
    assert pieces == ["一二", "三四", "五"]
    assert fake.requests[0]["stream"] is True and fake.requests[0]["stream_options"] == {"include_usage": True}
    assert session.last_usage["completion_tokens"] == 7 and session.total_tokens == session.last_usage["total_tokens"]


def test_streaming_collects_tool_call_pieces(fake):
    fake.add({"tool_calls": [("query_by_product_name", {"product_name": "瑜伽垫"})]}, "有瑜伽垫。")
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL])
    pieces: list[str] = []
    updates: list[list[str]] = []
    reply = session.send("有瑜伽垫吗", on_token=pieces.append, on_update=lambda: updates.append([m["role"] for m in session.turn]))
    assert reply == "有瑜伽垫。" and "".join(pieces) == "有瑜伽垫。"
    call = session.history[2]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"product_name": "瑜伽垫"}
    # on_update: after the user message, then after each step of the agent (its tool messages included)
    assert updates == [["user"], ["user", "assistant", "tool"], ["user", "assistant", "tool", "assistant"]]


def test_streaming_sends_back_a_repeated_id_once(fake):
    # DeepSeek / DashScope repeat the whole id in every delta of a call
    deltas = [{"tool_calls": [{"index": 0, "id": "call_0_ab12", "type": "function",
                               "function": {"name": "query_by_product_name", "arguments": a}}]}
              for a in ('{"product_name"', ': "瑜伽垫"}')]
    fake.add(sse_response(deltas, "tool_calls"), "有瑜伽垫。")
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL])
    assert session.send("有瑜伽垫吗", on_token=lambda piece: None) == "有瑜伽垫。"
    assistant, tool = fake.requests[1]["messages"][2:4]
    (call,) = assistant["tool_calls"]
    assert call["id"] == "call_0_ab12" and tool["tool_call_id"] == "call_0_ab12"
    assert call["function"]["name"] == "query_by_product_name"
    assert json.loads(call["function"]["arguments"]) == {"product_name": "瑜伽垫"}


def test_chat_box_shows_streamed_content_sent_as_parts(fake):
    fake.add(sse_response([{"content": [{"type": "text", "text": "你好"}]}, {"content": [{"type": "text", "text": "呀"}]}]))
    box = chat_box(ChatSession(fake.client(), "fake-model", memory=True))
    box.text.value = "在吗"
    box.send_button.click()
    assert "你好呀" in box.reply.value and "你好呀" in box.table.value
    assert box.session.history[-1] == {"role": "assistant", "content": "你好呀"}


# --------------------------------------------------------------------------- the view


def test_chat_box_click_streams_into_the_reply_and_redraws(fake):
    fake.add("你好呀，很高兴认识你！")
    box = chat_box(ChatSession(fake.client(), "fake-model", memory=True))
    assert isinstance(box, ChatBox)
    seen: list[str] = []
    box.reply.observe(lambda change: seen.append(change["new"]), names="value")
    box.text.value = "你好"
    box.send_button.click()
    assert "你好呀，很高兴认识你！" in box.reply.value and "▌" not in box.reply.value
    assert any("▌" in v for v in seen) and len([v for v in seen if "▌" in v]) >= 5  # shown piece by piece
    assert box.text.value == "" and not box.send_button.disabled
    assert "你好呀" in box.table.value and "<table" in box.table.value
    assert "tokens" in box.status.value
    assert "你好呀" in str(box)  # plain-text form
    bundle = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "你好呀" in bundle["text/plain"]


def test_chat_box_shows_the_busy_indicator_while_waiting():
    states: list[tuple[str, bool, bool]] = []

    class Probe(StreamingFakeLLM):
        def __call__(self, request: httpx2.Request) -> httpx2.Response:
            states.append((box.status.value, box.send_button.disabled, box.text.disabled))
            return super().__call__(request)

    fake = Probe(["好"])
    box = ChatBox(ChatSession(fake.client(), "fake-model"), stream=False)
    box.text.value = "在吗"
    box.send_button.click()
    assert states == [("⏳ 模型思考中…", True, True)]
    assert "好" in box.reply.value and "⏳" not in box.status.value and not box.send_button.disabled
    assert "stream" not in fake.requests[0]


def test_chat_box_shows_errors_in_the_widget(fake):
    fake.add(httpx2.Response(401, json={"error": {"message": "invalid api key"}}))
    box = ChatBox(ChatSession(fake.client(), "fake-model"))
    box.text.value = "你好"
    box.send_button.click()  # no exception reaches the cell
    assert "⚠️" in box.status.value and "invalid api key" in box.status.value
    assert box.text.value == "你好" and not box.text.disabled  # the question is kept to retry
    box.text.value = ""
    box.send_button.click()
    assert "请输入一句话再发送" in box.status.value


def test_chat_box_tools_mode_shows_tool_messages_and_reset(fake):
    fake.add({"tool_calls": [("query_by_product_name", {"product_name": "球"})]}, "有篮球。")
    box = ChatBox(ChatSession(fake.client(), "fake-model", memory=True, tools=[PRODUCT_TOOL]))
    tables: list[str] = []
    statuses: list[str] = []
    box.table.observe(lambda change: tables.append(change["new"]), names="value")
    box.status.observe(lambda change: statuses.append(change["new"]), names="value")
    box.text.value = "卖什么球"
    box.send_button.click()
    assert "query_by_product_name" in box.table.value and "tool" in box.table.value
    assert t("widgets.reading_results", names="query_by_product_name") in statuses  # after the step that ran the tool
    assert any("query_by_product_name" in t and "有篮球" not in t for t in tables)  # tool step shown before the answer
    box.reset_button.click()
    assert box.session.history == [box.session.system] and box.reply.value == ""


def test_chat_box_without_ipywidgets_is_a_table(monkeypatch, fake):
    import sys

    fake.add("你好！")
    session = ChatSession(fake.client(), "fake-model")
    session.send("你好")
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    assert "你好！" in str(chat_box(session))


# --------------------------------------------------------------------------- versions


def test_widget_packages_match_each_other_and_the_pins():
    """ipywidgets 8.1.x needs the JupyterLab extension from jupyterlab_widgets 3.0.x (requirements-client.txt)."""
    import re
    import sys
    from importlib.metadata import version
    from pathlib import Path

    from notebook_cells import ROOT

    pins = dict(re.findall(r"^(ipywidgets|jupyterlab_widgets)==(\S+)", (ROOT / "requirements-client.txt").read_text(encoding="utf-8"), re.M))
    assert pins == {"ipywidgets": version("ipywidgets"), "jupyterlab_widgets": version("jupyterlab_widgets")}
    assert version("ipywidgets").startswith("8.1.") and version("jupyterlab_widgets").startswith("3.0.")
    manager = Path(sys.prefix) / "share/jupyter/labextensions/@jupyter-widgets/jupyterlab-manager/package.json"
    assert manager.exists(), "the widget extension is not installed where JupyterLab looks for it"
    assert json.loads(manager.read_text(encoding="utf-8"))["version"].startswith("5.0.")


def test_an_empty_reply_is_not_kept(fake):
    fake.add("", "你好！")
    session = ChatSession(fake.client(), "fake-model", memory=True)
    assert session.send("在吗") == "" and "空回复" in session.notice
    assert [m["role"] for m in session.history] == ["system", "user"]
    assert session.send("在吗？") == "你好！"  # the next request is still valid (two user messages in a row)
    assert session.notice is None


def test_max_steps_must_be_positive(fake):
    with pytest.raises(ValueError, match="max_steps"):
        ChatSession(fake.client(), "fake-model", max_steps=0)


def test_chat_box_shows_a_reply_without_choices_in_its_status_line(fake):
    fake.add("你好！", no_choices(prompt_filter_results=FILTERED))
    box = ChatBox(ChatSession(fake.client(), "fake-model", memory=True), stream=False)
    box.text.value = "你好"
    box.send_button.click()
    history = list(box.session.history)
    box.text.value = "再说一次"
    box.send_button.click()
    assert box.session.history == history and len(history) == 3
    assert "ReplyError" in box.status.value and "choices" in box.status.value and "prompt_filter_results" in box.status.value


def test_chat_box_shows_a_reply_sent_as_a_list_of_parts(fake):
    parts = [{"type": "thinking", "thinking": "先想想"}, {"type": "text", "text": "你好呀！"}]
    fake.add(raw_completion({"role": "assistant", "content": parts}))
    box = ChatBox(ChatSession(fake.client(), "fake-model", memory=True), stream=False)
    box.text.value = "你好"
    box.send_button.click()
    assert "你好呀！" in box.reply.value and "⚠️" not in box.status.value
    assert box.session.history[-1] == {"role": "assistant", "content": "你好呀！"}


@pytest.mark.parametrize("stream", [False, True])
def test_chat_box_says_when_a_reply_was_cut(fake, stream):
    fake.add({"content": "…店里有三种篮球：1. 斯伯丁 199 元；2. 李宁", "finish_reason": "length"}, "好的。")
    box = ChatBox(ChatSession(fake.client(), "fake-model", memory=True), stream=stream)
    box.text.value = "店里有哪些篮球？"
    box.send_button.click()
    assert "李宁" in box.reply.value and "截断" in box.status.value and "max_tokens" in box.status.value
    box.text.value = "谢谢"
    box.send_button.click()
    assert "截断" not in box.status.value


@pytest.mark.parametrize("stream", [False, True])
def test_chat_box_keeps_the_thinking_out_of_the_history(fake, stream):
    fake.add("<think>用户打招呼，回个好。</think>\n\n你好呀！", "好的。")
    box = ChatBox(ChatSession(fake.client(), "fake-model", memory=True), stream=stream)
    box.text.value = "你好"
    box.send_button.click()
    assert box.session.history[-1] == {"role": "assistant", "content": "你好呀！"}
    assert "你好呀！" in box.reply.value and "用户打招呼" not in box.reply.value
    box.text.value = "再见"
    box.send_button.click()
    assert all("think" not in (m.get("content") or "") for m in fake.requests[1]["messages"])


def test_half_an_emoji_does_not_poison_the_history(fake):
    fake.add(lone_surrogate_completion("好的\ud83d"), "没问题。")
    session = ChatSession(fake.client(), "fake-model", memory=True)
    assert session.send("你好") == "好的\ufffd"
    assert session.send("再说一句") == "没问题。" and session.error is None
    assert fake.requests[1]["messages"][2]["content"] == "好的\ufffd"


def test_chat_box_table_keeps_dollar_signs_out_of_math(fake):
    fake.add("两张券一共 $55。")
    box = ChatBox(ChatSession(fake.client(), "fake-model", memory=True), stream=False)
    box.text.value = "我有 $25 和 $30 两张券"
    box.send_button.click()
    assert "&#36;25 和 &#36;30" in box.table.value and "$25" not in box.table.value
    assert box.session.history[1]["content"] == "我有 $25 和 $30 两张券"


def test_chat_box_never_streams_the_thinking(fake):
    fake.add("<think>用户打招呼，回个好。</think>\n\n你好呀，很高兴认识你！")
    box = chat_box(ChatSession(fake.client(), "fake-model", memory=True))
    seen: list[str] = []
    box.reply.observe(lambda change: seen.append(change["new"]), names="value")
    box.text.value = "你好"
    box.send_button.click()
    assert seen and not any("用户打招呼" in v or "think" in v for v in seen)
    assert "你好呀，很高兴认识你！" in box.reply.value
