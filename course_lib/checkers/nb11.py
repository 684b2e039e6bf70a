"""Checkers for notebook 11 (agents that use agents; knowledge the agent looks up).

Each checker runs the student's function beside a reference on the edge cases the exercise
names and on inputs made by ``hypothesis`` (``checkers.first_difference``: fixed seed, a small
budget), so an answer right only for a few fixed samples fails:

* ``check_or_query`` is exercise 11-1: ``or_query(words)``, the safe FTS5 query of a list of
  words - each in double quotes with a ``"`` inside doubled, joined with ``" OR "``, ``""`` for
  no words; reference ``solutions/11_multi_agent.py`` (``" OR ".join(tools.shop_notes.quoted(w) for w in words)``).  The words
  are any text (as a user types it or another tokenizer gives it): quotes, ``AND``, ``NEAR(``,
  ``*``, ``col:``, spaces, emoji.  Every expression the student's function gives for the named
  cases is also run against a real FTS5 table (``tools.shop_notes.build_index``), so an
  unsafe one fails with the SQLite error it raised.
* ``check_specialist_messages`` is exercise 11-2: the specialist's first message list after a
  handoff; reference ``solutions/11_multi_agent.py`` (what ``multi_agent.specialist_messages`` does), on dict conversations of every kind
  of message (system, user, assistant with text, with tool calls, with both, tool).  Also: the
  input must not change, and the list must be valid for the API (``messages.validate``).
* ``check_chosen_specialist`` is exercise 11-3: which specialist a front-desk reply transfers
  to; reference ``solutions/11_multi_agent.py`` (what ``multi_agent.chosen_specialist`` does), on tool calls given as the openai SDK's
  objects and as dicts (both styles in one list too), ``None`` for a reply without calls, names
  that are one another's prefix (``shop`` / ``shop_vip``) and names that are not specialists.

Every input is copied for each call (``first_difference`` deep-copies), so an answer that
changes its input changes no verdict; 11-2 checks that it does not change it separately.
"""

from __future__ import annotations

import copy
import sqlite3
from typing import Any

from hypothesis import strategies as st

from ..messages import MessageError, validate
from ..tools.shop_notes import SEARCH_SQL, Fts5Missing, build_index
from . import CheckResult, described, exercise, first_difference, report, safely, short_repr, t
from .reference import solution

# ---------------------------------------------------------------------------------------- 11-1

# The named cases: a plain word, two, none, and words a user may type that FTS5 would read as syntax.
OR_QUERY_CASES = [
    (["退货"],), (["退货", "保修"],), ([],), (['篮球"'],), (['"'],), (['a""b'],), (["AND"],), (["("],),
    (["NEAR(退货 保修)"],), (["退货*"],), (["title_words:退货"],), (["^退货"],), (["-退货"],), (["退货 保修"],),
    (["😀"],), (["OR", "OR"],), (["退货", '"', "AND", ")"],), (["x" * 300],),
]
FTS5_PIECES = ['"', "'", "(", ")", "*", ":", "^", "-", "+", " ", "AND", "OR", "NOT", "NEAR", "退", "货", "保修", "a", "7",
               "😀", "，"]


def _or_query_reference(words: list[str]) -> str:
    """``solutions/11_multi_agent.py``'s ``or_query``."""
    return solution("11-1", "or_query")(words)


def _words() -> Any:
    word = st.lists(st.sampled_from(FTS5_PIECES), min_size=1, max_size=5).map("".join)
    return st.tuples(st.lists(word, max_size=5))


def _fts5_problem(connection: sqlite3.Connection, expression: Any) -> str | None:
    """The SQLite error of ``expression`` as a MATCH (None when it runs); ``""`` is never sent (no words: no search)."""
    if expression == "":
        return None
    try:
        connection.execute(SEARCH_SQL, (expression, 3)).fetchall()
    except (sqlite3.Error, ValueError, TypeError, OverflowError) as error:  # a non-str is refused by sqlite3 too
        return f"{type(error).__name__}: {error}"
    return None


