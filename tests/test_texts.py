"""course_lib.texts: every sentence a student sees comes from one table, and the table fits its callers.

The checks read the source of course_lib (ast), so a new ``t("...")`` call with
a misspelt key, a template whose placeholders do not match the fields its
caller passes, or a new English (or inline Chinese) error message in a
converted module fails here before a student ever sees it.

The table is ``TEXTS["zh"]`` as the course uses it: texts.py's own blocks plus
the tables registered from below (``texts.register``), the checkers' ``check.*``
sentences of course_lib/checkers/sentences.py among them, so course_lib.checkers
is imported first.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

import course_lib.checkers  # noqa: F401 - registers the check.* sentences (checkers/sentences.py) in TEXTS
from course_lib import texts
from course_lib.checkers import sentences
from course_lib.texts import TEXTS, t
from course_runtime import texts as table

ROOT = Path(__file__).resolve().parent.parent
LIB = ROOT / "course_lib"
RUNTIME = ROOT / "course_runtime"
ZH = TEXTS["zh"]
CJK = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")
# A string that looks like a texts key: "<area>.<what>" with an area of the table.
AREAS = sorted({key.split(".", 1)[0] for key in ZH})
KEY_RE = re.compile(r"^(?:%s)\.[a-z0-9_.]+$" % "|".join(map(re.escape, AREAS)))
# The modules that hold the tables: their keys are written there, which is not a use.
TABLES = {"texts.py", "checkers/sentences.py", "../course_runtime/texts.py"}
# Keys a caller builds at run time (no literal anywhere): mcp_client.py's t(f"mcp.{item.type}", ...).
BUILT_KEYS = {"mcp.audio", "mcp.image"}

# Modules whose student-facing sentences were moved to texts.py (issue 13).
CONVERTED = [
    "messages.py", "tool_calls.py", "recording.py", "memory.py", "loop_base.py", "agent.py", "react.py",
    "json_scan.py", "widgets.py", "debugger.py", "tables.py", "plots.py", "number_check.py",
    "tools/registry.py", "tools/calculator.py", "tools/knowledge.py", "tools/products.py", "tools/weather.py",
    "tools/orders.py", "tools/shop_notes.py", "tools/data_files.py", "multi_agent.py",
    "checkers/__init__.py", "checkers/scripted.py", *[f"checkers/nb0{n}.py" for n in range(10)], "quiz.py",
    "mcp_server.py", "mcp_client.py", "approval.py", "tracing.py", "checkers/nb10.py", "evaluation.py", "judge.py",
    "checkers/nb11.py",
    "../course_runtime/progress.py", "../course_runtime/progress_service.py", "../course_runtime/class_code.py",
]
# Chinese that is sent TO THE MODEL (prompts, tool results, corrective messages) stays next to the
# code that sends it, and so do patterns that read the model's replies: the top-level names
# (functions, classes, constants) allowed to hold Chinese.
MODEL_FACING = {
    "agent.py": {"DEFAULT_SYSTEM", "FINAL_ANSWER_PROMPT", "STOP_REASONS_TEXT", "REPEAT_NOTE", "EMPTY_REPLY_PROMPT"},
    "approval.py": {"REJECTED_TEXT", "REJECTED_REASON", "EDITED_NOTE"},  # what the model reads of a person's decision
    "react.py": {"LINE_SYSTEM_PROMPT", "JSON_SYSTEM_PROMPT", "LIMIT_OBSERVATION", "THOUGHT_LABEL_RE"},
    "widgets.py": {"DEFAULT_SYSTEM", "ChatSession"},  # ChatSession.send: the tool reply after max_steps
    "tool_calls.py": {"_kind", "read_arguments", "_available", "_error_broken", "_error_unknown", "_unreadable", "run_call"},
    "json_scan.py": {"UNCLOSED", "load_object", "find_json_object"},
    "number_check.py": {"CHINESE_DIGITS", "DISCOUNT", "PERCENT", "FULL_WIDTH", "ungrounded_numbers"},  # read the user's and the tools' text
    "memory.py": {"SUMMARY_PREFIX", "SUMMARY_PROMPT", "SUMMARY_REQUEST", "TRANSCRIPT_LABELS", "CUT_MARK"},
    "tools/registry.py": {"Tool", "ToolRegistry",  # describe_parameters / check_arguments / call: tool results
                          "QUOTE_PAIRS"},  # the Chinese quotes a model puts around a name or an input
    "tools/calculator.py": {"CALCULATOR_TOOL", "_ALLOWED", "calculate", "_evaluate", "_check_power", "_check_size"},
    "tools/knowledge.py": {"KNOWLEDGE_TOOL", "_PUNCTUATION", "search_knowledge"},
    "tools/products.py": {"PRODUCT_TOOL", "query_by_product_name"},
    "tools/orders.py": {"ORDER_TOOL", "GET_PRODUCT_TOOL", "REVIEWS_TOOL", "_product_id", "_quantity_problem",
                        "_write_order", "place_order", "get_product"},
    "tools/weather.py": {"WEATHER_TOOL", "get_weather"},
    "tools/shop_notes.py": {"NOTES_TOOL", "search_notes"},
    "tools/data_files.py": {"_CHINESE_PUNCTUATION"},  # reads a hand-edited file: the punctuation an input method types
    "multi_agent.py": {"QUESTION_PARAMETER", "INNER_NO_ANSWER", "INNER_WHY", "INNER_EMPTY_QUESTION",  # the outer model reads
                       "TRANSFERRED", "NOT_TRANSFERRED", "NOT_TRANSFERRED_WHY"},  # the front desk's tool messages
    "mcp_client.py": {"ERROR_PREFIX"},  # how a tool's failure starts in the tool message
    "evaluation.py": {"ORDER_DONE_WORDS"},  # read the model's answers
    "judge.py": {"SYSTEM", "STRICT_SYSTEM", "key_text", "judge_messages", "judge_answer"},  # the judge's prompts
    "checkers/nb10.py": {"_answers"},  # sample answers handed to the student's check
}
# A loop's trace lines stay literal in the loop's own file, where its step is (the glass box: the
# words a step prints are read next to the code that prints them): these methods may hold Chinese.
TRACE_LINES = {"agent.py": {"Agent.describe"}, "react.py": {"ReActLoop.describe"},
               "multi_agent.py": {"HandoffResult.describe"}}
# Exceptions whose message is a tool result the model reads (caught and returned as "错误：...").
RAISE_FOR_MODEL = {("tools/calculator.py", "CalculatorError"), ("json_scan.py", "ValueError")}


def _sources() -> list[tuple[str, ast.Module, str]]:
    """course_lib's modules, course_runtime's (as ``../course_runtime/x.py``) and course.py (``course.*`` keys)."""
    files = [(str(p.relative_to(LIB)), p) for p in sorted(LIB.rglob("*.py"))] + [("../course.py", ROOT / "course.py")]
    files += [(f"../course_runtime/{p.relative_to(RUNTIME).as_posix()}", p) for p in sorted(RUNTIME.rglob("*.py"))]
    return [(name, ast.parse(p.read_text(encoding="utf-8")), p.read_text(encoding="utf-8")) for name, p in files]


def _t_calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "t"
            and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)]


def _placeholders(template: str) -> set[str]:
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def test_the_scan_finds_the_calls():
    calls = sum(len(_t_calls(tree)) for _, tree, _ in _sources())
    assert calls > 200, calls  # the checkers, loops, widgets ... all go through t()


def test_every_key_used_exists_in_the_chinese_table():
    missing = []
    for name, tree, _ in _sources():
        for call in _t_calls(tree):
            if call.args[0].value not in ZH:
                missing.append(f"{name}:{call.lineno} {call.args[0].value}")
        for node in ast.walk(tree):  # keys kept in tables, e.g. loop.STOP_REASONS
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and KEY_RE.match(node.value):
                if node.value not in ZH:
                    missing.append(f"{name}:{node.lineno} {node.value}")
    assert not missing, missing


def test_every_call_passes_exactly_the_fields_of_its_template():
    wrong = []
    for name, tree, _ in _sources():
        for call in _t_calls(tree):
            key = call.args[0].value
            if key not in ZH or any(k.arg is None for k in call.keywords):  # **fields: checked at run time
                continue
            given = {k.arg for k in call.keywords}
            wanted = _placeholders(ZH[key])
            if given != wanted:
                wrong.append(f"{name}:{call.lineno} {key}: passes {sorted(given)}, template has {sorted(wanted)}")
    assert not wrong, wrong


@pytest.mark.parametrize("key", sorted(ZH))
def test_every_template_formats(key):
    fields = {name: 1 for name in _placeholders(ZH[key])}  # a number: fits "{n}" and "{value:g}" alike
    assert t(key, **fields)  # no stray "{" or unknown conversion


def test_every_chart_text_has_an_ascii_variant():
    """plots.chart_text(key) shows ``key + "_plain"`` when no Chinese font is installed."""
    keys = {c.args[0].value for _, tree, _ in _sources() for c in ast.walk(tree)
            if isinstance(c, ast.Call) and getattr(c.func, "id", None) == "chart_text"
            and c.args and isinstance(c.args[0], ast.Constant)}
    assert keys
    for key in keys:
        plain = ZH[key + "_plain"]
        assert not CJK.search(plain) and _placeholders(plain) == _placeholders(ZH[key]), key


def test_every_key_is_used():
    used = set(BUILT_KEYS)
    for name, tree, _ in _sources():
        if name in TABLES:
            continue
        used |= {c.args[0].value for c in _t_calls(tree)}
        used |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    plain_variants = {k for k in ZH if k.endswith("_plain") and k[: -len("_plain")] in used}
    unused = set(ZH) - used - plain_variants
    assert not unused, sorted(unused)


def test_the_checkers_sentences_are_registered_from_beside_the_checkers():
    assert sentences.ZH and all(key.startswith("check.") for key in sentences.ZH)
    assert all(ZH[key] == sentence for key, sentence in sentences.ZH.items())
    in_texts_py = {n.value for n in ast.walk(ast.parse((LIB / "texts.py").read_text(encoding="utf-8")))
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert not in_texts_py & set(sentences.ZH)  # each sentence is written once, in one of the two files


def test_the_machinery_finds_its_sentences_without_the_lessons():
    """course_runtime (and course.py) run without course_lib - course.py before .venv exists, the
    class server on its own - so every key they use is in course_runtime/texts.py's own blocks."""
    own = {**table._ZH_PROVIDERS, **table._ZH_PROGRESS}
    missing = [f"{name}:{call.lineno} {call.args[0].value}" for name, tree, _ in _sources()
               if name.startswith("../") for call in _t_calls(tree) if call.args[0].value not in own]
    assert missing == []
    lessons = set(ZH) - set(own)
    assert lessons and all(not key.startswith(("course.", "local.", "classroom.")) for key in lessons)


