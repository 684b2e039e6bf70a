"""course_lib.replies: the one reader of a reply, a stream, its usage and an error."""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx2
import openai
import pytest

from course_lib.replies import (
    NO_CHOICES,
    Reply,
    ReplyError,
    collect_stream,
    cut_text,
    describe_error,
    read_reply,
    read_usage,
    split_thinking,
)
from fakes import FILTERED, no_choices, raw_completion, sse_response


def _sdk_response(fake_llm, reply):
    fake_llm.add(reply)
    return fake_llm.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])


def test_read_reply_of_a_text_answer(fake_llm):
    reply = read_reply(_sdk_response(fake_llm, {"content": "你好", "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}}))
    assert isinstance(reply, Reply)
    assert reply.message == {"role": "assistant", "content": "你好"}
    assert reply.text == "你好" and reply.finish_reason == "stop" and reply.chunks == 0
    assert reply.usage == {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    assert (reply.prompt_tokens, reply.completion_tokens) == (12, 3)


def test_read_reply_of_tool_calls_keeps_the_calls_and_has_no_text(fake_llm):
    reply = read_reply(_sdk_response(fake_llm, {"tool_calls": [("get_weather", {"city": "北京"})]}))
    assert reply.text == "" and reply.finish_reason == "tool_calls"
    (call,) = reply.message["tool_calls"]
    assert call["function"]["name"] == "get_weather" and json.loads(call["function"]["arguments"]) == {"city": "北京"}


def test_read_reply_of_a_dict_and_of_a_response_without_usage():
    reply = read_reply({"choices": [{"message": {"content": "hi"}, "finish_reason": "length"}]})
    assert reply.message == {"role": "assistant", "content": "hi"} and reply.finish_reason == "length"
    assert reply.usage is None and reply.prompt_tokens is None and reply.completion_tokens is None


def test_read_reply_without_choices_raises():
    with pytest.raises(ReplyError):
        read_reply({"choices": []})


def test_read_reply_without_choices_says_why(fake_llm):
    with pytest.raises(ReplyError) as caught:
        read_reply(_sdk_response(fake_llm, no_choices(prompt_filter_results=FILTERED)))
    text = str(caught.value)
    assert text.startswith(NO_CHOICES) and "prompt_filter_results" in text and "violence" in text
    assert caught.value.body["prompt_filter_results"] == FILTERED


def test_read_reply_with_choices_null_or_missing():
    for body in ({"choices": None}, {}, {"choices": [None]}):
        with pytest.raises(ReplyError) as caught:
            read_reply(body)
        assert str(caught.value).startswith(NO_CHOICES) and "原因" not in str(caught.value)


def test_read_usage_of_every_shape(fake_llm):
    want = {"prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42}
    response = _sdk_response(fake_llm, {"content": "x", "usage": want})
    assert read_usage(response) == want                    # SDK ChatCompletion
    assert read_usage(response.usage) == want              # SDK CompletionUsage
    assert read_usage({"usage": want, "choices": []}) == want  # dict response
    assert read_usage(dict(want)) == want                  # the usage dict itself
    assert read_usage(SimpleNamespace(usage=SimpleNamespace(**want))) == want  # plain attributes
    assert read_usage({"usage": {"prompt_tokens": 5}}) == {"prompt_tokens": 5, "completion_tokens": None, "total_tokens": None}


def test_read_usage_is_none_when_the_server_sent_none():
    assert read_usage(None) is None
    assert read_usage({"choices": []}) is None
    assert read_usage({"usage": None}) is None
    assert read_usage(SimpleNamespace(usage=None)) is None


def test_raw_completion_reads_like_any_other(fake_llm):
    fake_llm.add(raw_completion({"role": "assistant", "content": "ok"}, finish_reason="stop"))
    response = fake_llm.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    assert read_reply(response).usage == {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


def test_collect_stream_on_dict_chunks():
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "get_weather", "arguments": '{"ci'}}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'ty": "北京"}'}}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "get_weather", "arguments": {"city": "上海"}}}]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}},
    ]
    result = collect_stream(chunks)
    calls = result.message["tool_calls"]
    assert [c["id"] for c in calls] == ["c1", "c2"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"city": "北京"}
    assert json.loads(calls[1]["function"]["arguments"]) == {"city": "上海"}
    assert result.message["content"] is None and result.text == "" and result.finish_reason == "tool_calls"
    assert result.usage == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7} and result.chunks == 6