@exercise("11-1")
def check_or_query(or_query: object) -> CheckResult:
    """Exercise 11-1: ``or_query(words) -> str`` agrees with the reference on ``OR_QUERY_CASES`` and on
    generated word lists; the expressions of the named cases all run against a real FTS5 table."""
    if not callable(or_query):
        return report(False, t("check.11.not_callable", name="or_query"))
    try:
        connection = build_index()
    except Fts5Missing as missing:
        return report(False, t("check.11.no_fts5", why=str(missing)))
    try:
        for (words,) in OR_QUERY_CASES:
            got, error = safely(or_query, copy.deepcopy(words))
            if error:
                return report(False, t("check.11.error", call=f"or_query({short_repr(words, 60)})", error=error))
            if not isinstance(got, str):
                return report(False, t("check.11.or_query_not_text", words=short_repr(words, 60), got=described(got)))
            problem = _fts5_problem(connection, got)
            if problem:
                return report(False, t("check.11.or_query_unsafe", words=short_repr(words, 60), got=short_repr(got, 80),
                                       problem=problem))
    finally:
        connection.close()
    found = first_difference(or_query, _or_query_reference, inputs=_words(), examples=OR_QUERY_CASES)
    if found is None:
        return report(True, t("check.11.or_query_passed", n=len(OR_QUERY_CASES)))
    (words,) = found.args
    if found.error:
        return report(False, t("check.11.error", call=found.call("or_query"), error=found.error))
    return report(False, t("check.11.or_query_wrong", words=short_repr(words, 60), got=described(found.got),
                           want=short_repr(found.want, 80)))


# ---------------------------------------------------------------------------------------- 11-2

SYSTEM = "你是订单专家：只处理下单和库存。"


def _call(call_id: str, name: str = "transfer_to_orders") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


