"""BFCL, the Berkeley Function Calling Leaderboard, on the course's model (``python -m bench --parts bfcl``).

BFCL's non-live single-turn categories test what notebooks 03-06 teach: one
call (``simple_python``), choosing among several functions (``multiple``),
several calls in one reply (``parallel``, ``parallel_multiple``) and no call
at all when no function fits (``irrelevance``).  The questions, functions,
possible answers and the AST checker are bfcl-eval's own (PyPI package
``bfcl-eval``, pinned in ``requirements-bench-nodeps.txt``); nothing of them is
copied here.  What this module adds is the glue:

* ``to_openai_tool``: a BFCL function doc as an OpenAI tool, the way BFCL's
  own OpenAI-style handlers prepare it: dots in names become underscores (the
  OpenAI API accepts only ``[a-zA-Z0-9_-]`` in a function name;
  ``math.factorial`` -> ``math_factorial``), BFCL's types become JSON-schema
  types (``dict`` -> ``object``, ``float`` -> ``number`` ...), and the
  description gets BFCL's "Python 3 syntax" note.  The checker is told the
  same (``underscore_to_dot``), so it compares ``math_factorial`` with
  ``math.factorial``;
* four configurations (``CONFIGS``), each turning one model reply into BFCL's
  decoded form ``[{name: {param: value}}]``;
* ``score``: bfcl-eval's ``ast_checker`` for the four call categories;
  ``irrelevance`` is right when the reply makes no call (BFCL's rule).

The shim: bfcl-eval's checker imports ``bfcl_eval.constants.model_config``
only to ask ``MODEL_CONFIG_MAPPING[model].underscore_to_dot``; that module
imports every vendor SDK handler (anthropic, cohere, google-genai, torch via
sentence-transformers ...), which the bench does not install.  ``load_checker``
puts a small stand-in module under that name before importing the checker; it
holds one entry, ``MODEL_KEY``, with ``underscore_to_dot=True``.  That is the
whole shim (tested in ``tests/test_bfcl.py``).

Sampling: ``--bfcl-sample N`` takes N entries per category, drawn with
``random.Random(seed)`` from the category's ids (0 = the whole category); the
same seed gives the same entries on every machine.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import sys
import time
import types
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable

CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]
BFCL_PACKAGE = "bfcl-eval"
# No underscore in it: the checker turns "_" into "/" before its look-up.
MODEL_KEY = "course-local-model"
PYTHON_NOTE = " Note that the provided function is in Python 3 syntax."
# BFCL's parameter types -> JSON-schema types (the Python categories use the first eleven).
OPENAPI_TYPES = {
    "integer": "integer", "number": "number", "float": "number", "string": "string", "boolean": "boolean",
    "bool": "boolean", "array": "array", "list": "array", "dict": "object", "object": "object",
    "tuple": "array", "any": "string",
}
# What a prompt-based run's tool returns (BFCL's single-turn entries have no real results).
REACT_OBSERVATION = "done"

CONFIGS = {
    "a": "llama-server parses tool calls itself, GGUF's built-in chat template (no --chat-template-file)",
    "b": "llama-server parses tool calls itself, the course's chat template (course_runtime/chat_template.jinja)",
    "c": "(b)'s replies read by the course's tool-call layer (course_lib.tool_calls.read_assistant: "
         "calls written as text recovered, arguments repaired)",
    "d": "notebook 05's prompt-based protocol B (course_lib.react.JsonReAct): no tools= in the request, "
         "the functions listed in the system prompt, every Action run with the result \"done\"",
}


# Computed from another configuration's stored replies, no requests of their own.
DERIVED = {
    "a+c": "(a)'s replies read by the course's tool-call layer, as in (c) (no extra requests)",
}
CONTENT_KEPT = 4000  # characters of a reply kept in a row (enough to read its calls again)


class BfclMissing(RuntimeError):
    """bfcl-eval is not installed (``python course.py bench`` installs it into .venv-bench)."""


# --------------------------------------------------------------------------- names and schemas
def api_name(name: str) -> str:
    """A BFCL function name the OpenAI API accepts: dots become underscores (``math.factorial`` -> ``math_factorial``)."""
    return re.sub(r"\.", "_", name)


def _openapi_properties(properties: dict) -> dict:
    out = {}
    for key, spec in properties.items():
        spec = dict(spec)
        kind = spec.get("type")
        if kind == "float":
            spec["format"] = "float"
            spec["description"] = spec.get("description", "") + " This is a float type value."
        spec["type"] = OPENAPI_TYPES.get(kind, "string")
        if "properties" in spec and spec["type"] in ("object", "array"):
            spec["properties"] = _openapi_properties(spec["properties"])
        if isinstance(spec.get("items"), dict):
            items = dict(spec["items"])
            if "type" in items:
                items["type"] = OPENAPI_TYPES.get(items["type"], "string")
            if "properties" in items:
                items["properties"] = _openapi_properties(items["properties"])
            if isinstance(items.get("items"), dict) and "type" in items["items"]:
                items["items"] = dict(items["items"], type=OPENAPI_TYPES.get(items["items"]["type"], "string"))
            spec["items"] = items
        out[key] = spec
    return out


def to_openai_tool(function: dict) -> dict:
    """One BFCL function doc as an OpenAI tool ``{"type": "function", "function": {...}}`` (a new dict).

    Name with dots -> underscores; ``parameters.type`` -> ``"object"``; every
    parameter type mapped by ``OPENAPI_TYPES`` (unknown -> ``"string"``; a
    ``float`` also says so in its description, as BFCL does); the description
    ends with BFCL's note that the function is Python 3.
    """
    fn = copy.deepcopy(function)
    fn["name"] = api_name(fn["name"])
    fn["description"] = fn.get("description", "") + PYTHON_NOTE
    params = fn.setdefault("parameters", {})
    params["type"] = "object"
    params["properties"] = _openapi_properties(params.get("properties", {}))
    return {"type": "function", "function": fn}


# --------------------------------------------------------------------------- decoding replies
@dataclass
class Decoded:
    """One reply in BFCL's decoded form.

    ``calls``: ``[{name: {param: value}}, ...]``, or None when the reply could
    not be decoded as calls (text, broken JSON); ``note``: why, for the report.
    """

    calls: list[dict] | None
    note: str = ""

    @property
    def made_a_call(self) -> bool:
        """BFCL's test for irrelevance: a decodable, non-empty list of ``{name: {...}}`` calls."""
        calls = self.calls
        return (isinstance(calls, list) and bool(calls) and
                all(isinstance(c, dict) and len(c) == 1 and isinstance(next(iter(c.values())), dict) for c in calls)
                and not (len(calls) == 1 and not calls[0]))


