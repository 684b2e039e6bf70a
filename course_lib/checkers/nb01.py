"""Checkers for notebook 01 (the bare chat call)."""

from __future__ import annotations

from openai.types.chat import ChatCompletion

from . import CheckResult, recording, report, safely


def check_ask(ask: object, client: object) -> CheckResult:
    """Exercise 01-1: ``ask(question)`` sends ONE request whose last message is the user's question
    and returns ``choices[0].message.content`` of that response as a string."""
    if not callable(ask):
        return report(False, "ask 应该是一个函数")
    question = "1+1 等于几？只回答数字。"
    with recording(client) as seen:
        answer, error = safely(ask, question)
    if error:
        return report(False, f"调用 ask 时出错：{error}")
    if len(seen.requests) != 1:
        return report(False, f"ask 应该正好发出 1 次请求，实际发出了 {len(seen.requests)} 次")
    messages = seen.requests[0].get("messages") or []
    last = messages[-1] if messages else {}
    if not (isinstance(last, dict) and last.get("role") == "user" and last.get("content") == question):
        return report(False, "最后一条消息应该是 {'role': 'user', 'content': question}")
    expected = seen.responses[0].choices[0].message.content
    if not isinstance(answer, str) or answer != expected:
        return report(False, "ask 应该返回 response.choices[0].message.content（一个字符串），而不是整个 response")
    return report(True, f"ask 发出了一次请求，模型回答：{answer!r}")


def _sample_response(finish_reason: str, total: int) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-check",
            "object": "chat.completion",
            "created": 0,
            "model": "check-model",
            "choices": [
                {"index": 0, "finish_reason": finish_reason, "message": {"role": "assistant", "content": "你好"}}
            ],
            "usage": {"prompt_tokens": total - 3, "completion_tokens": 3, "total_tokens": total},
        }
    )


def check_summarize(summarize: object) -> CheckResult:
    """Exercise 01-2: ``summarize(response)`` returns ``{"finish_reason": ..., "total_tokens": ...}``."""
    if not callable(summarize):
        return report(False, "summarize 应该是一个函数")
    for reason, total in [("stop", 21), ("length", 57)]:
        got, error = safely(summarize, _sample_response(reason, total))
        if error:
            return report(False, f"summarize 出错：{error}")
        want = {"finish_reason": reason, "total_tokens": total}
        if got != want:
            return report(False, f"对一个 finish_reason={reason!r}、total_tokens={total} 的回复，应返回 {want}，实际是 {got!r}")
    return report(True, "finish_reason 和 usage.total_tokens 都取对了")
