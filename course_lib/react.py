"""Prompt-based ReAct loops: tools for a model that only writes text.

Taught in notebook 05; compared with the native loop in 07; their approval in 08.

The model never gets ``tools=...``.  The system prompt describes a text protocol, our code
reads the reply with ``react_parser``, runs the tool and writes the result back as an
``Observation``.  Two protocols, each a ``ReActLoop`` (their formats: the class docstrings):

* ``LineReAct`` (protocol A): ``Thought:`` / ``Action: tool: input`` / ``PAUSE`` in an ordinary
  chat (``ChatBot``), every Observation a new user message; it ends with ``Answer:``.
* ``JsonReAct`` (protocol B, LangChain's template): a JSON ``Action`` blob, the whole scratchpad
  in ONE user message rebuilt for every request; it ends with ``Final Answer:``.

Both send stop sequences (``LINE_STOP`` / ``JSON_STOP``).  ``ReActLoop.step`` is one turn and
``run`` the ``while`` around it - the shape of the native ``agent.Agent``, so a notebook or the
debugger drives any loop one request at a time (``loop_base.py``); ``run_line_react`` /
``run_json_react`` run one to the end.  ``run_tool`` is the small function notebook 05's
hand-written loop runs an Action with.

Told elsewhere: the parsers are in ``react_parser.py``; requests are built by
``messages.request_kwargs`` and replies read by ``replies.read_reply``; the records are in
``records.py``; an Action to a tool that needs a person's yes goes through the approval gate
as one call (``action_call``; the story: ``approval.py``), and an Action whose tool waits for a
person (an agent used as a tool: ``tools.failure.ToolWaiting``) waits the same way.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from .approval import HeldTurn
from .loop_base import LoopBase, cut_note, question_text
from .messages import has_text, request_kwargs, to_dict
from .react_parser import ParsedReply, corrective_observation, parse_json_protocol, parse_line_protocol
from .records import ActionStep, AnswerStep, FinalStep, InvalidStep, RunResult, Step, ToolCall, ToolResult, WaitingStep, reply_fields
from .replies import read_reply
from .texts import shorten, t
from .tool_calls import run_call
from .tools.failure import ToolWaiting
from .tools.registry import ToolRegistry, default_registry

# Stop sequences: without them the model keeps writing after its Action and invents the
# Observation itself (notebook 05 shows it).  Protocol A: the model should stop after "PAUSE";
# it often does not, so "Observation:" is a stop word too.  Protocol B: LangChain's
# ReAct agents stop at "Observation:" (the LangChain ReAct template).
LINE_STOP = ["PAUSE", "Observation:"]
JSON_STOP = ["Observation:"]

DEFAULT_MAX_TOKENS = 256  # per request; a ReAct step is short

LINE_SYSTEM_PROMPT = """你会在一个循环里工作：Thought → Action → PAUSE → Observation，可以重复多次，最后输出 Answer。
- Thought: 写下你对问题的思考。
- Action: 调用一个工具，格式是 "Action: 工具名: 输入"，然后单独一行写 PAUSE，停下来等待。
- Observation: 工具的结果，由系统在下一条消息里给你，你自己不要写。
- 知道答案以后，输出 "Answer: 最终答案"。

可用的工具：
{tools}

示例：
Question: 珠穆朗玛峰比长城长度的 1/1000 高多少米？
Thought: 我需要先查珠穆朗玛峰的高度。
Action: search_knowledge: 珠穆朗玛峰
PAUSE

系统在下一条消息里回复：
Observation: 珠穆朗玛峰：海拔约8848.86米

你再回复：
Thought: 还需要长城的长度。
Action: search_knowledge: 长城
PAUSE

系统回复：
Observation: 长城：全长约8851.8公里

你再回复：
Thought: 8851.8公里的 1/1000 是 8851.8 米，要算 8848.86 - 8851.8。
Action: calculate: 8848.86 - 8851.8
PAUSE

系统回复：
Observation: -2.94

你最后回复：
Thought: 问题需要的信息都有了。
Answer: 珠穆朗玛峰比长城长度的 1/1000 低约 2.94 米。