def test_collect_stream_of_text_calls_on_token_per_piece():
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant"}}]},
        {"choices": [{"index": 0, "delta": {"content": "你"}}]},
        {"choices": [{"index": 0, "delta": {"content": ""}}]},
        {"choices": [{"index": 0, "delta": {"content": "好"}, "finish_reason": "stop"}]},
    ]
    pieces: list[str] = []
    result = collect_stream(chunks, pieces.append)
    assert pieces == ["你", "好"] and result.text == "你好" and result.message == {"role": "assistant", "content": "你好"}
    assert result.finish_reason == "stop" and result.usage is None and result.chunks == 4


def test_describe_error_adds_the_cause():
    request = httpx2.Request("POST", "http://x/v1/chat/completions")
    try:
        try:
            raise httpx2.ConnectError("[Errno 111] Connection refused")
        except httpx2.ConnectError as cause:
            raise openai.APIConnectionError(request=request) from cause
    except openai.APIConnectionError as exc:
        text = describe_error(exc)
    assert text.startswith("APIConnectionError: Connection error.")
    assert "原因：ConnectError: [Errno 111] Connection refused" in text
    assert describe_error(ValueError("bad")) == "ValueError: bad"


# --------------------------------------------------------------------------- streams from other servers


def _stream(fake_llm, response, on_token=None):
    fake_llm.add(response)
    stream = fake_llm.client().chat.completions.create(
        model="m", messages=[{"role": "user", "content": "q"}], stream=True)
    return collect_stream(stream, on_token)


def test_collect_stream_when_every_piece_repeats_the_id(fake_llm):
    # DeepSeek / DashScope: the full id in every delta of a call
    deltas = [
        {"tool_calls": [{"index": 0, "id": "call_0_ab12", "type": "function", "function": {"name": "get_product_info", "arguments": ""}}]},
        {"tool_calls": [{"index": 0, "id": "call_0_ab12", "type": "function", "function": {"arguments": '{"product_name"'}}]},
        {"tool_calls": [{"index": 0, "id": "call_0_ab12", "type": "function", "function": {"arguments": ': "瑜伽垫"}'}}]},
    ]
    reply = _stream(fake_llm, sse_response(deltas, "tool_calls"))
    (call,) = reply.message["tool_calls"]
    assert call["id"] == "call_0_ab12" and call["function"]["name"] == "get_product_info"
    assert json.loads(call["function"]["arguments"]) == {"product_name": "瑜伽垫"}


def test_collect_stream_when_every_piece_repeats_the_name(fake_llm):
    deltas = [
        {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "get_weather", "arguments": '{"city"'}}]},
        {"tool_calls": [{"index": 0, "function": {"name": "get_weather", "arguments": ': "北京"}'}}]},
        {"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "get_weather", "arguments": '{"city": '}}]},
        {"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "get_weather", "arguments": '"上海"}'}}]},
    ]
    reply = _stream(fake_llm, sse_response(deltas, "tool_calls"))
    calls = reply.message["tool_calls"]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [("c1", "get_weather"), ("c2", "get_weather")]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "北京"}, {"city": "上海"}]


