"""Agents that use agents: an agent as a tool, and a handoff from a front desk to a specialist.

Taught in notebook 11, which writes each idea by hand first and then shows that it is this code.

Two ways for one agent to use another (the names are the OpenAI Agents SDK's:
openai-agents-python docs/tools.md "Agents as tools", docs/handoffs.md):

* **an agent as a tool** (``agent_as_tool``): the front desk keeps the conversation; a
  specialist is one of its tools, with one parameter ``question``.  A call builds a fresh
  specialist ``Agent``, runs it on that question alone and hands back ONLY its answer
  text: the front desk never sees the specialist's tool calls, and the specialist never
  sees the front desk's messages.  Every inner ``RunResult`` is kept (``tool.function.runs``):
  its messages, requests, tokens and seconds - what the answer cost.  A specialist's call that
  needs a person's yes (notebook 08's ``place_order``) stops the FRONT DESK too: the tool raises
  ``tools.failure.ToolWaiting``, the outer run ends ``"waiting"`` with the specialist's calls in its
  ``waiting``, ``decide`` passes each decision on, and ``run()`` lets the specialist go on; the front
  desk's model reads nothing about it until then (no error to apologise for, no success to claim).
  openai-agents surfaces such a nested approval in the outer run's ``interruptions`` the same way
  (openai-agents-js issues #243 and #680).
* **a handoff** (``run_with_handoff``): the front desk makes ONE request whose only tools are
  ``transfer_to_<name>``.  If it calls one, that specialist takes over the conversation:
  it starts from its own system prompt and the user / assistant text turns
  (``specialist_messages``), runs as any ``Agent``, and owns the message list from then on
  (``HandoffResult.owner``).  A specialist built with an approval hook (notebook 08) still
  stops before ``place_order`` (``stopped_reason == "waiting"``): ``HandoffResult.decide`` and
  ``HandoffResult.run`` go on as ``Agent.decide`` / ``Agent.run`` do; the user's next message goes
  to the specialist in its own list (``HandoffResult.send``).  A transfer the front desk
  wrote as text and that cannot be followed (an unknown name, broken JSON: ``text_transfers``) is a
  failed transfer, never the front desk's answer.

Told elsewhere: the loop is ``agent.Agent`` (notebook 06), approval ``approval.py`` (08),
the tools ``tools/`` (``tools.shop_notes`` is the shop expert's retrieval tool).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .agent import Agent
from .approval import Decision
from .messages import content_text, has_text, request_kwargs, to_dict, validate, validate_tools
from .records import WAITING, RunResult, ToolCall
from .replies import read_reply
from .texts import shorten, t
from .tool_calls import AssistantTurn, find_text_calls, read_assistant
from .tools.failure import ToolFailure, ToolWaiting
from .tools.registry import Tool, names_of

TRANSFER_PREFIX = "transfer_to_"
# A transfer tool's name written in a reply's text (the API's name characters after the prefix).
TRANSFER_NAME_RE = re.compile(rf"(?<![A-Za-z0-9_]){TRANSFER_PREFIX}[A-Za-z0-9_-]*")
# The tag Qwen's chat template (the course's model) wraps a tool call in: written as text, a call.
TOOL_CALL_TAG = "<tool_call>"

# The one parameter of an agent used as a tool (the outer model reads this description).
QUESTION_PARAMETER = {
    "type": "string",
    "description": "交给这位专家的完整问题。它看不到前面的对话，所以要把需要的信息（商品名、城市、数量）都写进去。",
}
# What the outer model reads when the inner agent gave no answer.  (A run that waits for a person
# is never such an answer: agent_as_tool raises ToolWaiting; "waiting" is here for inner_answer's other callers.)
INNER_NO_ANSWER = "错误：{name} 没有给出回答（{why}）。不要编造它的结论：告诉用户这一步没有完成，或者把问题说清楚再问一次。"
INNER_WHY = {
    "waiting": "它要做的操作还在等人批准",
    "max_steps": "达到了步数上限",
    "repeated_calls": "它在重复同样的工具调用",
    "length": "回答被 max_tokens 截断了",
    "error": "运行出错：{error}",
}
INNER_EMPTY_QUESTION = "错误：question 不能为空，请把要问这位专家的问题写完整"
# The tool messages that answer the front desk's transfer calls (its message list stays valid).
TRANSFERRED = "已经转接给 {name}，由它接着回答用户。"
NOT_TRANSFERRED = "没有转接：{why}"
NOT_TRANSFERRED_WHY = {
    "second": "一次只转接给一位专家，已经转接给了 {name}",
    "unknown": "没有这位专家。可以转接的：{names}",
}


# ------------------------------------------------------------------------------- an agent as a tool

def agent_tool_schema(name: str, description: str) -> dict:
    """The schema of an agent used as a tool: one required string parameter ``question``.

    Raises:
        ToolSchemaError: ``name`` is not a tool name the API takes (``messages.validate_tools``:
            ``^[a-zA-Z0-9_-]{1,64}$``, so a Chinese name fails here, not in the first request).
    """
    schema = {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": {"question": QUESTION_PARAMETER}, "required": ["question"]}}}
    validate_tools([schema])
    return schema


def inner_answer(name: str, result: RunResult | None, error: str | None = None) -> str:
    """What the outer agent reads of one inner run: the answer text, nothing else.

    A run without a usable answer - ``max_steps`` without an answer, a cut reply, a failed request
    (``error``) - gives ``INNER_NO_ANSWER`` as a ``ToolFailure`` (the outer loop records ``ok``
    False), never an exception.  A run that waits for a person never comes here from ``agent_as_tool``
    (it raises ``ToolWaiting``, and the outer run waits); given one, the text says it waits.
    """
    if error is not None or result is None:
        why = INNER_WHY["error"].format(error=error)
    elif result.answer and result.stopped_reason in ("answer", "max_steps", "repeated_calls"):
        return result.answer
    else:
        why = INNER_WHY.get(str(result.stopped_reason), str(result.stopped_reason))
    return ToolFailure(INNER_NO_ANSWER.format(name=name, why=why))


def agent_as_tool(make_agent: Callable[[], Agent], name: str, description: str) -> Tool:
    """A specialist agent as one tool of another agent (the Agents SDK's ``Agent.as_tool``).

    Args:
        make_agent: builds a fresh specialist ``Agent`` (its own client, model, tools, system
            prompt, ``max_steps``, approval hook); called once per tool call.
        name: the tool's name (``^[a-zA-Z0-9_-]{1,64}$``, e.g. ``"ask_shop_expert"``).
        description: what the specialist knows, for the outer model (Chinese).
    Returns:
        A ``tools.registry.Tool`` with one parameter ``question``.  Its function runs the
        specialist on the question alone - never on the outer messages - keeps the inner
        ``RunResult`` in ``tool.function.runs`` (a list, one per call, oldest first: messages,
        steps, ``prompt_tokens``, ``completion_tokens``, ``seconds``) and returns only
        ``inner_answer``'s text.  A failed inner run (a request error, no answer) is a Chinese
        tool result for the outer model; the error is kept in ``tool.function.errors``
        (``"Type: message"``).

        When the specialist stops at a call that waits for a person (notebook 08), the function
        raises ``tools.failure.ToolWaiting`` instead of answering: ``calls`` are the specialist's
        waiting calls (its own objects), ``decide`` its ``Agent.decide``, ``source`` the specialist's
        ``Agent``, and ``finish()`` goes on with ``Agent.run()`` and gives the answer (or raises
        ``ToolWaiting`` again).  The loop running the tool waits on it (``Agent``: ``stopped_reason
        == "waiting"``, ``waiting``, ``decide``, ``run()``; ``gate.waiting_tool.call`` is this tool's
        call).  The finished run replaces the waiting one in ``runs``: one run, its requests and
        tokens counted once.  Nothing else raises into the outer loop but the student's stop
        (KeyboardInterrupt).
    Raises:
        ToolSchemaError: a name the API would refuse.
    """
    runs: list[RunResult] = []
    errors: list[str] = []

    def ask(question: str) -> str:
        if not isinstance(question, str) or not question.strip():
            return ToolFailure(INNER_EMPTY_QUESTION)
        return run_specialist(make_agent(), question)

    def run_specialist(agent: Agent, question: str | None, slot: int | None = None) -> str:
        """``agent.run(question)``; or ``agent.run()`` (question None) after a person decided.
        Its ``RunResult`` goes to ``runs[slot]`` (a new slot the first time)."""
        error = None
        try:
            result = agent.run(question)
        except Exception as exc:  # noqa: BLE001 - a failed inner run is a tool result, not a crash
            errors.append(error := f"{type(exc).__name__}: {exc}")
            result = agent.result() if agent.question is not None else None  # the part that ran, with its tokens
        if result is not None and slot is None:
            slot = len(runs)
            runs.append(result)
        elif result is not None:  # the same run, gone on after a person decided: it replaces its waiting result
            runs[slot] = result
        if error is None and result.stopped_reason == WAITING:  # a person must decide first: the outer run waits too
            calls = ", ".join(f"{c.name} {c.arguments_text}" for c in result.waiting)
            raise ToolWaiting(t("multi_agent.inner_waiting", name=name, calls=calls), result.waiting, agent.decide,
                              lambda: run_specialist(agent, None, slot), source=agent)
        return inner_answer(name, result, error)

    ask.__name__ = name
    ask.runs = runs  # type: ignore[attr-defined]
    ask.errors = errors  # type: ignore[attr-defined]
    return Tool(name, ask, agent_tool_schema(name, description))


def cost_rows(outer: RunResult, inner_runs: Iterable[RunResult], outer_name: str = "front") -> list[dict]:
    """One row per run - the outer run first, then each inner run - and a total:
    ``{"agent", "requests", "prompt_tokens", "completion_tokens", "seconds"}`` (seconds of wall
    time; an inner run's seconds are also inside the outer run's, so the total counts only the outer's)."""
    rows = [{"agent": outer_name, "requests": outer.requests, "prompt_tokens": outer.prompt_tokens,
             "completion_tokens": outer.completion_tokens, "seconds": round(outer.seconds, 2)}]
    for k, run in enumerate(inner_runs, 1):
        rows.append({"agent": f"inner {k}", "requests": run.requests, "prompt_tokens": run.prompt_tokens,
                     "completion_tokens": run.completion_tokens, "seconds": round(run.seconds, 2)})
    rows.append({"agent": "total", **{key: sum(r[key] for r in rows) for key in ("requests", "prompt_tokens",
                                                                                  "completion_tokens")},
                 "seconds": rows[0]["seconds"]})
    return rows


# ------------------------------------------------------------------------------- handoff

@dataclass
class Specialist:
    """One agent the front desk can hand the conversation to.

    Attributes:
        name: short English name; the front desk's tool is ``transfer_to_<name>``.
        description: when to transfer to it (the transfer tool's description, Chinese).
        make_agent: builds its fresh ``Agent`` (its own system prompt, tools, approval hook).
    """

    name: str
    description: str
    make_agent: Callable[[], Agent]


def transfer_tool(name: str, description: str) -> dict:
    """The schema of the tool ``transfer_to_<name>``: no arguments; calling it hands the conversation over.

    Raises:
        ToolSchemaError: ``transfer_to_<name>`` is not a tool name the API takes.
    """
    schema = {"type": "function", "function": {
        "name": TRANSFER_PREFIX + name, "description": description,
        "parameters": {"type": "object", "properties": {}, "required": []}}}
    validate_tools([schema])
    return schema


def call_name(call: Any) -> str | None:
    """The function name of one tool call: a ``records.ToolCall``, an SDK tool call or its dict; None if it has none."""
    if isinstance(call, ToolCall):
        return call.name
    function = call.get("function") if isinstance(call, dict) else getattr(call, "function", None)
    name = function.get("name") if isinstance(function, dict) else getattr(function, "name", None)
    return name if isinstance(name, str) else None


def chosen_specialist(tool_calls: Iterable[Any] | None, names: Iterable[str]) -> str | None:
    """Which specialist a front-desk reply transfers to: the first call named ``transfer_to_<X>``
    with ``X`` in ``names``; None when there is none (no calls, ``tool_calls`` None, only other names).

    ``tool_calls``: SDK tool calls, their dicts or ``records.ToolCall``s (``call_name``)."""
    known = list(names)
    for call in tool_calls or []:
        name = call_name(call) or ""
        if name.startswith(TRANSFER_PREFIX) and name[len(TRANSFER_PREFIX):] in known:
            return name[len(TRANSFER_PREFIX):]
    return None


def text_transfers(turn: AssistantTurn, tool_names: Iterable[str]) -> list[str]:
    """What a front-desk reply tried to call in its TEXT, when ``read_assistant`` could not turn it
    into calls: ``[]`` for a plain answer.

    Small models sometimes write the call as text (``<tool_call>{"name": "transfer_to_sales", ...}``).
    ``tool_calls.read_assistant`` recovers such a call when every name is an offered tool; otherwise
    there are no calls and the text is still there.  It counts as an attempted call when
    ``read_assistant`` said so (``turn.error``: a call-shaped object with an unknown name, or broken
    JSON with ``"name"`` and ``"arguments"``: ``tool_calls.find_text_calls``), when it holds the tag
    ``<tool_call>`` (``TOOL_CALL_TAG``), or a ``transfer_to_...`` name (``TRANSFER_NAME_RE``).
    Words alone - 「转接」, 「name」 - are not.

    Args:
        turn: ``read_assistant``'s reading of the reply.
        tool_names: the tools offered (the transfer tools).
    Returns:
        The names tried, in order, each once: the call-shaped objects' names (``find_text_calls``),
        else the ``transfer_to_...`` names in the text, else the text itself on one line, shortened to
        80 characters; ``[]`` when the turn has calls or the text is a plain answer.
    """
    text = turn.text or ""
    if turn.calls or not (turn.error or TOOL_CALL_TAG in text or TRANSFER_NAME_RE.search(text)):
        return []
    found, _ = find_text_calls(text, tool_names)
    tried = [name for name, _ in found] or TRANSFER_NAME_RE.findall(text)
    return list(dict.fromkeys(tried)) or [shorten(" ".join(text.split()), 80)]  # on one line, for the trace


def specialist_messages(conversation: Iterable[Any], system: str | None) -> list[dict]:
    """The specialist's first message list after a handoff: its own ``system`` (when not empty),
    then the conversation's user and assistant messages that hold text, as new
    ``{"role", "content"}`` dicts.

    Left out: every system message (the front desk's instructions), tool messages, and the
    ``tool_calls`` of assistant messages (their tool messages are left out, so keeping the calls
    would leave them unanswered: invalid for the API); an assistant message without text is left
    out whole.  The input is not changed.  The OpenAI Agents SDK passes the whole history by default
    and offers ``input_filter`` (e.g. ``handoff_filters.remove_all_tools``) for this (docs/handoffs.md).
    """
    messages = [{"role": "system", "content": system}] if system else []
    for message in map(to_dict, conversation):
        if message.get("role") in ("user", "assistant") and has_text(message.get("content")):
            messages.append({"role": message["role"], "content": content_text(message["content"])})
    return messages


@dataclass
class HandoffResult:
    """What ``run_with_handoff`` gives back.

    Attributes:
        owner: who owns the conversation now: ``"front"`` (no transfer) or the specialist's name.
        front_messages: the front desk's request and its reply (valid for the API: every transfer
            call is answered by a tool message, ``TRANSFERRED`` or ``NOT_TRANSFERRED``).
        answer: the front desk's own answer (no transfer) or the specialist's; None while it
            waits for a person's decision, or when no one answered (a transfer not followed, one
            written as text that could not be read).
        agent: the specialist's ``Agent`` (None when the front desk kept the conversation).
        result: the specialist's ``RunResult`` (None likewise); ``run()`` renews it.
        ignored: the transfer calls not followed (a second transfer, an unknown name), as names; or
            what a transfer written as text tried (``text_transfers``).
        as_text: True when ``ignored`` comes from the reply's text, not from its tool calls.
        front_tokens: ``(prompt_tokens, completion_tokens)`` of the front desk's request.
        front_seconds: its wall time.
    """

    owner: str
    front_messages: list[dict]
    answer: str | None = None
    agent: Agent | None = None
    result: RunResult | None = None
    ignored: list[str] = field(default_factory=list)
    as_text: bool = False
    front_tokens: tuple[int | None, int | None] = (None, None)
    front_seconds: float = 0.0

    @property
    def messages(self) -> list[dict]:
        """The message list of whoever owns the conversation (the specialist's, once transferred)."""
        return list(self.agent.messages) if self.agent is not None else list(self.front_messages)

    @property
    def waiting(self) -> list[ToolCall]:
        """The specialist's calls that wait for a person's decision (notebook 08); ``[]`` when none."""
        return self.agent.waiting if self.agent is not None else []

    def decide(self, call: Any, decision: Decision) -> None:
        """A person's decision for one waiting call: the specialist's ``Agent.decide``.

        Raises:
            RuntimeError: the front desk kept the conversation (no specialist to decide for).
            TypeError, ValueError: as ``Agent.decide``.
        """
        if self.agent is None:
            raise RuntimeError(t("multi_agent.no_specialist"))
        self.agent.decide(call, decision)

    def run(self) -> "HandoffResult":
        """Go on with the specialist's run after ``decide`` (``Agent.run()``); renews ``result`` and ``answer``.

        Raises:
            RuntimeError: no specialist, or as ``Agent.run``.
        """
        if self.agent is None:
            raise RuntimeError(t("multi_agent.no_specialist"))
        self.result = self.agent.run()
        self.answer = self.result.answer
        return self

    def send(self, text: str) -> "HandoffResult":
        """The user's next message, to whoever owns the conversation now: the specialist.

        ``text`` goes at the end of the specialist's own message list (``agent.messages``) and the
        same ``Agent`` runs on that list (``Agent.run(list)``), so it sees the conversation so far:
        its system prompt, the text turns it was handed, its own tool calls and answers.  Not
        ``agent.run(text)``: a question as a str starts a fresh run (system prompt + that one line).
        Renews ``result`` and ``answer``; a call of the specialist that needs a person's yes stops it
        again (``waiting``).

        Raises:
            RuntimeError: the front desk kept the conversation (send the next message to the front desk:
                ``run_with_handoff`` with ``front_messages`` and the new user message), or a call still
                waits for a person's decision (``decide`` and ``run`` first).
            ValueError: ``text`` is empty.
            openai.APIError and friends, replies.ReplyError: as ``Agent.run``.
        """
        if self.agent is None:
            raise RuntimeError(t("multi_agent.no_specialist"))
        if self.agent.waiting:
            raise RuntimeError(t("multi_agent.send_while_waiting", n=len(self.agent.waiting)))
        if not isinstance(text, str) or not text.strip():
            raise ValueError(t("loops.empty_question"))
        self.result = self.agent.run([*self.agent.messages, {"role": "user", "content": text.strip()}])
        self.answer = self.result.answer
        return self

    def describe(self) -> list[str]:
        """The trace lines of the handoff, e.g. ``[前台] 转接给 weather（transfer_to_weather）``."""
        why = ("写成了文字，不是工具调用，读不出可以照做的转接" if self.as_text
               else "一次只转接一位专家，名字要是已有的专家")
        lines = [f"[前台] 没有照做的调用：{name}（{why}）" for name in self.ignored]
        if self.owner == "front":
            lines.append(f"[前台] 自己回答：{self.answer}" if self.answer else "[前台] 没有转接，也没有回答")
        else:
            lines.append(f"[前台] 转接给 {self.owner}（{TRANSFER_PREFIX}{self.owner}）；从现在起消息列表归 {self.owner}")
        return lines


def front_request(model: str, front_system: str, conversation: list[dict], specialists: list[Specialist],
                  **options: Any) -> dict:
    """The front desk's one request: ``front_system`` first, the conversation without its system
    messages, and only the transfer tools (``tool_choice="auto"``).  ``options``: ``max_tokens``,
    ``temperature``, ``provider`` (``messages.request_kwargs``)."""
    messages = [{"role": "system", "content": front_system}, *(m for m in conversation if m.get("role") != "system")]
    validate(messages)
    tools = [transfer_tool(s.name, s.description) for s in specialists]
    return request_kwargs(model, messages, tools=tools, tool_choice="auto", **options)


def run_with_handoff(client: Any, model: str, front_system: str, specialists: Iterable[Specialist],
                     messages: str | list[Any], *, trace: Callable[[str], Any] | None = print,
                     **options: Any) -> HandoffResult:
    """The front desk answers or hands the conversation to one specialist.

    One request with the transfer tools (``front_request``).  Then:

    * no transfer call: the front desk's text is the answer (``owner == "front"``) - unless that
      text is a call written as text that ``read_assistant`` could not recover (an unknown name,
      broken JSON: ``text_transfers``): a failed transfer, ``answer`` None, what it tried in
      ``ignored`` (``as_text`` True; the reply stays in ``front_messages`` as a text message);
    * calls: the first ``transfer_to_<X>`` with a known ``X`` wins (``chosen_specialist``); a
      second transfer and unknown names are not followed (``ignored``; their tool messages say
      why), so a confused reply never starts two specialists;
    * only unknown names: nobody takes over, ``answer`` is None (the trace says so).

    The chosen specialist's ``Agent`` (``make_agent()``) runs on ``specialist_messages``: its own
    system prompt plus the user / assistant text turns - never the front desk's system prompt,
    tool calls or tool messages.  A call of its that needs a person's yes stops the run
    (``result.stopped_reason == "waiting"``); ``HandoffResult.decide`` then ``.run()`` go on.

    Args:
        client: an ``openai.OpenAI`` client (the specialists bring their own, in ``make_agent``).
        model: the front desk's model id.
        front_system: the front desk's system prompt.
        specialists: the ``Specialist``s, names unique.
        messages: the user's question, or the conversation so far (dicts or SDK messages).
        trace: called with each trace line (``HandoffResult.describe``; None = silent).
        options: ``max_tokens``, ``temperature``, ``provider`` of the front desk's request.
    Returns:
        A ``HandoffResult``.
    Raises:
        ValueError: no specialists, two with one name, or an empty question.
        messages.MessageError, messages.ToolSchemaError: a conversation or a name the API would refuse.
        openai.APIError and friends, replies.ReplyError: the front desk's request failed (nothing ran).
    """
    specialists = list(specialists)
    names = [s.name for s in specialists]
    if not specialists or len(set(names)) != len(names):
        raise ValueError(t("multi_agent.bad_specialists", names=names))
    if isinstance(messages, str):
        if not messages.strip():
            raise ValueError(t("loops.empty_question"))
        messages = [{"role": "user", "content": messages.strip()}]
    conversation = [to_dict(m) for m in messages]
    options.setdefault("temperature", 0)
    request = front_request(model, front_system, conversation, specialists, **options)
    began = time.perf_counter()
    reply = read_reply(client.chat.completions.create(**request))
    turn = read_assistant(reply.message, names_of(request["tools"]))
    tried = text_transfers(turn, names_of(request["tools"]))  # a transfer written as text that cannot be followed
    chosen = chosen_specialist(turn.calls, names)
    front = [*request["messages"], turn.message] if turn.calls or turn.text else list(request["messages"])
    followed, ignored = False, []
    for call in turn.calls:  # every call gets its one answer: the front desk's list stays valid
        if chosen and call.name == TRANSFER_PREFIX + chosen and not followed:
            followed = True
            front.append({"role": "tool", "tool_call_id": call.id, "content": TRANSFERRED.format(name=chosen)})
            continue
        why = (NOT_TRANSFERRED_WHY["second"].format(name=chosen) if chosen
               else NOT_TRANSFERRED_WHY["unknown"].format(names=", ".join(TRANSFER_PREFIX + n for n in names)))
        front.append({"role": "tool", "tool_call_id": call.id, "content": NOT_TRANSFERRED.format(why=why)})
        ignored.append(call.name)
    handoff = HandoffResult(owner=chosen or "front", front_messages=front, ignored=ignored or tried, as_text=bool(tried),
                            front_tokens=(reply.prompt_tokens, reply.completion_tokens),
                            front_seconds=time.perf_counter() - began)
    if chosen is None:
        handoff.answer = None if turn.calls or tried else turn.text
    else:
        agent = next(s for s in specialists if s.name == chosen).make_agent()
        handoff.agent = agent
        handoff.result = agent.run(specialist_messages(conversation, agent.system))
        handoff.answer = handoff.result.answer
    if trace is not None:
        for line in handoff.describe():
            trace(line)
    return handoff
