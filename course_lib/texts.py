"""Every sentence the course shows a student, in one place.

Error messages, checker hints, widget status lines, table headings and plot
titles are looked up here by key, so that an English (or any other) edition of
the course changes this one file and nothing else. Prompts sent *to the model*
(system prompts, corrective Observations) are part of what the loops teach and
stay next to the loop that sends them.

Use::

    from course_lib.texts import t
    raise ProviderError(t("providers.unknown_provider", name=name, choices="deepseek, qwen"))

Keys are ``"<area>.<what>"``; the value is a ``str.format`` template. The
language is ``COURSE_LANGUAGE`` from the environment / .env (default ``zh``);
a key missing from that language falls back to Chinese.
"""

from __future__ import annotations

import os

DEFAULT_LANGUAGE = "zh"

# ---------------------------------------------------------------------------
# Chinese (the course's language). One block per area so that each module's
# sentences sit together; keep keys sorted inside a block.
# ---------------------------------------------------------------------------

_ZH_PROVIDERS: dict[str, str] = {
    # providers.py, settings.py, local_server.py, the set-up checks
}

_ZH_REPLIES: dict[str, str] = {
    # replies.py, messages.py, tool_calls.py, recording.py
    "messages.answered_twice": "tool_call_id {call_id} 被回复了两次",
    "messages.at_index": "messages[{index}]：{problem}",
    "messages.call_without_id": "有一个工具调用没有 id",
    "messages.duplicate_call_id": "工具调用 id {call_id} 出现了两次",
    "messages.empty_assistant": "assistant 消息既没有 content 也没有 tool_calls",
    "messages.not_a_message": "一条消息必须是 dict 或 openai SDK 的消息对象，不能是 {name}",
    "messages.unanswered": "工具调用 {ids} 没有 role='tool' 的回复",
    "messages.unanswered_before": "工具调用 {ids} 在 messages[{i}]（{role}）之前没有 role='tool' 的回复；每个 tool_call_id 都需要正好一条 tool 消息",
    "messages.unknown_role": "未知的 role {role}（只能是 system、developer、user、assistant、tool）",
    "messages.unmatched_tool_reply": "tool_call_id {call_id} 对不上前面最近一条 assistant 消息里的任何工具调用（是不是忘了先 append 那条带 tool_calls 的 assistant 消息？）",
}

_ZH_LOOPS: dict[str, str] = {
    # loop.py, agent.py, react.py, react_parser.py, json_scan.py, memory.py
    "agent.table_title": "{question}（stopped_reason={stopped_reason}）",
    "agent.trace_answer": "{head} 回答：{answer}{cut}",
    "agent.trace_call": "{head} 调用工具 {name} 参数 {arguments_text} {tail}",
    "agent.trace_final": "[停止：{why}] 不带 tools 再请求一次 → 回答：{answer}{cut}",
    "agent.trace_invalid": "{head} 回复无法使用（{observation}）→ 发送纠正消息",
    "agent.trace_repeat": "重复调用：没有重新执行，返回第 {first_step} 步的结果",
    "agent.trace_result": "结果 ",
    "agent.why_max_steps": "达到 max_steps={max_steps}",
    "agent.why_repeated": "连续重复调用",
    "loops.bad_registry": "registry 必须是 ToolRegistry 或者 {{工具名: 函数}} 的字典，不能是 {name}",
    "loops.empty_question": "question 必须是非空的字符串",
    "loops.empty_reply": "回复是空的。",
    "loops.final_without_answer": "最后一次请求也没有给出答案",
    "loops.max_messages_low": "max_messages 至少是 1，收到的是 {max_messages}",
    "loops.max_messages_type": "max_messages 必须是整数，不能是 {name}",
    "loops.max_repeats_low": "max_repeats 至少是 1，收到的是 {max_repeats}",
    "loops.max_steps_low": "max_steps 至少是 1，收到的是 {max_steps}",
    "loops.no_answer": "（没有回答）",
    "loops.no_user_message": "消息列表里至少要有一条 user 消息",
    "loops.not_started": "请先调用 start(question)",
    "loops.run_ended": "这次运行已经结束（stopped_reason={stopped_reason}）；要重新开始，请再调用 start()",
    "loops.stop_answer": "模型给出了最终答案",
    "loops.stop_content_filter": "模型的回答被服务商的内容过滤截断了（finish_reason=content_filter）：answer 不完整，不算最终答案",
    "loops.stop_length": "模型的回答被截断了（达到 max_tokens，finish_reason=length）：answer 只是前半段，不算完整的最终答案",
    "loops.stop_max_steps": "达到了步数上限 max_steps，最后一次请求要求模型直接回答（不再运行工具）",
    "loops.stop_other": "循环结束",
    "loops.stop_repeated_calls": "模型反复发出相同的工具调用，已强制它给出答案",
    "loops.trace_head": "[步骤 {step}/{max_steps}]",
    "react.table_title": "协议 {protocol}：{question}",
    "react.trace_final": "[达到 max_steps={max_steps}] 最后一次请求的回答：{answer}{cut}",
    "react.trace_invalid": "{head} 无法解析（{error}）→ 发回格式提醒",
}

_ZH_TOOLS: dict[str, str] = {
    # tools/
    "tools.csv_columns": "{csv_path}：列应该是 {columns}，实际是 {fieldnames}",
    "tools.not_a_tool": "这里需要一个 Tool 对象，收到的是 {name}",
    "tools.schema_name_differs": "Tool 的名字 {name} 和 schema 里的名字 {schema_name} 不一致",
}

