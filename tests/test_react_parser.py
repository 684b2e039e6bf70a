"""Tests for course_lib.react_parser: the ReAct text protocols of notebook 05."""

from __future__ import annotations

import json

import pytest

from course_lib.react_parser import (
    ParsedReply,
    corrective_observation,
    format_reminder,
    parse_json_protocol,
    parse_line_protocol,
    strip_partial_stop_word,
)
from course_lib.tools.registry import unknown_tool_text

TOOLS = ["calculate", "search", "get_weather"]


def blob(action, action_input, fence="```json"):
    body = json.dumps({"action": action, "action_input": action_input}, ensure_ascii=False)
    close = "~~~" if fence.startswith("~") else "```"
    return f"{fence}\n{body}\n{close}"


def assert_action(step, action, action_input):
    assert step.kind == "action", step
    assert step.action == action
    assert step.action_input == action_input
    assert step.error is None and step.answer is None


# ---------------------------------------------------------------------------
# Protocol A
# ---------------------------------------------------------------------------


def test_a_basic_action_pause_ignored():
    step = parse_line_protocol("Thought: 我需要计算乘法\nAction: calculate: 20 * 15\nPAUSE", TOOLS)
    assert_action(step, "calculate", "20 * 15")
    assert step.thought == "我需要计算乘法"
    assert isinstance(step, ParsedReply)


def test_a_answer():
    step = parse_line_protocol("Thought: 我知道了\nAnswer: 20 * 15 = 300", TOOLS)
    assert step.kind == "answer" and step.answer == "20 * 15 = 300"
    assert step.thought == "我知道了"


@pytest.mark.parametrize(
    "text",
    [
        "action ： calculate: 2+3",
        "ACTION：calculate：2+3",
        "  Action :calculate: 2+3",
        "Action:calculate:2+3",
        "THOUGHT：先算一下\nAction : calculate : 2+3\nPAUSE",
    ],
)
def test_a_labels_case_spaces_fullwidth_colon(text):
    assert_action(parse_line_protocol(text, TOOLS), "calculate", "2+3")


def test_a_thought_with_fullwidth_colon():
    step = parse_line_protocol("THOUGHT：先算一下\nACTION：calculate：2+3", TOOLS)
    assert step.thought == "先算一下"


@pytest.mark.parametrize(
    "text",
    [
        "**Action:** calculate: 2+3",
        "**Action**: calculate: 2+3",
        "`Action:` calculate: 2+3",
        "Action: `calculate`: 2+3",
        "Action: `calculate: 2+3`",
        "Action: **calculate**: 2+3",
        "- **Action:** `calculate`: 2+3",
        "__Action__: calculate: `2+3`",
    ],
)
def test_a_bold_and_backticked_labels_and_names(text):
    assert_action(parse_line_protocol(text, TOOLS), "calculate", "2+3")


def test_a_bold_thought_label():
    step = parse_line_protocol("**Thought:** 需要工具\n**Action:** calculate: 1+1", TOOLS)
    assert step.thought == "需要工具"


@pytest.mark.parametrize("tail", ["\nObserv", "\nObservation", "\nObs", "\nO", "\nObservation：", "\n**Observ"])
def test_a_half_written_stop_word_removed(tail):
    step = parse_line_protocol("Thought: t\nAction: search: 长江\nPAUSE" + tail, TOOLS)
    assert_action(step, "search", "长江")
    assert "Obs" not in step.raw and not step.raw.endswith("O")


def test_a_stop_word_strip_keeps_real_last_lines():
    assert strip_partial_stop_word("Answer: 42\nOK") == "Answer: 42\nOK"
    assert strip_partial_stop_word("Answer: 42\nObservable") == "Answer: 42\nObservable"
    assert strip_partial_stop_word("Answer: 42\nObserv  \n") == "Answer: 42"
    assert strip_partial_stop_word("x\nPAU", stop_words=["PAUSE"]) == "x"


def test_a_action_first_wins_over_answer():
    text = "Thought: 先算\nAction: calculate: 20*15\nPAUSE\nAnswer: 300"
    assert_action(parse_line_protocol(text, TOOLS), "calculate", "20*15")


def test_a_answer_first_wins_over_action():
    step = parse_line_protocol("Answer: 300\nAction: calculate: 20*15", TOOLS)
    assert step.kind == "answer" and step.answer == "300"