FRONT = {"role": "system", "content": "你是前台：把问题转接给合适的专家。"}
# The named cases: the notebook's conversation (front desk's system, a transfer call and its tool message),
# an assistant message with text and a call, one without text, several turns, nothing but a system message.
MESSAGE_CASES = [
    ([FRONT, {"role": "user", "content": "帮我买 2 个篮球"},
      {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
      {"role": "tool", "tool_call_id": "c1", "content": "已经转接给 orders"}], SYSTEM),
    ([{"role": "user", "content": "你好"}, {"role": "assistant", "content": "你好！想买点什么？"},
      {"role": "user", "content": "篮球多少钱？"},
      {"role": "assistant", "content": "我帮你转接。", "tool_calls": [_call("c2", "transfer_to_shop")]},
      {"role": "tool", "tool_call_id": "c2", "content": "已经转接给 shop"}], "你是商品专家。"),
    ([{"role": "user", "content": "北京天气？"},
      {"role": "assistant", "content": "", "tool_calls": [_call("c3", "get_weather")]},
      {"role": "tool", "tool_call_id": "c3", "content": "北京：晴，25°C"},
      {"role": "assistant", "content": "北京晴，25°C。"}, {"role": "user", "content": "那上海呢？"}], "你是天气专家。"),
    ([FRONT], SYSTEM),
    ([], SYSTEM),
]


def _conversations() -> Any:
    # texts as people type them: Chinese, full-width, spaces inside, and content of spaces only (no text, as
    # the task says: None, "" and blanks are dropped)
    text = st.one_of(st.text(alphabet="你好篮球多少钱买下单天气北京", min_size=1, max_size=6),
                     st.sampled_from(["  ", "\u3000", " 你好 ", "ＡＢＣ", "篮球 多少钱"]))
    ids = st.sampled_from(["c1", "c2", "c3"])
    message = st.one_of(
        st.builds(lambda s: {"role": "system", "content": s}, text),
        st.builds(lambda s: {"role": "user", "content": s}, text),
        st.builds(lambda s: {"role": "assistant", "content": s}, text),
        st.builds(lambda role: {"role": role, "content": ""}, st.sampled_from(["user", "assistant"])),
        # keys an SDK message or a chat UI adds: the task keeps only role and content
        st.builds(lambda s: {"role": "user", "content": s, "name": "小明"}, text),
        st.builds(lambda s: {"role": "assistant", "content": s, "refusal": None}, text),
        st.builds(lambda i, c: {"role": "assistant", "content": c, "tool_calls": [_call(i)]}, ids, st.sampled_from([None, ""])),
        st.builds(lambda i, s: {"role": "assistant", "content": s, "tool_calls": [_call(i)]}, ids, text),
        st.builds(lambda i, s: {"role": "tool", "tool_call_id": i, "content": s}, ids, text),
    )
    return st.tuples(st.lists(message, max_size=7), st.sampled_from([SYSTEM, "你是天气专家。"]))


def _messages_hint(got: Any, system: str) -> str:
    """The first rule ``got`` breaks, as a hint (``""`` when none of them: then only the order or a text differs)."""
    if not got or got[0] != {"role": "system", "content": system}:
        return t("check.11.hint_system_first")
    rest = got[1:]
    if any(isinstance(m, dict) and m.get("role") == "system" for m in rest):
        return t("check.11.hint_front_system")
    if any(isinstance(m, dict) and m.get("role") == "tool" for m in rest):
        return t("check.11.hint_tool")
    if any(isinstance(m, dict) and "tool_calls" in m for m in rest):
        return t("check.11.hint_tool_calls")
    if any(isinstance(m, dict) and not m.get("content") for m in rest):
        return t("check.11.hint_no_text")
    return ""


def _specialist_messages_reference(conversation: list[dict], system: str) -> list[dict]:
    """``solutions/11_multi_agent.py``'s ``specialist_messages`` (``multi_agent.specialist_messages`` agrees: tested)."""
    return solution("11-2", "specialist_messages")(conversation, system)


@exercise("11-2")
def check_specialist_messages(student: object) -> CheckResult:
    """Exercise 11-2: ``specialist_messages(conversation, system) -> list[dict]`` agrees with
    the reference solution on ``MESSAGE_CASES`` and on generated conversations, leaves its
    input as it was, and gives a list valid for the API."""
    if not callable(student):
        return report(False, t("check.11.not_callable", name="specialist_messages"))
    for conversation, system in MESSAGE_CASES:
        given = copy.deepcopy(conversation)
        got, error = safely(student, given, system)
        if error:
            return report(False, t("check.11.error", call="specialist_messages(conversation, system)", error=error))
        if given != conversation:
            return report(False, t("check.11.messages_changed_input"))
        if isinstance(got, list) and all(isinstance(m, dict) for m in got):
            try:
                validate(got, strict=True)
            except MessageError as problem:
                return report(False, t("check.11.messages_invalid", problem=problem, hint=_messages_hint(got, system)))
    found = first_difference(student, _specialist_messages_reference, inputs=_conversations(), examples=MESSAGE_CASES)
    if found is None:
        return report(True, t("check.11.messages_passed", n=len(MESSAGE_CASES)))
    conversation, system = found.args
    if found.error:
        return report(False, t("check.11.error", call="specialist_messages(conversation, system)", error=found.error))
    if not isinstance(found.got, list):
        return report(False, t("check.11.messages_not_list", got=described(found.got)))
    return report(False, t("check.11.messages_wrong", conversation=short_repr(conversation, 300),
                           got=short_repr(found.got, 300), want=short_repr(found.want, 300),
                           hint=_messages_hint(found.got, system)))


# ---------------------------------------------------------------------------------------- 11-3

NAMES = ["weather", "shop", "orders"]


def sdk_call(name: str, call_id: str = "call_1") -> Any:
    """A tool call as the openai SDK gives it in ``message.tool_calls`` (``call.function.name``)."""
    from openai.types.chat import ChatCompletionMessageToolCall

    return ChatCompletionMessageToolCall.model_validate(
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}})


