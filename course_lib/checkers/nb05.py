"""Checkers for notebook 05 (prompt-based ReAct).

05-1 and 05-2 check plain functions on fixed inputs.  05-3 checks the
structure of the request a student's function sends (through
``checkers.recording``), never what the model answers.
"""

from __future__ import annotations

from ..react import run_tool
from ..react_parser import ParsedReply, corrective_observation, parse_json_protocol
from ..tools.registry import ToolRegistry, default_registry
from . import CheckResult, exercise, recording, report, safely, t

# (reply, expected) pairs for 05-1.
ACTION_CASES = [
    ("Action: calculate: 20 * 15", ("calculate", "20 * 15")),
    ("Thought: 先算\nAction: calculate: 20 * 15\nPAUSE", ("calculate", "20 * 15")),
    ("action: get_weather: 北京", ("get_weather", "北京")),
    ("ACTION: get_weather: 上海", ("get_weather", "上海")),
    ("Action：get_weather：广州", ("get_weather", "广州")),
    ("Action : search_knowledge : 长江", ("search_knowledge", "长江")),
    ("Action:calculate:1+1", ("calculate", "1+1")),
    ("Thought: x\nAction: calculate:   (2 + 3) * 4   \nPAUSE", ("calculate", "(2 + 3) * 4")),
    ("Thought: 我知道了\nAnswer: 300", None),
    ("我现在要做 Action: calculate: 1+1", None),
    ("20 乘以 15 等于 300。", None),
    ("", None),
]


def _as_pair(value: object) -> object:
    """A 2-item list/tuple becomes a tuple (students may return either); anything else unchanged."""
    return tuple(value) if isinstance(value, (list, tuple)) and len(value) == 2 else value


@exercise("05-1")
def check_extract_action(extract_action: object) -> CheckResult:
    """Exercise 05-1: ``extract_action(reply)`` -> ``(tool, input)`` from a line-start Action line
    (any case, ``:``/``：``, spaces around the colons), or None."""
    if not callable(extract_action):
        return report(False, t("check.05.extract_action.1"))
    for reply, expected in ACTION_CASES:
        got, error = safely(extract_action, reply)
        if error:
            return report(False, t("check.05.extract_action.2", reply=repr(reply), error=error))
        if _as_pair(got) != expected:
            return report(False, t("check.05.extract_action.3", reply=repr(reply), expected=repr(expected), got=repr(got)))
    return report(True, t("check.05.extract_action.4", n_action_cases=len(ACTION_CASES)))


def _next_cases() -> list[ParsedReply]:
    """The parsed replies 05-2 is given, new at every call: three actions, an answer, an invalid reply."""
    return [
        ParsedReply("action", thought="算", action="calculate", action_input="20 * 15"),
        ParsedReply("action", action="get_weather", action_input="广州"),
        ParsedReply("action", action="get_weather", action_input={"city": "上海"}),
        ParsedReply("answer", answer="300"),
        ParsedReply("invalid", error="没有找到 Action 行，也没有找到 Answer 行。", raw="300"),
    ]


def _next_expected(parsed: ParsedReply, registry: ToolRegistry) -> str | None:
    """What 05-2 returns for ``parsed``: its Observation, the corrective observation, or None."""
    if parsed.kind == "action":
        return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
    return corrective_observation(parsed, "A", registry.names) if parsed.kind == "invalid" else None


@exercise("05-2")
def check_next_user_message(next_user_message: object) -> CheckResult:
    """Exercise 05-2: ``next_user_message(parsed, registry)``: ``"Observation: <tool result>"`` for an
    action, the corrective observation for an invalid parsed reply, None after an answer.

    The answer is compared with what an untouched copy of each case (and another registry) gives,
    so an answer that changes ``parsed`` or ``registry`` cannot make its own result the expected one."""
    if not callable(next_user_message):
        return report(False, t("check.05.next_user_message.1"))
    registry, expected_registry = default_registry(), default_registry()
    for parsed, pristine in zip(_next_cases(), _next_cases()):
        got, error = safely(next_user_message, parsed, registry)
        want = _next_expected(pristine, expected_registry)
        if pristine.kind == "answer":
            if error or got is not None:
                return report(False, t("check.05.next_user_message.4", value=error or repr(got)))
        elif pristine.kind == "invalid":
            if error or got != want:
                return report(False, t("check.05.next_user_message.5", value=error or repr(got)))
        elif error:
            return report(False, t("check.05.next_user_message.2", error=error))
        elif got != want:
            return report(False, t("check.05.next_user_message.3", action=pristine.action,
                                   action_input=repr(pristine.action_input), want=repr(want), got=repr(got)))
    return report(True, t("check.05.next_user_message.6"))


@exercise("05-3")
def check_ask_once(ask_once: object, client: object) -> CheckResult:
    """Exercise 05-3: one request with ``[system (JSON tools), user "Question: ...\\n<scratchpad>"]``,
    ``stop`` containing "Observation:", ``max_tokens`` set, no tools; returns the parsed reply."""
    if not callable(ask_once):
        return report(False, t("check.05.ask_once.1"))
    pad = 'Thought: 先算\nAction:\n```json\n{"action": "calculate", "action_input": "2+3"}\n```\nObservation: 5\n'
    with recording(client) as seen:
        got, error = safely(ask_once, "2+3 等于几？", pad)
    if error:
        return report(False, t("check.05.ask_once.2", error=error))
    if len(seen.requests) != 1:
        return report(False, t("check.05.ask_once.3", n_requests=len(seen.requests)))
    kwargs = seen.requests[0]
    messages = kwargs.get("messages") or []
    roles = [m.get("role") if isinstance(m, dict) else getattr(m, "role", None) for m in messages]
    if roles != ["system", "user"]:
        return report(False, t("check.05.ask_once.4", roles=roles))
    system, user = messages[0].get("content") or "", messages[1].get("content") or ""
    if '"action"' not in system or "calculate" not in system or "Final Answer" not in system:
        return report(False, t("check.05.ask_once.5"))
    if user != f"Question: 2+3 等于几？\n{pad}":
        return report(False, t("check.05.ask_once.6", user=repr(user)))
    stop = kwargs.get("stop")
    stops = [stop] if isinstance(stop, str) else list(stop or [])
    if "Observation:" not in stops:
        return report(False, t("check.05.ask_once.7", stop=repr(stop)))
    if not kwargs.get("max_tokens"):
        return report(False, t("check.05.ask_once.8"))
    if any(k in kwargs for k in ("tools", "tool_choice")):
        return report(False, t("check.05.ask_once.9"))
    content = seen.responses[0].choices[0].message.content
    names = [name for name in default_registry().names if f'"{name}"' in system]  # the tools the prompt lists
    if not isinstance(got, ParsedReply):
        return report(False, t("check.05.ask_once.10", name=type(got).__name__))
    if got != parse_json_protocol(content, names):
        return report(False, t("check.05.ask_once.11"))
    return report(True, t("check.05.ask_once.12", kind=got.kind))
