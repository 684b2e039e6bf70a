"""Every sentence a lesson shows a student: errors, hints, widget lines, table headings, plot titles.

The table and the lookup are ``course_runtime/texts.py`` (``t``, ``register``);
this file holds the lessons' own sentences and registers them there when it is
imported, so every lesson module keeps writing ``from .texts import t``.  The
machinery's sentences (set-up, engines, class server, progress) are in
``course_runtime/texts.py``; the exercise checkers' hints (every ``check.*``
key) in ``course_lib/checkers/sentences.py``.  An English (or any other)
edition changes those three tables and nothing else.  Prompts sent *to the
model* (system prompts, corrective Observations) are part of what the loops
teach and stay next to the loop that sends them.

Use::

    from course_lib.texts import t
    raise MessageError(t("messages.answered_twice", call_id="call_1"))

Keys are ``"<area>.<what>"``; the value is a ``str.format`` template.
"""

from __future__ import annotations

from course_runtime.texts import TEXTS, language, register, shorten, t

__all__ = ["TEXTS", "language", "register", "shorten", "t"]

_ZH_REPLIES: dict[str, str] = {
    # replies.py, messages.py, tool_calls.py, recording.py
    "replies.cut_content_filter": "回复被服务商的内容过滤拦下或截断了（finish_reason=content_filter）",
    "replies.cut_incomplete": "回复不完整：流式回复在服务器说明结束原因之前就断了（没有 finish_reason，可能是中转服务关闭了连接），后面可能还有内容",
    "replies.refused": "模型拒绝了这个请求（message.refusal）：{refusal}",
    "replies.cut_length": "回复被截断了：达到了 max_tokens 上限，后面的内容没有生成出来（finish_reason=length）",
    "messages.answered_twice": "tool_call_id {call_id} 被回复了两次",
    "messages.arguments_not_string": "工具调用 {call_id} 的 function.arguments 是 {name}，API 要的是 JSON 字符串"
                                     "（json.dumps(参数字典)，或者原样用模型给的 arguments）；这样发出去会得到 400 错误",
    "messages.at_index": "messages[{index}]：{problem}",
    "messages.call_without_id": "有一个工具调用没有 id",
    "messages.call_without_type": "工具调用 {call_id} 的 type 是 {type}，应该是 \"function\"（API 要求每个调用都写 "
                                  "\"type\": \"function\"）；这样发出去会得到 400 错误",
    "messages.duplicate_call_id": "工具调用 id {call_id} 出现了两次",
    "messages.empty_assistant": "assistant 消息既没有 content 也没有 tool_calls",
    "messages.not_a_message": "一条消息必须是 dict 或 openai SDK 的消息对象，不能是 {name}",
    "messages.tool_content_not_text": "tool 消息的 content 是 {name}，必须是字符串（先 str() 或 json.dumps()）",
    "messages.tool_name_bad_char": "工具名 {name} 里有 API 不接受的字符 {char}：工具名只能用英文字母、数字、_ 和 -"
                                   "（最多 64 个字符），否则服务商会以 HTTP 400 拒绝整个请求。请起一个英文名（例如 get_weather），"
                                   "中文的说明写进 description",
    "messages.tool_name_missing": "工具的 function.name 是 {name}：每个工具都要有一个名字（英文字母、数字、_ 或 -，最多 64 个字符）",
    "messages.tool_name_too_long": "工具名 {name} 有 {length} 个字符，API 最多接受 {most} 个：请起一个短一点的名字",
    "messages.tool_not_a_schema": "一个工具要写成 {{\"type\": \"function\", \"function\": {{\"name\": ..., "
                                  "\"description\": ..., \"parameters\": {{...}}}}}}，这里是 {kind}",
    "messages.tools_at_index": "tools[{index}]：{problem}",
    "messages.tools_not_a_list": "tools 必须是工具说明的列表，这里是 {kind}（是不是忘了方括号：tools=[WEATHER_TOOL]？）",
    "messages.unanswered": "工具调用 {ids} 没有 role='tool' 的回复",
    "messages.unanswered_before": "工具调用 {ids} 在 messages[{i}]（{role}）之前没有 role='tool' 的回复；每个 tool_call_id 都需要正好一条 tool 消息",
    "messages.unknown_role": "未知的 role {role}（只能是 system、developer、user、assistant、tool）",
    "messages.unmatched_tool_reply": "tool_call_id {call_id} 对不上前面最近一条 assistant 消息里的任何工具调用（是不是忘了先 append 那条带 tool_calls 的 assistant 消息？）",
}

