"""Checkers for notebook 05 (prompt-based ReAct).

05-1 and 05-2 run the student's function beside a reference (``first_difference``) on the
cases the exercise names and on generated ones.  05-3 checks the structure of the request a
student's function sends (through ``checkers.recording``), three times with other questions,
scratchpads and replies; the checker answers the request itself (``ScriptedModel``, which also
answers ``stream=True``), so the notebook's model is never asked.
"""

from __future__ import annotations

import json
import re
import string
from typing import Any

from ..react import JSON_SYSTEM_PROMPT
from ..react_parser import ParsedReply, parse_json_protocol
from ..tools.registry import ToolRegistry, default_registry
from . import CheckResult, described, exercise, first_difference, recording, report, request_problem, safely, t
from .reference import solution
from .scripted import ScriptedModel


def _field(message: Any, name: str) -> Any:
    """``message[name]`` for a dict, ``message.name`` for an SDK object; None when absent."""
    if isinstance(message, dict):
        return message.get(name)
    return getattr(message, name, None)


def _as_pair(value: object) -> object:
    """A 2-item list/tuple becomes a tuple (students may return either); anything else unchanged."""
    return tuple(value) if isinstance(value, (list, tuple)) and len(value) == 2 else value


# -- 05-1 ---------------------------------------------------------------------------------

# Replies the exercise names (its expected answers are the reference's, computed).
ACTION_REPLIES = [
    "Action: calculate: 20 * 15",
    "Thought: 先算\nAction: calculate: 20 * 15\nPAUSE",
    "action: get_weather: 北京",
    "ACTION: get_weather: 上海",
    "Action：get_weather：广州",
    "Action : search_knowledge : 长江",
    "Action:calculate:1+1",
    "Thought: x\nAction: calculate:   (2 + 3) * 4   \nPAUSE",
    "Thought: 先查北京\nAction: get_weather: 北京\nPAUSE\nAction: get_weather: 上海",
    "Thought: 我知道了\nAnswer: 300",
    "我现在要做 Action: calculate: 1+1",
    "我现在要做 Action: calculate: 1+1\nAction: get_weather: 广州",
    "20 乘以 15 等于 300。",
    "",
    # what the task text implies without drawing it: the name and the input keep their case, and a
    # colon inside the input belongs to the input
    "Action: get_weather: Beijing",
    "ACTION: Get_Weather: New York",
    "Action: calculate: 10:30 到 12:15 是多少分钟",
    "Thought: 比例\nAction：calculate：3：4 的比值\nPAUSE",
]


def reference_extract_action(reply: str) -> tuple[str, str] | None:
    """What 05-1 returns: ``solutions/05_react.py``'s ``extract_action`` (the first line-start Action line, or None)."""
    return _as_pair(solution("05-1", "extract_action")(reply))


def _replies() -> Any:
    """A hypothesis strategy of ``(reply,)``: a few lines, Action lines in every allowed spelling among others."""
    from hypothesis import strategies as st

    space = st.sampled_from(["", " ", "  "])
    label = st.sampled_from(["Action", "action", "ACTION", "AcTiOn"])
    colon = st.sampled_from([":", "："])
    tool = st.sampled_from(["calculate", "get_weather", "search_knowledge", "tool_2", "GetWeather"])
    text = st.sampled_from(["20 * 15", "北京", "(2 + 3) * 4", "1+1", "长江 有多长", "x", "Beijing", "10:30 - 9:15",
                            "比例 3：4", "A: b"])
    action = st.tuples(label, space, colon, space, tool, space, colon, space, text, space).map("".join)
    other = st.sampled_from(["Thought: 先算一下", "我现在要做 Action: calculate: 1+1", "PAUSE", "Answer: 300", "",
                             "Observation: 5", "Thought: x Action: get_weather: 北京", "Final Answer: 北京晴"])
    return st.lists(st.one_of(action, other), min_size=1, max_size=5).map(lambda lines: ("\n".join(lines),))


@exercise("05-1")
def check_extract_action(extract_action: object) -> CheckResult:
    """Exercise 05-1: ``extract_action(reply)`` -> ``(tool, input)`` (a tuple or a 2-item list) from the
    first line-start Action line (any case, ``:``/``：``, spaces around the colons, input stripped),
    or None.  Run beside a reference on the replies above and on about 60 generated ones."""
    if not callable(extract_action):
        return report(False, t("check.05.extract_action.1"))
    found = first_difference(extract_action, reference_extract_action, inputs=_replies(),
                             examples=[(reply,) for reply in ACTION_REPLIES],
                             same=lambda got, want: _as_pair(got) == want)
    if found is None:
        return report(True, t("check.05.extract_action.4", n_action_cases=len(ACTION_REPLIES)))
    reply = found.args[0]
    if found.error:
        return report(False, t("check.05.extract_action.2", reply=repr(reply), error=found.error))
    later = [m.groups() for m in solution("05-1", "ACTION_RE").finditer(reply)][1:]
    try:
        took_a_later_one = _as_pair(found.got) in later
    except Exception:  # noqa: BLE001 - an odd value's == may raise
        took_a_later_one = False
    key = "check.05.extract_action.first" if took_a_later_one else "check.05.extract_action.3"
    return report(False, t(key, reply=repr(reply), expected=repr(found.want), got=described(found.got)))


