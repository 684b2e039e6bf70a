"""What notebooks 02 and 09 send through course_lib.memory, pinned to the reference record.

The notebooks run in CI on the real model and their replies are compared with
bench/results/reference_replies.json (the request bodies of one reference run).  Here the
notebooks' own memory cells run again (their source, read from the .ipynb) against the fake
server, which answers each request with the recorded reply; every request must be the recorded
one, byte for byte (the messages as JSON).  09's record was re-made after issue 30, which sends the
summary and the next question as one user message; the test checks that too.
"""

from __future__ import annotations

import json

import nbformat
import pandas as pd

from course_lib.memory import ShortTermMemory
from fakes import FakeLLM
from notebook_cells import ROOT

RECORD = json.loads((ROOT / "bench" / "results" / "reference_replies.json").read_text(encoding="utf-8"))
# usage.prompt_tokens of notebook 09's compressed run in the reference run, turn by turn, and of its summary
# request (TEACHER_GUIDE.zh.md, notebook 09: "压缩 46、80、127、73、105，另外写摘要的那次请求读了 229 个").
# SummaryMemory.note_usage takes them, so they decide, with the estimate, when the summary is written.
COMPRESSED_PROMPT_TOKENS = [46, 80, 127, 229, 73, 105]


def cell_source(stem: str, marker: str) -> str:
    """The source of the one code cell of notebooks/<stem>.ipynb that contains ``marker``."""
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    (source,) = [c.source for c in nb.cells if c.cell_type == "code" and marker in c.source]
    return source


def recorded(stem: str, cell: int) -> list[dict]:
    return [entry for entry in RECORD["notebooks"][stem] if entry["cell"] == cell]


def reply(entry: dict, prompt_tokens: int = 1) -> dict:
    return {"content": entry["content"], "finish_reason": entry["finish_reason"],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 7, "total_tokens": prompt_tokens + 7}}


def as_sent(body: dict) -> tuple[str, object, object]:
    """What of a request body must not change: the messages as JSON (key order included), max_tokens, temperature."""
    return json.dumps(body["messages"], ensure_ascii=False), body.get("max_tokens"), body.get("temperature")


def test_notebook_09_sends_what_the_reference_run_sent_with_the_summary_and_the_question_as_one_message():
    entries = recorded("09_memory_and_mcp", 5)
    assert len(entries) == 11  # 5 trimmed turns; 3 compressed turns, the summary request, 2 compressed turns
    tokens = [1] * 5 + COMPRESSED_PROMPT_TOKENS
    fake = FakeLLM([reply(e, n) for e, n in zip(entries, tokens)])
    namespace = {"client": fake.client(), "MODEL": "fake-model"}
    exec(cell_source("09_memory_and_mcp", "def talk("), namespace)
    exec(cell_source("09_memory_and_mcp", "compressed = SummaryMemory("), namespace)
    assert namespace["summary_turns"] == [4], "the summary is written when the 4th question comes, as recorded"
    assert len(fake.requests) == len(entries)
    for body, entry in zip(fake.requests, entries):
        assert as_sent(body) == as_sent(entry["request"])
    # turns 4 and 5 after the summary (issue 30): the summary and question 4 go out as one user message, never
    # two user messages in a row (strict chat templates refuse them)
    summary_text = entries[8]["content"]
    for body in fake.requests[9:]:
        roles = [m["role"] for m in body["messages"]]
        assert roles[:2] == ["system", "user"] and all(a != b for a, b in zip(roles[1:], roles[2:])), roles
        assert summary_text.strip() and summary_text.strip() in body["messages"][1]["content"]


def test_notebook_02_sends_what_the_reference_run_sent():
    entries = recorded("02_memory", 37)
    history = recorded("02_memory", 15)[-1]  # the full history after section 2: what cell 37 reads from
    messages = history["request"]["messages"] + [{"role": "assistant", "content": history["content"]}]
    fake = FakeLLM([reply(e) for e in entries])
    namespace = {"client": fake.client(), "MODEL": "fake-model", "ShortTermMemory": ShortTermMemory, "pd": pd,
                 "messages": messages, "SYSTEM": messages[0],
                 "user_texts": [m["content"] for m in messages if m["role"] == "user"]}  # cell 17's user_texts
    exec(cell_source("02_memory", "short = ShortTermMemory(max_messages=4"), namespace)
    assert len(fake.requests) == len(entries) == 6
    for body, entry in zip(fake.requests, entries):
        assert as_sent(body) == as_sent(entry["request"])