def decode_server_calls(message: dict) -> Decoded:
    """Configurations (a) and (b): the server's ``tool_calls`` as they are, as BFCL reads an OpenAI reply.

    No ``tool_calls``: the reply is text, nothing to decode.  ``arguments`` that
    are not a JSON object: the whole reply fails to decode (BFCL's handler
    raises there too).
    """
    raw = message.get("tool_calls") or []
    if not raw:
        return Decoded(None, "text only")
    calls = []
    for call in raw:
        fn = call.get("function") or {}
        try:
            args = json.loads(fn.get("arguments") or "")
        except (TypeError, ValueError) as exc:
            return Decoded(None, f"arguments not JSON: {exc}")
        if not isinstance(args, dict):
            return Decoded(None, "arguments not an object")
        calls.append({fn.get("name", ""): args})
    return Decoded(calls)


def decode_course_layer(message: dict, tool_names: list[str]) -> Decoded:
    """Configuration (c): ``course_lib.tool_calls.read_assistant`` on the same reply.

    Calls written as text in ``content`` are recovered, names matched to the
    offered tools, arguments repaired (encoded twice, raw newlines, quotes
    around a whole value of a recovered call).  A reply the layer answers with
    an error (broken JSON, an unknown tool) or a call whose arguments stay
    unreadable is not decoded: the course's loop would send an error back.
    """
    from course_lib.tool_calls import read_assistant

    turn = read_assistant(message, tool_names)
    if turn.error:
        return Decoded(None, "layer error: " + turn.error[:80])
    if not turn.calls:
        return Decoded(None, "text only")
    if any(c.arguments is None for c in turn.calls):
        return Decoded(None, "unreadable arguments")
    note = "recovered from text" if any(c.recovered for c in turn.calls) else ""
    return Decoded([{c.name: c.arguments} for c in turn.calls], note)


