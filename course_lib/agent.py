"""The native function-calling loop: an agent is a ``while`` loop.

Taught in notebook 06; compared with the ReAct loops in 07; its approval hook in 08.

Notebook 03 handled one round with ``if tool_calls``.  ``Agent.step`` below is one turn of
the same, in the order notebook 06's ``run_by_hand`` writes it by hand::

    build the request (with the tools)            send it, read the reply
    [the number check: drop a reply that calculates with invented numbers, ask again]
    append the assistant message                  answer every call
    append one {"role": "tool", "tool_call_id": id, "content": str} per id
    check the limits

``Agent.run`` - right below ``step`` - is the ``while`` loop itself.  What keeps it finite
and the message list valid (``max_steps``, repeated calls, the number check, unusable
replies, a forced ``tool_choice``) is listed in ``Agent``'s docstring.  Every call takes one
path: ``step`` -> ``_run_turn`` -> ``answer_calls`` -> ``answer_call`` (the person's decision:
``approval.ApprovalGate.apply_decision``) -> ``_run_or_repeat`` -> ``tool_calls.run_call``.
A tool that waits for a person (an agent used as a tool, notebook 11: ``tools.failure.ToolWaiting``)
stops the turn there: the gate holds it as for a call of the loop's own (``LoopBase._hold_tool``).
Three public hooks change one thing without copying the loop: ``send`` (the chat box of
``widgets.py`` streams there), ``answer_call`` (the bench's guard variants, ``tracing.Tracer``)
and ``recheck_max_tokens``.

Told elsewhere: the trace lines are ``Agent.describe``, in this file; replies are read by
``replies.read_reply``, calls by ``tool_calls.read_assistant``, requests built by
``messages.request_kwargs``; the records are in ``records.py``, what every loop shares in
``loop_base.py``, and human approval (notebook 08) in ``approval.py``.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Iterable

from .approval import EDITED_NOTE, REJECTED_REASON, REJECTED_TEXT, Decision, HeldTurn
from .loop_base import LoopBase, cut_note
from .messages import has_text, request_kwargs, to_dict
from .number_check import CHECKED_TOOL, check_calls, without_tool
from .records import (AnswerStep, EmptyStep, FinalStep, InvalidStep, RunResult, Step, ToolCall, ToolCallsStep, ToolResult,
                      WaitingStep, reply_fields, stop_reason_text)
from .replies import Reply, read_reply
from .tables import shorten
from .texts import t
from .tool_calls import read_assistant, run_call
from .tools.failure import ToolWaiting
from .tools.registry import ToolRegistry, default_registry, names_of

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
# What the model reads about a person's decision (notebook 08) - REJECTED_TEXT, REJECTED_REASON,
# EDITED_NOTE - is in approval.py: every loop sends it (ApprovalGate.apply_decision).


class Agent(LoopBase):
    """The native tool-calling loop, one turn per ``step()``.

    Example::

        agent = Agent(client, MODEL, registry, max_steps=5)
        agent.start("帮我查北京和上海的天气")
        while not agent.done:
            agent.step()          # prints "[步 1/5] 调用工具 get_weather 参数 {...} 结果 ..."
        result = agent.result()   # or simply: agent.run(question), or run_agent(client, MODEL, question)

    Args:
        client: an ``openai.OpenAI`` client.
        model: model id.
        registry: the tools that run the calls (default ``tools.default_registry()``).
        tools: the schemas offered (default ``registry.schemas()``).
        system: the system prompt (default ``DEFAULT_SYSTEM``; "" or None = none).
        max_steps: steps with tools before the forced final answer (>= 1; default 5).
        max_repeats: "repeating" steps in a row (only repeats, nothing new run)
            before the forced final answer (>= 1).
        parallel_tool_calls: sent with the tools (llama-server's default is False).
        tool_choice: sent with the tools if not None (e.g. "auto"); a forced one (``"required"``,
            a named function) only until a tool call has run, then ``"auto"``.
        reset_tool_choice: False keeps a forced ``tool_choice`` in every request (default True,
            as the OpenAI Agents SDK's ``reset_tool_choice``).
        check_numbers: drop a reply whose calculate call uses a number from
            nowhere and ask again without calculate (``number_check``); default on.
        recheck_max_tokens: ``max_tokens`` (at most) of that second request.
        max_tokens, temperature: for every request (max_tokens in tokens).
        provider: optional ``providers.Provider`` (for ``request_kwargs``).
        trace: called with each trace line (default ``print``; None = silent).
        approve: the approval hook ``approve(call: ToolCall) -> approval.Decision | None``,
            asked before a call to one of ``approval_tools`` runs; None = always wait for
            ``decide``.  Both go to the loop's gate (``loop_base.LoopBase``; the story: ``approval.py``).
        approval_tools: the names of the tools that need a person's yes (default: the
            registry's ``approval_names()``, the tools marked ``needs_approval``).

    What keeps the loop finite and the message list valid:

    * ``max_steps``, the hard stop: after that many steps without an answer, a user message asks
      for a final answer from what was gathered (``FINAL_ANSWER_PROMPT``) AND the next request
      leaves ``tools``, ``tool_choice`` and ``parallel_tool_calls`` out entirely (``_stop``).  Both,
      because either alone can fail: a model offered tools may keep calling them, and a model
      without tools but without the instruction may answer about something else.
    * repeated identical calls (same tool, same arguments, ``call_key``) are not run again: the
      tool reply is the first result plus ``REPEAT_NOTE`` (``_run_or_repeat``).  A step that
      repeats and runs nothing new is "repeating"; ``max_repeats`` of them in a row end the run
      with the same forced final answer (``stopped_reason == "repeated_calls"``).
    * the number check (``number_check.check_calls``; on unless ``check_numbers=False``, and only
      when a tool other than calculate is offered): a reply that calls calculate with a number
      found in no user message and no tool result is dropped - nothing of it enters ``messages``,
      nothing runs - and the same request is sent again without calculate (and with at most
      ``recheck_max_tokens``).  The step counts both requests.
    * a reply that wrote a tool call as unreadable text (``tool_calls.read_assistant`` sets
      ``error``) or said nothing gets a corrective user message and counts as a step - it is
      never taken as the final answer.
    * a forced ``tool_choice`` (``"required"`` or a named function) is sent until a tool call has
      run in the run, then ``"auto"``: forced in every request, a model would call a tool again
      and again until ``max_steps``.  This is the OpenAI Agents SDK's ``Agent.reset_tool_choice``
      (default True; openai-agents-python docs/agents.md "Forcing tool use", PR #263).

    Attributes:
        messages: the message chain so far (dicts).
        steps: the ``records.Step`` records so far.
        answer, stopped_reason, done: the state of the run.
        stopping: ``"max_steps"`` / ``"repeated_calls"`` once the next request
            is the final one without tools, else None.
        waiting: the calls (``ToolCall``) that wait for a person's decision; ``[]`` when none.
        gate: the ``approval.ApprovalGate`` that holds them, the decisions and the held turn.
    Raises:
        ValueError: max_steps or max_repeats below 1.
    """

    protocol = "native"

    def __init__(self, client: Any, model: str, registry: ToolRegistry | None = None, *,
                 tools: list[dict] | None = None, system: str | None = DEFAULT_SYSTEM,
                 max_repeats: int = DEFAULT_MAX_REPEATS, parallel_tool_calls: bool | None = True,
                 tool_choice: Any = None, reset_tool_choice: bool = True, max_tokens: int = DEFAULT_MAX_TOKENS,
                 check_numbers: bool = True, recheck_max_tokens: int = RECHECK_MAX_TOKENS,
                 approve: Callable[[ToolCall], Decision | None] | None = None,
                 approval_tools: Iterable[str] | None = None, **options: Any):
        registry = registry if registry is not None else default_registry()
        super().__init__(client, model, registry, system=system, max_tokens=max_tokens, approve=approve,
                         approval_tools=approval_tools, **options)
        if max_repeats < 1:
            raise ValueError(t("loops.max_repeats_low", max_repeats=max_repeats))
        self.tools = tools if tools is not None else self.registry.schemas()
        self.max_repeats = max_repeats
        self.parallel_tool_calls, self.tool_choice = parallel_tool_calls, tool_choice
        self.reset_tool_choice = reset_tool_choice
        self.check_numbers, self.recheck_max_tokens = check_numbers, recheck_max_tokens
        self.messages: list[dict] = []
        self.stopping: str | None = None
        self._seen: dict[tuple[str, str], tuple[int, ToolResult]] = {}  # call key -> (step, first result)
        self._failed: set[str] = set()  # ids of tool results that are not results (ToolResult.ok False)
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
        self.messages, self.stopping = messages, None
        self._seen, self._failed, self._repeat_streak = {}, set(), 0

    def next_request(self, tools: list[dict] | None = None, max_tokens: int | None = None) -> dict:
        """The ``create(**kwargs)`` arguments of the next request (nothing is sent).

        Args:
            tools: the tools to offer (default ``self.tools``); once the loop is
                stopping, none: no tools-related key at all.
            max_tokens: default ``self.max_tokens``.
        Raises:
            RuntimeError: not started, or already done.
        """
        self._require_running()
        tools = None if self.stopping else (self.tools if tools is None else tools)
        common = dict(provider=self.provider, max_tokens=max_tokens or self.max_tokens, temperature=self.temperature)
        if not tools:
            return request_kwargs(self.model, self.messages, **common)
        choice = self.tool_choice
        forced = choice == "required" or isinstance(choice, dict)
        if forced and self.reset_tool_choice and any(isinstance(s, ToolCallsStep) for s in self.steps):
            choice = "auto"  # a tool has run: forced again, the model would call tools until max_steps
        if isinstance(choice, dict) and (choice.get("function") or {}).get("name") not in names_of(tools):
            choice = None  # it named a tool that is not offered in this request
        return request_kwargs(self.model, self.messages, tools=tools, tool_choice=choice,
                              parallel_tool_calls=self.parallel_tool_calls, **common)

    # -- one turn ------------------------------------------------------------------

    def step(self) -> Step:
        """One turn: a request, the reply, the tools it asked for; returns the ``records.Step``.

        Raises:
            RuntimeError: ``start`` was not called, the run is already done, or calls still
                wait for a decision (``waiting``; answer them with ``decide``).
            openai.APIError and friends, replies.ReplyError: the request failed or held
                no reply; nothing is recorded and ``step()`` can simply be called again.
        """
        self._require_running()
        if self.gate.held is not None:  # a reply waited for a person: finish that turn, no new request
            return self._resume()
        began, number = time.perf_counter(), len(self.steps) + 1
        if self.limit_reached and not self.stopping:  # max_steps lowered since the last step (the debugger's box)
            self._stop("max_steps")
        # 1-3. Build the request, send it, read the reply.
        request = self.next_request()
        reply = self.send(request)
        if self.stopping:  # the last request, without tools: whatever it says is the answer
            text = reply.text.strip() or None
            if text:
                self.messages.append({"role": "assistant", "content": text})
            self.answer, self.stopped_reason = text, self.stopping
            return self._record(FinalStep(number, **reply_fields(reply), text=text, reason=self.stopping), began)
        turn = read_assistant(reply.message, self.tool_names)
        # 4. The number check: a calculation with numbers from nowhere drops the reply; ask once more.
        without_calculate = without_tool(self.tools, CHECKED_TOOL)
        dropped = check_calls(turn.calls, self.messages, self._failed) if self.check_numbers and without_calculate else []
        if dropped:
            recheck = min(self.max_tokens or self.recheck_max_tokens, self.recheck_max_tokens)
            second = self.send(self.next_request(without_calculate, recheck))
            reply = with_tokens_of_both(reply, second)
            turn = read_assistant(second.message, names_of(without_calculate))  # a calculate written as text is not run
        fields = dict(reply_fields(reply), dropped=dropped, requests=2 if dropped else 1)
        if turn.calls and self.gate.ask(turn.calls, held=HeldTurn(number, fields, tuple(turn.calls), turn=turn)):
            # A call needs a person's yes and has none yet: the gate holds the reply; nothing runs until decide().
            waiting = [ToolResult.not_run(c) for c in self.waiting]
            step = self._record(WaitingStep(number, **fields, waiting=waiting), began)
            self._hook_stopped()  # the stop button inside the hook: raised again, the calls keep waiting
            return step
        if turn.calls:
            # 5-7. Append the assistant message, run every call, append one tool message per id.
            try:
                step: Step = self._run_turn(turn, fields, number)
            except ToolWaiting as waits:  # a tool waits for a person (an agent used as a tool): the turn waits
                return self._hold_tool(waits, HeldTurn(number, fields, tuple(turn.calls), turn=turn,
                                                       answered=waits.answered), began)
        elif reply.refusal and not turn.text:  # a refusal: the student sees it, and the run ends with it
            self.messages.append({"role": "assistant", "content": reply.refusal})
            step = AnswerStep(number, **fields, text=reply.refusal)
            self._end(step, reply.refusal, "refusal")
        elif turn.error or not turn.text:
            # An unusable reply (an unreadable call written as text, or nothing): say so; the step counts.
            kind = InvalidStep if turn.error else EmptyStep
            step = kind(number, **fields, error=turn.error or t("loops.empty_reply"),
                        observation=turn.error or EMPTY_REPLY_PROMPT)
            if has_text(turn.message.get("content")):
                self.messages.append(turn.message)
            self.messages.append({"role": "user", "content": step.observation})
        else:  # the answer
            self.messages.append(turn.message)
            step = AnswerStep(number, **fields, text=turn.text)
            self._end(step, turn.text, "answer")
        # 8. The limits: after max_steps steps without an end, the next request is the last one.
        if not self.done and number >= self.max_steps and not self.stopping:
            self._stop("max_steps")
        self._record(step, began)
        if isinstance(step, ToolCallsStep) and any(r.interrupted for r in step.tool_calls):
            raise KeyboardInterrupt(t("loops.interrupted"))  # the student's stop, once messages are valid again
        return step

    def _run_turn(self, turn: Any, fields: dict, number: int, answered: tuple = ()) -> ToolCallsStep:
        """Steps 5-7 for a reply with calls: append the assistant message, run every call, append
        one tool message per id; then the repeat check.  Edited calls run with the person's arguments.

        ``answered``: the results of the turn's first calls, which ran before one of its tools waited for
        a person (``HeldTurn.answered``); they are kept, not answered again.

        Raises:
            tools.failure.ToolWaiting: a tool waits for a person; the assistant message is taken off
                again, so ``messages`` holds nothing of the turn while it waits.
        """
        calls = self.gate.release(turn.calls)
        message = turn.message
        if calls != turn.calls:  # the assistant message shows the arguments that really ran
            message = dict(message, tool_calls=[
                {**wire, "function": {**wire["function"], "arguments": call.arguments_text}} if call is not old else wire
                for wire, call, old in zip(message["tool_calls"], calls, turn.calls)])
        self.messages.append(message)
        try:
            results = [*answered, *self.answer_calls(calls[len(answered):], number)]
        except ToolWaiting:  # a tool waits for a person: nothing of the turn stays until it finishes
            self.messages.pop()
            raise
        self.messages.extend(result.message() for result in results)
        self._failed |= {r.id for r in results if not r.ok}
        # A step "repeats" when it re-asks an earlier call and runs nothing new that worked.
        repeating = any(r.repeated for r in results) and not any(r.ok and not r.repeated for r in results)
        self._repeat_streak = self._repeat_streak + 1 if repeating else 0
        if self._repeat_streak >= self.max_repeats:
            self._stop("repeated_calls")
        return ToolCallsStep(number, **fields, tool_calls=results)

    # -- human approval (notebook 08): the gate is loop_base.LoopBase's ---------------------

    def _finish(self, held: HeldTurn) -> tuple[ToolCallsStep, bool]:
        """The held turn, decided (``LoopBase._resume`` records it): steps 5-7, then the limit.
        Returns the ``ToolCallsStep`` and whether the student stopped a tool (Ctrl-C).

        Raises:
            tools.failure.ToolWaiting: a tool of the turn waits (again); ``_resume`` holds the turn.
        """
        step = self._run_turn(held.turn, held.fields, held.number, held.answered)
        if held.number >= self.max_steps and not self.stopping:
            self._stop("max_steps")
        return step, any(r.interrupted for r in step.tool_calls)

    def run(self, question: str | list[dict] | None = None) -> "RunResult":
        """``start(question)`` (if given), then ``step()`` until done - or until a call waits for a
        person's decision; returns ``result()``.

        A waiting call ends ``run()`` without raising and without running anything of that reply:
        ``stopped_reason`` is ``"waiting"`` and ``result.waiting`` lists the calls (the same objects
        as ``waiting``; for a tool that waits - an agent used as a tool - the calls inside it).
        ``decide(call, decision)`` for each, then ``run()`` (no question) finishes the held turn - no
        new request for it - and goes on to the end.  This is the shape of
        openai-agents' ``Runner.run`` (``result.interruptions``, then ``Runner.run(agent, state)``)
        and LangGraph's ``invoke`` (``"__interrupt__"``, then ``invoke(Command(resume=...))``).

        Raises:
            RuntimeError: no question and ``start`` was never called.
            ValueError: as ``start``.
            openai.APIError and friends, replies.ReplyError: as ``step`` (the run so far is kept).
            KeyboardInterrupt: the student's stop (in a tool, or in the approval hook: the call waits).
        """
        if question is not None:
            self.start(question)
        self._require_running(allow_done=True)
        while not self.done and not self.waiting:
            self.step()
        return self.result()

    # -- the parts a step calls ------------------------------------------------------

    def send(self, request: dict) -> Reply:
        """Send one request (``next_request()``'s kwargs) and read its reply with ``replies.read_reply``.

        Raises:
            openai.APIError and friends, replies.ReplyError: as ``step``.
        """
        return read_reply(self.client.chat.completions.create(**request))

    def answer_calls(self, calls: list[ToolCall], step: int) -> list[ToolResult]:
        """``answer_call`` for each call, in order; one ``ToolResult`` per call, always.

        Ctrl-C (the notebook's stop button) while a tool runs does not leave calls without
        an answer: that call and the ones after it get an ``interrupted`` result (they did
        not run), so the message list stays valid; ``step()`` records the step and then
        raises the ``KeyboardInterrupt`` again, and the next ``step()`` works.

        Raises:
            tools.failure.ToolWaiting: a tool waits for a person; the calls after it do not run yet,
                and its ``answered`` holds the results of the calls before it.
        """
        results: list[ToolResult] = []
        for call in calls:
            if not (results and results[-1].interrupted):  # after an interrupt, nothing more runs
                try:
                    results.append(self.answer_call(call, step))
                    continue
                except KeyboardInterrupt:
                    pass
                except ToolWaiting as waits:  # the turn stops at this call; what ran before it is kept
                    waits.answered = tuple(results)
                    raise
            results.append(ToolResult.not_run(call, t("tools.interrupted", name=call.name), interrupted=True))
        return results

    def answer_call(self, call: ToolCall, step: int) -> ToolResult:
        """Answer one call of step ``step``: the person's decision first (``gate.apply_decision``: a
        rejected call does not run, an edited one says so in its result), then ``_run_or_repeat``.

        The public hook for one call: the bench's guard variants and ``tracing.Tracer`` replace it."""
        return self.gate.apply_decision(call, lambda call: self._run_or_repeat(call, step))

    def _run_or_repeat(self, call: ToolCall, step: int) -> ToolResult:
        """Run ``call`` (``tool_calls.run_call``), unless an identical call (``call_key``) ran before:
        then it is not run again and gets that result plus ``REPEAT_NOTE``."""
        key = call_key(call)
        if key in self._seen:  # the same call ran before: its result again, with a note
            first_step, first = self._seen[key]
            return ToolResult.not_run(call, first.observation + "\n" + REPEAT_NOTE.format(step=first_step),
                                      ok=first.ok, repeated=True, first_step=first_step)
        result = run_call(call, self.registry)
        if key is not None:  # None: arguments that could not be read are never reused
            self._seen[key] = (step, result)
        return result

    def _stop(self, reason: str) -> None:
        """Ask for the final answer: a user message now, and no tools in the next request."""
        self.stopping = reason
        why = STOP_REASONS_TEXT[reason].format(max_steps=self.max_steps)
        self.messages.append({"role": "user", "content": FINAL_ANSWER_PROMPT.format(reason=why)})

    # -- the trace: what a step prints ------------------------------------------------

    def describe(self, s: Step) -> list[str]:
        """The trace lines of one step, e.g. ``[步 1/5] 调用工具 get_weather 参数 {"city": "北京"} 结果 ...``.

        Written here, in the loop's file, like the trace lines of ``run_by_hand`` in notebook 06.
        """
        head = f"[步 {s.number}/{self.max_steps}]"
        # A dropped reply: one line per calculation that failed the number check, one for the re-sent request.
        lines = [f"{head} 数字检查：{c.name} 参数 {c.arguments_text}（{c.observation}）" for c in s.dropped if c.missing_numbers]
        if s.dropped:
            lines.append(f"{head} 整条回答（{len(s.dropped)} 个调用）都丢弃了，没有进入 messages；"
                         f"同一个请求去掉 {CHECKED_TOOL} 再发一次")
        if isinstance(s, ToolCallsStep):
            for c in s.tool_calls:
                tail = (f"重复调用：没有重新执行，返回第 {c.first_step} 步的结果" if c.repeated
                        else "结果 " + shorten(c.observation.replace("\n", " "), 100))
                person = {"approve": "（已批准）", "reject": "（已拒绝）", "edit": "（参数已修改）"}.get(c.approval, "")
                lines.append(f"{head} 调用工具 {c.name}{person} 参数 {c.arguments_text} {tail}")
        elif isinstance(s, WaitingStep):
            for c in s.waiting:
                lines.append(f"{head} 等待批准：{c.name} 参数 {c.arguments_text}（还没有运行；agent.decide(...) 或调试器的按钮）")
        elif isinstance(s, AnswerStep):
            lines.append(f"{head} 回答：{shorten(s.text, 200)}{cut_note(s)}")
        elif isinstance(s, InvalidStep):
            lines.append(f"{head} 回复无法使用（{shorten(s.observation, 60)}）→ 发送纠正消息")
        elif isinstance(s, FinalStep):
            why = f"达到 max_steps={self.max_steps}" if s.reason == "max_steps" else "连续重复调用"
            answer = shorten(s.text or t("loops.no_answer"), 200)
            lines.append(f"[停止：{why}] 不带 tools 再请求一次 → 回答：{answer}{cut_note(s)}")
        return lines


def with_tokens_of_both(first: Reply, second: Reply) -> Reply:
    """``second`` with the tokens of both requests: a step that re-sent its request counts both."""
    def add(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    usage = {"prompt_tokens": add(first.prompt_tokens, second.prompt_tokens),
             "completion_tokens": add(first.completion_tokens, second.completion_tokens)}
    return Reply(second.message, second.text, second.finish_reason, {**(second.usage or {}), **usage},
                 second.chunks, second.reasoning, second.refusal)


def run_agent(client: Any, model: str, question: str | list[dict], registry: ToolRegistry | None = None,
              **options: Any) -> "RunResult":
    """Run the native loop on ``question`` to the end; ``options`` as for ``Agent``.

    A call that waits for a person ends it with ``stopped_reason == "waiting"`` (nothing of it ran);
    the ``Agent`` is not kept, so to decide and go on, make an ``Agent`` and call its ``run``."""
    return Agent(client, model, registry, **options).run(question)


def call_key(call: ToolCall) -> tuple[str, str] | None:
    """What makes two calls "identical": the tool name and the arguments as canonical JSON.

    ``{"city": "北京"}`` and ``{ "city":"北京" }`` are the same call.
    Returns None for a call whose arguments could not be read (never reused).
    """
    if call.arguments is None:
        return None
    return call.name, json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)


__all__ = ["Agent", "DEFAULT_SYSTEM", "EDITED_NOTE", "FINAL_ANSWER_PROMPT", "REJECTED_REASON", "REJECTED_TEXT",
           "call_key", "run_agent", "stop_reason_text"]