def test_collect_stream_of_pieces_without_index(fake_llm):
    # Gemini's OpenAI-compatible endpoint: no index (or "index": null)
    deltas = [
        {"tool_calls": [{"id": "g1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}]},
        {"tool_calls": [{"index": None, "id": "g2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city"'}}]},
        {"tool_calls": [{"index": None, "function": {"arguments": ': "上海"}'}}]},
    ]
    reply = _stream(fake_llm, sse_response(deltas, "tool_calls"))
    calls = reply.message["tool_calls"]
    assert [c["id"] for c in calls] == ["g1", "g2"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "北京"}, {"city": "上海"}]


def test_collect_stream_of_content_sent_as_a_list_of_parts(fake_llm):
    deltas = [{"content": [{"type": "text", "text": "你好"}]}, {"content": [{"type": "text", "text": "！"}]}]
    pieces: list[str] = []
    reply = _stream(fake_llm, sse_response(deltas), pieces.append)
    assert pieces == ["你好", "！"] and reply.text == "你好！"
    assert reply.message == {"role": "assistant", "content": "你好！"}


MISTRAL_PARTS = [
    {"type": "thinking", "thinking": [{"type": "text", "text": "用户要找瑜伽垫，"}, {"type": "text", "text": "我直接回答。"}]},
    {"type": "text", "text": "我们有"},
    {"type": "text", "text": "两款瑜伽垫。"},
]


def test_read_reply_of_content_as_a_list_of_parts(fake_llm):
    reply = read_reply(_sdk_response(fake_llm, raw_completion({"role": "assistant", "content": MISTRAL_PARTS})))
    assert reply.text == "我们有两款瑜伽垫。"
    assert reply.message == {"role": "assistant", "content": "我们有两款瑜伽垫。"}
    assert reply.reasoning == "用户要找瑜伽垫，我直接回答。"


def test_read_reply_of_parts_with_no_text_part_is_empty():
    reply = read_reply({"choices": [{"message": {"content": [{"type": "thinking", "thinking": "嗯"}]}, "finish_reason": "stop"}]})
    assert reply.text == "" and reply.message["content"] is None and reply.reasoning == "嗯"


def test_collect_stream_keeps_thinking_parts_apart(fake_llm):
    deltas = [{"content": [{"type": "thinking", "thinking": "想"}]}, {"content": [{"type": "thinking", "thinking": "好了"}, {"type": "text", "text": "答"}]}]
    pieces: list[str] = []
    reply = _stream(fake_llm, sse_response(deltas), pieces.append)
    assert pieces == ["答"] and reply.text == "答" and reply.reasoning == "想好了"



def test_split_thinking():
    assert split_thinking("<think>想一想</think>\n\n你好") == ("想一想", "你好")
    assert split_thinking("  <think>\n想\n</think>答") == ("想", "答")
    assert split_thinking("想一想</think>\n你好") == ("想一想", "你好")  # the template opened the tag
    assert split_thinking("<think>还没想完") == ("还没想完", "")           # cut while thinking
    assert split_thinking("你好 <think>x</think>") == ("", "你好 <think>x</think>")  # not at the start
    assert split_thinking("你好") == ("", "你好") and split_thinking("") == ("", "")


def test_read_reply_splits_the_thinking_off(fake_llm):
    reply = read_reply(_sdk_response(fake_llm, "<think>用户打招呼。</think>\n\n你好！"))
    assert reply.text == "你好！" and reply.reasoning == "用户打招呼。"
    assert reply.message == {"role": "assistant", "content": "你好！"}


def test_read_reply_takes_reasoning_content_out_of_the_message(fake_llm):
    message = {"role": "assistant", "content": "答案是 3。", "reasoning_content": "1+2=3", "x_vendor": 1}
    reply = read_reply(_sdk_response(fake_llm, raw_completion(message)))
    assert reply.reasoning == "1+2=3" and reply.text == "答案是 3。"
    assert reply.message == {"role": "assistant", "content": "答案是 3。", "x_vendor": 1}


def test_collect_stream_splits_the_thinking_and_reads_reasoning_content(fake_llm):
    deltas = [{"reasoning_content": "先"}, {"reasoning_content": "想"}, {"content": "<think>再想"}, {"content": "</think>\n\n你"}, {"content": "好"}]
    reply = _stream(fake_llm, sse_response(deltas))
    assert reply.text == "你好" and reply.message == {"role": "assistant", "content": "你好"}
    assert reply.reasoning == "先想\n再想"


def test_collect_stream_holds_the_thinking_back_from_on_token(fake_llm):
    deltas = [{"content": "<thi"}, {"content": "nk>我可以调用"}, {"content": " get_weather</th"}, {"content": "ink>\n\n你"}, {"content": "好"}]
    pieces: list[str] = []
    reply = _stream(fake_llm, sse_response(deltas), pieces.append)
    assert pieces == ["你", "好"] and reply.text == "你好" and reply.reasoning == "我可以调用 get_weather"


def test_collect_stream_passes_a_reply_that_only_starts_like_a_tag(fake_llm):
    pieces: list[str] = []
    reply = _stream(fake_llm, sse_response([{"content": "<"}, {"content": "b>粗体</b>"}]), pieces.append)
    assert "".join(pieces) == "<b>粗体</b>" == reply.text and pieces == ["<b>粗体</b>"]


def test_collect_stream_orders_indexed_calls_by_index():
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "b", "function": {"name": "get_weather", "arguments": "{}"}}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "get_weather", "arguments": "{}"}}]}}]},
    ]
    assert [c["id"] for c in collect_stream(chunks).message["tool_calls"]] == ["a", "b"]


def test_cut_text_says_why_a_reply_is_incomplete(fake_llm):
    assert "max_tokens" in cut_text("length") and "finish_reason=length" in cut_text("length")
    assert "finish_reason=content_filter" in cut_text("content_filter")
    assert cut_text("stop") is None and cut_text("tool_calls") is None and cut_text(None) is None
    reply = read_reply(_sdk_response(fake_llm, {"content": "店里有：1.", "finish_reason": "length"}))
    assert reply.cut == cut_text("length")