_ZH_LOOPS: dict[str, str] = {
    # loop_base.py, agent.py, react.py, react_parser.py, json_scan.py, memory.py, summary_memory.py
    "agent.table_title": "{question}（stopped_reason={stopped_reason}）",
    "agent.dropped_why": "没有运行：{missing} 既不在用户的消息里，也不在工具结果里",
    "agent.dropped_with": "没有运行：同一条回答里的 calculate 用了来历不明的数字，整条回答都丢弃了",
    "agent.list_separator": "、",
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
    "loops.step_field": "{kind} 这一步的记录缺少 {field} 或它不对（要的是 {what}，收到的是 {value}）：这是造这条记录的循环的错误",
    "loops.stop_answer": "模型给出了最终答案",
    "loops.stop_content_filter": "模型的回答被服务商的内容过滤截断了（finish_reason=content_filter）：answer 不完整，不算最终答案",
    "loops.interrupted": "运行被中断了（KeyboardInterrupt）；被中断的工具调用都有了一条「被中断」的 tool 消息，messages 仍然有效，可以继续调用 step()",
    "loops.stop_incomplete": "模型的回答没有传完（流式回复断了，没有 finish_reason）：answer 可能只是前半段，不算完整的最终答案",
    "loops.stop_refusal": "模型拒绝回答（message.refusal）：answer 是它拒绝的理由",
    "loops.stop_length": "模型的回答被截断了（达到 max_tokens，finish_reason=length）：answer 只是前半段，不算完整的最终答案",
    "loops.stop_max_steps": "达到了步数上限 max_steps，最后一次请求要求模型直接回答（不再运行工具）",
    "loops.stop_other": "循环结束",
    "loops.stop_repeated_calls": "模型反复发出相同的工具调用，已强制它给出答案",
    "loops.stop_waiting": "有工具调用在等人批准（还没有运行，这次运行还没有结束）："
                          "用 decide(call, approve()/reject(...)/edit({{...}})) 做决定，再调用 run() 把这一轮做完",
    "react.table_title": "协议 {protocol}：{question}",
}

_ZH_TOOLS: dict[str, str] = {
    # tools/
    # tools/data_files.py: the data files a student edits by hand (issue 56)
    "data_file.bad_csv": "{path} 第 {line} 行不是合法的 CSV（少了一个双引号？）：改好这个文件，或者用 git checkout {path} 恢复。",
    "data_file.bad_json": "{path} 第 {line} 行第 {column} 列不是合法的 JSON{why}：改好这个文件，或者用 git checkout {path} 恢复。",
    "data_file.csv_cells": "{path} 第 {line} 行有 {count} 格，应该是 {expected} 格（一格里有英文逗号，就要把这一格放进双引号）："
                           "改好这个文件，或者用 git checkout {path} 恢复。",
    "data_file.csv_columns": "{path} 第 1 行（表头）应该是 {columns}，这里是 {found}：改好这个文件，或者用 git checkout {path} 恢复。",
    "data_file.csv_number": "{path} 第 {line} 行的 {column} 是 {value}，应该是{kind}：改好这个文件，或者用 git checkout {path} 恢复。",
    "data_file.kind_integer": "整数（例如 50）",
    "data_file.kind_list": "一个列表 [...]",
    "data_file.kind_number": "数字（例如 120.0，不加引号和单位）",
    "data_file.kind_object": "一个对象 {{...}}",
    "data_file.kind_text": "放在双引号里的文字",
    "data_file.missing": "找不到 {path}：用 git checkout {path} 恢复它（下载 ZIP 的课程：从压缩包里再拿一份）。",
    "data_file.missing_field": "{path} 第 {line} 行开始的这一条缺少 {field}（每一条都要有 {fields}）：改好这个文件，"
                               "或者用 git checkout {path} 恢复。",
    "data_file.not_an_entry": "{path} 第 {line} 行的这一条应该是{kind}，这里是 {value}：改好这个文件，或者用 git checkout {path} 恢复。",
    "data_file.not_utf8": "{path} 第 {line} 行第 {column} 列不是 UTF-8 编码的文字（多半是用 GBK/ANSI 保存的）：在编辑器里另存为 UTF-8，"
                          "或者用 git checkout {path} 恢复。",
    "data_file.tool_failure": "错误：{error}",
    "data_file.unreadable": "读不了 {path}（{error}）：看看它是不是一个文件、有没有被别的程序占着，或者用 git checkout {path} 恢复。",
    "data_file.why_chinese_punctuation": "（用了中文的标点？JSON 的逗号、冒号、引号和括号都要用英文半角的）",
    "data_file.why_empty": "（文件是空的？）",
    "data_file.why_extra": "（最后多了东西？或者前面少了一个 [ 或 {{？）",
    "data_file.why_missing_comma": "（少了一个逗号？或者前面少了一个双引号？）",
    "data_file.why_missing_quote": "（少了一个双引号？）",
    "data_file.why_trailing_comma": "（多了一个逗号？最后一项后面不能有逗号）",
    "data_file.wrong_top": "{path} 整个文件应该是{kind}，这里是 {value}：改好这个文件，或者用 git checkout {path} 恢复。",
    "data_file.wrong_type": "{path} 第 {line} 行的 {field} 应该是{kind}，这里是 {value}：改好这个文件，或者用 git checkout {path} 恢复。",
    "tools.interrupted": "错误：工具 {name} 被中断了（运行时有人按了停止），没有结果",
    "tools.no_result": "（工具没有返回任何内容）",
    "tools.result_cut": "…（结果太长，只保留了前 {kept} 个字符，后面 {cut} 个字符被截掉）",
    "tools.no_tools": "（没有可用的工具）",
    "tools.not_a_tool": "这里需要一个 Tool 对象，收到的是 {name}",
    "tools.schema_name_differs": "Tool 的名字 {name} 和 schema 里的名字 {schema_name} 不一致",
    "tools.unknown_tool": "工具 {name} 不存在。可用的工具：{available}",
}

