"""course_lib.tracing (notebook 10): an Agent run as OpenTelemetry spans in a local file, on scripted replies.

No model, no collector, no network: the scripted server answers, the sdk writes one JSON line per span.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from matplotlib.figure import Figure
from opentelemetry import trace

from fakes import FakeLLM, shop
from notebook_cells import ROOT

import course_lib.tracing as tracing_module
from course_runtime import trace_files
from course_lib.agent import Agent
from course_lib.approval import reject
from course_lib.react import LineReAct
from course_lib.tracing import SPAN_COLUMNS, Tracer, load_spans, plot_timeline, provider_name, spans_table
from course_lib.texts import t

USAGE_1 = {"prompt_tokens": 120, "completion_tokens": 15, "total_tokens": 135}
USAGE_2 = {"prompt_tokens": 180, "completion_tokens": 9, "total_tokens": 189}
ANSWER = "北京今天晴，25°C。"


def weather_run(*more):
    """A script: one get_weather call (with its usage), then the answer (with its usage)."""
    return [{"tool_calls": [("get_weather", {"city": "北京"})], "usage": USAGE_1},
            {"content": ANSWER, "usage": USAGE_2}, *more]


def agent_for(replies, registry=None, **options):
    fake = FakeLLM(list(replies))
    options.setdefault("trace", None)
    return fake, Agent(fake.client(), "fake-model", registry, **options)


def traced(tmp_path, replies, registry=None, question="北京天气怎么样？", **options):
    """Run one scripted agent under a Tracer; returns (result, spans, agent)."""
    _, agent = agent_for(replies, registry, **options)
    path = tmp_path / "traces" / "run.jsonl"
    with Tracer(path) as tracer:
        result = tracer.run(agent, question, case_id="P1")
    return result, load_spans(path), agent


def by_operation(spans, operation):
    return [s for s in spans if s["attributes"].get("gen_ai.operation.name") == operation]


# --------------------------------------------------------------------------- the spans of one run


def test_one_tool_call_gives_an_agent_span_over_two_chats_and_one_tool(tmp_path):
    result, spans, _ = traced(tmp_path, weather_run())
    assert result.answer == ANSWER and result.stopped_reason == "answer"
    [root] = by_operation(spans, "invoke_agent")
    chats, tools = by_operation(spans, "chat"), by_operation(spans, "execute_tool")
    assert len(spans) == 4 and len(chats) == 2 and len(tools) == 1
    assert root["parent_id"] is None and root["name"] == "invoke_agent course-agent"
    assert all(s["parent_id"] == root["span_id"] for s in chats + tools)
    assert len({s["trace_id"] for s in spans}) == 1 and len(root["trace_id"]) == 32
    assert [s["name"] for s in chats] == ["chat fake-model"] * 2 and tools[0]["name"] == "execute_tool get_weather"
    assert root["kind"] == "INTERNAL" and chats[0]["kind"] == "CLIENT" and tools[0]["kind"] == "INTERNAL"
    # in time: chat, then the tool, then chat, all inside the run
    first, second = sorted(chats, key=lambda s: s["start"])
    assert root["start"] <= first["start"] < first["end"] <= tools[0]["start"] <= tools[0]["end"] <= second["start"]
    assert second["end"] <= root["end"] and all(s["duration_ms"] >= 0 for s in spans)
    assert spans[-1] is root  # a span is written when it ends: the root last
    assert root["resource"]["service.name"] == "llm-agent-course"


def test_the_attributes_are_the_gen_ai_ones_with_the_scripted_usage(tmp_path):
    _, spans, _ = traced(tmp_path, weather_run())
    [root] = by_operation(spans, "invoke_agent")
    first, second = sorted(by_operation(spans, "chat"), key=lambda s: s["start"])
    [tool] = by_operation(spans, "execute_tool")
    a = first["attributes"]
    assert a["gen_ai.request.model"] == "fake-model" and a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.usage.input_tokens"] == 120 and a["gen_ai.usage.output_tokens"] == 15
    assert a["gen_ai.response.finish_reasons"] == ["tool_calls"]
    assert a["gen_ai.request.max_tokens"] == 300 and a["gen_ai.request.temperature"] == 0
    assert a["llm_course.request.tools"] >= 1
    b = second["attributes"]
    assert (b["gen_ai.usage.input_tokens"], b["gen_ai.usage.output_tokens"]) == (180, 9)
    assert b["gen_ai.response.finish_reasons"] == ["stop"]
    r = root["attributes"]
    assert r["gen_ai.usage.input_tokens"] == 300 and r["gen_ai.usage.output_tokens"] == 24
    assert r["llm_course.stopped_reason"] == "answer" and r["llm_course.case_id"] == "P1" and r["llm_course.steps"] == 2
    assert r["gen_ai.agent.name"] == "course-agent" and r["gen_ai.request.model"] == "fake-model"
    assert r["gen_ai.provider.name"] == "openai" and r["llm_course.answer"] == ANSWER
    x = tool["attributes"]
    assert x["gen_ai.tool.name"] == "get_weather" and x["gen_ai.tool.call.id"] == FakeLLM.call_id(1, 0)
    assert json.loads(x["gen_ai.tool.call.arguments"]) == {"city": "北京"}
    assert x["gen_ai.tool.call.result"].startswith("北京：晴")  # Chinese, back as it was written
    assert x["llm_course.tool.ok"] is True and x["llm_course.tool.approval"] == "" and tool["status"] == "UNSET"


def test_chinese_text_round_trips_through_the_utf8_file(tmp_path):
    question = "北京和上海，哪个更热？（温度：°C）"
    _, spans, _ = traced(tmp_path, weather_run(), question=question)
    [root] = by_operation(spans, "invoke_agent")
    assert root["attributes"]["llm_course.question"] == question
    raw = (tmp_path / "traces" / "run.jsonl").read_bytes().decode("utf-8")  # the file is UTF-8 (whatever to_json escapes)
    assert len(raw.splitlines()) == 4 and all(json.loads(line)["name"] for line in raw.splitlines())
    assert "北京" in raw or "\\u5317\\u4eac" in raw


def test_agent_name_and_caller_attributes(tmp_path):
    _, agent = agent_for(weather_run())
    path = tmp_path / "run.jsonl"
    with Tracer(path) as tracer:
        tracer.run(agent, "北京天气怎么样？", agent_name="weather-bot", case_id="W2", attempt=3, **{"app.user": "s01"})
    [root] = by_operation(load_spans(path), "invoke_agent")
    a = root["attributes"]
    assert root["name"] == "invoke_agent weather-bot" and a["gen_ai.agent.name"] == "weather-bot"
    assert a["llm_course.case_id"] == "W2" and a["llm_course.attempt"] == 3 and a["app.user"] == "s01"


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize("call", [("no_such_tool", {"x": 1}), ("get_weather", '{"city": ')])
def test_a_failing_tool_is_an_error_span_and_the_run_still_ends(tmp_path, call):
    result, spans, _ = traced(tmp_path, [{"tool_calls": [call]}, "抱歉，查不到。"])
    assert result.stopped_reason == "answer" and result.answer == "抱歉，查不到。"
    [tool] = by_operation(spans, "execute_tool")
    assert tool["status"] == "ERROR" and tool["attributes"]["llm_course.tool.ok"] is False
    assert tool["status_description"].startswith("错误") and tool["attributes"]["error.type"] == "tool_error"
    assert "gen_ai.tool.call.result" not in tool["attributes"]  # the spec's result is a successful one's
    [root] = by_operation(spans, "invoke_agent")
    assert root["status"] == "UNSET" and len(by_operation(spans, "chat")) == 2


def test_a_rejected_call_records_the_decision(tmp_path):
    written, registry = shop()
    result, spans, _ = traced(tmp_path, [{"tool_calls": [("place_order", {"product_id": "001", "quantity": 100})]},
                                         "好的，没有下单。"], registry, question="买一百个",
                              approve=lambda call: reject("数量太大"))
    assert written == [] and result.answer == "好的，没有下单。"
    [tool] = by_operation(spans, "execute_tool")
    a = tool["attributes"]
    assert a["llm_course.tool.approval"] == "reject" and a["llm_course.tool.ok"] is False and tool["status"] == "ERROR"
    assert a["error.type"] == "rejected" and "数量太大" in tool["status_description"]


def test_a_run_that_waits_for_a_person_is_recorded_as_waiting(tmp_path):
    written, registry = shop()
    result, spans, _ = traced(tmp_path, [{"tool_calls": [("place_order", {"product_id": "001", "quantity": 1})]}],
                              registry, question="买一个", approve=lambda call: None)  # None: a person decides later
    assert written == [] and result.stopped_reason == "waiting"
    [root] = by_operation(spans, "invoke_agent")
    assert root["attributes"]["llm_course.stopped_reason"] == "waiting"  # not "running"


def test_an_exception_is_recorded_on_its_spans_raised_and_the_hooks_put_back(tmp_path):
    boom = RuntimeError("连接断了")
    _, agent = agent_for(weather_run())
    path = tmp_path / "run.jsonl"

    def broken(call, step):
        raise boom

    agent.answer_call = broken  # an instance hook set by someone else (as the bench does): kept
    with Tracer(path) as tracer, pytest.raises(RuntimeError, match="连接断了"):
        tracer.run(agent, "北京天气怎么样？")
    assert agent.answer_call is broken and "send" not in vars(agent)
    spans = load_spans(path)
    [root], [tool] = by_operation(spans, "invoke_agent"), by_operation(spans, "execute_tool")
    for span in (root, tool):
        assert span["status"] == "ERROR" and span["attributes"]["error.type"] == "RuntimeError"
        assert [e["name"] for e in span["events"]] == ["exception"]
        assert span["events"][0]["attributes"]["exception.message"] == "连接断了"
    assert root["attributes"]["llm_course.stopped_reason"] == "running"
    assert root["attributes"]["gen_ai.usage.input_tokens"] == 0  # the step was never recorded


def test_keyboard_interrupt_is_recorded_and_raised(tmp_path):
    _, agent = agent_for([KeyboardInterrupt()])  # the student's stop while the request waits
    path = tmp_path / "run.jsonl"
    with Tracer(path) as tracer, pytest.raises(KeyboardInterrupt):
        tracer.run(agent, "北京天气怎么样？")
    spans = load_spans(path)
    assert {s["status"] for s in spans} == {"ERROR"} and len(spans) == 2
    assert all(s["attributes"]["error.type"] == "KeyboardInterrupt" for s in spans)
    assert "send" not in vars(agent) and "answer_call" not in vars(agent)


def test_the_hooks_are_the_class_methods_again_after_a_run(tmp_path):
    _, spans, agent = traced(tmp_path, weather_run())
    assert "send" not in vars(agent) and "answer_call" not in vars(agent)
    assert agent.send.__func__ is Agent.send and agent.answer_call.__func__ is Agent.answer_call


def test_only_the_native_loop_can_be_traced(tmp_path):
    fake = FakeLLM(["Answer: 好"])
    loop = LineReAct(fake.client(), "fake-model", trace=None)
    path = tmp_path / "run.jsonl"
    with Tracer(path) as tracer, pytest.raises(TypeError) as caught:
        tracer.run(loop, "你好")
    assert str(caught.value) == t("tracing.not_native", kind="LineReAct")
    assert fake.requests == [] and load_spans(path) == []  # nothing ran, no half span written


# --------------------------------------------------------------------------- the file


def test_two_runs_append_two_traces_to_one_file(tmp_path):
    path = tmp_path / "run.jsonl"
    ids = []
    for case in ("P1", "P2"):
        _, agent = agent_for(weather_run())
        with Tracer(path) as tracer:  # a new Tracer appends
            tracer.run(agent, "北京天气怎么样？", case_id=case)
            ids.append(tracer.last_trace_id)
    _, agent = agent_for(weather_run(*weather_run()))
    with Tracer(path) as tracer:  # one Tracer, two runs: two traces too
        tracer.run(agent, "北京天气怎么样？", case_id="P3")
        tracer.run(agent, "北京天气怎么样？", case_id="P4")
        ids.append(tracer.last_trace_id)
    spans = load_spans(path, run="all")  # every run the file keeps
    assert len(spans) == 16 and len({s["trace_id"] for s in spans}) == 4 and len(set(ids)) == 3
    roots = by_operation(spans, "invoke_agent")
    assert [r["attributes"]["llm_course.case_id"] for r in roots] == ["P1", "P2", "P3", "P4"]
    assert set(ids) <= {r["trace_id"] for r in roots}
    assert len(spans.runs) == 3 and spans.run_id is None  # three Tracers: three runs
    latest = load_spans(path)  # the default: the last Tracer's run only
    assert [r["attributes"]["llm_course.case_id"] for r in by_operation(latest, "invoke_agent")] == ["P3", "P4"]
    assert latest.run_id == spans.runs[-1] and {s["run_id"] for s in latest} == {latest.run_id}


def test_a_run_inside_another_span_is_still_a_trace_of_its_own(tmp_path):
    from opentelemetry.sdk.trace import TracerProvider

    outer = TracerProvider(shutdown_on_exit=False).get_tracer("someone-else")  # e.g. a notebook's own tracing
    _, agent = agent_for(weather_run())
    path = tmp_path / "run.jsonl"
    with outer.start_as_current_span("cell") as cell, Tracer(path) as tracer:
        tracer.run(agent, "北京天气怎么样？")
    [root] = by_operation(load_spans(path), "invoke_agent")
    assert root["parent_id"] is None and root["trace_id"] != format(cell.get_span_context().trace_id, "032x")


def test_a_closed_tracer_refuses_to_run(tmp_path):
    tracer = Tracer(tmp_path / "run.jsonl")
    tracer.close()
    tracer.close()  # twice: nothing happens
    _, agent = agent_for(weather_run())
    with pytest.raises(RuntimeError, match="已经关闭"):
        tracer.run(agent, "北京天气怎么样？")


def test_a_missing_file_gives_a_chinese_error(tmp_path):
    with pytest.raises(FileNotFoundError) as missing:
        load_spans(tmp_path / "nothing.jsonl")
    assert "找不到追踪文件" in str(missing.value) and "nothing.jsonl" in str(missing.value)


# --------------------------------------------------------------------------- table and timeline


def test_spans_table_orders_rows_and_indents_by_depth(tmp_path):
    _, spans, _ = traced(tmp_path, weather_run())
    table = spans_table(spans)
    assert list(table.columns) == SPAN_COLUMNS and len(table) == 4
    assert list(table["operation"]) == ["invoke_agent", "chat", "execute_tool", "chat"]
    assert list(table["depth"]) == [0, 1, 1, 1] and list(table["trace"]) == ["P1"] * 4
    assert table["span"][0] == "invoke_agent course-agent" and table["span"][2] == "└─ execute_tool get_weather"
    assert table["start_ms"][0] == 0 and list(table["start_ms"]) == sorted(table["start_ms"])
    assert table["input_tokens"][0] == 300 and table["input_tokens"][1] == 120 and table["input_tokens"][3] == 180
    assert table["input_tokens"].isna().tolist() == [False, False, True, False]
    assert table["tool"][2] == "get_weather" and bool(table["ok"][2])
    assert table["ok"].isna().tolist() == [True, True, False, True]  # ok: tool spans only


def test_spans_table_keeps_traces_apart_and_names_them(tmp_path):
    path = tmp_path / "run.jsonl"
    _, agent = agent_for(weather_run(*weather_run()))
    with Tracer(path) as tracer:
        tracer.run(agent, "北京天气怎么样？")
        tracer.run(agent, "北京天气怎么样？", case_id="P2")
        second = tracer.last_trace_id
    table = spans_table(load_spans(path))
    labels = list(dict.fromkeys(table["trace"]))
    assert len(labels) == 2 and labels[1] == "P2" and len(labels[0]) == 8
    assert list(table["depth"]) == [0, 1, 1, 1] * 2
    assert table[table["trace"] == "P2"]["start_ms"].iloc[0] == 0  # each trace from its own start
    assert second.startswith(load_spans(path)[-1]["trace_id"][:8])


def test_plot_timeline_draws_one_bar_per_span_of_one_trace(tmp_path):
    path = tmp_path / "run.jsonl"
    _, agent = agent_for([{"tool_calls": [("get_weather", {"city": "北京"}), ("no_such_tool", {})]}, ANSWER,
                          *weather_run()])
    with Tracer(path) as tracer:
        tracer.run(agent, "北京天气怎么样？", case_id="P1")  # 2 chats, 2 tools (one fails)
        tracer.run(agent, "北京天气怎么样？", case_id="P2")  # 2 chats, 1 tool
    spans = load_spans(path)
    fig = plot_timeline(spans)  # the latest trace: P2
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert len(ax.patches) == 4 and len(ax.get_yticklabels()) == 4
    assert len(ax.get_legend().get_texts()) == 3  # agent, chat, tool
    first = plot_timeline(spans, "P1").axes[0]
    assert len(first.patches) == 5 and len(first.get_legend().get_texts()) == 4  # + the error entry
    trace_id = next(s["trace_id"] for s in spans if s["attributes"].get("llm_course.case_id") == "P1")
    assert len(plot_timeline(spans, trace_id[:8]).axes[0].patches) == 5
    with pytest.raises(ValueError):
        plot_timeline(spans, "nope")


def test_plot_timeline_of_no_spans_is_an_empty_chart_that_says_why():
    said = []
    fig = plot_timeline([], show=said.append)  # e.g. OTEL_SDK_DISABLED: nothing was recorded
    assert isinstance(fig, Figure) and len(fig.axes[0].patches) == 0 and said == [t("tracing.no_spans")]


# --------------------------------------------------------------------------- nothing global


def test_no_global_tracer_provider_is_set(tmp_path):
    traced(tmp_path, weather_run())
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def test_provider_name_follows_the_spec_values():
    class P:
        def __init__(self, name):
            self.name = name

    class A:
        def __init__(self, provider):
            self.provider = provider

    assert provider_name(A(None)) == "openai" and provider_name(A(P("deepseek"))) == "deepseek"
    assert provider_name(A(P("dashscope"))) == "dashscope"  # not a well-known value: the preset's own name


# --------------------------------------------------------------------------- issue 44: what broke the traces
# A torn last line, OTEL_SDK_DISABLED set by another tool, attribute values of any type, a wall-clock
# step, and a file that grew across runs with the same case ids.


def run_once(path, case, **options):
    """One scripted run under a new Tracer (one run of the file); returns the Tracer's run id."""
    _, agent = agent_for(weather_run())
    with Tracer(path, **options) as tracer:
        tracer.run(agent, "北京天气怎么样？", case_id=case)
    return tracer.run_id