# --------------------------------------------------------------------------- bfcl-eval: data and checker
def _stub_model_config() -> types.ModuleType:
    """The stand-in for ``bfcl_eval.constants.model_config``: one model, ``underscore_to_dot`` on."""
    module = types.ModuleType("bfcl_eval.constants.model_config")
    module.__doc__ = "bench/bfcl.py's stand-in: the checker only reads underscore_to_dot."
    module.MODEL_CONFIG_MAPPING = {MODEL_KEY: types.SimpleNamespace(underscore_to_dot=True, is_fc_model=True)}
    return module


def load_checker() -> tuple[Callable[..., dict], Any]:
    """bfcl-eval's ``ast_checker`` and its ``Language`` enum, imported through the shim.

    Raises:
        BfclMissing: bfcl-eval is not installed.
    """
    try:
        import bfcl_eval  # noqa: F401
    except ImportError:
        raise BfclMissing(f"{BFCL_PACKAGE} is not installed (python course.py bench installs it)") from None
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        sys.modules[name] = _stub_model_config()
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    return ast_checker, Language


def _data_dir() -> Path:
    try:
        return Path(str(resources.files("bfcl_eval") / "data"))
    except ModuleNotFoundError:
        raise BfclMissing(f"{BFCL_PACKAGE} is not installed (python course.py bench installs it)") from None


def _read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_category(category: str) -> list[dict]:
    """The entries of one category from bfcl-eval's data: ``{id, question, function, answer}``.

    ``answer`` is the possible-answer list (None for irrelevance, which has none).
    """
    folder = _data_dir()
    exact = re.compile(rf"BFCL_v\d+_{re.escape(category)}\.json")  # not live_multiple for multiple
    files = sorted(p for p in folder.glob("BFCL_v*.json") if exact.fullmatch(p.name))
    if not files:
        raise BfclMissing(f"no data file for {category} in {folder}")
    entries = _read_lines(files[-1])
    answers_file = folder / "possible_answer" / files[-1].name
    answers = {a["id"]: a["ground_truth"] for a in _read_lines(answers_file)} if answers_file.exists() else {}
    return [dict(e, answer=answers.get(e["id"])) for e in entries]


def _index(entry_id: str) -> int:
    return int(entry_id.rsplit("_", 1)[-1])


def sample(entries: list[dict], n: int, seed: int) -> list[dict]:
    """``n`` entries drawn with ``random.Random(seed)`` (all when ``n`` is 0 or more than there are), in id order."""
    if n <= 0 or n >= len(entries):
        return sorted(entries, key=lambda e: _index(e["id"]))
    chosen = random.Random(seed).sample(sorted(entries, key=lambda e: _index(e["id"])), n)
    return sorted(chosen, key=lambda e: _index(e["id"]))


def score(category: str, entry: dict, decoded: Decoded, checker: Callable[..., dict] | None = None,
          language: Any = None) -> tuple[bool, str]:
    """Whether ``decoded`` answers ``entry`` by BFCL's rules; ``(valid, why)``.

    ``irrelevance``: valid when no call was made.  The other categories: the
    decoded calls through bfcl-eval's ``ast_checker`` with the entry's original
    function docs and possible answers (dotted names; the checker applies
    ``underscore_to_dot`` itself).
    """
    if category == "irrelevance":
        return (not decoded.made_a_call), ("" if not decoded.made_a_call else "made a call")
    if decoded.calls is None:
        return False, decoded.note or "no call"
    if checker is None:
        checker, language = load_checker()
    result = checker(entry["function"], decoded.calls, entry["answer"], language.PYTHON, category, MODEL_KEY)
    return bool(result["valid"]), "" if result["valid"] else f"{result.get('error_type')}: {str(result.get('error'))[:160]}"


# --------------------------------------------------------------------------- running one entry
def question_text(entry: dict) -> str:
    """The user text of a single-turn entry (its user messages joined)."""
    return "\n".join(m["content"] for m in entry["question"][0] if m.get("role") == "user")