def test_a_invented_observation_is_cut_before_looking_for_answer():
    text = "Action: get_weather: 北京\nObservation: 北京 晴 25°C\nThought: 知道了\nAnswer: 北京晴天"
    step = parse_line_protocol(text, TOOLS)
    assert_action(step, "get_weather", "北京")
    assert "Observation" not in step.raw and "Answer" not in step.raw


def test_a_only_invented_observation_is_invalid_and_says_so():
    step = parse_line_protocol("Thought: 查一下\nObservation: 北京 晴\nAnswer: 晴", TOOLS)
    assert step.kind == "invalid"
    assert "Observation" in step.error


def test_a_tool_names_from_registry_any_script():
    tools = ["查天气", "get-weather", "Search"]
    assert_action(parse_line_protocol("Action: 查天气: 北京", tools), "查天气", "北京")
    assert_action(parse_line_protocol("Action: 查天气：北京", tools), "查天气", "北京")
    assert_action(parse_line_protocol("Action: get-weather: 上海", tools), "get-weather", "上海")
    # case-insensitive, the canonical registry spelling comes back
    assert_action(parse_line_protocol("Action: GET-WEATHER: 上海", tools), "get-weather", "上海")
    assert_action(parse_line_protocol("Action: search: 长江", tools), "Search", "长江")


def test_a_longest_registered_name_wins():
    tools = ["search", "search_web"]
    assert_action(parse_line_protocol("Action: search_web: x", tools), "search_web", "x")
    assert_action(parse_line_protocol("Action: search: x", tools), "search", "x")


def test_a_unknown_tool_is_invalid_and_lists_tools():
    step = parse_line_protocol("Action: wikipedia: 长江", TOOLS)
    assert step.kind == "invalid" and step.action is None
    assert "wikipedia" in step.error
    for name in TOOLS:
        assert name in step.error
    # a prefix of a real tool is not that tool
    assert parse_line_protocol("Action: calculator: 1+1", TOOLS).kind == "invalid"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Action: calculate: 20 * 15", "20 * 15"),
        ("Action: calculate(20*15)", "20*15"),
        ("Action: calculate（20*15）", "20*15"),
        ('Action: search("最长的河流")', "最长的河流"),
        ("Action: calculate (2+3)*(4)", "(2+3)*(4)"),
        ("Action: calculate: (2+3)*4", "(2+3)*4"),
        ("Action: calculate 20*15", "20*15"),
        ("Action: calculate: 20 * 15 PAUSE", "20 * 15"),
        ("Action: calculate: a: b", "a: b"),
        ("Action:\ncalculate: 2+3\nPAUSE", "2+3"),
        ("Action: calculate", ""),
    ],
)
def test_a_accepted_input_forms(text, expected):
    step = parse_line_protocol(text, TOOLS)
    assert_action(step, "calculate" if "calc" in text else "search", expected)


def test_a_label_must_start_a_line():
    step = parse_line_protocol("I will now do Action: calculate: 1+1", TOOLS)
    assert step.kind == "invalid"


def test_a_unparseable_reply_is_invalid_with_error():
    step = parse_line_protocol("20 乘以 15 等于 300。", TOOLS)
    assert step.kind == "invalid"
    assert "Action" in step.error and "Answer" in step.error
    assert step.raw == "20 乘以 15 等于 300。"


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n", None, "Observ"])
def test_a_empty_or_whitespace_is_invalid(text):
    step = parse_line_protocol(text, TOOLS)
    assert step.kind == "invalid" and step.error


def test_a_empty_answer_or_action_is_invalid():
    assert parse_line_protocol("Answer:   ", TOOLS).kind == "invalid"
    assert parse_line_protocol("Action:\nPAUSE", TOOLS).kind == "invalid"


# ---------------------------------------------------------------------------
# Protocol B
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("fence", ["```json", "```", "~~~", "```JSON", "~~~json"])
def test_b_fenced(fence):
    text = f"Thought: 需要计算\nAction:\n{blob('calculate', '20 * 15', fence)}"
    step = parse_json_protocol(text, TOOLS)
    assert_action(step, "calculate", "20 * 15")
    assert step.thought == "需要计算"


def test_b_unfenced_with_prose_around():
    text = (
        'Thought: 查一下\nAction: 我会调用搜索工具 {"action": "search", "action_input": "最长的河流"} '
        "然后等待结果。"
    )
    assert_action(parse_json_protocol(text, TOOLS), "search", "最长的河流")