def dict_call(name: str, call_id: str = "call_1") -> dict:
    """The same call as a dict (``call["function"]["name"]``), as messages hold it."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _calls(*names: str, style: Any = sdk_call) -> list:
    return [style(name, f"call_{k}") for k, name in enumerate(names)]


# The named cases: each style; no calls (None, as message.tool_calls is then); another tool; an unknown
# specialist before a known one; two transfers; a name that is another's prefix; misspelt transfer names; both
# styles in one list.
CHOSEN_CASES = [
    (_calls("transfer_to_shop"), NAMES),
    (_calls("transfer_to_weather", style=dict_call), NAMES),
    (None, NAMES),
    ([], NAMES),
    (_calls("get_weather"), NAMES),
    (_calls("transfer_to_billing", "transfer_to_orders"), NAMES),
    (_calls("transfer_to_orders", "transfer_to_shop", style=dict_call), NAMES),
    (_calls("transfer_to_shop_vip"), ["shop", "shop_vip"]),
    (_calls("transfer_to_shop"), ["shop_vip"]),
    (_calls("transfer_to_", "shop", "transfer_toshop"), NAMES),
    (_calls("transfer-to-shop", "transfer_to-shop"), NAMES),  # as a model may misspell it: not the tool, no transfer
    ([dict_call("query_by_product_name", "a"), sdk_call("transfer_to_weather", "b")], NAMES),
]
CALL_NAMES = ["transfer_to_weather", "transfer_to_shop", "transfer_to_orders", "transfer_to_shop_vip", "transfer_to_billing",
              "get_weather", "shop", "transfer_to_", "transfer-to-shop"]


def _chosen_inputs() -> Any:
    call = st.builds(lambda name, style, k: style(name, f"call_{k}"), st.sampled_from(CALL_NAMES),
                     st.sampled_from([sdk_call, dict_call]), st.integers(0, 9))
    names = st.sampled_from([NAMES, ["shop", "shop_vip"], ["orders"], []])
    return st.tuples(st.one_of(st.none(), st.lists(call, max_size=4)), names)


def _call_names(tool_calls: Any) -> list[str]:
    from ..multi_agent import call_name

    return [call_name(c) or "?" for c in tool_calls or []]


def _chosen_specialist_reference(tool_calls: Any, names: Any) -> str | None:
    """``solutions/11_multi_agent.py``'s ``chosen_specialist`` (``multi_agent.chosen_specialist`` agrees: tested)."""
    return solution("11-3", "chosen_specialist")(tool_calls, names)


@exercise("11-3")
def check_chosen_specialist(student: object) -> CheckResult:
    """Exercise 11-3: ``chosen_specialist(tool_calls, names) -> str | None`` agrees with
    ``multi_agent.chosen_specialist`` on ``CHOSEN_CASES`` and on generated calls in both styles."""
    if not callable(student):
        return report(False, t("check.11.not_callable", name="chosen_specialist"))
    found = first_difference(student, _chosen_specialist_reference, inputs=_chosen_inputs(), examples=CHOSEN_CASES,
                             same=lambda got, want: type(got) is type(want) and got == want)
    if found is None:
        return report(True, t("check.11.chosen_passed", n=len(CHOSEN_CASES)))
    tool_calls, names = found.args
    style = "None" if tool_calls is None else "、".join(sorted({"dict" if isinstance(c, dict) else "SDK" for c in tool_calls})) or "[]"
    if found.error:
        hint = t("check.11.hint_none") if tool_calls is None else t("check.11.hint_styles")
        return report(False, t("check.11.chosen_error", calls=_call_names(tool_calls), style=style, names=names,
                               error=found.error, hint=hint))
    got = found.got
    hint = (t("check.11.hint_prefix") if isinstance(got, str) and got.startswith("transfer_to_")
            else t("check.11.hint_known") if got is not None and got not in names
            else t("check.11.hint_first") if got is not None and found.want is not None else "")
    return report(False, t("check.11.chosen_wrong", calls=_call_names(tool_calls), style=style, names=names,
                           got=described(got), want=repr(found.want), hint=hint))