def test_register_adds_a_table_and_refuses_a_key_with_another_sentence(monkeypatch):
    sample = {"demo.hello": "你好，{name}", "check.passed": ZH["check.passed"]}
    monkeypatch.setattr(table, "TEXTS", {"zh": dict(ZH)})  # the course's own table stays as it is
    texts.register("zh", sample)  # course_lib.texts hands on course_runtime.texts' register and t
    assert t("demo.hello", name="小明") == "你好，小明"
    texts.register("zh", sample)  # the same sentences again (a module imported twice): allowed
    texts.register("en", {"demo.hello": "Hello, {name}"})  # a new language gets its own table
    monkeypatch.setenv("COURSE_LANGUAGE", "en")
    assert t("demo.hello", name="Ming") == "Hello, Ming" and t("check.passed", message="x") == "✅ 通过：x"
    with pytest.raises(ValueError, match="demo.hello"):
        texts.register("zh", {"demo.hello": "另一句", "demo.new": "新的"})
    assert "demo.new" not in table.TEXTS["zh"]  # nothing of a refused table is added
    assert "demo.hello" not in TEXTS["zh"]  # the real table was never touched


def test_missing_key_raises_and_other_language_falls_back(monkeypatch):
    with pytest.raises(KeyError):
        t("no.such_key")
    monkeypatch.setenv("COURSE_LANGUAGE", "en")
    assert texts.language() == "en"
    assert t("check.passed", message="x") == "✅ 通过：x"  # no English table yet: Chinese