def run_fc(client: Any, model: str, entry: dict, max_tokens: int) -> dict:
    """One request with ``tools=`` (configurations a, b, c): the assistant message as a dict, and timing."""
    tools = [to_openai_tool(f) for f in entry["function"]]
    started = time.perf_counter()
    response = client.chat.completions.create(model=model, messages=entry["question"][0], tools=tools,
                                              temperature=0, max_tokens=max_tokens)
    choice = response.choices[0]
    message = choice.message.model_dump(exclude_none=True)
    usage = response.usage
    return {"message": message, "finish_reason": choice.finish_reason, "seconds": round(time.perf_counter() - started, 2),
            "requests": 1, "prompt_tokens": getattr(usage, "prompt_tokens", None),
            "completion_tokens": getattr(usage, "completion_tokens", None)}


def run_react(client: Any, model: str, entry: dict, max_tokens: int, max_steps: int) -> tuple[Decoded, dict]:
    """Configuration (d): notebook 05's ``JsonReAct`` with the entry's functions as tools.

    Each function is a course ``Tool`` whose body records the call and returns
    ``REACT_OBSERVATION``; the registry checks the arguments first (a call with
    a missing or unknown parameter does not run, the model reads why).  The
    decoded calls are those that ran, in order.
    """
    from course_lib.react import JsonReAct
    from course_lib.tools.registry import Tool, ToolRegistry

    ran: list[dict] = []

    def recorder(name: str) -> Callable[..., str]:
        def call(**arguments: Any) -> str:
            ran.append({name: dict(arguments)})
            return REACT_OBSERVATION
        return call

    schemas = [to_openai_tool(f) for f in entry["function"]]
    registry = ToolRegistry([Tool(s["function"]["name"], recorder(s["function"]["name"]), s) for s in schemas])
    loop = JsonReAct(client, model, registry, max_steps=max_steps, max_tokens=max_tokens, temperature=0, trace=None)
    started = time.perf_counter()
    result = loop.run(question_text(entry))
    info = {"seconds": round(time.perf_counter() - started, 2), "requests": len(loop.steps),
            "stopped_reason": result.stopped_reason, "answer": (result.answer or "")[:200]}
    return (Decoded(ran) if ran else Decoded(None, "no action ran")), info


# --------------------------------------------------------------------------- servers
def builtin_template_args(args: list[str], port: int) -> list[str]:
    """The course's llama-server command line without ``--chat-template-file`` (so ``--jinja`` uses the
    GGUF's own template), on ``port``, without the slot save path (nothing to share with the course server)."""
    out, skip = [], 0
    for k, arg in enumerate(args):
        if skip:
            skip -= 1
            continue
        if arg in ("--chat-template-file", "--slot-save-path"):
            skip = 1
            continue
        if arg == "--port":
            out += ["--port", str(port)]
            skip = 1
            continue
        out.append(arg)
    return out


class BuiltinTemplateServer:
    """A second llama-server, the GGUF's built-in chat template, on its own port (configuration a).

    ``with BuiltinTemplateServer(port) as base_url: ...``; stopped on exit.
    """

    def __init__(self, port: int, log: Path):
        self.port, self.log = port, log
        self.proc = None

    def __enter__(self) -> str:
        import subprocess

        from course_runtime import local_server

        args = builtin_template_args(local_server.server_args(local_server.model_path()), self.port)
        root = f"http://127.0.0.1:{self.port}"
        if local_server.health(root=root) is not None:
            raise RuntimeError(f"something already answers on port {self.port}; choose --bfcl-builtin-port")
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as fh:
            # in the server folder: the course's flags name the model relative to it (local_server.server_file)
            self.proc = subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         cwd=local_server.server_folder(), env=local_server.server_env(args))
        deadline = time.monotonic() + local_server.START_TIMEOUT_S
        while local_server.health(root=root) != "ok":
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(f"the built-in-template server did not start; see {self.log}")
            time.sleep(0.5)
        return root + "/v1"

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except Exception:  # noqa: BLE001
                self.proc.kill()
        self.proc = None


# --------------------------------------------------------------------------- the part
@dataclass
class Settings:
    """What a BFCL run is: categories, sample size per category (0 = all), seed, request limits."""

    categories: list[str]
    sample: int = 50
    seed: int = 24
    max_tokens: int = 256  # per request; enough for four fenced calls, and a cut-off chat reply costs less
    max_steps: int = 4

    def key(self) -> dict:
        return {"categories": self.categories, "sample": self.sample, "seed": self.seed,
                "max_tokens": self.max_tokens, "max_steps": self.max_steps}