_ZH_WIDGETS: dict[str, str] = {
    # widgets.py, debugger.py, tables.py, plots.py, quiz
    "debugger.chain_title": "messages（{n_messages} 条，黄色 = 这一步新增或改变的）",
    "debugger.empty_reply": "（空回复）",
    "debugger.error": "⚠️ {error}（再点一次「下一步」会重试）",
    "debugger.final_request": "达到上限后的最后一次请求：不再运行任何工具，这次的回答就是最终答案",
    "debugger.finished": "■ 已结束：{why}",
    "debugger.hint_next": "▶ 点「下一步」让模型走一步",
    "debugger.label_correction": "纠正消息",
    "debugger.label_cut": "⚠️ 截断",
    "debugger.label_dropped": "丢弃的调用",
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
    "debugger.resent_note": "数字检查丢弃了上面这条回答（它没有进入 messages），同一个请求去掉 {tool} 又发了一次；下面是第二次的回答",
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
    "quiz.question": "{number}. {text}",
    "quiz.right": "✅ 答对了：{explanation}",
    "quiz.score": "已答对 {right} / {total} 题（答了 {answered} 题）",
    "quiz.title": "小测验：{notebook}",
    "quiz.unknown_notebook": "没有 notebook {notebook} 的小测验；有小测验的 notebook：{known}",
    "quiz.wrong": "❌ 不对：{explanation}\n正确答案是：{answer}",
    "widgets.approval_waiting": "⏸ 模型要运行 {calls}。这个工具会改变东西，要你同意：点「批准」就运行它，"
                                "点「拒绝」就不运行（模型会读到你拒绝了）；点「清空对话」放弃这一轮",
    "widgets.approve": "批准",
    "widgets.assistant": "assistant：",
    "widgets.by_button": "聊天框按钮",
    "widgets.clear": "清空对话",
    "widgets.decide_first": "模型还在等你决定要不要运行 {names}：先点「批准」或「拒绝」（或者「清空对话」放弃这一轮），再发新消息",
    "widgets.empty_input": "请输入一句话再发送。",
    "widgets.empty_reply": "模型这次返回了空回复（没有文字，也没有工具调用），它没有被加进对话；可以再发一次试试。",
    "widgets.full_history": "完整对话（每次都会整个发给模型）",
    "widgets.final_answer_forced": "{why}（max_steps={max_steps}）。",
    "widgets.nothing_waiting": "现在没有等你批准的调用",
    "widgets.placeholder": "输入一句话，然后点「发送」",
    "widgets.reading_results": "🔧 已运行工具 {names}；⏳ 模型正在读结果…",
    "widgets.reject": "拒绝",
    "widgets.rejected_reason": "用户在聊天框里点了「拒绝」",
    "widgets.send": "发送",
    "widgets.thinking": "⏳ 模型思考中…",
    "widgets.this_turn_only": "这一轮的 messages（system + 你刚说的话 + 回答）：之前说过的话都没有发给模型",
    "widgets.tokens": "最后一次请求：prompt {prompt_tokens} + completion {completion_tokens} tokens；这个对话累计 {total_tokens} tokens",
    "widgets.unknown_error": "未知错误",
    "widgets.unknown_tool": "课程工具里没有 {name}；你自己的工具请用 registry=ToolRegistry([...]) 传进来",
}

