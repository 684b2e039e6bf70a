"""An LLM judge: a model reads a question, its answer key and an agent's answer, and says pass or fail (notebook 10).

The judge answers one JSON object, ``{"verdict": "pass" | "fail", "reason": "..."}``,
so that code can count its verdicts.  Three ways of asking for that object
(``MODES``; bench/structured.py measures them on the course's model):

``prompt``       only the system prompt describes the JSON;
``json_object``  the same, plus ``response_format={"type": "json_object"}`` (any JSON object);
``json_schema``  the same, plus ``response_format={"type": "json_schema", ...}`` with ``SCHEMA``:
                 llama-server turns the schema into a grammar, so the model cannot write
                 anything else (OpenAI's "Structured Outputs"; llama.cpp's server README,
                 ``response_format``).

A judge is itself a model, so it is measured before it is trusted: its verdicts
against the code checks' (``evaluation.agreement``).  Two judge prompts are here,
``SYSTEM`` (a general one) and ``STRICT_SYSTEM`` (a rubric); the notebook compares them.

A provider that refuses a mode, in whatever words (DeepSeek answers ``json_schema`` with HTTP 400,
SiliconFlow with its own code 20024), is answered by the next mode down (``ask_falling_back``, remembered per server and model in ``REFUSED``); a reply
cut at ``max_tokens`` is its own outcome (``cut``), never a verdict; answered judge requests are
kept in ``JUDGED`` under a key that holds everything that decides the reply (``cache_key``).

The bench (``python -m bench.structured``) and notebook 10 use this one module.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Iterable

import jsonschema

from .eval_set import Case
from .texts import t

SCHEMA = {"type": "object",
          "properties": {"verdict": {"type": "string", "enum": ["pass", "fail"]},
                         "reason": {"type": "string", "minLength": 1, "maxLength": 60}},
          "required": ["verdict", "reason"], "additionalProperties": False}
MODES = {"prompt": None, "json_object": {"type": "json_object"},
         "json_schema": {"type": "json_schema", "json_schema": {"name": "verdict", "strict": True, "schema": SCHEMA}}}
SYSTEM = ("你是一个评分员。给你一个问题、标准答案和一个助手的回答，判断助手的回答是否与标准答案一致。"
          '只输出一个 JSON 对象，形如 {"verdict": "pass", "reason": "一句话理由"}，verdict 只能是 "pass" 或 "fail"，'
          "不要输出别的内容。")
STRICT_SYSTEM = ("你是一个严格的评分员。给你一个问题、标准答案和一个助手的回答。按下面的规则判断：\n"
                 "1. 标准答案里的每个数字，助手的回答都必须写出，数值相同就算（200 和 200.0 元一样）；\n"
                 "2. 助手的回答里出现标准答案里没有、问题里也没有的数字，判 fail；\n"
                 "3. 标准答案说没有或不能做的，助手的回答也说没有、没做，才判 pass。\n"
                 '只输出一个 JSON 对象，形如 {"verdict": "fail", "reason": "一句话理由"}，verdict 只能是 "pass" 或 "fail"。')
# Per judge request: room for the JSON with a reason of SCHEMA's 60 characters at most (a reply cut
# at max_tokens is not JSON, whatever response_format says: finish_reason "length"; ``ask`` marks it ``cut``).
MAX_TOKENS = 120
# Judged answers in this kernel: ``cache_key`` -> the row (``judge_answer``).  Only replies are kept:
# a failed request or a reply cut at max_tokens is asked again the next time.
JUDGED: dict[str, dict] = {}
# The order in which a judge falls back when a provider refuses a mode: the strictest first.
FALLBACK = ("json_schema", "json_object", "prompt")
# The modes a provider refused in this kernel: (base URL, model) -> modes (``ask_falling_back``).
# A restarted kernel tries each mode again.  Keyed by model too: one provider may take
# json_schema for one model and refuse it for another.
REFUSED: dict[tuple[str, str], set[str]] = {}
# Words by which a 400/422 says that it is the response_format the provider refuses.  DeepSeek's
# answer to json_schema is "This response_format type is unavailable now"; others name the type,
# the parameter (``param``: "response_format") or "structured outputs".
FORMAT_WORDS = ("response_format", "response format", "json_schema", "json_object", "structured output", "schema")


def key_text(case: Case) -> str:
    """A case's answer key in words, as the judge reads it (``eval_set.Case``: numbers, words, kind)."""
    if case.kind == "no_answer":
        return "查不到：店里不卖这种商品、这种商品已经卖完（库存为 0），或者数据里没有这个城市。正确的回答应说明没有或没货，不能编造。"
    if case.kind == "refuse":
        return "用户拒绝了下单，订单没有生成。正确的回答应说明没有下单。"
    facts = [*case.numbers, *case.words]
    return "回答里应有：" + "、".join(facts)