def _client(base_url: str) -> Any:
    import httpx2
    import openai

    return openai.OpenAI(base_url=base_url, api_key="not-needed", max_retries=0,
                         http_client=httpx2.Client(timeout=1200, trust_env=False))


def _row(config: str, category: str, entry: dict, decoded: Decoded, info: dict, checker: Any, language: Any,
         content: str | None) -> dict:
    valid, why = score(category, entry, decoded, checker, language)
    return {"config": config, "category": category, "id": entry["id"], "valid": valid, "why": why,
            "calls": decoded.calls, "note": decoded.note, "content": (content or "")[:CONTENT_KEPT], **info}


def rows_file(configs: list[str], settings: Settings) -> str:
    """The name of the file a run appends its rows to: one per configuration group and settings."""
    return (f"bfcl-rows-{''.join(configs)}-n{settings.sample}-seed{settings.seed}-t{settings.max_tokens}"
            f"-s{settings.max_steps}.jsonl")


def interleave(chosen: dict[str, list[dict]]) -> list[tuple[str, dict]]:
    """``(category, entry)`` pairs, round robin over the categories: a run stopped early has about as many
    entries of each category."""
    out, k = [], 0
    while any(k < len(entries) for entries in chosen.values()):
        out += [(category, entries[k]) for category, entries in chosen.items() if k < len(entries)]
        k += 1
    return out