def test_b_prose_with_braces_before_the_json():
    text = 'Action: 用 {计算器} 算一下:\n```json\n{"action": "calculate", "action_input": "1+1"}\n```'
    assert_action(parse_json_protocol(text, TOOLS), "calculate", "1+1")


def test_b_code_fences_and_braces_inside_string_values():
    code = "```python\nprint({'a': 1})\nprint('}')\n```"
    text = f"Thought: 运行代码\nAction:\n{blob('run_python', code)}\n\n后面还有说明。"
    step = parse_json_protocol(text, TOOLS + ["run_python"])
    assert_action(step, "run_python", code)


def test_b_escaped_quotes_and_raw_newlines_in_strings():
    text = 'Action:\n```json\n{"action": "search", "action_input": "say \\"}\\" and\nnext line"}\n```'
    assert_action(parse_json_protocol(text, TOOLS), "search", 'say "}" and\nnext line')


def test_b_dict_action_input():
    text = "Action:\n" + blob("get_weather", {"city": "北京", "unit": "celsius"})
    assert_action(parse_json_protocol(text, TOOLS), "get_weather", {"city": "北京", "unit": "celsius"})


def test_b_non_string_input_becomes_json_text_and_missing_input_is_empty():
    assert_action(parse_json_protocol('Action: {"action": "calculate", "action_input": 42}', TOOLS), "calculate", "42")
    assert_action(parse_json_protocol('Action: {"action": "calculate"}', TOOLS), "calculate", "")


def test_b_single_quoted_python_literal_repaired():
    step = parse_json_protocol("Action:\n```json\n{'action': 'calculate', 'action_input': '2+3'}\n```", TOOLS)
    assert_action(step, "calculate", "2+3")


def test_b_apostrophe_inside_double_quoted_value_survives():
    text = 'Action:\n```json\n{"action": "search", "action_input": "it\'s the longest river"}\n```'
    assert_action(parse_json_protocol(text, TOOLS), "search", "it's the longest river")
    mixed = "Action: {'action': 'search', 'action_input': \"it's\"}"
    assert_action(parse_json_protocol(mixed, TOOLS), "search", "it's")


def test_b_trailing_commas_tolerated():
    text = 'Action:\n{"action": "get_weather", "action_input": {"city": "上海",},}'
    assert_action(parse_json_protocol(text, TOOLS), "get_weather", {"city": "上海"})


def test_b_literal_eval_never_runs_code(tmp_path):
    marker = tmp_path / "pwned"
    text = f"Action: {{'action': __import__('pathlib').Path({str(marker)!r}).touch(), 'action_input': 1}}"
    step = parse_json_protocol(text, TOOLS)
    assert step.kind == "invalid"
    assert not marker.exists()


@pytest.mark.parametrize("tail", ["\nObserv", "\nObservation", "\nObs", "\nObservation:"])
def test_b_half_written_stop_word_removed(tail):
    text = "Thought: 算\nAction:\n" + blob("calculate", "2+3") + tail
    step = parse_json_protocol(text, TOOLS)
    assert_action(step, "calculate", "2+3")
    assert step.raw.endswith("```")


def test_b_action_first_and_invented_observation_cut():
    text = (
        "Thought: 先算\nAction:\n" + blob("calculate", "20*15")
        + "\nObservation: 300\nThought: I now know the final answer\nFinal Answer: 300"
    )
    step = parse_json_protocol(text, TOOLS)
    assert_action(step, "calculate", "20*15")
    assert "Final Answer" not in step.raw


def test_b_final_answer_first_wins():
    text = "Thought: 我知道了\nFinal Answer: 尼罗河\nAction:\n" + blob("search", "x")
    step = parse_json_protocol(text, TOOLS)
    assert step.kind == "answer" and step.answer == "尼罗河"
    assert step.thought == "我知道了"


@pytest.mark.parametrize("label", ["Final Answer:", "**Final Answer:**", "final answer：", "Answer:", "Final_Answer :"])
def test_b_final_answer_label_variants(label):
    step = parse_json_protocol(f"Thought: done\n{label} 300", TOOLS)
    assert step.kind == "answer" and step.answer == "300"


def test_b_final_answer_as_json_action():
    step = parse_json_protocol('Action:\n```json\n{"action": "Final Answer", "action_input": "300"}\n```', TOOLS)
    assert step.kind == "answer" and step.answer == "300"