_ZH_ACTING: dict[str, str] = {
    # notebook 08: approval.py, tools/orders.py, the approval buttons
    "approval.bad_action": "决定只能是 {actions} 之一，收到的是 {action!r}",
    "approval.edit_needs_dict": "修改参数（edit）需要一个 dict 形式的新参数，收到的是 {kind}",
    "approval.edit_not_json": "修改后的参数变不成 JSON（{error}）：参数里只能有 dict、list、str、int、float、bool 和 None，"
                              "NaN 和无穷大也不行（numpy 的数和 Decimal 会自动换成 int 或 float）",
    "approval.hook_failed": "审批函数出错了（{error}），为了安全按拒绝处理",
    "approval.hook_interrupted": "审批函数被中断了（KeyboardInterrupt）：{names} 还在等待批准，什么也没有运行。"
                                 "用 decide(call, approve()/reject(...)/edit({{...}}))（例如 agent.decide(agent.waiting[0], approve())）做决定，"
                                 "再调用 run() 把这一轮做完",
    "approval.hook_returned": "审批函数返回了 {kind}，不是 Decision 也不是 None，为了安全按拒绝处理",
    "approval.not_a_decision": "decide() 需要一个 Decision（approve()、reject(...) 或 edit({{...}})），收到的是 {kind}",
    "approval.not_waiting": "没有正在等待批准的调用 id={call_id!r}；正在等待的是 {waiting}",
    "approval.still_waiting": "还有调用在等待批准：{names}。先用 decide(call, approve()/reject(...)/edit({{...}}))"
                              "（例如 agent.decide(agent.waiting[0], approve())，或者调试器里的按钮）做决定，再 step() 或 run()",
    "debugger.approve": "批准",
    "debugger.by_button": "调试器按钮",
    "debugger.edit": "按修改的参数执行",
    "debugger.edit_not_json": "修改后的参数不是合法的 JSON：{error}",
    "debugger.edit_not_object": "修改后的参数必须是一个 JSON 对象 {{...}}，现在是 {kind}",
    "debugger.hint_approval": "⏸ 模型要调用一个需要批准的工具：点「批准」「拒绝」，或者改好参数后点「按修改的参数执行」",
    "debugger.nothing_waiting": "现在没有等待批准的调用",
    "debugger.reject": "拒绝",
    "debugger.rejected_reason": "操作的人在调试器里点了「拒绝」",
    "debugger.running_tools": "⏳ 正在执行工具…",
    "debugger.waiting_call": "⏸ 等待批准：{name}",
    "debugger.approval_approve": "✅ 已批准，按模型的参数执行",
    "debugger.approval_edit": "✏️ 参数被修改后执行",
    "debugger.approval_reject": "⛔ 已拒绝，没有执行",
    "debugger.label_approval": "人工审批",
    "debugger.label_waiting": "⏸ 等待批准",
    "debugger.waiting_for_approval": "（等待批准，还没有运行）",
    "orders.database_in_use": "没能换掉数据库 {path}：另一个程序正打开着它（Windows 不许替换正在使用的文件；{error}）。"
                                "请关掉打开它的程序（例如 DB Browser for SQLite，或另一个笔记本：在那里重启内核），再运行一次。"
                                "原来的数据库没有改动。",
    "eval_set.unknown_kind": "没有「{kind}」这种问题。题目模板的 kind 只能是这些之一：{kinds}",
    "eval_set.bad_wording": "题目模板「{question}」（kind 是 {kind}）里有一个填不上的空（{error}）：这种问题只能用 {slots} 这几个空",
    "capstone.progress": "{id}  {requests} 次请求  {seconds:.1f} 秒",
    "capstone.no_class": "这台电脑没有加入课堂（.env 里没有 COURSE_PROGRESS_URL 和 COURSE_STUDENT_NAME）：先运行 python course.py join 班级代码",
    "capstone.no_token": "读不到这台电脑的学生令牌（{error}）：再运行一次 python course.py join 班级代码",
    "capstone.unreachable": "连不上老师的服务 {url}（{error}）：老师的 python course.py serve 还开着吗？这台电脑和老师的在同一个网络里吗？",
    "capstone.refused": "老师的服务拒绝了这次请求（HTTP {status}）：{why}",
    "capstone.templates_columns": "题目模板文件 {path} 要是 UTF-8 的 CSV，第一行是 kind,question，下面每行一个模板",
    "capstone.bad_counts": "每种题至少 1 道（现在 --per-kind 是 {per_kind}），每人至少能交 1 次（现在 --submissions 是 {submissions}）",
    "capstone.help": "期末项目：出隐藏测试集（题和标准答案只存在老师的电脑上）",
    "capstone.help_new": "按模板和种子出一套新的考试题，存进 class-progress.sqlite3（先关着，在进度页上打开）",
    "capstone.help_templates": "老师自己的题目模板：UTF-8 的 CSV，列 kind,question（加在课程的模板后面）",
    "capstone.error": "出题失败：{error}",
    "capstone.made": "考试 {exam} 出好了：{questions} 道题（{kinds}），种子 {seed}（记下它：同一个种子、同样的数据出同一套题）。"
                     "题和标准答案只存在 {db} 里，不在仓库里，也不会发给学生。每人最多交 {submissions} 次。"
                     "运行 python course.py serve，在进度页上点「打开考试」。",
    "orders.copy_is_master": "COURSE_SHOP_DB 指向的 {path} 是商店的原始数据库：下单只能写在副本里（例如 data/my_shop.db），原始数据库永远只读",
}

