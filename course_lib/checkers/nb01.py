"""Checkers for notebook 01 (the bare chat call)."""

from __future__ import annotations

from openai.types.chat import ChatCompletion

from . import CheckResult, exercise, recording, report, safely, t


@exercise("01-1")
def check_ask(ask: object, client: object) -> CheckResult:
    """Exercise 01-1: ``ask(question)`` sends ONE request whose last message is the user's question
    and returns ``choices[0].message.content`` of that response as a string."""
    if not callable(ask):
        return report(False, t("check.01.ask.1"))
    question = "1+1 等于几？只回答数字。"
    with recording(client) as seen:
        answer, error = safely(ask, question)
    if error:
        return report(False, t("check.01.ask.2", error=error))
    if len(seen.requests) != 1:
        return report(False, t("check.01.ask.3", n_requests=len(seen.requests)))
    messages = seen.requests[0].get("messages") or []
    last = messages[-1] if messages else {}
    if not (isinstance(last, dict) and last.get("role") == "user" and last.get("content") == question):
        return report(False, t("check.01.ask.4"))
    expected = seen.responses[0].choices[0].message.content
    if not isinstance(answer, str) or answer != expected:
        return report(False, t("check.01.ask.5"))
    return report(True, t("check.01.ask.6", answer=repr(answer)))


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


@exercise("01-2")
def check_summarize(summarize: object) -> CheckResult:
    """Exercise 01-2: ``summarize(response)`` returns ``{"finish_reason": ..., "total_tokens": ...}``."""
    if not callable(summarize):
        return report(False, t("check.01.summarize.1"))
    for reason, total in [("stop", 21), ("length", 57)]:
        got, error = safely(summarize, _sample_response(reason, total))
        if error:
            return report(False, t("check.01.summarize.2", error=error))
        want = {"finish_reason": reason, "total_tokens": total}
        if got != want:
            return report(False, t("check.01.summarize.3", reason=repr(reason), total=total, want=want, got=repr(got)))
    return report(True, t("check.01.summarize.4"))
