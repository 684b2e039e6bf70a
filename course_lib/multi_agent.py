"""Agents that use agents: an agent as a tool, and a handoff from a front desk to a specialist.

Taught in notebook 11, which writes each idea by hand first and then shows that it is this code.

Two ways for one agent to use another (the names are the OpenAI Agents SDK's:
openai-agents-python docs/tools.md "Agents as tools", docs/handoffs.md):

* **an agent as a tool** (``agent_as_tool``): the front desk keeps the conversation; a
  specialist is one of its tools, with one parameter ``question``.  A call builds a fresh
  specialist ``Agent``, runs it on that question alone and hands back ONLY its answer
  text: the front desk never sees the specialist's tool calls, and the specialist never
  sees the front desk's messages.  Every inner ``RunResult`` is kept (``tool.function.runs``):
  its messages, requests, tokens and seconds - what the answer cost.
* **a handoff** (``run_with_handoff``): the front desk makes ONE request whose only tools are
  ``transfer_to_<name>``.  If it calls one, that specialist takes over the conversation:
  it starts from its own system prompt and the user / assistant text turns
  (``specialist_messages``), runs as any ``Agent``, and owns the message list from then on
  (``HandoffResult.owner``).  A specialist built with an approval hook (notebook 08) still
  stops before ``place_order`` (``stopped_reason == "waiting"``): ``HandoffResult.decide`` and
  ``HandoffResult.run`` go on as ``Agent.decide`` / ``Agent.run`` do.

Told elsewhere: the loop is ``agent.Agent`` (notebook 06), approval ``approval.py`` (08),
the tools ``tools/`` (``tools.shop_notes`` is the shop expert's retrieval tool).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .agent import Agent
from .approval import Decision
from .messages import content_text, has_text, request_kwargs, to_dict, validate, validate_tools
from .records import RunResult, ToolCall
from .replies import read_reply
from .texts import t
from .tool_calls import read_assistant
from .tools.failure import ToolFailure
from .tools.registry import Tool, names_of

TRANSFER_PREFIX = "transfer_to_"

# The one parameter of an agent used as a tool (the outer model reads this description).
QUESTION_PARAMETER = {
    "type": "string",
    "description": "交给这位专家的完整问题。它看不到前面的对话，所以要把需要的信息（商品名、城市、数量）都写进去。",
}
# What the outer model reads when the inner agent gave no answer.
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

    A run without a usable answer - waiting for approval, ``max_steps`` without an answer,
    a cut reply, a failed request (``error``) - gives ``INNER_NO_ANSWER`` as a ``ToolFailure``
    (the outer loop records ``ok`` False), never an exception.
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
        specialist on the question alone - never on the outer messages - appends the inner
        ``RunResult`` to ``tool.function.runs`` (a list, oldest first: messages, steps,
        ``prompt_tokens``, ``completion_tokens``, ``seconds``) and returns only
        ``inner_answer``'s text.  A failed inner run (a request error, no answer, waiting
        for approval) is a Chinese tool result for the outer model; the error is kept in
        ``tool.function.errors`` (``"Type: message"``).  Nothing raises into the outer loop
        except the student's stop (KeyboardInterrupt).
    Raises:
        ToolSchemaError: a name the API would refuse.
    """
    runs: list[RunResult] = []
    errors: list[str] = []

    def ask(question: str) -> str:
        if not isinstance(question, str) or not question.strip():
            return ToolFailure(INNER_EMPTY_QUESTION)
        agent = make_agent()
        try:
            result = agent.run(question)
        except Exception as exc:  # noqa: BLE001 - a failed inner run is a tool result, not a crash
            errors.append(f"{type(exc).__name__}: {exc}")
            if agent.question is not None:
                runs.append(agent.result())  # the part that ran, with its tokens
            return inner_answer(name, None, errors[-1])
        runs.append(result)
        return inner_answer(name, result)

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
            waits for a person's decision, or when no one answered.
        agent: the specialist's ``Agent`` (None when the front desk kept the conversation).
        result: the specialist's ``RunResult`` (None likewise); ``run()`` renews it.
        ignored: the transfer calls not followed (a second transfer, an unknown name), as names.
        front_tokens: ``(prompt_tokens, completion_tokens)`` of the front desk's request.
        front_seconds: its wall time.
    """

    owner: str
    front_messages: list[dict]
    answer: str | None = None
    agent: Agent | None = None
    result: RunResult | None = None
    ignored: list[str] = field(default_factory=list)
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

    def describe(self) -> list[str]:
        """The trace lines of the handoff, e.g. ``[前台] 转接给 weather（transfer_to_weather）``."""
        lines = [f"[前台] 没有照做的调用：{name}（一次只转接一位专家，名字要是已有的专家）" for name in self.ignored]
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

    * no transfer call: the front desk's text is the answer (``owner == "front"``);
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
    handoff = HandoffResult(owner=chosen or "front", front_messages=front, ignored=ignored,
                            front_tokens=(reply.prompt_tokens, reply.completion_tokens),
                            front_seconds=time.perf_counter() - began)
    if chosen is None:
        handoff.answer = None if turn.calls else turn.text
    else:
        agent = next(s for s in specialists if s.name == chosen).make_agent()
        handoff.agent = agent
        handoff.result = agent.run(specialist_messages(conversation, agent.system))
        handoff.answer = handoff.result.answer
    if trace is not None:
        for line in handoff.describe():
            trace(line)
    return handoff