_ZH_SUMMARY: dict[str, str] = {
    # notebook 09, part 1: the summary memory (summary_memory.py) and its chart (plots.py)
    "memory.chart_summarized": "摘要（SummaryMemory）",
    "memory.chart_summarized_plain": "summary (SummaryMemory)",
    "memory.chart_summary_made": "这一轮写了摘要",
    "memory.chart_summary_made_plain": "a summary was written",
    "memory.chart_title": "每轮的 prompt tokens：裁剪和摘要",
    "memory.chart_title_plain": "Prompt tokens per turn: trimming vs summary",
    "memory.chart_trimmed": "裁剪（ShortTermMemory）",
    "memory.chart_trimmed_plain": "trimming (ShortTermMemory)",
    "memory.int_low": "{name} 至少是 1，收到的是 {value}",
    "memory.int_type": "{name} 必须是整数，不能是 {kind}",
    "memory.no_summary": "模型没有写出可用的摘要（finish_reason={finish_reason!r}）{cut}",
    "memory.summarize_type": "summarize 必须是一个函数：summarize(旧消息列表) -> 摘要文字；收到的是 {kind}",
    "memory.summary_failed": "写摘要失败，没有替换任何消息（什么也没丢）：{error}",
    "memory.summary_not_shorter": "摘要（约 {new} 个 token）不比它要代替的 {n} 条消息（约 {old} 个 token）短，所以没有替换：这几轮原样保留，什么也没丢",
    "memory.summary_not_text": "summarize 应该返回一段不是空白的文字，实际返回了 {value}",
}

