"""bench/prefixes.py: each request is put in the right kind, and the tokens add up."""
from bench.prefixes import kind, markdown, summarize

SYSTEM = {"role": "system", "content": "你是助手。"}
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


def request(*messages, tools=None):
    body = {"messages": list(messages)}
    if tools is not None:
        body["tools"] = tools
    return body


def test_kinds():
    ask = {"role": "user", "content": "北京天气？"}
    first = request(SYSTEM, ask, tools=WEATHER)
    reply = {"role": "assistant", "content": "晴"}
    assert kind(None, first) == "start"
    assert kind(first, request(SYSTEM, ask, reply, {"role": "user", "content": "上海呢？"}, tools=WEATHER)) == "continues"
    assert kind(first, request(SYSTEM, {"role": "user", "content": "上海？"}, tools=WEATHER)) == "history"
    assert kind(first, request(SYSTEM, ask, reply)) == "tools"  # the forced final answer: tools taken away
    assert kind(first, request({"role": "system", "content": "别的"}, ask, tools=WEATHER)) == "first"
    assert kind(first, request({"role": "user", "content": "你好"})) == "both"


def test_summarize_adds_up_and_a_streamed_row_continues():
    rows = [
        {"timings": {"prompt_n": 100, "cache_n": 0, "prompt_ms": 1000, "predicted_ms": 500},
         "request": request(SYSTEM, {"role": "user", "content": "a"}, tools=WEATHER)},
        {"timings": {"prompt_n": 90, "cache_n": 10, "prompt_ms": 900, "predicted_ms": 100},
         "request": request(SYSTEM, {"role": "user", "content": "a"})},
        {"timings": {"prompt_n": 5, "cache_n": 95, "prompt_ms": 50, "predicted_ms": 100}},
    ]
    found = summarize(rows, [("06", 1), ("06", 2), ("07", 3)])
    assert (found["requests"], found["read"], found["reused"], found["prompt_tokens"]) == (3, 195, 105, 300)
    assert round(found["prompt_s"], 2) == 1.95 and round(found["generate_s"], 2) == 0.7
    assert found["kinds"]["tools"] == {"requests": 1, "read": 90, "reused": 10}
    assert found["kinds"]["continues"]["read"] == 5
    assert found["notebooks"] == {"06": {"start": 100, "tools": 90}, "07": {"continues": 5}}
    assert "| tool list changed, same first message | 1 | 90 | 46 % | 10 |" in markdown("log", found)


def test_record_cells_follow_the_record_and_survive_no_record():
    from bench.prefixes import record_cells

    record = {"notebooks": {"01": [{"cell": 3}, {"cell": 5}], "02": [{"cell": 1}]}}
    assert record_cells(record) == [("01", 3), ("01", 5), ("02", 1)]
    assert record_cells(None) == []