def test_b_unlabeled_blob_and_unlabeled_thought():
    # LangChain prompts end with "Thought:", so the reply starts with the thought itself.
    step = parse_json_protocol(" 我需要查天气。\n" + blob("get_weather", {"city": "广州"}), TOOLS)
    assert_action(step, "get_weather", {"city": "广州"})
    assert step.thought == "我需要查天气。"
    step = parse_json_protocol(" 我需要查天气。\nAction:\n" + blob("get_weather", "北京"), TOOLS)
    assert step.thought == "我需要查天气。"


def test_b_bold_labels():
    text = "**Thought:** 查\n**Action:**\n" + blob("search", "长江")
    step = parse_json_protocol(text, TOOLS)
    assert_action(step, "search", "长江")
    assert step.thought == "查"


def test_b_tool_names_from_registry():
    tools = ["查天气", "get-weather"]
    assert_action(parse_json_protocol("Action:\n" + blob("查天气", "北京"), tools), "查天气", "北京")
    assert_action(parse_json_protocol("Action:\n" + blob("Get-Weather", "北京"), tools), "get-weather", "北京")
    assert_action(parse_json_protocol("Action:\n" + blob("`get-weather`", "北京"), tools), "get-weather", "北京")
    step = parse_json_protocol("Action:\n" + blob("weather", "北京"), tools)
    assert step.kind == "invalid" and "weather" in step.error and "查天气" in step.error


@pytest.mark.parametrize(
    "text, words",
    [
        ("Action: calculate: 2+3", ["JSON"]),
        ('Action:\n```json\n{"action": "calculate", "action_input": "2+3"\n```', ["不完整"]),
        ('Action:\n```json\n{"action": "calculate" "action_input": "2+3"}\n```', ["JSON"]),
        ('Action:\n```json\n{"tool": "calculate", "input": "2+3"}\n```', ['"action"']),
        ('Action: {"action": 3, "action_input": "x"}', ['"action"']),
        ("我觉得是尼罗河。", ["Action", "Final Answer"]),
        ("", ["空"]),
        ("  \n ", ["空"]),
        ("Final Answer:", ["Final Answer"]),
    ],
)
def test_b_invalid_replies_explain_the_problem(text, words):
    step = parse_json_protocol(text, TOOLS)
    assert step.kind == "invalid"
    for word in words:
        assert word in step.error


# ---------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Corrective observation
# ---------------------------------------------------------------------------


def test_corrective_observation_protocol_a():
    step = parse_line_protocol("我不知道该怎么做", TOOLS)
    text = corrective_observation(step, "A", TOOLS)
    assert text.startswith("Observation: 格式错误：")
    assert step.error in text
    assert "请严格按照以下格式回复" in text
    assert "Action: 工具名: 输入" in text and "PAUSE" in text and "Answer:" in text
    for name in TOOLS:
        assert name in text
    # the restated format is itself parseable protocol A (once a real tool name is filled in)
    example = text.split("请严格按照以下格式回复:\n", 1)[1].replace("工具名", "calculate")
    assert parse_line_protocol(example, TOOLS).kind == "action"


def test_corrective_observation_protocol_b():
    step = parse_json_protocol("Action: calculate: 2+3", TOOLS)
    text = corrective_observation(step, "b", TOOLS, prefix="")
    assert text.startswith("格式错误：")
    assert '{"action": "工具名", "action_input": "工具的输入"}' in text and "Final Answer:" in text
    assert "get_weather" in text
    example = text.split("请严格按照以下格式回复:\n", 1)[1].replace("工具名", "search")
    assert parse_json_protocol(example, TOOLS).kind == "action"


def test_corrective_observation_without_error_and_bad_protocol():
    text = corrective_observation(ParsedReply("invalid"), "A", TOOLS)
    assert "格式错误" in text
    with pytest.raises(ValueError):
        corrective_observation(ParsedReply("invalid"), "C", TOOLS)
    with pytest.raises(ValueError):
        format_reminder("json", TOOLS)


# --------------------------------------------------------------------------- LangChain's classic two-line form


@pytest.mark.parametrize("parse", [parse_line_protocol, parse_json_protocol])
@pytest.mark.parametrize("reply, want", [
    ("Action: get_weather\nAction Input: 北京", "北京"),
    ("Thought: 查一下\nAction: get_weather\nAction Input: 北京\nObserv", "北京"),       # partial stop word
    ('Action: `get_weather`\nAction Input: "北京"\nPAUSE', "北京"),
    ("**Action:** get_weather\n**Action Input:** 上海 浦东", "上海 浦东"),
])
def test_the_classic_two_line_action_is_read(parse, reply, want):
    parsed = parse(reply, TOOLS)
    assert (parsed.kind, parsed.action, parsed.action_input) == ("action", "get_weather", want)