_ZH_MCP: dict[str, str] = {
    # notebook 09, part 2: mcp_server.py and mcp_client.py
    "mcp.arguments_not_object": "错误：工具 {name} 的参数必须是 JSON 对象（dict），收到的是 {kind}",
    "mcp.audio": "[音频：{mime_type}，{size} 字节。只是占位说明，模型听不到音频本身]",
    "mcp.blob": "[资源 {uri}：二进制内容，{mime_type}，{size} 字节。只是占位说明，模型看不到内容本身]",
    "mcp.call_refused": "错误：MCP 服务器拒绝了对工具 {name} 的调用：{message}（JSON-RPC 错误码 {code}）",
    "mcp.image": "[图片：{mime_type}，{size} 字节。只是占位说明，模型看不到图片本身]",
    "mcp.link": "[资源链接 {uri}] {name}",
    "mcp.resource": "[资源 {uri}]\n{text}",
    "mcp.schema_ref_loop": "它的 inputSchema 里的 $ref {ref} 引用了它自己（递归的结构），没法展开成 chat 接口接受的 schema",
    "mcp.schema_ref_missing": "它的 inputSchema 里的 $ref {ref} 指向的定义不在 schema 里",
    "mcp.schema_ref_remote": "它的 inputSchema 里的 $ref {ref} 指向别的文件或网址，客户端不会去取它",
    "mcp.stdout_noise": "MCP 服务器（命令：{command}）往 stdout 写了不是 JSON-RPC 的内容，已经跳过，工具照常可用。第一行：{line}\n"
                        "stdout 只能用来传协议消息，服务器自己的输出要写到 stderr（Python 里用 print(..., file=sys.stderr)）。"
                        "跳过的每一行都记在 log 里（kind 是 unreadable）",
    "mcp.tool_left_out": "MCP 服务器的工具 {name} 没有放进请求的 tools：{why}。其他工具照常可用；要用这个工具，得改服务器那边它的 inputSchema",
    "mcp.write_timeout": "{timeout}\n注意：服务器没有把工具 {name} 标为只读（readOnlyHint），它可能会改变东西。请求虽然超时了，服务器那边可能还在执行，"
                         "之后照样完成。不要马上再调用一次（可能做两遍）：先用这个服务器的只读工具查一查，或者直接去看它要改的地方，确认是不是已经做了",
}

_ZH_EVALUATION: dict[str, str] = {
    # notebook 10: evaluation.py and judge.py
    "evaluation.bad_interval": "区间要抽至少 1 次、level 要在 0 和 1 之间：收到 repeats={repeats}，level={level}",
    "evaluation.bad_mode": "轨迹的比较方式只能是 {modes} 之一，收到的是 {mode!r}",
    "evaluation.chart_by_kind": "每种问题（kind）通过了几个",
    "evaluation.chart_by_kind_plain": "passed per kind (answer / no_answer / refuse)",
    "evaluation.chart_empty": "没有可以画的结果：表是空的（先用 run_set 跑测试集）",
    "evaluation.chart_failed": "没通过",
    "evaluation.chart_failed_plain": "failed",
    "evaluation.chart_passed": "通过",
    "evaluation.chart_passed_plain": "passed",
    "evaluation.chart_seconds": "每个问题用了几秒（绿 = 通过）",
    "evaluation.chart_seconds_plain": "seconds per question (green = passed)",
    "evaluation.progress": "{mark} {id}  {seconds:.1f} 秒{reused}",
    "evaluation.verdict_lengths": "评委和代码检查的结论要一样多、而且不能是空的：评委 {judge} 个，代码 {code} 个",
    "evaluation.reused": "（这次内核里跑过同样的配置：直接用保存的结果，没有发请求）",
    "evaluation.kappa_undefined": "评委和代码检查对每个回答都给了同一个结论（都是 {verdict}）：碰巧一致的比例 p_e = 1，"
                                  "κ 的公式要除以 0，没有定义。这时的一致率 100% 什么也说明不了——一个不看回答、总说 {verdict} 的评委也能做到。"
                                  "要给评委打分，测试集里得既有代码判 pass 的回答，也有判 fail 的",
    "judge.cut": "评委的回复写到 max_tokens（{max_tokens} 个 token）就被截断了（finish_reason 是 \"length\"），JSON 没有写完，"
                 "算不上结论：既不是 pass 也不是 fail。给更大的 max_tokens 再问一次，或者让评委把理由写短些",
    "judge.mode_refused": "评委的服务器 {server}（模型 {model}）不接受 response_format 的 {mode} 方式（{error}）。"
                          "这个内核里对它改用 {next} 方式；每一行的 mode 写着实际用的方式。{next} 不像 json_schema 那样保证格式，"
                          "读不出结论的回复记成没有结论，不算 pass 也不算 fail",
}