def read_rows(path: Path) -> list[dict]:
    """The rows saved so far (one JSON object per line; a half-written last line is ignored)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            pass
    return rows


def run_configs(configs: list[str], settings: Settings, course_url: str, model: str, builtin_port: int,
                log_dir: Path, progress: Callable[[str], None] = print,
                before_config: Callable[[], None] | None = None, rows_path: Path | None = None,
                deadline: float | None = None) -> list[dict]:
    """Every sampled entry through every configuration; one row per (configuration, entry).

    (b) and (c) share their requests: (c) reads (b)'s replies with the course's layer.  Entries go round
    robin over the categories.  With ``rows_path``, every row is appended there as soon as it is scored,
    and an entry whose rows are already there is not asked again (a stopped run goes on where it was).
    ``deadline`` (``time.monotonic()``): no new entry is asked after it.
    """

    def late() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    checker, language = load_checker()
    chosen = {c: sample(load_category(c), settings.sample, settings.seed) for c in settings.categories}
    order = interleave(chosen)
    ids = {entry["id"] for _, entry in order}
    latest = {(r["config"], r["id"]): r for r in (read_rows(rows_path) if rows_path else []) if r["id"] in ids}
    saved = [r for r in latest.values() if not r.get("error")]  # a failed request is asked again
    done = {(r["config"], r["id"]) for r in saved}
    rows: list[dict] = [r for r in saved if r["config"] in configs]

    def keep(new: list[dict]) -> None:
        rows.extend(new)
        if rows_path:
            rows_path.parent.mkdir(parents=True, exist_ok=True)
            with open(rows_path, "a", encoding="utf-8") as fh:
                fh.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in new))

    def fc_pass(url: str, names: list[str]) -> None:
        client = _client(url)
        for category, entry in order:
            if all((n, entry["id"]) in done for n in names):
                continue
            if late():
                return
            try:
                reply = run_fc(client, model, entry, settings.max_tokens)
            except Exception as exc:  # noqa: BLE001 - one failed request must not end the run
                reply = {"message": {}, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
            message = reply.pop("message")
            info = {k: v for k, v in reply.items()}
            content = message.get("content")
            new = []
            for name in ("a", "b"):
                if name in names:
                    new.append(_row(name, category, entry, decode_server_calls(message), info, checker, language,
                                    content))
            if "c" in names:
                tool_names = [api_name(f["name"]) for f in entry["function"]]
                new.append(_row("c", category, entry, decode_course_layer(message, tool_names), info, checker,
                                language, content))
            keep(new)
            marks = " ".join(f"{r['config']}:{'ok' if r['valid'] else '--'}" for r in new)
            progress(f"{category:17} {entry['id']:22} {marks}  {info.get('seconds', '?')} s")

    if "a" in configs and not late():
        with BuiltinTemplateServer(builtin_port, log_dir / "bfcl-builtin-server.log") as url:
            fc_pass(url, ["a"])
    wanted = [c for c in ("b", "c") if c in configs]
    if wanted and not late():
        if before_config:
            before_config()
        fc_pass(course_url, wanted)
    if "d" in configs and not late():
        if before_config:
            before_config()
        client = _client(course_url)
        for category, entry in order:
            if ("d", entry["id"]) in done:
                continue
            if late():
                break
            try:
                decoded, info = run_react(client, model, entry, settings.max_tokens, settings.max_steps)
            except Exception as exc:  # noqa: BLE001
                decoded, info = Decoded(None, "error"), {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
            keep([_row("d", category, entry, decoded, info, checker, language, info.get("answer"))])
            progress(f"{category:17} {entry['id']:22} d:{'ok' if rows[-1]['valid'] else '--'}  "
                     f"{info.get('requests', '?')} req {info.get('seconds', '?')} s")
    return rows


def answered(rows: list[dict]) -> list[dict]:
    """The rows whose request did not fail (a timeout or a server error is no answer, right or wrong)."""
    return [r for r in rows if not r.get("error")]


def common_rows(rows: list[dict]) -> list[dict]:
    """The rows of the entries that every configuration in ``rows`` answered (a run stopped early
    leaves the slower configurations with fewer); failed requests left out."""
    rows = answered(rows)
    configs = {r["config"] for r in rows}
    by_id: dict[str, set] = {}
    for r in rows:
        by_id.setdefault(r["id"], set()).add(r["config"])
    return [r for r in rows if by_id[r["id"]] == configs]


def derived_rows(rows: list[dict], entries: dict[str, dict]) -> list[dict]:
    """Rows "a+c": every answered (a) row read again by the course's layer, from its stored reply.

    (a)'s server parsed no call from the text: its stored ``content`` is the whole reply when it is
    shorter than the row keeps (earlier runs kept 300 characters: longer replies are left out and
    counted in ``note``); a row whose server did parse calls keeps them.
    """
    checker, language = load_checker()
    out = []
    for row in answered(rows):
        if row["config"] != "a":
            continue
        entry = entries[row["id"]]
        if row["calls"] is not None:
            decoded = Decoded(row["calls"])
        elif len(row.get("content") or "") in (300, CONTENT_KEPT):
            continue  # cut when stored: cannot be read again
        else:
            message = {"role": "assistant", "content": row.get("content") or None}
            decoded = decode_course_layer(message, [api_name(f["name"]) for f in entry["function"]])
        valid, why = score(row["category"], entry, decoded, checker, language)
        out.append(row | {"config": "a+c", "valid": valid, "why": why, "calls": decoded.calls, "note": decoded.note})
    return out


def summary(rows: list[dict], categories: list[str]) -> dict:
    """``{config: {category: [valid, total], "all": [valid, total]}}``."""
    out: dict = {}
    for row in rows:
        per = out.setdefault(row["config"], {})
        cell = per.setdefault(row["category"], [0, 0])
        cell[0] += int(row["valid"])
        cell[1] += 1
    for per in out.values():
        per["all"] = [sum(per[c][0] for c in categories if c in per), sum(per[c][1] for c in categories if c in per)]
    return dict(sorted(out.items()))


def merge(earlier: dict | None, new: dict, configs: list[str]) -> dict:
    """``new`` plus the rows of ``earlier``'s configurations not re-run, when both used the same settings."""
    if not earlier or earlier.get("settings") != new["settings"]:
        return new
    kept = [r for r in earlier["rows"] if r["config"] not in configs]
    runs = {k: v for k, v in earlier.get("runs", {}).items() if k not in configs} | new["runs"]
    return new | {"rows": kept + new["rows"], "runs": dict(sorted(runs.items()))}