def _violations(name: str, tree: ast.Module) -> list[str]:
    docs = _docstrings(tree)
    found = []
    # 1) an exception raised with a literal message (English or Chinese): it must come from t()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            exc = node.exc.func.id if isinstance(node.exc.func, ast.Name) else getattr(node.exc.func, "attr", "?")
            literal = [a for a in node.exc.args if isinstance(a, ast.JoinedStr)
                       or (isinstance(a, ast.Constant) and isinstance(a.value, str))]
            if literal and (name, exc) not in RAISE_FOR_MODEL:
                found.append(f"{name}:{node.lineno} raise {exc} with a literal message")
    # 2) a checker hint written in place
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "report":
            for arg in node.args[1:]:
                if isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    found.append(f"{name}:{node.lineno} report() with a literal message")
    # 3) Chinese outside texts.py: only in the model-facing names (checkers hold Chinese test data)
    if not name.startswith("checkers/"):
        allowed = MODEL_FACING.get(name, set())
        for top in tree.body:
            names = {top.name} if isinstance(top, (ast.FunctionDef, ast.ClassDef)) else {
                tg.id for tg in getattr(top, "targets", [getattr(top, "target", None)]) if isinstance(tg, ast.Name)}
            if names & allowed:
                continue
            traced = {id(n) for m in (top.body if isinstance(top, ast.ClassDef) else [])
                      if isinstance(m, ast.FunctionDef) and f"{top.name}.{m.name}" in TRACE_LINES.get(name, set())
                      for n in ast.walk(m)}
            for node in ast.walk(top):
                if id(node) in traced:
                    continue
                if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                        and CJK.search(node.value)):
                    found.append(f"{name}:{node.lineno} Chinese text in place: {node.value[:40]!r}")
    return found


@pytest.mark.parametrize("name", CONVERTED)
def test_no_student_facing_text_left_in_converted_modules(name):
    tree = ast.parse((LIB / name).read_text(encoding="utf-8"))
    assert not _violations(name, tree)


def test_the_violation_check_can_fail():
    bad = ast.parse('def f(x):\n    raise ValueError(f"x must be positive, got {x}")\n'
                    'def g():\n    return report(False, "写在这里的提示")\n'
                    'LABEL = "下一步"\n')
    found = " | ".join(_violations("loop.py", bad))
    assert "loop.py:2 raise ValueError" in found and "loop.py:4 report()" in found and "loop.py:5 Chinese" in found


def test_only_the_loops_describe_may_hold_trace_lines():
    source = ('class Agent:\n    def describe(self, s):\n        return [f"[步 {s}] 回答"]\n'
              '    def step(self):\n        print("第 1 步")\n')
    found = " | ".join(_violations("agent.py", ast.parse(source)))
    assert "agent.py:5 Chinese" in found and ":3 " not in found
    assert "react.py:3 Chinese" in " | ".join(_violations("react.py", ast.parse(source)))  # only ReActLoop.describe there