_ZH_WIDGETS: dict[str, str] = {
    # widgets.py, debugger.py, tables.py, plots.py, quiz
    "debugger.chain_title": "messages（{n_messages} 条，黄色 = 这一步新增或改变的）",
    "debugger.empty_reply": "（空回复）",
    "debugger.error": "⚠️ {error}（再点一次「下一步」会重试）",
    "debugger.final_without_tools": "这一次请求没有带 tools，模型只能直接回答",
    "debugger.finished": "■ 已结束：{why}",
    "debugger.hint_next": "▶ 点「下一步」让模型走一步",
    "debugger.label_correction": "纠正消息",
    "debugger.label_cut": "⚠️ 截断",
    "debugger.label_next": "下一步",
    "debugger.label_note": "说明",
    "debugger.label_reasoning": "思考（reasoning）",
    "debugger.label_result": "→ 结果",
    "debugger.model_calls": "（这一步调用了 {model_calls} 次模型）",
    "debugger.next": "下一步",
    "debugger.no_max_steps": "{name} 没有 max_steps",
    "debugger.not_a_loop": "调试器需要一个有 start(question)、step() 和 done 的循环；{loop} 没有 {method}()",
    "debugger.not_started": "还没有开始。",
    "debugger.parsed_title": "第 {number} 步解析出的内容",
    "debugger.question": "问题：",
    "debugger.repeated_note": "（与第 {first_step} 步的调用相同，没有重新执行）\n",
    "debugger.reset": "重置",
    "debugger.run_to_end": "运行到结束",
    "debugger.step_count": "第 {step} 步{limit}",
    "debugger.stop_text": "{why}（stopped_reason={reason}）",
    "debugger.stopping_next": "循环要停了：已追加下面这条 user 消息，下一次请求不带 tools，模型只能直接回答\n",
    "debugger.tokens": "tokens：prompt {prompt_tokens} + completion {completion_tokens} = {total_tokens}",
    "debugger.waiting": "⏳ 第 {step} 步：等待模型…",
    "plots.comparison_columns": "results 需要这些列且至少有一行：{needed}；缺少：{missing}",
    "plots.labels_count": "labels 有 {labels} 个，responses 却有 {responses} 个：每个回复要对应一个 label",
    "plots.no_usage": "这个回复没有 usage.prompt_tokens：服务器没有报告 token 数，我们不去猜",
    "plots.nothing_to_plot": "没有可画的数据：每条曲线都是空的",
    "plots.prompt_tokens_title": "每次请求的 prompt tokens",
    "plots.prompt_tokens_title_plain": "Prompt tokens per request",
    "plots.seconds_per_task": "每个任务的用时（秒）",
    "plots.seconds_per_task_plain": "wall time per task (s)",
    "plots.solved": "答对的任务（共 {total} 个）",
    "plots.solved_plain": "tasks solved (of {total})",
    "plots.tokens_per_task": "每个任务的 prompt tokens",
    "plots.tokens_per_task_plain": "prompt tokens per task",
    "plots.turn": "第几轮",
    "plots.turn_plain": "turn",
    "widgets.assistant": "assistant：",
    "widgets.calling_tools": "🔧 调用工具：{names} …",
    "widgets.clear": "清空对话",
    "widgets.empty_input": "请输入一句话再发送。",
    "widgets.empty_reply": "模型这次返回了空回复（没有文字，也没有工具调用），它没有被加进对话；可以再发一次试试。",
    "widgets.full_history": "完整对话（每次都会整个发给模型）",
    "widgets.max_steps_reached": "模型连续 {max_steps} 次调用工具，已停止（max_steps={max_steps}）。",
    "widgets.placeholder": "输入一句话，然后点「发送」",
    "widgets.reading_results": "⏳ 工具已运行，模型正在读结果…",
    "widgets.send": "发送",
    "widgets.thinking": "⏳ 模型思考中…",
    "widgets.this_turn_only": "这一轮的 messages（system + 你刚说的话 + 回答）：之前说过的话都没有发给模型",
    "widgets.tokens": "最后一次请求：prompt {prompt_tokens} + completion {completion_tokens} tokens；这个对话累计 {total_tokens} tokens",
    "widgets.unknown_error": "未知错误",
    "widgets.unknown_tool": "课程工具里没有 {name}；你自己的工具请用 registry=ToolRegistry([...]) 传进来",
    "widgets.unreadable_call": "模型把工具调用写进了回复正文，但读不出来：{error}",
}

_ZH_CHECKERS: dict[str, str] = {
    # checkers/
    "check.failed": "❌ 未通过：{message}",
    "check.passed": "✅ 通过：{message}",
    "check.script_over": "{name} 收到了第 {request} 次请求，但剧本里已经没有回答了",
}

TEXTS: dict[str, dict[str, str]] = {
    "zh": {**_ZH_PROVIDERS, **_ZH_REPLIES, **_ZH_LOOPS, **_ZH_TOOLS, **_ZH_WIDGETS, **_ZH_CHECKERS},
}


def language() -> str:
    """Return the language code in use: ``COURSE_LANGUAGE`` if set, else ``"zh"``."""
    return os.environ.get("COURSE_LANGUAGE", DEFAULT_LANGUAGE).strip().lower() or DEFAULT_LANGUAGE


def t(key: str, **fields: object) -> str:
    """Return the sentence for ``key`` in the current language, filled with ``fields``.

    Args:
        key: ``"<area>.<what>"``, a key of ``TEXTS["zh"]``.
        **fields: values for the ``{name}`` placeholders of the template.

    Returns:
        The formatted sentence (``str``).

    Raises:
        KeyError: ``key`` is not in the Chinese table (a bug in the course, caught by
            tests/test_texts.py), or the template names a field that was not given.
    """
    table = TEXTS.get(language(), {})
    template = table.get(key)
    if template is None:
        template = TEXTS[DEFAULT_LANGUAGE][key]
    return template.format(**fields)