def test_the_line_protocol_input_still_wins_over_a_classic_line():
    parsed = parse_line_protocol("Action: calculate: 2+3\nAction Input: 9*9", TOOLS)
    assert parsed.action_input == "2+3"


def test_an_answer_after_the_classic_input_is_not_part_of_it():
    parsed = parse_line_protocol("Action: get_weather\nAction Input: 北京\nThought: 然后回答", TOOLS)
    assert parsed.action_input == "北京"


@pytest.mark.parametrize("parse", [parse_line_protocol, parse_json_protocol])
@pytest.mark.parametrize("reply", ["Action: get_weather Final Answer:", "Thought: x\nAction: get_weather Answer: 晴"])
def test_a_decision_line_with_two_labels_is_neither_action_nor_answer(parse, reply):
    parsed = parse(reply, TOOLS)
    assert parsed.kind == "invalid" and "两个标签" in parsed.error
    assert "两个标签" in corrective_observation(parsed, "A" if parse is parse_line_protocol else "B", TOOLS)


def test_a_json_blob_on_the_action_line_is_not_two_labels():
    parsed = parse_json_protocol('Action: {"action": "search", "action_input": "the Answer: 42"}', TOOLS)
    assert (parsed.kind, parsed.action, parsed.action_input) == ("action", "search", "the Answer: 42")


def test_the_classic_form_with_a_json_input_in_the_json_protocol():
    parsed = parse_json_protocol('Thought: 查天气\nAction: get_weather\nAction Input: {"city": "北京"}', TOOLS)
    assert (parsed.kind, parsed.action, parsed.action_input) == ("action", "get_weather", {"city": "北京"})


def test_a_tool_name_ending_in_a_label_word_is_not_two_labels():
    names = ["search_answer", "get_weather"]
    parsed = parse_line_protocol("Action: search_answer: 篮球", names)
    assert (parsed.kind, parsed.action, parsed.action_input) == ("action", "search_answer", "篮球")
    assert parse_line_protocol("Action: get_weather **Final Answer:** 晴", names).kind == "invalid"


# --------------------------------------------------------------------------- classic form on ONE line (issue 11)


@pytest.mark.parametrize("parse", [parse_line_protocol, parse_json_protocol])
@pytest.mark.parametrize("text, action, action_input", [
    ("Action: get_weather Action Input: 北京", "get_weather", "北京"),
    ("Thought: 查一下\nAction: get_weather Action Input: 北京\nObserv", "get_weather", "北京"),
    ('Action: **calculate** **Action Input:** "20 * 15"', "calculate", "20 * 15"),
    ("Action: get_weather action_input： 上海 PAUSE", "get_weather", "上海"),
    ("Action: `get_weather` Action Input: 广州\nThought: 等结果", "get_weather", "广州"),
])
def test_classic_form_on_one_line(parse, text, action, action_input):
    step = parse(text, TOOLS)
    assert (step.kind, step.action, step.action_input) == ("action", action, action_input)


def test_classic_form_on_one_line_json_input():
    assert parse_json_protocol('Action: get_weather Action Input: {"city": "北京"}', TOOLS).action_input == {"city": "北京"}
    assert parse_line_protocol('Action: get_weather Action Input: {"city": "北京"}', TOOLS).action_input == '{"city": "北京"}'
    # "action_input" inside a JSON blob on the Action line is not an inline label
    step = parse_json_protocol('Action: {"action": "calculate", "action_input": "1+1"}', TOOLS)
    assert (step.action, step.action_input) == ("calculate", "1+1")


def test_classic_form_on_one_line_with_an_unknown_tool_or_a_second_label():
    # the same words as every loop's unknown-tool message (tools.registry.unknown_tool_text)
    error = parse_line_protocol("Action: get_wether Action Input: 北京", TOOLS).error
    assert error == unknown_tool_text("get_wether", TOOLS) + "。" and "get_wether" in error and "get_weather" in error
    assert parse_line_protocol("Action: get_weather Action Input: 北京 Final Answer: 晴", TOOLS).kind == "invalid"