def judge_messages(question: str, expected: str, answer: str, system: str = SYSTEM, extra: str = "") -> list[dict]:
    """The judge's messages: ``system``, then question, key and answer as one user message.

    Args:
        question, expected, answer: the task, its answer key in words, the agent's answer.
        system: the judge prompt (``SYSTEM`` or ``STRICT_SYSTEM`` or your own).
        extra: text appended to the user message (the bench's probe asks for a verdict outside the enum).
    """
    user = f"问题：{question}\n标准答案：{expected}\n助手的回答：{answer}{extra}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def read(content: str | None) -> tuple[bool, bool, str | None]:
    """``(parsed, in_schema, verdict)`` of one reply's content.

    ``parsed``: ``json.loads`` of the whole content gives a dict (text around the
    JSON, such as a code fence, is not parsed); ``in_schema``: it matches ``SCHEMA``
    (``jsonschema``, Draft 2020-12: the two keys only, a verdict of the enum, a
    non-empty reason); ``verdict``: "pass" or "fail", else None.
    """
    try:
        value = json.loads(content or "")
    except ValueError:
        return False, False, None
    if not isinstance(value, dict):
        return False, False, None
    verdict = value.get("verdict")
    in_schema = jsonschema.Draft202012Validator(SCHEMA).is_valid(value) and bool(str(value["reason"]).strip())
    return True, in_schema, verdict if verdict in ("pass", "fail") else None


def base_url(client: Any) -> str:
    """The server a client sends to (``openai.OpenAI.base_url`` as text; "" for an object without one)."""
    return str(getattr(client, "base_url", "") or "")


def _ask(client: Any, model: str, messages: list[dict], mode: str, max_tokens: int) -> tuple[dict, Exception | None]:
    """``ask``'s row, and the exception of a failed request (None when the server answered)."""
    extra = {} if MODES[mode] is None else {"response_format": MODES[mode]}
    started = time.perf_counter()

    def failed(error: str, exc: Exception | None) -> tuple[dict, Exception | None]:
        return ({"mode": mode, "content": None, "finish_reason": None,
                 "seconds": round(time.perf_counter() - started, 2), "parsed": False, "in_schema": False,
                 "verdict": None, "reason": "", "cut": False, "error": error[:300]}, exc)

    try:
        response = client.chat.completions.create(model=model, messages=messages, temperature=0,
                                                  max_tokens=max_tokens, **extra)
    except Exception as exc:  # noqa: BLE001 - a refused request is a row, never a crash of the whole measurement
        return failed(f"{type(exc).__name__}: {exc}", exc)
    if not response.choices:  # a content filter or a relay: HTTP 200 without a reply
        return failed("NoChoices: the server answered without choices", None)
    choice = response.choices[0]
    content = choice.message.content
    parsed, in_schema, verdict = read(content)
    reason = str(json.loads(content).get("reason", "")) if parsed else ""
    cut = choice.finish_reason == "length" and not in_schema
    if cut:  # the JSON stopped at max_tokens: no verdict, whatever part of it was written
        verdict, reason = None, t("judge.cut", max_tokens=max_tokens)
    return ({"mode": mode, "content": content, "finish_reason": choice.finish_reason,
             "seconds": round(time.perf_counter() - started, 2), "parsed": parsed, "in_schema": in_schema,
             "verdict": verdict, "reason": reason, "cut": cut, "error": None}, None)