# -- 05-2 ---------------------------------------------------------------------------------


def _next_cases() -> list[ParsedReply]:
    """The parsed replies the exercise names, new at every call: three actions, an answer, an invalid reply."""
    return [
        ParsedReply("action", thought="算", action="calculate", action_input="20 * 15"),
        ParsedReply("action", action="get_weather", action_input="广州"),
        ParsedReply("action", action="get_weather", action_input={"city": "上海"}),
        ParsedReply("answer", answer="300"),
        ParsedReply("invalid", error="没有找到 Action 行，也没有找到 Answer 行。", raw="300"),
    ]


def _next_expected(parsed: ParsedReply, registry: ToolRegistry) -> str | None:
    """The reference, ``solutions/05_react.py``'s ``next_user_message``: the Observation of an action, the
    corrective observation of an invalid reply, else None."""
    return solution("05-2", "next_user_message")(parsed, registry)


def _parsed_replies() -> Any:
    """A hypothesis strategy of ``(parsed, registry)``: actions (known and unknown tools, text and
    object inputs), answers and invalid replies, each with a new ``default_registry()``."""
    from hypothesis import strategies as st

    names = st.sampled_from(default_registry().names + ["search_web"])
    # a registry with some of the course's tools (an answer must list registry.names, not the default four)
    registries = st.lists(st.sampled_from(default_registry().names), min_size=1, unique=True).map(
        lambda chosen: ToolRegistry([default_registry().get(name) for name in chosen]))
    inputs = st.one_of(
        st.sampled_from(["20 * 15", "北京", "上海", "篮球", "长江", "", "1/0", '{"city": "广州"}', "{坏的"]),
        st.fixed_dictionaries({"city": st.sampled_from(["北京", "上海"])}),
        st.fixed_dictionaries({"expression": st.sampled_from(["2+3", "7*6"])}),
    )
    thought = st.sampled_from([None, "想一想"])
    action = st.builds(ParsedReply, st.just("action"), thought=thought, action=names, action_input=inputs)
    answer = st.builds(ParsedReply, st.just("answer"), thought=thought, answer=st.sampled_from(["300", "", "北京晴"]))
    invalid = st.builds(ParsedReply, st.just("invalid"), thought=thought,
                        error=st.sampled_from(["没有找到 Action 行，也没有找到 Answer 行。", "工具 x 不存在。", None]),
                        raw=st.sampled_from(["300", "Action: x"]))
    return st.tuples(st.one_of(action, answer, invalid), st.one_of(st.builds(default_registry), registries))


@exercise("05-2")
def check_next_user_message(next_user_message: object) -> CheckResult:
    """Exercise 05-2: ``next_user_message(parsed, registry)``: ``"Observation: <tool result>"`` for an
    action, ``corrective_observation(parsed, "A", registry.names)`` for an invalid reply, None after an
    answer.  Run beside a reference on the cases above and on about 60 generated ones; each side gets
    its own copy of ``parsed`` and ``registry``, so an answer that changes them cannot make its own
    result the expected one."""
    if not callable(next_user_message):
        return report(False, t("check.05.next_user_message.1"))
    found = first_difference(next_user_message, _next_expected, inputs=_parsed_replies(),
                             examples=[(case, default_registry()) for case in _next_cases()]
                             + [(_next_cases()[-1], ToolRegistry([default_registry().get("get_weather")]))],
                             same=lambda got, want: got is None if want is None else (isinstance(got, str) and got == want))
    if found is None:
        return report(True, t("check.05.next_user_message.6"))
    parsed = found.args[0]
    value = found.error or described(found.got)
    if parsed.kind == "answer":
        return report(False, t("check.05.next_user_message.4", value=value))
    if parsed.kind == "invalid":
        return report(False, t("check.05.next_user_message.5", value=value))
    if found.error:
        return report(False, t("check.05.next_user_message.2", error=found.error))
    return report(False, t("check.05.next_user_message.3", action=parsed.action, action_input=repr(parsed.action_input),
                           want=repr(found.want), got=described(found.got)))


# -- 05-3 ---------------------------------------------------------------------------------