def strict_json(line):
    """json.loads that refuses NaN / Infinity (not JSON: jq, JavaScript and most readers reject them)."""
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    return json.loads(line, parse_constant=refuse)


def test_a_torn_last_line_is_skipped_counted_and_said_once(tmp_path):
    _, spans, _ = traced(tmp_path, weather_run())
    path = tmp_path / "traces" / "run.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole + whole.splitlines()[0][:57])  # the kernel stopped while a span was being written
    said = []
    back = load_spans(path, show=said.append)
    assert [s["span_id"] for s in back] == [s["span_id"] for s in spans] and back.skipped == 1
    assert len(said) == 1 and "第 5 行" in said[0] and str(path) in said[0]
    # the next Tracer's spans do not stick to the torn half line: all of them read back
    run_once(path, "P2")
    said.clear()
    latest = load_spans(path, show=said.append)
    assert len(latest) == 4 and by_operation(latest, "invoke_agent")[0]["attributes"]["llm_course.case_id"] == "P2"
    assert latest.skipped == 1 and len(said) == 1


def test_lines_that_are_not_spans_are_skipped_with_one_sentence(tmp_path):
    _, spans, _ = traced(tmp_path, weather_run())
    path = tmp_path / "traces" / "run.jsonl"
    lines = path.read_bytes().splitlines()
    bad = [b'{"name": "x"}', "半行".encode()[:4], b"not json at all"]  # JSON but no span, cut UTF-8, text
    path.write_bytes(b"\n".join([lines[0], bad[0], lines[1], bad[1], b"", lines[2], bad[2], lines[3]]) + b"\n")
    said = []
    back = load_spans(path, show=said.append)
    assert len(back) == 4 and back.skipped == 3 and len(said) == 1 and "第 2 行" in said[0]
    assert load_spans(path, show=None).skipped == 3  # show=None: silent, the count is still there