_ZH_TRACING: dict[str, str] = {
    # notebook 10: traces of an agent run (tracing.py) and their timeline chart
    "tracing.chart_agent": "整次运行（invoke_agent）",
    "tracing.chart_agent_plain": "the whole run (invoke_agent)",
    "tracing.chart_chat": "模型请求（chat）",
    "tracing.chart_chat_plain": "model request (chat)",
    "tracing.chart_empty": "没有可以画的 span",
    "tracing.chart_empty_plain": "no spans to draw",
    "tracing.chart_error": "出错（status ERROR）",
    "tracing.chart_error_plain": "error (status ERROR)",
    "tracing.chart_title": "一次运行的时间线（trace {trace}）",
    "tracing.chart_title_plain": "Timeline of one run (trace {trace})",
    "tracing.chart_tool": "工具调用（execute_tool）",
    "tracing.chart_tool_plain": "tool call (execute_tool)",
    "tracing.chart_x": "从这次运行开始算起的毫秒数（ms）",
    "tracing.chart_x_plain": "ms since the run started",
    "tracing.closed": "这个 Tracer 已经关闭了（调用过 close()，或者 with 块已经结束），不会再往 {path} 里写 span。请新建一个 Tracer(路径)",
    "tracing.keep_runs": "keep_runs 是追踪文件最多留几次运行（每个 Tracer 算一次），要是不小于 1 的整数；收到的是 {value!r}",
    "tracing.no_file": "找不到追踪文件 {path}：先用 Tracer(路径).run(agent, 问题) 记录一次运行，再用 load_spans 读同一个路径",
    "tracing.no_run": "追踪文件 {path} 里没有运行 {run!r}（文件只留最近几次运行，更早的已经删掉了）。文件里的运行，从旧到新：{known}",
    "tracing.no_spans": "没有可以画的 span：列表是空的（追踪文件里还没有记录任何一次运行？环境变量 OTEL_SDK_DISABLED=true 时，Tracer 什么也不记录）",
    "tracing.no_trace": "没有正好一个 trace 对得上 {trace_id!r}（可以写完整的 trace id、它开头的几位，或者 case id）。文件里的 trace：{known}",
    "tracing.not_native": "{kind} 没有 send 和 answer_call 这两个钩子，不能这样追踪：Tracer 只追踪原生的工具调用循环 agent.Agent"
                          "（notebook 06、08 里的 Agent 都可以，带审批钩子的也可以）。ReAct 循环（LineReAct、JsonReAct）"
                          "在 step 里面直接发请求、运行工具，没有可以替换的钩子",
    "tracing.sdk_disabled": "环境变量 OTEL_SDK_DISABLED 是 true（多半是别的工具设的）：按 OpenTelemetry 的规定，这个 Tracer 不记录任何 span，"
                            "也不写 {path}；智能体照常运行。要记录追踪：先运行 import os; os.environ.pop(\"OTEL_SDK_DISABLED\")，再新建一个 Tracer",
    "tracing.sdk_disabled_read": "{path} 里没有读到 span：环境变量 OTEL_SDK_DISABLED 是 true，Tracer 按 OpenTelemetry 的规定什么也没有记录。"
                                 "要记录追踪：先运行 import os; os.environ.pop(\"OTEL_SDK_DISABLED\")，再新建 Tracer、重新运行",
    "tracing.skipped_lines": "追踪文件 {path} 里有 {count} 行不是 span，读的时候跳过了（第一处是第 {line} 行：{error}）。"
                             "常见的原因：内核在写最后一行时被停下了（只写了半行），或者有一行被手工改坏了。其余的 span 照常读出来了",
}

_ZH_MULTI_AGENT: dict[str, str] = {
    # tools/shop_notes.py, multi_agent.py (notebook 11)
    "multi_agent.bad_specialists": "specialists 要是至少一位专家（Specialist）的列表，名字各不相同；收到的名字是 {names}",
    "multi_agent.inner_waiting": "{name} 里的智能体停下来等人决定：{calls}。这不是出错：外层的循环要跟着停下来等"
                                 "（course_lib 的 Agent、LineReAct、JsonReAct 会停在 stopped_reason == \"waiting\"，"
                                 "decide(call, approve()/reject(...)) 以后再 run()）。自己写的循环接不住它：请用这几个循环运行这个工具",
    "multi_agent.no_specialist": "前台没有转接给任何专家，没有可以批准或继续运行的专家：看 owner（\"front\"）和 answer",
    "multi_agent.send_while_waiting": "专家还有 {n} 个调用在等人决定：先 decide(...) 再 run()，然后才能发用户的下一句话",
    "notes.no_fts5": "这个 Python 的 sqlite3 没有 FTS5 全文检索模块（SQLite {version}）：search_notes 用不了。"
                     "请换一个带 FTS5 的 Python 3.11+（Windows、macOS：从 python.org 下载安装；Linux：发行版自带的 python3），"
                     "删掉 .venv 文件夹，再用它运行 python course.py lab（python course.py check 会说这个 Python 有没有 FTS5）",
}

