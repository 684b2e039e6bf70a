"""The native function-calling loop: an agent is a ``while`` loop.

Taught in notebook 06; compared with the ReAct loop in 07.

Notebook 03 handled one round with ``if tool_calls``.  The agent repeats it::

    while the reply has tool_calls:
        append the assistant message (with its tool_calls)
        run every call; append one {"role": "tool", "tool_call_id": id, "content": str} per id
        ask the model again (same tools)
    no tool_calls -> the reply text is the answer

Three guards keep the loop finite and the message list valid:

* ``max_steps`` - the hard stop.  After ``max_steps`` requests without an
  answer, a user message asks for a final answer from what was gathered
  (``FINAL_ANSWER_PROMPT``) AND the next request leaves ``tools``,
  ``tool_choice`` and ``parallel_tool_calls`` out entirely (``request_kwargs``
  with ``tools=None``).  Both, because either alone can fail: a model offered
  tools may keep calling them, and a model without tools but without the
  instruction may answer about something else.
* repeated identical calls (same tool, same arguments) are not run again:
  the tool reply is the first result plus ``REPEAT_NOTE``.  A step that
  repeats an earlier call and runs nothing new (its other calls, if any, had
  unreadable arguments) is a "repeating" step; ``max_repeats`` of them in a
  row end the run with the same forced final answer
  (``stopped_reason == "repeated_calls"``).
* the number check (``number_check``, on unless ``check_numbers=False``, and
  only when a tool other than calculate is offered): a reply that calls
  calculate with a number found in no user message and no tool result is
  dropped - nothing of it enters ``messages`` and nothing runs - and the
  same request is sent once more without calculate among the
  ``tools`` (and with at most ``RECHECK_MAX_TOKENS``).  The step records the
  dropped calls (``Step.dropped``) and counts both requests.
* a reply whose content looked like a tool call but could not be read
  (``tool_calls.AssistantTurn.error``) gets a corrective user message and
  counts as a step - it is never taken as the final answer.

``Agent`` is a ``loop.StepLoop`` (``start`` / ``next_request`` / ``step`` /
``done`` / ``result``), the same shape as the ReAct loops of notebook 05, so
a notebook or a debugger can walk it one request at a time; ``run_agent``
runs the same object to the end.  Each reply is read by
``replies.read_reply``; tool calls are read and run by ``course_lib.tool_calls``
(``read_assistant``, ``execute``); every request is built by
``messages.request_kwargs``.  The records (``loop.Step``,
``loop.ToolCallRecord``) and ``AgentResult`` come after the loop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from .loop import RunResult, Step, StepLoop, ToolCallRecord, cut_note
from .messages import has_text, request_kwargs, to_dict
from .number_check import CHECKED_TOOL, invented_numbers, without_tool
from .replies import Reply, read_reply
from .tables import Table, agent_steps_frame, shorten
from .tool_calls import AssistantTurn, ToolCall, execute, read_assistant
from .texts import t
from .tools.registry import ToolRegistry

DEFAULT_MAX_REPEATS = 2
DEFAULT_MAX_TOKENS = 300  # per request
# max_tokens of a request re-sent after the number check dropped a reply: without calculate the
# model sometimes writes a long run of look-ups; 100 tokens hold two or three calls (bench/levers.py: reask_short).
RECHECK_MAX_TOKENS = 100

DEFAULT_SYSTEM = """你是一个会使用工具的中文助手。
- 天气、本店商品（卖不卖、价格、库存）、百科知识都要先用工具查，不要凭印象回答；任何计算都用 calculate。
- 问题涉及几项（几个城市、几种商品），每一项单独调用一次工具。
- 拿到工具结果后，如果还缺信息就继续调用工具；信息齐了再用简洁的中文回答，写出查到的数字。
- 打招呼、闲聊不需要工具，直接回答。不要用相同的参数重复调用同一个工具。"""

# Appended as a user message when the loop must stop asking for tools.
FINAL_ANSWER_PROMPT = (
    "{reason}不能再调用工具了。请只根据上面已经得到的工具结果，直接用中文回答最初的问题；"
    "如果这些信息不足以完成任务，就说明已经查到了什么、还缺什么。"
)
STOP_REASONS_TEXT = {
    "max_steps": "已经达到最多 {max_steps} 步的上限，",
    "repeated_calls": "你在重复完全相同的工具调用，结果不会改变，",
}
# Added to the first result when an identical call is answered without running the tool again.
REPEAT_NOTE = (
    "（注意：这个调用与第 {step} 步的调用相同（同一个工具、同样的参数），没有重新执行；"
    "上面是那一次的结果。请不要重复调用，直接根据已有结果继续。）"
)
EMPTY_REPLY_PROMPT = "你的回复是空的。请调用工具获取需要的信息，或者直接用文字回答问题。"


# ---------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------


class Agent(StepLoop):
    """The native tool-calling loop, one request per ``step()``.

    Example::

        agent = Agent(client, MODEL, registry, max_steps=5)
        agent.start("帮我查北京和上海的天气")
        while not agent.done:
            agent.step()          # prints "[步 1/5] 调用工具 get_weather 参数 {...} 结果 ..."
        result = agent.result()   # or simply: run_agent(client, MODEL, question, registry)

    Args:
        client: an ``openai.OpenAI`` client.
        model: model id.
        registry: the tools that run the calls (default ``tools.default_registry()``).
        tools: the schemas offered (default ``registry.schemas()``).
        system: the system prompt (default ``DEFAULT_SYSTEM``; "" or None = none).
        max_steps: requests with tools before the forced final answer (>= 1).
        max_repeats: "repeating" steps in a row (only repeats, nothing new run)
            before the forced final answer (>= 1).
        parallel_tool_calls: sent with the tools (llama-server's default is False).
        tool_choice: sent with the tools if not None (e.g. "auto").
        check_numbers: drop a reply whose calculate call uses a number from
            nowhere and ask again without calculate (``number_check``); default on.
        max_tokens, temperature: for every request (max_tokens in tokens).
        provider: optional ``providers.Provider`` (for ``request_kwargs``).
        trace: called with one line of text per step (default ``print``; None = silent).
        (``max_steps``, ``temperature``, ``provider`` and ``trace`` are
        ``loop.StepLoop``'s; ``max_steps`` defaults to ``loop.DEFAULT_MAX_STEPS``.)

    Attributes:
        messages: the message chain so far (dicts).
        steps: the ``loop.Step`` records so far.
        answer, stopped_reason, done: the state of the run.
        forcing: ``"max_steps"`` / ``"repeated_calls"`` once the next request
            is the final one without tools, else None.
    Raises:
        ValueError: max_steps or max_repeats below 1.
    """

    protocol = "native"
    recheck_max_tokens = RECHECK_MAX_TOKENS

    def __init__(self, client: Any, model: str, registry: ToolRegistry | None = None, *,
                 tools: list[dict] | None = None, system: str | None = DEFAULT_SYSTEM,
                 max_repeats: int = DEFAULT_MAX_REPEATS, parallel_tool_calls: bool | None = True,
                 tool_choice: Any = None, max_tokens: int = DEFAULT_MAX_TOKENS, check_numbers: bool = True,
                 **options: Any):
        super().__init__(client, model, registry, system=system, max_tokens=max_tokens, **options)
        if max_repeats < 1:
            raise ValueError(t("loops.max_repeats_low", max_repeats=max_repeats))
        self.tools = tools if tools is not None else self.registry.schemas()
        self.max_repeats = max_repeats
        self.parallel_tool_calls, self.tool_choice = parallel_tool_calls, tool_choice
        self.check_numbers = check_numbers
        self.messages: list[dict] = []
        self.forcing: str | None = None
        self._seen: dict[tuple[str, str], tuple[int, str]] = {}  # call key -> (step, first result)
        self._repeat_streak = 0

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools offered."""
        return names_of(self.tools)

    def _begin(self, question: str | list[dict]) -> None:
        """``question``: the user's task; or a whole message list to continue
        (its last user message is the question; ``system`` is not added then).

        Raises:
            ValueError: an empty question, or a message list without a user message.
        """
        if isinstance(question, str):
            if not question.strip():
                raise ValueError(t("loops.empty_question"))
            messages = [{"role": "user", "content": question.strip()}]
            if self.system:
                messages.insert(0, {"role": "system", "content": self.system})
        else:
            messages = [to_dict(m) for m in question]
        users = [m for m in messages if m.get("role") == "user"]
        if not users:
            raise ValueError(t("loops.no_user_message"))
        self.question = str(users[-1].get("content") or "")
        self.messages, self.forcing = messages, None
        self._seen, self._repeat_streak = {}, 0

    def next_request(self) -> dict:
        """The ``create(**kwargs)`` arguments of the next step (nothing is sent).

        With tools normally; after a stop (``forcing`` set), without any
        tools-related key.
        Raises:
            RuntimeError: not started, or already done.
        """
        self._require_running()
        return self._kwargs(None if self.forcing else self.tools, self.max_tokens)

    def _kwargs(self, tools: list[dict] | None, max_tokens: int) -> dict:
        """The request for ``messages`` with ``tools`` (None or [] = no tools-related key at all)."""
        common = dict(provider=self.provider, max_tokens=max_tokens, temperature=self.temperature)
        if not tools:
            return request_kwargs(self.model, self.messages, **common)
        choice = self.tool_choice
        if isinstance(choice, dict) and (choice.get("function") or {}).get("name") not in names_of(tools):
            choice = None  # it named a tool that is not offered in this request
        return request_kwargs(self.model, self.messages, tools=tools, tool_choice=choice,
                              parallel_tool_calls=self.parallel_tool_calls, **common)

    # -- one step ------------------------------------------------------------

    def _request(self) -> Step:
        kwargs = self.next_request()
        reply = read_reply(self.client.chat.completions.create(**kwargs))
        if self.forcing:
            return self._final(reply)
        turn = read_assistant(reply.message, self.tool_names)
        others = without_tool(self.tools, CHECKED_TOOL)
        # Only when another tool is left to look the number up with (calculate alone: run it as asked).
        dropped = self._check(turn.calls) if self.check_numbers and others else []
        if not dropped:
            return self._act(turn, self._new_step(reply, "answer", with_tools="tools" in kwargs))
        # The number check: drop the reply, ask the same again without calculate among the tools.
        second = read_reply(self.client.chat.completions.create(
            **self._kwargs(others, min(self.max_tokens, self.recheck_max_tokens))))
        record = self._new_step(second, "answer", with_tools=True, dropped=dropped, requests=2)
        record.prompt_tokens = _add(reply.prompt_tokens, second.prompt_tokens)
        record.completion_tokens = _add(reply.completion_tokens, second.completion_tokens)
        # Read with the tools this request offered: a calculate call written as text is not run.
        return self._act(read_assistant(second.message, names_of(others)), record)

    def _check(self, calls: list[ToolCall]) -> list[ToolCallRecord]:
        """``calls`` (one reply's) if one of them is a calculate call with invented numbers, else [].

        Each returned record's ``observation`` says which numbers came from nowhere
        (``number_check.invented_numbers``); none of the calls ran.
        """
        missing = [invented_numbers(call, self.messages) for call in calls]
        if not any(missing):
            return []
        return [ToolCallRecord.of(call, t("agent.dropped_why", missing=t("agent.list_separator").join(numbers)) if numbers
                                  else t("agent.dropped_with"))
                for call, numbers in zip(calls, missing)]

    def _act(self, turn: AssistantTurn, record: Step) -> Step:
        """Act on one reply (read by ``tool_calls.read_assistant``): run its calls, or record its answer."""
        if turn.calls:
            record.kind = "tool_calls"
            self.messages.append(turn.message)
            record.tool_calls = self._run_calls(turn.calls, record.step)
            self.messages.extend({"role": "tool", "tool_call_id": c.id, "content": c.observation} for c in record.tool_calls)
            # A step "repeats" when it re-asks an earlier call and runs nothing new that worked.
            fresh = [c for c in record.tool_calls if not c.repeated and c.error is None]
            repeating = any(c.repeated for c in record.tool_calls) and not fresh
            self._repeat_streak = self._repeat_streak + 1 if repeating else 0
            if self._repeat_streak >= self.max_repeats:
                self._force("repeated_calls")
        elif turn.error or not turn.text:
            record.kind = "invalid" if turn.error else "empty"
            record.error = turn.error or t("loops.empty_reply")
            record.observation = turn.error or EMPTY_REPLY_PROMPT
            if has_text(turn.message.get("content")):
                self.messages.append(turn.message)
            self.messages.append({"role": "user", "content": record.observation})
        else:
            self.messages.append(turn.message)
            self._answered(record, turn.text)
        return record

    def _run_calls(self, calls: list[ToolCall], step: int) -> list[ToolCallRecord]:
        """Run new calls (via ``tool_calls.execute``), answer repeats from the first result."""
        records = []
        for call in calls:
            key = call_key(call)
            if key is not None and key in self._seen:
                first_step, first_result = self._seen[key]
                observation = first_result + "\n" + REPEAT_NOTE.format(step=first_step)
                records.append(ToolCallRecord.of(call, observation, repeated=True, first_step=first_step))
                continue
            observation = execute([call], self.registry)[0]["content"]
            if key is not None:
                self._seen[key] = (step, observation)
            records.append(ToolCallRecord.of(call, observation))
        return records

    def _at_limit(self) -> None:
        """After ``max_steps`` requests: force the final answer (once)."""
        if self.limit_reached and not self.forcing:
            self._force("max_steps")

    def _force(self, reason: str) -> None:
        """Ask for the final answer: a user message now, and no tools in the next request."""
        self.forcing = reason
        why = STOP_REASONS_TEXT[reason].format(max_steps=self.max_steps)
        self.messages.append({"role": "user", "content": FINAL_ANSWER_PROMPT.format(reason=why)})

    def _final(self, reply: Reply) -> Step:
        """The reply to the request without tools: its text is the answer (tool calls are ignored)."""
        text = reply.text.strip() or None
        if text:
            self.messages.append({"role": "assistant", "content": text})
        self.answer, self.stopped_reason = text, self.forcing
        return self._new_step(reply, "final", answer=text,
                              error=None if text else t("loops.final_without_answer"))

    # -- trace ---------------------------------------------------------------

    def describe(self, s: Step) -> list[str]:
        """The trace lines of one step, e.g. ``[步 1/5] 调用工具 get_weather 参数 {"city": "北京"} 结果 ...``."""
        head = t("loops.trace_head", step=s.step, max_steps=self.max_steps)
        # A dropped reply: one line per calculation that failed the number check, one for the re-sent request.
        lines = [t("agent.trace_dropped", head=head, name=c.name, arguments_text=c.arguments_text, why=c.observation)
                 for c in s.dropped if c.name == CHECKED_TOOL and c.observation != t("agent.dropped_with")]
        if s.dropped:
            lines.append(t("agent.trace_resent", head=head, n=len(s.dropped), tool=CHECKED_TOOL))
        return lines + self._describe_reply(s, head)

    def _describe_reply(self, s: Step, head: str) -> list[str]:
        if s.kind == "tool_calls":
            lines = []
            for c in s.tool_calls:
                if c.repeated:
                    tail = t("agent.trace_repeat", first_step=c.first_step)
                else:
                    tail = t("agent.trace_result") + shorten(c.observation.replace("\n", " "), 100)
                lines.append(t("agent.trace_call", head=head, name=c.name, arguments_text=c.arguments_text, tail=tail))
            return lines
        if s.kind == "answer":
            return [t("agent.trace_answer", head=head, answer=shorten(s.answer or "", 200), cut=cut_note(s))]
        if s.kind in ("invalid", "empty"):
            return [t("agent.trace_invalid", head=head, observation=shorten(s.observation or "", 60))]
        why = {"max_steps": t("agent.why_max_steps", max_steps=self.max_steps), "repeated_calls": t("agent.why_repeated")}.get(
            self.stopped_reason or "", "")
        return [t("agent.trace_final", why=why, answer=shorten(s.answer or t("loops.no_answer"), 200), cut=cut_note(s))]


def names_of(tools: list[dict]) -> list[str]:
    """The function names of OpenAI tool schemas, in order (``""`` for a schema without one)."""
    return [(tool.get("function") or {}).get("name", "") for tool in tools]


def _add(a: int | None, b: int | None) -> int | None:
    """Two ``usage`` counts added; None only if both are None (the server sent no usage)."""
    return None if a is None and b is None else (a or 0) + (b or 0)


def run_agent(client: Any, model: str, question: str | list[dict], registry: ToolRegistry | None = None,
              **options: Any) -> "AgentResult":
    """Run the native loop on ``question`` to the end; ``options`` as for ``Agent``."""
    return Agent(client, model, registry, **options).run(question)


def call_key(call: ToolCall) -> tuple[str, str] | None:
    """What makes two calls "identical": the tool name and the arguments as canonical JSON.

    ``{"city": "北京"}`` and ``{ "city":"北京" }`` are the same call.
    Returns None for a call whose arguments could not be read (never reused).
    """
    if call.arguments is None:
        return None
    return call.name, json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)


# ---------------------------------------------------------------------------
# The result (the records, loop.Step and loop.ToolCallRecord, are in loop.py)
# ---------------------------------------------------------------------------


@dataclass
class AgentResult(RunResult):
    """The outcome of one agent run: a ``loop.RunResult`` with ``protocol == "native"``.

    ``stopped_reason`` is ``"answer"`` (the model answered by itself),
    ``"max_steps"`` or ``"repeated_calls"`` (the loop forced a final answer
    with a request without tools).  ``messages`` is the whole chain.
    """

    def table(self, max_chars: int | None = 120) -> Table:
        """The chain of steps and tool calls as a ``tables.Table`` (``tables.agent_steps_frame``)."""
        title = t("agent.table_title", question=self.question, stopped_reason=self.stopped_reason)
        return Table(agent_steps_frame(self.steps, max_chars), title)


Agent.result_type = AgentResult