# The closest published figures, checked against the leaderboard's own data: data_non_live.csv on the gh-pages
# branch of ShishirPatil/gorilla at commit afae8688b69c030bca07a996cc35499f12ebef96 (2025-04-30, the 2025-04-25
# checkpoint; the same values since 2025-03-18), and for the FC model the per-category score files of
# HuanzhiMao/BFCL-Result (2025-04-25/score/Qwen_Qwen2.5-1.5B-Instruct-FC/, e.g. simple 369/400, irrelevance
# 155/240).  These are the columns that match this part's categories: Python simple alone, and non-live
# irrelevance alone.  The BFCL paper's Table 1 (Patil et al., ICML 2025, https://proceedings.mlr.press/v267/
# patil25a.html) gives the same model 72.4 / 71.0 "Simple" (the mean of Python, Java and JavaScript) and
# 62.7 / 63.0 "Irrelevance" (the mean of non-live and live), so its figures are not comparable column for column.
# Qwen2.5-1.5B-Instruct is the base model of the course's Qwen2.5-Coder-1.5B-Instruct; BFCL never listed a Coder
# variant, and dropped the Qwen2.5 models at its 2025-06-14 update, so no figure exists on the newer data of the
# bfcl-eval release this part runs.
LEADERBOARD = {
    "source": "BFCL leaderboard, data_non_live.csv of the 2025-04-25 checkpoint (gh-pages of ShishirPatil/gorilla, "
              "commit afae868; https://gorilla.cs.berkeley.edu/leaderboard.html); Python simple and non-live "
              "irrelevance alone. The paper's Table 1 (Patil et al., ICML 2025, "
              "https://proceedings.mlr.press/v267/patil25a.html) averages simple over Python, Java and JavaScript "
              "(72.4 FC / 71.0 Prompt) and irrelevance over non-live and live (62.7 / 63.0). BFCL never listed "
              "Qwen2.5-Coder-1.5B-Instruct and dropped Qwen2.5 at its 2025-06-14 update, so these are on older "
              "BFCL data than the bfcl-eval release used here",
    "rows": {
        "Qwen2.5-1.5B-Instruct (FC)": {"simple_python": 92.25, "multiple": 87.0, "parallel": 81.5,
                                       "parallel_multiple": 75.5, "irrelevance": 64.58},
        "Qwen2.5-1.5B-Instruct (Prompt)": {"simple_python": 89.0, "multiple": 86.0, "parallel": 70.0,
                                           "parallel_multiple": 66.5, "irrelevance": 65.42},
    },
}


def _table(table: dict, cats: list[str]) -> list[str]:
    lines = ["| configuration | " + " | ".join(cats) + " | all |", "|---|" + "---|" * (len(cats) + 1)]
    for config, per in table.items():
        cells = [f"{per[c][0]}/{per[c][1]}" if c in per else "-" for c in cats]
        valid, total = per["all"]
        pct = f" ({100 * valid / total:.0f} %)" if total else ""
        lines.append(f"| ({config}) | " + " | ".join(cells) + f" | {valid}/{total}{pct} |")
    return lines


def markdown(results: dict) -> str:
    """The Markdown report: the table per category and configuration, then what each configuration is."""
    settings = results["settings"]
    cats = settings["categories"]
    common = common_rows(results["rows"])
    size = "whole categories" if not settings["sample"] else f"{settings['sample']} entries per category"
    lines = [f"# BFCL on the course model ({results['date']})", "",
             f"Berkeley Function Calling Leaderboard, non-live categories, bfcl-eval {results['bfcl_version']} "
             f"(its data and its AST checker). Sample: {size}, drawn with seed {settings['seed']} "
             f"(`random.Random({settings['seed']}).sample` over each category's ids; the ids are in `bfcl.json`), "
             f"asked round robin over the categories; temperature 0, max_tokens {settings['max_tokens']} per "
             f"request; (d) at most {settings['max_steps']} steps.", "",
             f"Machine: {results['machine']}. Model: {results['model']}.", "",
             "Correct answers per category (cells: correct/asked), on the entries that every configuration "
             "answered:", "", *_table(summary(common, cats), cats)]
    if len(common) != len(answered(results["rows"])):
        lines += ["", "Every entry each configuration answered (the run was stopped before the slower "
                  "configurations had answered them all):", "", *_table(summary(answered(results["rows"]), cats), cats)]
    failed = [r for r in results["rows"] if r.get("error")]
    if failed:
        lines += ["", "Requests that failed (not counted): " + ", ".join(f"({r['config']}) {r['id']}: {r['error'][:60]}"
                                                                       for r in failed)]
    table = summary(results["rows"], cats)
    lines += ["", "Configurations:", ""]
    lines += [f"- ({k}) {v}" for k, v in (CONFIGS | DERIVED).items() if k in table]
    lines += ["", "Function names: BFCL's names contain dots (`math.factorial`), which the OpenAI API refuses; "
              "every configuration offers them with underscores (`math_factorial`), as BFCL does for OpenAI-style "
              "models, and the checker is run with BFCL's `underscore_to_dot` setting on.", "",
              f"Published figures for the closest model ({LEADERBOARD['source']}; per cent, whole categories):", "",
              "| model | " + " | ".join(next(iter(LEADERBOARD["rows"].values()))) + " |",
              "|---|" + "---|" * len(next(iter(LEADERBOARD["rows"].values())))]
    for name, row in LEADERBOARD["rows"].items():
        lines.append(f"| {name} | " + " | ".join(str(v) for v in row.values()) + " |")
    lines += ["", "Runs (wall time, and the load average before and after each: a load above about 2 means other "
              "work shared the two cores, and the seconds are not idle timings):", ""]
    for config, runs in results.get("runs", {}).items():
        for run in runs:
            lines.append(f"- ({config}) {run['date']}: {run['rows']} rows in {run['seconds']} s, load average "
                         f"before {run['load_before']}, after {run.get('load_after', '?')}")
    return "\n".join(lines) + "\n"


