"""Checkers for notebook 01 (the bare chat call).

01-1 watches the requests ``ask`` sends (``watched``): one on the notebook's model, whose
answer the student sees, and one with another question that the checker answers itself
(no request reaches the model), so a reply or a question written into the code fails.
A streamed answer (``stream=True``, notebook 01 section 7) is read to its end first and
handed to the student's code as a ``Replay`` of the same chunks, so the checker knows the
whole text.  01-2 runs ``summarize`` beside the reference on generated responses.

``watched``, ``reply_text`` and ``answered_with`` are used by nb02's checker too.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from hypothesis import strategies as st
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from . import (CheckResult, Recording, described, exercise, first_difference, recording, report, request_problem,
               safely, t)
from .reference import solution
from .student_calls import waiting_for_model

QUESTION = "1+1 等于几？只回答数字。"
ROLES = {"system", "developer", "user", "assistant"}  # what a message of a plain chat request may be


class Replay:
    """The chunks of a streamed answer, read already, handed out again as the SDK's ``Stream`` does.

    Iterate it (``for chunk in stream``), use it in ``with``, ``close()`` it; any other
    attribute is the original stream's (None for a checker-made answer).
    """

    def __init__(self, chunks: list[ChatCompletionChunk], original: Any = None):
        self.chunks = list(chunks)
        self._original = original
        self._next = iter(self.chunks)

    def __iter__(self) -> "Replay":
        return self

    def __next__(self) -> ChatCompletionChunk:
        return next(self._next)

    def __enter__(self) -> "Replay":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Nothing is left open: the stream was read to its end before the student's code got it."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._original, name)

    def __repr__(self) -> str:
        return repr(self._original) if self._original is not None else "<Stream>"


def reply_text(response: Any) -> str:
    """The assistant text of one recorded response: ``choices[0].message.content`` of a
    ``ChatCompletion``, the ``delta.content`` of every chunk joined for a ``Replay``; "" when none."""
    if isinstance(response, Replay):
        return "".join(chunk.choices[0].delta.content or "" for chunk in response.chunks if chunk.choices)
    choices = getattr(response, "choices", None) or []
    return (choices[0].message.content or "") if choices else ""


def answered_with(text: str) -> Callable[[dict], Any]:
    """``answer(kwargs)`` for ``watched``: ``text`` as a ``ChatCompletion``, or as a ``Replay`` of
    chunks (a role chunk, one chunk per few characters, a ``finish_reason`` chunk, and a usage chunk
    when ``stream_options.include_usage``) when the request asks ``stream=True``."""
    head = {"id": "chatcmpl-check", "created": 0, "model": "check-model"}
    usage = {"prompt_tokens": 9, "completion_tokens": len(text), "total_tokens": 9 + len(text)}

    def answer(kwargs: dict) -> Any:
        if not kwargs.get("stream"):
            return ChatCompletion.model_validate({**head, "object": "chat.completion", "usage": usage, "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]})
        deltas = [{"role": "assistant", "content": ""}] + [{"content": text[i:i + 3]} for i in range(0, len(text), 3)]
        chunks = [{"index": 0, "delta": d, "finish_reason": None} for d in deltas]
        bodies = [{"choices": [c]} for c in chunks] + [{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
        if (kwargs.get("stream_options") or {}).get("include_usage"):
            bodies.append({"choices": [], "usage": usage})
        return Replay([ChatCompletionChunk.model_validate({**head, "object": "chat.completion.chunk", **b})
                       for b in bodies])

    return answer


REAL_REQUESTS = 3  # requests one watched call may send to the real model (the exercises ask for one)


@contextlib.contextmanager
def watched(client: Any, answer: Callable[[dict], Any] | None = None) -> Iterator[Recording]:
    """``recording(client)``, streamed answers included: yields the ``Recording``.

    ``answer`` None: each request goes to the client's model (``REAL_REQUESTS`` at most; the time
    waited is not charged to the student's time limit); a streamed response is read to its end and
    replaced by a ``Replay`` of its chunks (what the student's code then reads, and what
    ``responses[i]`` holds).  Otherwise ``answer(kwargs)`` answers without a request.
    """
    original = client.chat.completions.create

    asked = [0]

    def respond(kwargs: dict) -> Any:
        if answer is None:
            asked[0] += 1
            if asked[0] > REAL_REQUESTS:  # a loop of requests: not waited for (its time is charged again)
                raise RuntimeError(t("check.01.too_many_requests", n=REAL_REQUESTS))
        # the real model's time, its stream read to the end included, is not the student's loop (a busy class)
        with waiting_for_model() if answer is None else contextlib.nullcontext():
            response = answer(kwargs) if answer is not None else original(**kwargs)
            if kwargs.get("stream") and not isinstance(response, (ChatCompletion, Replay)):
                response = Replay(list(response), response)
        return response

    with recording(client, answer=respond) as seen:
        yield seen


def _ask_once(ask: Any, client: Any, question: str, answer: Callable[[dict], Any] | None) -> tuple[Any, str | None]:
    """Run ``ask(question)``; returns ``(result, None)`` or ``(None, the hint)``."""
    with watched(client, answer) as seen:
        got, error = safely(ask, question)
    if error:
        return None, t("check.01.ask.2", error=error)
    if len(seen.requests) != 1:
        return None, t("check.01.ask.3", n_requests=len(seen.requests))
    messages = seen.requests[0].get("messages")
    for index, message in enumerate(messages if isinstance(messages, (list, tuple)) else []):
        if not (isinstance(message, dict) and message.get("role") in ROLES and isinstance(message.get("content"), str)):
            return None, t("check.01.ask.7", index=index, message=described(message))
    last = messages[-1] if isinstance(messages, (list, tuple)) and messages else None
    if not (isinstance(last, dict) and last.get("role") == "user" and last.get("content") == question):
        return None, t("check.01.ask.4", question=repr(question), last=described(last))
    refused = request_problem(seen.requests[0])  # e.g. temperature=-1: a real provider answers 400
    if refused:
        return None, refused
    want = reply_text(seen.responses[0])
    right = (isinstance(got, str) and got.strip() == want.strip()) or (got is None and not want)
    if not right:
        return None, t("check.01.ask.5", want=repr(want), got=described(got))
    return got, None


@exercise("01-1")
def check_ask(ask: object, client: object) -> CheckResult:
    """Exercise 01-1: ``ask(question) -> str`` sends exactly ONE request whose last message is
    ``{"role": "user", "content": question}`` and returns that answer's text.

    Every message sent needs a known role and a str content, and the request nothing the API
    refuses (``request_problem``: temperature -1, max_tokens 0 ...).  Tried twice: ``QUESTION`` on ``client``'s model, then another question answered by the
    checker (``answered_with``; no request).  The text may come from a ``ChatCompletion`` or
    from chunks (``stream=True``); surrounding spaces do not count.
    """
    if not callable(ask):
        return report(False, t("check.01.ask.1", value=described(ask)))
    answer, problem = _ask_once(ask, client, QUESTION, None)
    if problem:
        return report(False, problem)
    question = f"{QUESTION[:-1]}再说一遍：{len(QUESTION)}+{len(QUESTION)}？"
    _, problem = _ask_once(ask, client, question, answered_with(f"（检查用的回答）{2 * len(QUESTION)}"))
    if problem:
        return report(False, problem)
    return report(True, t("check.01.ask.6", answer=repr(answer)))


# --- 01-2 ---------------------------------------------------------------------------------------

FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter")


def sample_response(finish_reasons: tuple[str, ...], prompt_tokens: int, completion_tokens: int,
                    content: str = "你好") -> ChatCompletion:
    """A ``ChatCompletion`` with one choice per finish reason (in order) and consistent usage."""
    choices = [{"index": i, "finish_reason": reason, "message": {"role": "assistant", "content": content}}
               for i, reason in enumerate(finish_reasons)]
    return ChatCompletion.model_validate({
        "id": "chatcmpl-check", "object": "chat.completion", "created": 0, "model": "check-model", "choices": choices,
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens}})


def summary(response: ChatCompletion) -> dict:
    """The reference of 01-2: ``solutions/01_chat_call.py``'s ``summarize``."""
    return solution("01-2", "summarize")(response)


