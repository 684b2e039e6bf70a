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

The bench (``python -m bench.structured``) and notebook 10 use this one module.
"""

from __future__ import annotations

import json
import time
from typing import Any, Iterable

import jsonschema

from .eval_set import Case

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
# at max_tokens is not JSON, whatever response_format says: finish_reason "length").
MAX_TOKENS = 120
# Judged answers in this kernel: the judge's messages (JSON) and mode -> its row (``judge_answer``).
JUDGED: dict[str, dict] = {}


def key_text(case: Case) -> str:
    """A case's answer key in words, as the judge reads it (``eval_set.Case``: numbers, words, kind)."""
    if case.kind == "no_answer":
        return "查不到：店里没有这种商品，或者数据里没有这个城市。正确的回答应说明没有，不能编造。"
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


def ask(client: Any, model: str, messages: list[dict], mode: str = "json_schema", max_tokens: int = MAX_TOKENS) -> dict:
    """One judge request at temperature 0.

    Returns:
        ``{"content", "finish_reason", "seconds", "parsed", "in_schema", "verdict", "reason", "error"}``;
        a refused request (a server without ``response_format``) is a row with ``error`` set.
    Raises:
        KeyError: an unknown ``mode`` (one of ``MODES``).
    """
    extra = {} if MODES[mode] is None else {"response_format": MODES[mode]}
    started = time.perf_counter()
    try:
        response = client.chat.completions.create(model=model, messages=messages, temperature=0,
                                                  max_tokens=max_tokens, **extra)
    except Exception as exc:  # noqa: BLE001 - a refused request is a row, never a crash of the whole measurement
        return {"content": None, "finish_reason": None, "seconds": round(time.perf_counter() - started, 2),
                "parsed": False, "in_schema": False, "verdict": None, "reason": "",
                "error": f"{type(exc).__name__}: {exc}"[:300]}
    choice = response.choices[0]
    parsed, in_schema, verdict = read(choice.message.content)
    reason = json.loads(choice.message.content).get("reason", "") if parsed else ""
    return {"content": choice.message.content, "finish_reason": choice.finish_reason,
            "seconds": round(time.perf_counter() - started, 2), "parsed": parsed, "in_schema": in_schema,
            "verdict": verdict, "reason": str(reason), "error": None}


def judge_answer(client: Any, model: str, case: Case, answer: str | None, system: str = SYSTEM,
                 mode: str = "json_schema", reuse: bool = True) -> dict:
    """The judge's row for one answer to ``case`` (``ask``), reused from ``JUDGED`` when the same
    messages were judged the same way in this kernel (``reuse``)."""
    messages = judge_messages(case.question, key_text(case), answer or "（没有回答）", system)
    key = json.dumps([messages, mode], ensure_ascii=False)
    if not (reuse and key in JUDGED):
        JUDGED[key] = ask(client, model, messages, mode)
    return JUDGED[key]


def judge_runs(client: Any, model: str, runs: Iterable[Any], system: str = SYSTEM, mode: str = "json_schema",
               reuse: bool = True) -> list[dict]:
    """``judge_answer`` for each ``evaluation.CaseRun``; one row per run, with its ``id`` and the code's verdict.

    The judge reads only the answer, so its verdict is compared with the code's verdict on the
    answer (``checks["answer_ok"]``), not with the trajectory check.
    Returns:
        ``[{"id", "code": bool, "judge": bool | None (None: no readable verdict), "reason", ...ask's keys}]``.
    """
    rows = []
    for run in runs:
        row = judge_answer(client, model, run.case, run.result.answer, system, mode, reuse)
        verdict = row["verdict"]
        rows.append({"id": run.case.id, "code": bool(run.checks["answer_ok"]), "judge": None if verdict is None else verdict == "pass",
                     **row})
    return rows
