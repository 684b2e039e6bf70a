"""The course's HTTP layer is on what the openai SDK supports going forward (issue 57, item 5).

openai 3 sends its requests with ``httpx2``; an ``httpx`` (0.x) client handed to it
works only through what the SDK's migration guide calls a temporary escape hatch
(``openai/_httpx2.py``: ``is_legacy_httpx_sync_client``).  The course's client
(``course_runtime/http_client.py``) is an ``httpx2.Client``, so nothing the course
does rests on that hatch, and no lesson file imports the older library.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import httpx2
import nbformat
import openai

from course_lib import providers

ROOT = Path(__file__).resolve().parent.parent


def test_the_client_the_lessons_get_is_an_httpx2_client_that_the_sdk_takes_as_its_own(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "custom")
    monkeypatch.setenv("COURSE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("COURSE_MODEL", "m")
    seen = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json={"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                          "choices": [{"index": 0, "finish_reason": "stop",
                                                       "message": {"role": "assistant", "content": "pong"}}]})

    client = providers.get_client(transport=httpx2.MockTransport(answer))
    assert isinstance(client._client, httpx2.Client)
    from openai import _httpx2

    assert not _httpx2.is_legacy_httpx_sync_client(client._client), "the course rests on the SDK's escape hatch"
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "pong" and seen[0]["messages"][0]["content"] == "hi"
    assert openai.__version__.split(".")[0] == "3"


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_course_file_and_no_notebook_imports_the_older_httpx():
    files = [p for d in ("course_lib", "course_runtime", "bench", "solutions") for p in (ROOT / d).rglob("*.py")]
    offenders = [str(p.relative_to(ROOT)) for p in files + [ROOT / "course.py"]
                 if "httpx" in _imports(ast.parse(p.read_text(encoding="utf-8")))]
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                try:
                    tree = ast.parse(cell.source)
                except SyntaxError:  # a cell with IPython magics
                    continue
                if "httpx" in _imports(tree):
                    offenders.append(path.name)
    assert not offenders, offenders