RESPONSES = st.builds(sample_response, st.lists(st.sampled_from(FINISH_REASONS), min_size=1, max_size=2).map(tuple),
                      st.integers(0, 5000), st.integers(0, 5000), st.text(max_size=8))
# The cases tried first: a short answer, a cut-off one, and two choices that end differently.
SUMMARY_EXAMPLES = [(sample_response(("stop",), 18, 3),), (sample_response(("length",), 50, 7),),
                    (sample_response(("stop", "length"), 12, 30),)]


def _same_summary(got: Any, want: dict) -> bool:
    return isinstance(got, dict) and got == want


@exercise("01-2")
def check_summarize(summarize: object) -> CheckResult:
    """Exercise 01-2: ``summarize(response) -> {"finish_reason": str, "total_tokens": int}``, both read
    from the response (``choices[0].finish_reason``, ``usage.total_tokens``).

    Run beside ``summary`` on ``SUMMARY_EXAMPLES`` then on generated responses (one or two
    choices, any finish reason, any token counts): a dict with the same keys and equal values.
    """
    if not callable(summarize):
        return report(False, t("check.01.summarize.1", value=described(summarize)))
    found = first_difference(summarize, summary, st.tuples(RESPONSES), SUMMARY_EXAMPLES, same=_same_summary,
                             max_examples=40)
    if found is None:
        return report(True, t("check.01.summarize.4"))
    response = found.args[0]
    reasons = [choice.finish_reason for choice in response.choices]
    if found.error:
        return report(False, t("check.01.summarize.2", reasons=reasons, total=response.usage.total_tokens,
                               error=found.error))
    return report(False, t("check.01.summarize.3", reasons=reasons, total=response.usage.total_tokens,
                           want=found.want, got=described(found.got)))