_ZH_EXERCISES: dict[str, str] = {
    # checkers/new_exercise.py (python course.py new-exercise NN)
    "new_exercise.arg_name": "学生要写的函数名（英文，例如 count_words；默认 exercise_NN_k）",
    "new_exercise.arg_new_version": "题目改了以后，给练习 NN-k 一个新版本（例如 04-1 变成 04-1v2），旧题的结果不会算成新题的",
    "new_exercise.arg_notebook": "笔记本的两位编号，例如 06",
    "new_exercise.bad_name": "--name 应该是一个英文的 Python 函数名（字母、数字、下划线，不以数字开头），现在是 {name!r}",
    "new_exercise.bad_notebook": "笔记本编号应该是两位数字，例如 06，现在是 {notebook!r}",
    "new_exercise.done": "已经写好练习 {exercise}：\n{files}\n还有五处要你来写（前三处都标着 TODO 或「（老师：」）：\n  1. 笔记本里的题目和提示：在 JupyterLab 里打开第 {notebook} 课，在最后一个检查单元格后面；\n  2. course_lib/checkers/nb{notebook}.py 末尾 check_{name} 里的 examples（题目里说到的情况）和 inputs（随机输入的样子）；\n  3. solutions/ 里「# %% exercise {exercise}」下面的参考答案——检查就是拿它和学生的函数比，所以它就是标准；\n  4. TEACHER_GUIDE.zh.md 第 {notebook} 节「练习中的常见错误」里加一行 {exercise}；\n  5. tests/student_answers/ 里的 {exercise}.py：请没看过检查代码的人只读题目，写四个错答案、两个对答案（格式照着别的文件）。\n写好以后运行 python course.py exercises：它用参考答案和没改过的练习各跑一次检查，也查这五处有没有写完。全部通过，就可以把课程发给学生了；重新运行 python course.py serve，进度页上就会有 {exercise} 这一列。",
    "new_exercise.exercise_code": "def {name}(x):\n    \"\"\"（老师：一句话说这个函数做什么。）\"\"\"\n    return None  # 改好这里",
    "new_exercise.name_taken": "{path} 里已经有 check_{name}：换一个 --name",
    "new_exercise.no_notebook": "没有找到 {folder} 里的 {notebook}_*.ipynb：第一个参数是笔记本的两位编号，例如 06",
    "new_exercise.solutions_header": "# notebooks/{notebook} 的参考答案。请先自己做一遍练习，再来看这里！",
    "new_exercise.task": "**练习 {k}**（{exercise}）：（老师：在这里写题目——学生要写的函数 `{name}` 做什么、参数和返回值是什么、要处理哪些特殊情况。检查会把学生的 `{name}` 和参考答案放在一起，在这些情况和随机生成的输入上比较。）\n\n<details><summary>提示</summary>\n\n（老师：一两句提示，不要直接给出答案。）\n\n</details>",
    "new_exercise.unknown_exercise": "没有练习 {exercise!r}：--new-version 后面写一个已有的练习编号，例如 04-1",
    "new_exercise.version_places": "练习 {exercise} 的编号在这些地方没有找到（或者不止一处）：{places}。要改版本，笔记本里的练习单元格和检查单元格、@exercise(...)、solutions/ 里的「# %% exercise」行都要有它，而且各一处",
    "new_exercise.versioned": "练习 {old} 现在是 {exercise}：\n{files}\n学生的旧结果（{old}）在进度页上单独一列，不会算成新题的。检查、参考答案、教师指南里的说明照旧用 {old} 这个名字。运行 python course.py exercises，再重新运行 python course.py serve。",
    "new_exercise.usage": "给第 NN 课加一道新练习：写好笔记本里的练习单元格和检查单元格、检查函数、参考答案的框架",
}

register("zh", {**_ZH_REPLIES, **_ZH_LOOPS, **_ZH_TOOLS, **_ZH_WIDGETS, **_ZH_ACTING, **_ZH_SUMMARY, **_ZH_MCP,
                **_ZH_EVALUATION, **_ZH_TRACING, **_ZH_MULTI_AGENT, **_ZH_EXERCISES})