def run_part(configs: list[str], settings: Settings, course_url: str, model: str, builtin_port: int, out: Path,
             command: str, keep: bool = False, before_config: Callable[[], None] | None = None,
             max_minutes: float | None = None) -> dict:
    """Run, then write ``bfcl.json`` and ``bfcl.md`` into ``out``; returns the results.

    Rows are kept in ``out/logs/bfcl-rows-*.jsonl`` as they come, so a run stopped by ``max_minutes`` (no
    new entry after that many minutes; 0 = only write the report from the rows there) or by hand goes on
    where it was when started again with the same settings.
    """
    deadline = None if max_minutes is None else time.monotonic() + 60 * max_minutes
    from importlib.metadata import version

    from .machine import meta

    head = meta(command)
    runs: dict = {}
    rows: list[dict] = []
    for group in [g for g in (["a"], ["b", "c"], ["d"]) if set(g) & set(configs)]:
        started, load = time.perf_counter(), " ".join(f"{x:.2f}" for x in os.getloadavg())
        date = time.strftime("%Y-%m-%d %H:%M %Z")
        wanted = [c for c in group if c in configs]
        rows_path = out / "logs" / rows_file(wanted, settings)
        before = len(read_rows(rows_path))
        group_rows = run_configs(wanted, settings, course_url, model, builtin_port, out / "logs",
                                 before_config=before_config, rows_path=rows_path, deadline=deadline)
        rows += group_rows
        asked = len(read_rows(rows_path)) - before
        log = rows_path.with_suffix(".runs.jsonl")
        if asked:  # one line per run that asked something: when, how long, under what load
            record = {"date": date, "seconds": round(time.perf_counter() - started, 1), "load_before": load,
                      "load_after": " ".join(f"{x:.2f}" for x in os.getloadavg()), "rows": asked}
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")
        for c in wanted:
            runs[c] = read_rows(log)
    results = {"date": head["date"], "machine": head["machine"], "model": head["model"], "server": head["server"],
               "command": command, "bfcl_version": version(BFCL_PACKAGE), "settings": settings.key(),
               "configs": CONFIGS, "leaderboard": LEADERBOARD, "runs": runs, "rows": rows}
    path = out / "bfcl.json"
    if keep and path.exists():
        results = merge(json.loads(path.read_text(encoding="utf-8")), results, configs)
    results["rows"] = [r for r in results["rows"] if r["config"] not in DERIVED]
    entries = {e["id"]: e for c in settings.categories for e in load_category(c)}
    results["rows"] += derived_rows(results["rows"], entries)
    results["summary"] = summary(answered(results["rows"]), settings.categories)
    results["summary_common"] = summary(common_rows(results["rows"]), settings.categories)
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (out / "bfcl.md").write_text(markdown(results), encoding="utf-8")
    return results