@pytest.mark.parametrize("value", ["true", " TRUE "])
def test_otel_sdk_disabled_records_nothing_and_says_why(tmp_path, monkeypatch, capsys, value):
    monkeypatch.setenv("OTEL_SDK_DISABLED", value)  # set by another tool (the SDK's rule: "true", any case)
    path = tmp_path / "traces" / "run.jsonl"
    fake, agent = agent_for(weather_run())
    with Tracer(path) as tracer:
        said = capsys.readouterr().out
        result = tracer.run(agent, "北京天气怎么样？", case_id="P1")
    assert said == t("tracing.sdk_disabled", path=path) + "\n"  # once, when the Tracer is made
    assert result.answer == ANSWER and len(fake.requests) == 2  # the run itself is the same
    assert tracer.last_trace_id is None and capsys.readouterr().out == ""
    assert not path.exists() and "send" not in vars(agent)  # honoured: no span, no file
    spans = load_spans(path)  # reading back gives nothing and says why
    assert spans == [] and capsys.readouterr().out == t("tracing.sdk_disabled_read", path=path) + "\n"
    table = spans_table(spans)
    assert len(table) == 0 and list(table.columns) == SPAN_COLUMNS


def test_otel_sdk_disabled_false_records_as_usual(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OTEL_SDK_DISABLED", "false")
    _, spans, _ = traced(tmp_path, weather_run())
    assert len(spans) == 4 and capsys.readouterr().out == ""


def test_attribute_values_of_any_type_are_written_as_valid_json(tmp_path):
    import numpy as np
    from decimal import Decimal

    _, agent = agent_for(weather_run())
    path = tmp_path / "run.jsonl"
    odd = {"n": np.int64(3), "x": np.float64(0.5), "flag": np.bool_(True), "score": float("nan"),
           "top": float("inf"), "low": np.float32("-inf"), "price": Decimal("19.90"), "tags": {"b", "a"},
           "mixed": {1, "x"}, "nums": [1, 2.5], "pairs": {(1, 2): 3, "nan": float("nan")}, "raw": "你好".encode(),
           "big": 2**70, "arr": np.array([1, 2]), "none": None, "nested": [[1], [2]], "empty": set()}
    with Tracer(path) as tracer:
        result = tracer.run(agent, "北京天气怎么样？", **odd)
    assert result.answer == ANSWER
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4 and all(strict_json(line) for line in lines)  # every span written, valid JSON
    [root] = by_operation(load_spans(path), "invoke_agent")
    a = {key.removeprefix("llm_course."): value for key, value in root["attributes"].items()}
    assert a["n"] == 3 and type(a["n"]) is int and a["x"] == 0.5 and a["flag"] is True
    assert a["score"] == "NaN" and a["top"] == "Infinity" and a["low"] == "-Infinity" and a["price"] == "19.90"
    assert a["tags"] == ["a", "b"] and sorted(map(str, strict_json(a["mixed"]))) == ["1", "x"]
    assert a["nums"] == [1.0, 2.5] and strict_json(a["pairs"]) == {"(1, 2)": 3, "nan": "NaN"}
    assert a["raw"] == "你好" and a["big"] == str(2**70) and a["arr"] == [1, 2] and "none" not in a
    assert strict_json(a["nested"]) == [[1], [2]] and a["empty"] == []


def test_a_wall_clock_step_back_gives_no_negative_duration(tmp_path, monkeypatch):
    import itertools
    import time

    import opentelemetry.sdk.trace as sdk_trace

    real, readings = time.time_ns, itertools.count()

    def stepping_back():  # each reading 10 s before the last: a fast clock pulled back (NTP, a VM resumed)
        return real() - next(readings) * 10_000_000_000

    monkeypatch.setattr(time, "time_ns", stepping_back)
    monkeypatch.setattr(sdk_trace, "time_ns", stepping_back)  # the sdk's own `from time import time_ns`
    _, spans, _ = traced(tmp_path, weather_run())
    assert len(spans) == 4 and all(0 <= s["duration_ms"] < 60_000 for s in spans)
    [root], [tool] = by_operation(spans, "invoke_agent"), by_operation(spans, "execute_tool")
    first, second = sorted(by_operation(spans, "chat"), key=lambda s: s["start"])
    assert root["start"] <= first["start"] <= first["end"] <= tool["start"] <= tool["end"] <= second["start"]
    assert second["end"] <= root["end"] and (spans_table(spans)["duration_ms"] >= 0).all()
    # an exception's event is inside its span too
    _, agent = agent_for([KeyboardInterrupt()])
    path = tmp_path / "stopped.jsonl"
    with Tracer(path) as tracer, pytest.raises(KeyboardInterrupt):
        tracer.run(agent, "北京天气怎么样？")
    for span in load_spans(path):
        moment = datetime.fromisoformat(span["events"][0]["timestamp"])
        assert span["start"] <= moment <= span["end"] and span["duration_ms"] >= 0


def test_the_same_case_ids_in_several_runs_read_back_as_the_latest_run(tmp_path):
    path = tmp_path / "run.jsonl"
    for _ in range(3):
        run_once(path, "P1")  # the notebook run again: the same case ids, new traces
    spans = load_spans(path)
    assert len(spans) == 4 and list(spans_table(spans)["trace"]) == ["P1"] * 4
    assert len(plot_timeline(spans, "P1").axes[0].patches) == 4
    assert len(load_spans(path, run="all")) == 12


def test_a_tracer_that_recorded_nothing_is_not_the_latest_run(tmp_path):
    path = tmp_path / "run.jsonl"
    first = run_once(path, "P1")
    with Tracer(path):  # a cell run again whose cases were all reused: no span written
        pass
    spans = load_spans(path)
    assert spans.run_id == first and len(spans) == 4 and spans.runs == [first]


def test_the_file_keeps_the_last_keep_runs_runs_and_stops_growing(tmp_path):
    path = tmp_path / "run.jsonl"
    ids = [run_once(path, f"P{k}", keep_runs=3) for k in range(3)]
    size = path.stat().st_size
    ids += [run_once(path, f"P{k}", keep_runs=3) for k in range(3, 8)]
    spans = load_spans(path, run="all")
    assert spans.runs == ids[-3:] and len(spans) == 12 and len(set(ids)) == 8
    assert [r["attributes"]["llm_course.case_id"] for r in by_operation(spans, "invoke_agent")] == ["P5", "P6", "P7"]
    assert path.stat().st_size < size * 1.2  # three runs' worth, not eight
    assert len(load_spans(path, run=ids[-2])) == 4
    with pytest.raises(ValueError) as pruned:
        load_spans(path, run=ids[0])
    assert ids[0] in str(pruned.value) and ids[-1] in str(pruned.value)
    other = tmp_path / "default.jsonl"
    for k in range(tracing_module.KEEP_RUNS + 2):
        run_once(other, f"P{k}")
    assert len(load_spans(other, run="all").runs) == tracing_module.KEEP_RUNS
    with pytest.raises(ValueError, match="keep_runs"):
        Tracer(tmp_path / "x.jsonl", keep_runs=0)


def test_old_lines_without_a_run_id_are_one_run_and_go_in_turn(tmp_path):
    _, _, _ = traced(tmp_path, weather_run())
    path = tmp_path / "traces" / "run.jsonl"
    old = []
    for line in path.read_text(encoding="utf-8").splitlines():  # as the course wrote them before runs had ids
        data = json.loads(line)
        data["resource"]["attributes"] = {"service.name": "llm-agent-course"}
        old.append(json.dumps(data))
    path.write_text("\n".join(old) + "\n", encoding="utf-8")
    run_once(path, "P2", keep_runs=2)
    spans = load_spans(path, run="all")
    assert spans.runs[0] is None and len(spans.runs) == 2 and len(spans) == 8
    run_once(path, "P3", keep_runs=2)
    assert None not in load_spans(path, run="all").runs


def test_a_file_another_open_tracer_writes_is_not_pruned(tmp_path):
    path = tmp_path / "run.jsonl"
    run_once(path, "P0", keep_runs=2)
    run_once(path, "P1", keep_runs=2)
    _, agent = agent_for(weather_run(*weather_run()))
    with Tracer(path, keep_runs=2) as first:  # keeps P1's run, then its own
        first.run(agent, "北京天气怎么样？", case_id="A")
        with Tracer(path, keep_runs=2):  # the same file, while `first` still writes to it: nothing cut
            pass
        first.run(agent, "北京天气怎么样？", case_id="B")
    cases = [r["attributes"]["llm_course.case_id"] for r in by_operation(load_spans(path, run="all"), "invoke_agent")]
    assert cases == ["P1", "A", "B"]


def test_a_file_that_is_not_a_trace_file_is_never_cut(tmp_path):
    path = tmp_path / "products.csv"
    text = "id,name\n001,篮球\n002,足球"  # no newline at the end
    path.write_text(text, encoding="utf-8")
    run_once(path, "P1", keep_runs=1)
    assert path.read_text(encoding="utf-8").startswith(text + "\n")
    spans = load_spans(path, show=None)
    assert len(spans) == 4 and spans.skipped == 3
    run_once(path, "P2", keep_runs=1)  # P1's run is cut; the lines that are not spans stay
    assert path.read_text(encoding="utf-8").startswith(text + "\n")
    spans = load_spans(path, run="all", show=None)
    assert len(spans.runs) == 1 and len(spans) == 4 and spans.skipped == 3


def test_a_torn_line_goes_when_its_run_is_cut(tmp_path):
    path = tmp_path / "run.jsonl"
    run_once(path, "P1", keep_runs=2)
    path.write_bytes(path.read_bytes() + path.read_bytes()[:30])  # a span torn while it was written
    run_once(path, "P2", keep_runs=2)
    assert load_spans(path, show=None).skipped == 1
    run_once(path, "P3", keep_runs=2)
    spans = load_spans(path, run="all", show=None)
    assert spans.skipped == 0 and len(spans.runs) == 2 and len(spans) == 8


def test_a_tool_that_waits_for_a_person_is_a_waiting_span_not_an_error(tmp_path):
    """An agent used as a tool whose inner place_order waits (tools.failure.ToolWaiting): its execute_tool span
    says it waits (``llm_course.tool.waiting``) and is not an ERROR; nothing was written."""
    from course_lib.multi_agent import agent_as_tool
    from course_lib.tools.registry import ToolRegistry

    written, registry = shop()
    inner = FakeLLM([{"tool_calls": [("place_order", {"product_id": "003", "quantity": 2})]}])
    ask = agent_as_tool(lambda: Agent(inner.client(), "inner-model", registry, system="你是订单专家。", trace=None),
                        "ask_orders_expert", "交给订单专家")
    result, spans, _ = traced(tmp_path, [{"tool_calls": [("ask_orders_expert", {"question": "买 2 个篮球"})]}],
                              ToolRegistry([ask]), question="帮我买 2 个篮球")
    assert written == [] and result.stopped_reason == "waiting"
    [tool] = by_operation(spans, "execute_tool")
    assert tool["attributes"]["llm_course.tool.waiting"] is True
    assert tool["status"] != "ERROR" and "error.type" not in tool["attributes"]
    [root] = by_operation(spans, "invoke_agent")
    assert root["attributes"]["llm_course.stopped_reason"] == "waiting" and root["status"] != "ERROR"


def test_a_run_another_kernel_cuts_the_file_under_is_not_lost(tmp_path):
    """Issue 57: a second kernel (another process) that cuts the old runs while this kernel's Tracer is still
    open replaced the file; the first kernel's later spans went to the replaced file and were lost
    (Linux/macOS).  Every span of the open Tracer must be in the file afterwards, with the other kernel's run."""
    import subprocess
    import sys
    import textwrap

    path = tmp_path / "run.jsonl"
    run_once(path, "P0", keep_runs=2)
    _, agent = agent_for(weather_run(*weather_run()))
    with Tracer(path, keep_runs=2) as first:
        first.run(agent, "北京天气怎么样？", case_id="A")
        other_kernel = textwrap.dedent(f"""
            import sys
            sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / "tests")!r}]
            from test_tracing import run_once
            run_once({str(path)!r}, "K2", keep_runs=2)  # holds two runs already: cuts the file to its last one
        """)
        subprocess.run([sys.executable, "-c", other_kernel], check=True, cwd=str(ROOT), timeout=120)
        first.run(agent, "北京天气怎么样？", case_id="B")
    cases = [r["attributes"]["llm_course.case_id"] for r in by_operation(load_spans(path, run="all"), "invoke_agent")]
    assert "B" in cases and "K2" in cases
    assert len(by_operation(load_spans(path, run="all"), "execute_tool")) == len(cases)  # no span of a run lost


def test_a_trace_file_that_cannot_be_written_loses_spans_not_the_run(tmp_path, monkeypatch, capsys):
    """The trace file's lock held elsewhere (filelock.Timeout) or an OSError: the run ends as usual and one
    Chinese sentence says the record lost spans."""
    from contextlib import contextmanager

    from filelock import Timeout

    @contextmanager
    def held_elsewhere(path, timeout=0):
        raise Timeout(str(path))
        yield  # pragma: no cover

    path = tmp_path / "run.jsonl"
    monkeypatch.setattr(trace_files, "file_locked", held_elsewhere)
    _, agent = agent_for(weather_run())
    with Tracer(path) as tracer:
        result = tracer.run(agent, "北京天气怎么样？")
    assert result.answer == ANSWER
    said = [line for line in capsys.readouterr().out.splitlines() if "写不进记录文件" in line]
    assert len(said) == 1 and str(path) in said[0]