# ---------------------------------------------------------------------------
# Issue 22: quotes and wide spaces around an input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("quoted", ["“北京”", "「北京」", "『北京』", "‘北京’", '"北京"', "'北京'", "`北京`", "\u3000“北京”\u3000"])
def test_a_quotes_around_the_whole_input_are_stripped(quoted):
    assert_action(parse_line_protocol(f"Action: get_weather: {quoted}\nPAUSE", TOOLS), "get_weather", "北京")
    assert_action(parse_line_protocol(f"Action: get_weather\nAction Input: {quoted}", TOOLS), "get_weather", "北京")
    assert_action(parse_json_protocol(blob("get_weather", quoted), TOOLS), "get_weather", "北京")


@pytest.mark.parametrize("text", ["“长江”和“黄河”", '"a" + "b"', "“北京", "「北京』", "他说“好”"])
def test_quotes_inside_the_input_or_unpaired_stay(text):
    assert_action(parse_line_protocol(f"Action: search: {text}", TOOLS), "search", text)
    assert_action(parse_json_protocol(blob("search", text), TOOLS), "search", text)


@pytest.mark.parametrize("space", ["\u3000", "\u00a0", "\u2003"])
def test_a_unicode_space_between_tool_name_and_input_is_a_space(space):
    assert_action(parse_line_protocol(f"Action: get_weather{space}北京\nPAUSE", TOOLS), "get_weather", "北京")
    assert_action(parse_line_protocol(f"Action:{space}calculate{space}2+3{space}PAUSE", TOOLS), "calculate", "2+3")


def test_quoted_tool_names_are_found():
    assert_action(parse_line_protocol("Action: “calculate”: 2+3", TOOLS), "calculate", "2+3")
    assert_action(parse_json_protocol(blob("「get_weather」", "北京"), TOOLS), "get_weather", "北京")


def test_b_a_json_blob_with_wide_spaces_is_read():
    text = 'Action:\n{\u3000"action":\u3000"calculate",\u3000"action_input":\u3000"2 + 3"\u3000}'
    assert_action(parse_json_protocol(text, TOOLS), "calculate", "2 + 3")


# ---------------------------------------------------------------------------
# Issue 22: ReAct labels translated into Chinese
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "思考：我需要计算\n行动：calculate: 20 * 15\nPAUSE",
    "思考: 我需要计算\n行动: calculate: 20 * 15",                 # ASCII colons
    "**思考：** 我需要计算\n**行动：** `calculate`: 20 * 15",
    "思考：我需要计算\n行动：calculate\n行动输入：20 * 15",       # the classic two-line form
    "思考：我需要计算\n行动：calculate 行动输入：20 * 15",
    "Thought: 我需要计算\n行动 ：calculate：20 * 15",              # mixed, space before a full-width colon
])
def test_a_chinese_labels_are_read_as_the_english_ones(text):
    step = parse_line_protocol(text, TOOLS)
    assert_action(step, "calculate", "20 * 15")
    assert step.thought == "我需要计算" and step.raw == text.strip()  # the raw text stays as written


@pytest.mark.parametrize("text, answer", [
    ("思考：我知道了\n最终答案：300", "300"),
    ("思考：我知道了\n答案: 300", "300"),
])
def test_chinese_answer_labels_end_the_run_in_both_protocols(text, answer):
    for parse in (parse_line_protocol, parse_json_protocol):
        step = parse(text, TOOLS)
        assert step.kind == "answer" and step.answer == answer and step.thought == "我知道了"


def test_b_chinese_labels_around_the_json_blob():
    text = "思考：我需要查天气\n行动：\n" + blob("get_weather", "北京")
    step = parse_json_protocol(text, TOOLS)
    assert_action(step, "get_weather", "北京")
    assert step.thought == "我需要查天气"


def test_an_invented_chinese_observation_is_cut_off():
    text = "思考：查一下\n行动：get_weather: 北京\n观察：北京晴\n最终答案：北京晴"
    step = parse_line_protocol(text, TOOLS)
    assert_action(step, "get_weather", "北京")
    assert "观察" not in step.raw and "最终答案" not in step.raw


def test_chinese_words_that_are_not_labels_stay_text():
    """Only a label at the start of a line with a colon counts: 「观察到」 or 「行动计划」 in a thought do not."""
    step = parse_line_protocol("思考：观察到的数据不够，行动计划：先算\n行动：calculate: 2+3", TOOLS)
    assert_action(step, "calculate", "2+3")
    assert step.thought == "观察到的数据不够，行动计划：先算"
    step = parse_line_protocol("思考：先查\n观察到天气以后再算\n行动：calculate: 2+3", TOOLS)
    assert_action(step, "calculate", "2+3") and "观察到天气" in step.thought