规则：每条回复都以 "Thought:" 开头；一次只写一个 Action；问题里的每一项都查到之后才写 Answer。"""

JSON_SYSTEM_PROMPT = """尽你所能回答用户的问题。你可以使用下面这些工具（JSON 格式）：

{tools_json}

使用工具的方法是写一个 JSON 对象：
"action" 是工具名，只能是 {tool_names} 之一；"action_input" 是工具的输入。
每次只写一个 action。

始终使用下面的格式：

Question: 需要回答的问题
Thought: 你应该思考下一步做什么
Action:
```json
{{"action": "工具名", "action_input": "输入"}}
```
Observation: 工具的结果
...（Thought/Action/Observation 可以重复多次）
Thought: 问题里的每一项都有结果了，我现在知道最终答案了
Final Answer: 对原问题的最终答案

规则：问题里有几项要查，就分几次 Action 去查，全部查到以后才能写 Final Answer；给出最终答案时一定要写 `Final Answer:`。

开始！"""

# A "Thought:" label at the very start of a reply.
THOUGHT_LABEL_RE = re.compile(r"^\s*[*_`]*thought[*_`]*\s*[:：][*_`]*\s*", re.IGNORECASE)

# The last request after max_steps (protocol A: a user message; B: the end of the scratchpad).
LIMIT_OBSERVATION = "Observation: 已经达到步数上限，不能再调用工具了。请根据上面已经得到的信息，直接给出{label}"


# ---------------------------------------------------------------------------
# Tools: descriptions for the prompt, and running one from text input
# ---------------------------------------------------------------------------


def _functions(registry: ToolRegistry) -> list[dict]:
    return [schema["function"] for schema in registry.schemas()]


def describe_tools_line(registry: ToolRegistry) -> str:
    """One line per tool for protocol A: ``"- calculate: <description>"``."""
    return "\n".join(f"- {fn['name']}: {fn.get('description', '')}" for fn in _functions(registry))


def describe_tools_json(registry: ToolRegistry) -> str:
    """The tools as a JSON list of ``{name, description, parameters}`` (protocol B's system prompt)."""
    return json.dumps(_functions(registry), ensure_ascii=False, indent=1)


def line_system_prompt(registry: ToolRegistry) -> str:
    """``LINE_SYSTEM_PROMPT`` with the registry's tools filled in."""
    return LINE_SYSTEM_PROMPT.format(tools=describe_tools_line(registry))


def json_system_prompt(registry: ToolRegistry) -> str:
    """``JSON_SYSTEM_PROMPT`` with the tools as JSON and their names filled in."""
    return JSON_SYSTEM_PROMPT.format(tools_json=describe_tools_json(registry), tool_names=", ".join(registry.names))


def tool_arguments(registry: ToolRegistry, name: str, action_input: Any) -> Any:
    """Turn a text-protocol input into the arguments object for ``registry.call``.

    Args:
        registry: the tools.
        name: a registered tool name (as returned by the parser).
        action_input: a dict (protocol B, e.g. ``{"city": "北京"}``) - used as it
            is; or a str (protocol A, or B with a string input).  A str that is
            a JSON object is read as one; any other str goes to the tool's
            first required parameter (else its first parameter):
            ``calculate`` + ``"20 * 15"`` -> ``{"expression": "20 * 15"}``.
    Returns:
        The arguments (normally a dict; the registry reports anything else).
    """
    if isinstance(action_input, dict):
        return action_input
    text = "" if action_input is None else str(action_input)
    if text.strip().startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
    tool = registry.get(name)
    if tool is None:
        return {}
    params = tool.parameters
    first = (params.get("required") or list(params.get("properties", {})) or [None])[0]
    return {first: text.strip()} if first else {}


def action_call(registry: ToolRegistry, parsed: ParsedReply, step: int) -> ToolCall:
    """The parsed Action as one ``records.ToolCall`` (id ``"react-<step>"``): what the approval
    gate and an ``approve`` hook read (``call.name``, ``call.arguments``), as in the native loop."""
    arguments = tool_arguments(registry, parsed.action, parsed.action_input)
    return ToolCall(f"react-{step}", parsed.action, arguments, json.dumps(arguments, ensure_ascii=False, default=str))


def run_tool(registry: ToolRegistry, name: str, action_input: Any) -> str:
    """Run one parsed Action and return the Observation text (notebook 05 writes its loop with it).

    ``registry.call`` with ``tool_arguments``; the loop itself (``ReActLoop._act``) runs the same
    call through ``tool_calls.run_call`` and also keeps its ``ok`` flag.  Never raises: when the
    tool did not run, the text starts with "错误：" and says why.
    """
    return registry.call(name, tool_arguments(registry, name, action_input))[0]


# ---------------------------------------------------------------------------
# Protocol A: a chat that keeps its messages, and the executor loop
# ---------------------------------------------------------------------------


class ChatBot:
    """A chat that remembers: ``bot("...")`` sends the whole history and returns the reply text.

    The classic building block of a hand-written ReAct agent::

        bot = ChatBot(client, MODEL, system=line_system_prompt(registry), stop=LINE_STOP)
        reply = bot("Question: 20 * 15 等于多少")
        reply = bot("Observation: 300")

    Args:
        client: an ``openai.OpenAI`` client.
        model: model id.
        system: the system prompt ("" = none).
        provider: optional ``providers.Provider`` (passed to ``request_kwargs``).
        **request_options: extra request fields for every call, e.g.
            ``max_tokens=256, temperature=0, stop=[...]`` (None values are left out).

    Attributes:
        messages: the history (dicts).  An empty reply is not appended (an
            assistant message needs content), so two user messages can follow
            each other.
        last_response: the last ``ChatCompletion``.
    """

    def __init__(self, client: Any, model: str, system: str = "", provider: Any = None, **request_options: Any):
        self.client, self.model, self.provider = client, model, provider
        self.request_options = request_options
        self.messages: list[dict] = [{"role": "system", "content": system}] if system else []
        self.last_response: Any = None

    def request(self, message: str | None = None) -> dict:
        """The ``create(**kwargs)`` arguments that ``bot(message)`` would send (nothing is sent or stored)."""
        pending = [*self.messages, {"role": "user", "content": message}] if message is not None else self.messages
        return request_kwargs(self.model, pending, provider=self.provider, **self.request_options)

    def __call__(self, message: str) -> str:
        """Append ``message`` as a user message, send the history, append and return the reply text.

        Returns:
            ``choices[0].message.content`` ("" if the model sent nothing).
        Raises:
            openai.APIError and friends: the request failed (nothing is stored; call again).
            replies.ReplyError: the response held no reply (nothing is stored; call again).
        """
        kwargs = self.request(message)
        self.last_response = self.client.chat.completions.create(**kwargs)
        text = read_reply(self.last_response).text  # may raise ReplyError: nothing stored yet
        self.messages.append({"role": "user", "content": message})
        if has_text(text):
            self.messages.append({"role": "assistant", "content": text})
        return text


class ReActLoop(LoopBase):
    """What both protocols share: ``step`` is one turn of the prompt-based ReAct loop.

    A protocol class (``LineReAct``, ``JsonReAct``) says only how its request is
    built (``next_request``), how it is sent (``_send``), how a reply is read
    (``parse``) and what the conversation keeps of a turn (``_remember``).

    A reply without a parseable Action or Answer gets ``react_parser.corrective_observation``
    as its Observation and counts as a step.  When ``max_steps`` requests have been made
    without an answer, one last request says so and asks for the answer (no tool is run
    after it); ``stopped_reason`` is then ``"max_steps"``.  (Source text 004 calls this limit
    ``max_turns``.)  An Action to a tool that needs a person's yes is one call (``action_call``)
    to the loop's approval gate; a rejected one does not run, an edited one runs with the
    person's arguments and its ``ActionStep`` shows them (``_act``).
    """

    answer_label = "Answer:"

    def __init__(self, client: Any, model: str, registry: ToolRegistry | None = None, *,
                 stop: list[str] | None = None, max_tokens: int = DEFAULT_MAX_TOKENS, **options: Any):
        registry = registry if registry is not None else default_registry()
        super().__init__(client, model, registry, max_tokens=max_tokens, **options)
        self.stop = stop

    def _begin(self, question: str) -> None:
        """``question``: the task, a non-empty string (raises ValueError otherwise)."""
        self.question = question_text(question)
        self._reset()

    def step(self) -> Step:
        """One turn: a request, the reply parsed, the tool run or the answer taken; returns the ``records.Step``.

        Raises:
            RuntimeError: ``start`` was not called, the run is already done, or an Action still
                waits for a decision (``waiting``; answer it with ``decide``).
            openai.APIError and friends, replies.ReplyError: the request failed or held
                no reply; nothing is recorded and ``step()`` can simply be called again.
        """
        self._require_running()
        if self.gate.held is not None:  # an Action waited for a person: finish that turn, no new request
            return self._resume()
        began, number = time.perf_counter(), len(self.steps) + 1
        final = self.limit_reached  # after max_steps, the last request only asks for the answer
        # 1-3. Build the request (the protocol's own), send it, read the reply.
        reply = read_reply(self._send(self.next_request()))
        # 4. Parse it: an Action, an Answer, or neither.
        parsed = self.parse(reply.text)
        fields = dict(reply_fields(reply), thought=parsed.thought)
        observation, interrupted = None, False  # what goes back to the model with the next request
        if final:  # whatever the last request says is the answer; nothing runs after it
            text = parsed.answer if parsed.kind == "answer" else (parsed.raw.strip() or None) if parsed.kind == "invalid" else None
            step: Step = FinalStep(number, **fields, text=text, reason="max_steps")
            self.answer, self.stopped_reason = text, "max_steps"
        elif reply.refusal and not reply.text.strip():  # a refusal: the student sees it, and the run ends with it
            step = AnswerStep(number, **fields, text=reply.refusal)
            self._end(step, reply.refusal, "refusal")
        elif parsed.kind == "answer":
            step = AnswerStep(number, **fields, text=parsed.answer)
            self._end(step, parsed.answer, "answer")
        elif parsed.kind == "action":
            # 5. Ask the approval gate (as Agent.step does), then run the tool: its result is the next Observation.
            call = action_call(self.registry, parsed, number)
            held = HeldTurn(number, fields, (call,), parsed=parsed, reply_text=reply.text)
            if self.gate.ask([call], held=held):
                waiting = [ToolResult.not_run(call)]  # nothing runs until decide()
                waited = self._record(WaitingStep(number, **fields, waiting=waiting), began)
                self._hook_stopped()  # the stop button inside the hook: raised again, the call keeps waiting
                return waited
            try:
                step, interrupted = self._act(call, parsed, fields, number)
            except ToolWaiting as waits:  # the tool waits for a person (an agent used as a tool): so does the Action
                return self._hold_tool(waits, held, began)
            observation = step.observation
        else:  # neither: a corrective Observation goes back, and the step counts
            observation = corrective_observation(parsed, self.protocol, self.registry.names, prefix="")
            step = InvalidStep(number, **fields, error=parsed.error, observation=observation)
        # 6. The conversation keeps the trusted part of the reply, and the Observation for the next request.
        self._remember(parsed, reply.text, observation)
        self._record(step, began)
        if interrupted:
            raise KeyboardInterrupt(t("loops.interrupted"))  # the conversation is whole: step() can go on
        return step

    def _act(self, call: ToolCall, parsed: ParsedReply, fields: dict, number: int) -> tuple[ActionStep, bool]:
        """Answer the Action's call as its decision says (``gate.apply_decision``: a rejected call does
        not run; an edited one runs with the person's arguments).  Returns the ``ActionStep`` and
        whether the student stopped the tool (Ctrl-C).

        Raises:
            tools.failure.ToolWaiting: the tool waits for a person (``step`` / ``_resume`` hold the Action).
        """
        [call] = self.gate.release([call])
        result = self.gate.apply_decision(call, self._run_action)
        edited = result.approval == "edit"
        step = ActionStep(number, **fields, action=call.name, action_input=call.arguments if edited else parsed.action_input,
                          observation=result.observation, ok=result.ok, approval=result.approval)
        return step, result.interrupted

    def _run_action(self, call: ToolCall) -> ToolResult:
        """Run the Action's tool (``tool_calls.run_call``); the student's stop while it runs is answered
        (``interrupted``) and raised again by ``step`` once the conversation is whole."""
        try:
            return run_call(call, self.registry)
        except KeyboardInterrupt:
            return ToolResult.not_run(call, t("tools.interrupted", name=call.name), interrupted=True)

    def _finish(self, held: HeldTurn) -> tuple[ActionStep, bool]:
        """The held Action, decided (``LoopBase._resume`` records it); the conversation keeps the turn."""
        [call] = held.calls
        step, interrupted = self._act(call, held.parsed, held.fields, held.number)
        self._remember(held.parsed, held.reply_text, step.observation)
        return step, interrupted

    def run(self, question: str | None = None) -> "RunResult":
        """``start(question)`` (if given), then ``step()`` until done - or until an Action waits for a
        person's decision; returns ``result()``.

        As ``agent.Agent.run``: a waiting Action ends ``run()`` without raising and without running:
        ``stopped_reason`` is ``"waiting"`` and ``result.waiting`` lists its call (or, when its tool
        waits - an agent used as a tool - the calls inside it); ``decide(call, decision)``, then
        ``run()`` (no question) finishes the turn - no new request for it - and goes on.

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

    def _limit_text(self) -> str:
        return LIMIT_OBSERVATION.format(label=self.answer_label)

    def describe(self, s: Step) -> list[str]:
        """The trace line of step ``s`` (newlines in results shown as spaces); written here, in the loop's file."""
        head = f"[步 {s.number}/{self.max_steps}]"
        if isinstance(s, ActionStep):
            shown = json.dumps(s.action_input, ensure_ascii=False) if isinstance(s.action_input, dict) else s.action_input
            observation = shorten(s.observation.replace("\n", " "), 120)
            person = {"approve": "（已批准）", "reject": "（已拒绝）", "edit": "（参数已修改）"}.get(s.approval, "")
            return [f"{head} Action {s.action}{person}: {shown} → Observation: {observation}"]
        if isinstance(s, WaitingStep):
            return [f"{head} 等待批准：{c.name} 参数 {c.arguments_text}（还没有运行；loop.decide(...) 或调试器的按钮）"
                    for c in s.waiting]
        if isinstance(s, AnswerStep):
            return [f"{head} Answer: {shorten(s.text, 200)}{cut_note(s)}"]
        if isinstance(s, FinalStep):
            answer = shorten(s.text or t("loops.no_answer"), 200)
            return [f"[达到 max_steps={self.max_steps}] 最后一次请求的回答：{answer}{cut_note(s)}"]
        return [f"{head} 无法解析（{shorten(getattr(s, 'error', ''), 80)}）→ 发回格式提醒"]

    # -- what each protocol says for itself ------------------------------------

    def _reset(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def next_request(self) -> dict:  # pragma: no cover - overridden
        """The ``create(**kwargs)`` arguments of the next step (nothing is sent)."""
        raise NotImplementedError

    def _send(self, request: dict) -> Any:  # pragma: no cover - overridden
        """Send ``request`` (``next_request()``); return the ChatCompletion."""
        raise NotImplementedError

    def parse(self, reply: str) -> ParsedReply:  # pragma: no cover - overridden
        """Read one reply with the protocol's parser (``react_parser``)."""
        raise NotImplementedError

    def _remember(self, parsed: ParsedReply, reply: str, observation: str | None) -> None:  # pragma: no cover
        raise NotImplementedError


class LineReAct(ReActLoop):
    """Protocol A: ``Thought`` / ``Action: tool: input`` / ``PAUSE`` → ``Observation: ...`` → ``Answer:``.

    A reply of the model::

        Thought: 我需要计算 20 * 15
        Action: calculate: 20 * 15
        PAUSE

    and the next user message is ``"Observation: 300"``; the model finishes with ``Answer: ...``.

    A ``ChatBot`` keeps the conversation: the first user message is
    ``"Question: ..."``, every later one ``"Observation: ..."``.  Only the
    trusted part of each reply is kept in the history (``react_parser``'s
    cleanup: a half-written stop word and anything from a model-written
    ``Observation`` on are removed), so the model never reads its own
    invented results back as facts.

    Args:
        client, model: the openai client and model id.
        registry: the tools (default: ``tools.default_registry()``).
        max_steps: requests before the loop stops asking for tools (then one
            last request asks for the answer).
        system: the system prompt (default ``line_system_prompt(registry)``).
        stop: stop sequences (default ``LINE_STOP``; ``None`` sends none).
        max_tokens: per request (tokens).  temperature: per request.
        provider: optional ``providers.Provider``.
        trace: called with one line of text per step (default ``print``; None = silent).
        approve, approval_tools: the approval gate's hook and tools (``loop_base.LoopBase``, notebook 08):
            an Action to such a tool runs only after a decision.

    Attributes:
        bot: the ``ChatBot`` (its ``messages`` are the conversation).
        steps: the ``loop.Step`` records so far.
        answer, stopped_reason, done: the state of the run.
        waiting: the Action's call while it waits for ``decide``; ``[]`` when none.
    """

    protocol = "A"
    answer_label = "Answer:"

    def __init__(self, client: Any, model: str, registry: ToolRegistry | None = None, *, stop: list[str] | None = LINE_STOP, **options: Any):
        super().__init__(client, model, registry, stop=stop, **options)
        if self.system is None:
            self.system = line_system_prompt(self.registry)
        self.bot: ChatBot | None = None
        self.next_message: str | None = None

    def _reset(self) -> None:
        self.bot = ChatBot(self.client, self.model, self.system, provider=self.provider,
                           max_tokens=self.max_tokens, temperature=self.temperature, stop=self.stop)
        self.next_message = f"Question: {self.question}"

    def _outgoing(self) -> str:
        """The user message the next step sends: the Question, an Observation, or the limit notice."""
        return self._limit_text() if self.limit_reached else self.next_message

    def next_request(self) -> dict:
        """The ``create(**kwargs)`` arguments of the next step: the history plus ``_outgoing()`` (nothing is sent)."""
        self._require_running()
        return self.bot.request(self._outgoing())

    def _send(self, request: dict) -> Any:
        self.bot(self._outgoing())  # sends the same request; appends the user message and the reply to bot.messages
        return self.bot.last_response

    def parse(self, reply: str) -> ParsedReply:
        return parse_line_protocol(reply, self.registry.names, stop_words=self.stop or ("Observation:",))

    def _remember(self, parsed: ParsedReply, reply: str, observation: str | None) -> None:
        # Keep only the trusted part of the reply in the history.
        last = self.bot.messages[-1]
        if last["role"] == "assistant" and parsed.raw != last["content"]:
            if has_text(parsed.raw):
                last["content"] = parsed.raw
            else:  # nothing trustworthy was left (e.g. only an invented Observation)
                self.bot.messages.pop()
        self.next_message = None if observation is None else f"Observation: {observation}"

    @property
    def messages(self) -> list[dict]:
        """The conversation so far (system, Question, replies, Observations), as new dicts."""
        return [to_dict(m) for m in self.bot.messages] if self.bot else []


class JsonReAct(ReActLoop):
    """Protocol B: the LangChain-style template with a JSON ``Action`` and ``Final Answer:``.

    A reply of the model::

        Thought: 我需要计算 20 * 15
        Action:
        ```json
        {"action": "calculate", "action_input": "20 * 15"}
        ```

    Every request is ``[system, user]``: the system prompt lists the tools as
    JSON; the one user message is ``"Question: ...\\n"`` followed by the
    scratchpad - each earlier (trusted) reply and its ``Observation: ...`` -
    and, once there is a scratchpad, ``"Thought: "`` (see ``prompt``).

    Args:
        as ``LineReAct``, except: system default ``json_system_prompt(registry)``,
        stop default ``JSON_STOP`` (``["Observation:"]``).

    Attributes:
        scratchpad: the Thought/Action/Observation text so far.
        steps, answer, stopped_reason, done: the state of the run.
    """

    protocol = "B"
    answer_label = "Final Answer:"

    def __init__(self, client: Any, model: str, registry: ToolRegistry | None = None, *, stop: list[str] | None = JSON_STOP, **options: Any):
        super().__init__(client, model, registry, stop=stop, **options)
        if self.system is None:
            self.system = json_system_prompt(self.registry)
        self.scratchpad = ""
        self._last_reply: str | None = None
        self._final_prompt = ""

    def _reset(self) -> None:
        self.scratchpad = ""
        self._last_reply = None
        self._final_prompt = ""

    def prompt(self) -> str:
        """The user message of the next request: the question, the scratchpad and, after the
        first step, a final ``"Thought: "`` for the model to continue (as LangChain's
        ``format_log_to_str`` does); after ``max_steps`` the limit notice comes before it."""
        text = f"Question: {self.question}\n{self.scratchpad}"
        if self.limit_reached:
            text += self._limit_text() + "\n"
        if self.scratchpad:
            text += "Thought: "
        return text

    def _request_messages(self) -> list[dict]:
        system = [{"role": "system", "content": self.system}] if self.system else []
        return [*system, {"role": "user", "content": self.prompt()}]

    def next_request(self) -> dict:
        """The ``create(**kwargs)`` arguments of the next step: ``[system, user(prompt())]`` (nothing is sent)."""
        self._require_running()
        return request_kwargs(
            self.model, self._request_messages(), provider=self.provider,
            max_tokens=self.max_tokens, temperature=self.temperature, stop=self.stop,
        )

    def _send(self, request: dict) -> Any:
        return self.client.chat.completions.create(**request)

    def parse(self, reply: str) -> ParsedReply:
        return parse_json_protocol(reply, self.registry.names, stop_words=self.stop or ("Observation:",))

    def _remember(self, parsed: ParsedReply, reply: str, observation: str | None) -> None:
        self._final_prompt = self.prompt()
        self._last_reply = reply
        if observation is not None:
            kept = parsed.raw if has_text(parsed.raw) else reply.strip()
            if self.scratchpad:
                # The prompt ended with "Thought: " and the reply continues it: keep that label in
                # the scratchpad (as the hand-written loop of notebook 05 does), and do not write it
                # twice when the model repeated it.
                kept = "Thought: " + THOUGHT_LABEL_RE.sub("", kept, count=1)
            self.scratchpad += f"{kept}\nObservation: {observation}\n"

    @property
    def messages(self) -> list[dict]:
        """The last request's messages plus the last reply (if any)."""
        if self.question is None:
            return []
        system = [{"role": "system", "content": self.system}] if self.system else []
        if self._last_reply is None:
            return self._request_messages()
        out = [*system, {"role": "user", "content": self._final_prompt}]
        if has_text(self._last_reply):
            out.append({"role": "assistant", "content": self._last_reply})
        return out


# ---------------------------------------------------------------------------
# Run to the end
# ---------------------------------------------------------------------------


def run_line_react(client: Any, model: str, question: str, registry: ToolRegistry | None = None, **options: Any) -> "RunResult":
    """Run protocol A on ``question`` until an Answer, ``max_steps`` or a waiting Action (``"waiting"``);
    see ``LineReAct`` for ``options``."""
    return LineReAct(client, model, registry, **options).run(question)


def run_json_react(client: Any, model: str, question: str, registry: ToolRegistry | None = None, **options: Any) -> "RunResult":
    """Run protocol B on ``question`` until a Final Answer, ``max_steps`` or a waiting Action (``"waiting"``);
    see ``JsonReAct`` for ``options``."""
    return JsonReAct(client, model, registry, **options).run(question)