def ask(client: Any, model: str, messages: list[dict], mode: str = "json_schema", max_tokens: int = MAX_TOKENS) -> dict:
    """One judge request at temperature 0, in exactly ``mode`` (the bench measures each mode: no fallback here).

    Returns:
        ``{"mode", "content", "finish_reason", "seconds", "parsed", "in_schema", "verdict", "reason", "cut",
        "error"}``.  A refused or failed request (a server without ``response_format``, a server down)
        is a row with ``error`` set.  ``cut``: the reply stopped at ``max_tokens`` (``finish_reason``
        "length", the Chat Completions API) before a whole object of ``SCHEMA``: ``verdict`` is None and
        ``reason`` says so in Chinese (``judge.cut``) - a cut reply is no verdict, neither pass nor fail.
        A reply that ends in a whole object of ``SCHEMA`` is read even at "length".
    Raises:
        KeyError: an unknown ``mode`` (one of ``MODES``).
    """
    return _ask(client, model, messages, mode, max_tokens)[0]


def format_refused(error: BaseException | None) -> bool:
    """Whether ``error`` is a provider refusing the request's ``response_format``.

    That is an HTTP 400 or 422 (``openai.BadRequestError``, ``openai.UnprocessableEntityError``: their
    ``status_code``) whose text or body names it (``FORMAT_WORDS``).  Any other failure - a full context,
    a wrong key, a server that is down - is not: the next mode would fail the same way.
    """
    if getattr(error, "status_code", None) not in (400, 422):
        return False
    text = f"{error} {getattr(error, 'body', '')}".lower()
    return any(word in text for word in FORMAT_WORDS)


def ask_falling_back(client: Any, model: str, messages: list[dict], mode: str = "json_schema",
                     max_tokens: int = MAX_TOKENS, show: Callable[[str], Any] | None = print) -> dict:
    """``ask`` in ``mode``, or in the next mode down (``FALLBACK``: json_schema, json_object, prompt)
    when the provider refuses it, in whatever words.

    A 400/422 whose text names the format (``format_refused``: DeepSeek, OpenAI, DashScope) is a refusal
    at once.  Any other 400/422 in a mode with a ``response_format`` is tried in the next mode down too:
    when a mode without that ``response_format`` then works, the refusal was the format's - whatever the
    provider wrote (SiliconFlow: ``{"code": 20024, "message": "Json mode is not supported for this model."}``).
    When every mode down to ``prompt`` fails as well, it was not about the format (a full context, a
    wrong model name): the row is the asked mode's error row and nothing is remembered.  That costs at most
    two more refused requests (400s, no text generated).

    A refusal is remembered in ``REFUSED`` for this client's base URL and ``model`` for the rest of
    the kernel, so the next requests start at a mode that works and pay for no second refusal;
    ``show`` gets one sentence per refused mode (``judge.mode_refused``; None = silent).
    The ``prompt`` mode sends no ``response_format`` and is never counted as refused.  Any other failure
    (a connection error, 401, 429, 5xx) is the row at once.
    Returns:
        ``ask``'s row, its ``mode`` the mode used, plus ``asked_mode`` (``mode``).
    Raises:
        KeyError: an unknown ``mode`` (one of ``MODES``).
    """
    if mode not in MODES:
        raise KeyError(mode)
    modes = list(FALLBACK[FALLBACK.index(mode):]) if mode in FALLBACK else [mode]
    refused = REFUSED.setdefault((base_url(client), model), set())
    tried = [m for m in modes if m not in refused] or modes[-1:]

    def remember(candidate: str, error_text: str, next_mode: str) -> None:
        refused.add(candidate)
        if show is not None:
            show(t("judge.mode_refused", server=base_url(client), model=model, mode=candidate, error=error_text,
                   next=next_mode))

    row: dict = {}
    unsure: list[tuple[str, dict]] = []  # modes refused with a 400/422 that did not name the format, and their rows
    for k, candidate in enumerate(tried):
        row, error = _ask(client, model, messages, candidate, max_tokens)
        if error is None:
            for unsure_mode, unsure_row in unsure:  # a mode without that response_format works: it was the format
                remember(unsure_mode, unsure_row["error"], candidate)
            break
        if candidate == "prompt" or k == len(tried) - 1 or getattr(error, "status_code", None) not in (400, 422):
            break
        if format_refused(error):
            remember(candidate, row["error"], tried[k + 1])
        else:
            unsure.append((candidate, row))
    if unsure and row.get("error"):  # every mode failed: not the format; the asked mode's own error
        row = unsure[0][1]
    return {**row, "asked_mode": mode}


