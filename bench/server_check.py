"""``python -m bench.server_check URL [KEY]``: does the course's client side work against this class model server?

For a teacher's server that is not the course's own llama-server - vLLM on a
school GPU machine, Ollama - before the lesson.  It uses exactly what a
student's notebooks use: the ``classroom`` provider (``COURSE_BASE_URL`` = URL,
``COURSE_CLASS_KEY`` = KEY, ``COURSE_MODEL`` from ``--model``, default the
course's model id), ``get_client``, ``ping``, a plain and a streamed chat
(notebooks 01, 02 and the chat box), one request with ``tools`` as in notebook
03, the native agent of notebook 06 on three of 07's tasks, and notebook 10's
structured judge: one request with ``response_format={"type": "json_object"}``
and one with ``{"type": "json_schema", ...}`` (``judge.ask``, ``judge.SCHEMA``).
It prints one line per check and exits 1 if one failed; nothing is asserted
about how good the answers are, only that the course can read them.  A
provider that refuses ``json_schema`` (DeepSeek answers 400) still serves
notebook 10 - its judge falls back to ``json_object``, then to a prompt - so
that row says so and fails only when neither format works.

It is not part of ``python course.py test`` (CI has no GPU).  vLLM itself
runs only on the GPU machine; docs/classroom.md, "A bigger class", gives its command
line.  Checked here against the course's own class model server on a CPU; the
vLLM run is left for a machine with a GPU.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Callable

from course_runtime import local_server
from course_lib import judge
from course_lib.agent import Agent
from course_lib.number_check import has_number
from course_lib.providers import PRESETS, Provider, get_client, ping
from course_lib.replies import collect_stream, read_reply
from course_lib.tools import WEATHER_TOOL
from course_lib.tools.registry import default_registry

TASKS = [("T5", "上海现在的湿度是多少？", "65"), ("T6", "北京和广州现在的气温相差多少度？", "6"),
         ("T7", "店里的篮球多少钱？", "200")]


def checks(provider: Provider) -> list[tuple[str, bool, str]]:
    """Run every check; returns ``(name, passed, detail)`` rows."""
    rows: list[tuple[str, bool, str]] = []
    client = get_client(provider)
    model = provider.model

    def check(name, run):
        started = time.perf_counter()
        try:
            passed, detail = run()
        except Exception as exc:  # noqa: BLE001 - a failed check is a row, not a crash
            passed, detail = False, f"{type(exc).__name__}: {str(exc)[:200]}"
        rows.append((name, passed, f"{detail} ({time.perf_counter() - started:.1f} s)"))
        print(f"{'ok  ' if passed else 'FAIL'} {name}: {rows[-1][2]}", flush=True)

    check("ping", lambda: (True, repr(ping(client, provider))))

    def plain():
        reply = read_reply(client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "用一句话介绍你自己。"}], max_tokens=60, temperature=0))
        return bool(reply.text.strip()), f"{reply.text[:60]!r}, usage {reply.usage}"

    check("chat (01)", plain)

    def streamed():
        stream = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "你好"}],
                                                max_tokens=30, temperature=0, stream=True,
                                                stream_options={"include_usage": True})
        reply = collect_stream(stream)
        return bool(reply.text.strip()), f"{reply.chunks} chunks, {reply.text[:40]!r}, usage {reply.usage}"

    check("streamed chat (chat box)", streamed)

    def tool_call():
        reply = read_reply(client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "北京今天天气怎么样？"}], tools=[WEATHER_TOOL],
            max_tokens=120, temperature=0))
        calls = reply.message.get("tool_calls") or []
        named = [(c["function"]["name"], c["function"]["arguments"]) for c in calls]
        return bool(calls), f"finish_reason {reply.finish_reason}, tool_calls {named}, content {reply.text[:60]!r}"

    check("tool_calls (03)", tool_call)

    for task_id, question, expected in TASKS:
        def agent(question=question, expected=expected):
            result = Agent(client, model, default_registry(), max_steps=4, max_tokens=300).run(question)
            used = [r.name for s in result.steps if s.kind == "tool_calls" for r in s.tool_calls]
            right = "right" if has_number(result.answer or "", expected) else "not the expected answer"
            return (result.answer is not None,
                    f"answer {str(result.answer)[:60]!r} ({right}), tools {used}, stopped {result.stopped_reason}")

        check(f"agent (06) {task_id}", agent)

    for name, run in response_format_checks(client, model):
        check(name, run)
    return rows


def response_format_checks(client: Any, model: str) -> list[tuple[str, Callable[[], tuple[bool, str]]]]:
    """Notebook 10's two structured requests as ``(name, run)`` checks, run in order.

    Each ``run()`` sends one judge request (``judge.ask`` on a question whose answer is plainly
    right) and returns ``(passed, detail)``.  ``json_object`` passes when the reply is one JSON
    object; ``json_schema`` when it is an object of ``judge.SCHEMA`` (a server that takes the
    schema but does not hold the reply to it fails) - or when the provider refuses json_schema and
    json_object worked, because notebook 10's judge then falls back to json_object
    (``judge.ask_falling_back``): the detail says so.
    """
    probe = judge.judge_messages("20 乘以 15 等于多少？", "300", "300。")
    asked: dict[str, dict] = {}

    def structured(mode: str) -> tuple[bool, str]:
        row = asked[mode] = judge.ask(client, model, probe, mode)
        if row["error"]:
            return False, f"refused: {row['error'][:160]}"
        return row["parsed"], (f"JSON {row['parsed']}, in the judge's schema {row['in_schema']}, "
                               f"verdict {row['verdict']!r}, finish_reason {row['finish_reason']}")

    def schema() -> tuple[bool, str]:
        passed, detail = structured("json_schema")
        if asked["json_schema"]["error"]:  # refused: notebook 10's judge asks in json_object instead
            if asked.get("json_object", {}).get("parsed"):
                return True, f"{detail}; notebook 10's judge will fall back to json_object here"
            return False, detail
        return passed and asked["json_schema"]["in_schema"], detail

    return [("response_format json_object (10)", lambda: structured("json_object")),
            ("response_format json_schema (10)", schema)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.server_check", description=__doc__.split("\n")[0])
    parser.add_argument("url", help="the server's base URL, e.g. http://10.0.0.5:8000/v1")
    parser.add_argument("key", nargs="?", default="", help="the class key, if the server wants one")
    parser.add_argument("--model", default=local_server.MODEL_ALIAS, help="the model id the server answers to")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON at the end")
    opts = parser.parse_args(argv)
    provider = Provider(PRESETS["classroom"], opts.url.rstrip("/"), opts.model, opts.key)
    rows = checks(provider)
    if opts.json:
        print(json.dumps([{"check": n, "passed": p, "detail": d} for n, p, d in rows], ensure_ascii=False))
    return 0 if all(p for _, p, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