# JSON_SYSTEM_PROMPT with its two fields as groups: a system message it made, for any registry.
_PROMPT_RE = re.compile("".join(
    re.escape(literal) + ("" if field is None else f"(?P<{field}>.*?)")
    for literal, field, _, _ in string.Formatter().parse(JSON_SYSTEM_PROMPT)), re.DOTALL)

# (question, scratchpad) of the three calls; the replies are made from the tools the prompt lists.
ASK_CALLS = [
    ("2+3 等于几？", 'Thought: 先算\nAction:\n```json\n{"action": "calculate", "action_input": "2+3"}\n```\nObservation: 5\n'),
    ("北京今天天气怎么样？", ""),
    ("篮球多少钱？", "Thought: 先查价格\n"),
]


def _ask_replies(names: list[str]) -> list[str]:
    """Three replies: an action (on the last tool the prompt lists), a final answer, an unreadable text."""
    action = json.dumps({"action": names[-1], "action_input": "北京"}, ensure_ascii=False)
    return [f"Thought: 查一下\nAction:\n```json\n{action}\n```", "Thought: 我知道了\nFinal Answer: 5", "我不知道该怎么办"]


def _request_problem(kwargs: dict, question: str, pad: str) -> tuple[str | None, list[str]]:
    """The hint for the first requirement the recorded request breaks (or None), and the tool names its prompt lists."""
    messages = kwargs.get("messages")
    messages = list(messages) if isinstance(messages, (list, tuple)) else []
    roles = [_field(m, "role") for m in messages]
    if roles != ["system", "user"]:
        return t("check.05.ask_once.4", roles=roles), []
    system, user = _field(messages[0], "content"), _field(messages[1], "content")
    match = _PROMPT_RE.fullmatch(system) if isinstance(system, str) else None
    if not match:
        return t("check.05.ask_once.5"), []
    names = [n.strip() for n in match.group("tool_names").split(",") if n.strip()]
    if user != f"Question: {question}\n{pad}":
        return t("check.05.ask_once.6", user=described(user, 120)), names
    stop = kwargs.get("stop")
    stops = [stop] if isinstance(stop, str) else list(stop) if isinstance(stop, (list, tuple)) else []
    if "Observation:" not in stops:
        return t("check.05.ask_once.7", stop=described(stop)), names
    limit = kwargs.get("max_tokens", kwargs.get("max_completion_tokens"))
    if not isinstance(limit, int) or limit <= 0:
        return t("check.05.ask_once.8"), names
    if any(k in kwargs for k in ("tools", "tool_choice")):
        return t("check.05.ask_once.9"), names
    refused = request_problem(kwargs)  # e.g. temperature=-1: a real provider answers 400
    if refused:
        return refused, names
    return None, names


@exercise("05-3")
def check_ask_once(ask_once: object, client: object) -> CheckResult:
    """Exercise 05-3: ``ask_once(question, scratchpad)`` sends one request with exactly
    ``[system = json_system_prompt(registry) (any registry), user = f"Question: {question}\\n{scratchpad}"]``,
    ``stop`` containing "Observation:" (a list, a tuple or the string), ``max_tokens`` (or
    ``max_completion_tokens``) and no tools, and returns ``parse_json_protocol(reply, names)`` for the
    tools its prompt lists.  Called three times (other questions, scratchpads and replies: an action,
    a final answer, an unreadable text); streamed requests are answered too.  The checker answers each
    request itself: ``client`` (the notebook's) is watched, its model never asked."""
    if not callable(ask_once):
        return report(False, t("check.05.ask_once.1"))
    kinds = []
    for number, (question, pad) in enumerate(ASK_CALLS):
        script = ScriptedModel()
        scripted = script.client()
        replies: list[str] = []

        def answer(kwargs: dict) -> Any:
            _, names = _request_problem(kwargs, question, pad)
            reply = _ask_replies(names or default_registry().names)[number]
            replies.append(reply)
            script.add(reply)
            return scripted.chat.completions.create(**kwargs)

        with recording(client, answer=answer) as seen:
            got, error = safely(ask_once, question, pad)
        if error:
            return report(False, t("check.05.ask_once.2", error=error))
        if len(seen.requests) != 1:
            return report(False, t("check.05.ask_once.3", n_requests=len(seen.requests)))
        problem, names = _request_problem(seen.requests[0], question, pad)
        if problem:
            return report(False, problem)
        if not isinstance(got, ParsedReply):
            return report(False, t("check.05.ask_once.10", name=described(got)))
        want = parse_json_protocol(replies[0], names)
        if got != want:
            return report(False, t("check.05.ask_once.11"))
        kinds.append(want.kind)
    return report(True, t("check.05.ask_once.12", kind="、".join(kinds)))