def cache_key(client: Any, model: str, case: Case, messages: list[dict], mode: str, max_tokens: int) -> str:
    """``JUDGED``'s key for one judge request: everything that decides its reply.

    The server (``base_url``) and the model, the messages (judge prompt, question, key in words,
    answer), the mode and the ``response_format`` it sends (the schema), ``max_tokens``, and the
    case's answer key itself (numbers, words, kind).  A JSON string, sorted keys.
    """
    return json.dumps({"base_url": base_url(client), "model": model, "messages": messages, "mode": mode,
                       "response_format": MODES[mode], "max_tokens": max_tokens,
                       "key": {"numbers": list(case.numbers), "words": list(case.words), "kind": case.kind}},
                      ensure_ascii=False, sort_keys=True, default=str)


def judge_answer(client: Any, model: str, case: Case, answer: str | None, system: str = SYSTEM,
                 mode: str = "json_schema", reuse: bool = True, max_tokens: int = MAX_TOKENS,
                 show: Callable[[str], Any] | None = print) -> dict:
    """The judge's row for one answer to ``case`` (``ask_falling_back``), reused from ``JUDGED`` when the
    same request (``cache_key``: server, model, messages, mode, max_tokens, answer key) was answered in
    this kernel (``reuse``).

    Only answered requests are kept: a failed request (``error``) or a reply cut at max_tokens
    (``cut``) is sent again the next time, so running the cell again once the server is back judges it.
    """
    messages = judge_messages(case.question, key_text(case), answer or "（没有回答）", system)
    key = cache_key(client, model, case, messages, mode, max_tokens)
    if reuse and key in JUDGED:
        return JUDGED[key]
    row = ask_falling_back(client, model, messages, mode, max_tokens, show)
    if row["error"] is None and not row["cut"]:
        JUDGED[key] = row
    return row


def judge_runs(client: Any, model: str, runs: Iterable[Any], system: str = SYSTEM, mode: str = "json_schema",
               reuse: bool = True, max_tokens: int = MAX_TOKENS, show: Callable[[str], Any] | None = print) -> list[dict]:
    """``judge_answer`` for each ``evaluation.CaseRun``; one row per run, with its ``id`` and the code's verdict.

    The judge reads only the answer, so its verdict is compared with the code's verdict on the
    answer (``checks["answer_ok"]``), not with the trajectory check.
    Returns:
        ``[{"id", "code": bool, "judge": bool | None, "reason", "mode", "asked_mode", "cut", "error",
        ...ask's keys}]``; ``judge`` is None when there is no verdict - a failed request, a cut
        reply, a reply without a verdict of the enum (``outcomes`` counts them apart).
    """
    rows = []
    for run in runs:
        row = judge_answer(client, model, run.case, run.result.answer, system, mode, reuse, max_tokens, show)
        verdict = row["verdict"]
        rows.append({"id": run.case.id, "code": bool(run.checks["answer_ok"]), "judge": None if verdict is None else verdict == "pass",
                     **row})
    return rows


def outcomes(rows: Iterable[dict]) -> dict[str, int]:
    """How the judge's rows ended, each counted once: ``{"verdict", "cut", "error", "unreadable"}``.

    ``verdict``: "pass" or "fail" was read; ``cut``: the reply stopped at max_tokens (``ask``);
    ``error``: the request failed; ``unreadable``: a whole reply without a verdict of the enum.
    Rows of ``ask``, ``judge_answer`` or ``judge_runs``.
    """
    counts = {"verdict": 0, "cut": 0, "error": 0, "unreadable": 0}
    for row in rows:
        kind = ("error" if row.get("error") else "cut" if row.get("cut")
                else "verdict" if row.get("verdict") in ("pass", "fail") else "unreadable")
        counts[kind] += 1
    return counts
