"""bench/bfcl.py: the glue between bfcl-eval and the course (no model runs here).

The name and schema conversion, the decoding of a reply in each configuration,
the sampling and the report are tested always.  The shim and the scoring with
bfcl-eval's own AST checker on real BFCL entries need bfcl-eval, which only the
bench venv has (``python course.py bench``); those tests skip without it.
"""

from __future__ import annotations

import json
import sys

import pytest

from bench import bfcl

# A BFCL function doc as the data files write it (types "dict", "float", "tuple"; a dotted name).
FUNCTION = {
    "name": "math.hypot",
    "description": "Calculate the Euclidean norm.",
    "parameters": {"type": "dict", "properties": {
        "x": {"type": "integer", "description": "The x-coordinate value."},
        "scale": {"type": "float", "description": "A factor."},
        "point": {"type": "tuple", "items": {"type": "float"}, "description": "A point."},
        "options": {"type": "dict", "properties": {"exact": {"type": "boolean", "description": "Exact?"}},
                    "description": "Options."},
        "other": {"type": "any", "description": "Anything."},
    }, "required": ["x"]},
}


def test_dots_in_names_become_underscores():
    assert bfcl.api_name("math.factorial") == "math_factorial"
    assert bfcl.api_name("a.b.c_d") == "a_b_c_d"
    assert bfcl.api_name("plain_name") == "plain_name"


def test_a_bfcl_function_becomes_an_openai_tool_without_changing_the_original():
    original = json.loads(json.dumps(FUNCTION))
    tool = bfcl.to_openai_tool(FUNCTION)
    assert FUNCTION == original
    fn = tool["function"]
    assert tool["type"] == "function" and fn["name"] == "math_hypot"
    assert fn["description"].endswith("Note that the provided function is in Python 3 syntax.")
    props = fn["parameters"]["properties"]
    assert fn["parameters"]["type"] == "object" and fn["parameters"]["required"] == ["x"]
    assert props["x"]["type"] == "integer"
    assert props["scale"]["type"] == "number" and props["scale"]["format"] == "float"
    assert props["scale"]["description"].endswith("This is a float type value.")
    assert props["point"]["type"] == "array" and props["point"]["items"]["type"] == "number"
    assert props["options"]["type"] == "object" and props["options"]["properties"]["exact"]["type"] == "boolean"
    assert props["other"]["type"] == "string"


def _message(content=None, calls=()):
    return {"role": "assistant", "content": content,
            "tool_calls": [{"id": f"c{k}", "type": "function", "function": {"name": n, "arguments": a}}
                           for k, (n, a) in enumerate(calls)] or None}


def test_server_calls_decode_as_bfcl_reads_an_openai_reply():
    decoded = bfcl.decode_server_calls(_message(calls=[("math_hypot", '{"x": 3}'), ("math_hypot", '{"x": 4}')]))
    assert decoded.calls == [{"math_hypot": {"x": 3}}, {"math_hypot": {"x": 4}}] and decoded.made_a_call
    text = bfcl.decode_server_calls(_message('```json\n{"name": "math_hypot", "arguments": {"x": 3}}\n```'))
    assert text.calls is None and not text.made_a_call
    broken = bfcl.decode_server_calls(_message(calls=[("math_hypot", '{"x": 3')]))
    assert broken.calls is None and "JSON" in broken.note


def test_the_course_layer_recovers_a_call_written_as_text_and_repairs_arguments():
    fenced = _message('```json\n{"name": "math_hypot", "arguments": {"x": 3}}\n```')
    decoded = bfcl.decode_course_layer(fenced, ["math_hypot"])
    assert decoded.calls == [{"math_hypot": {"x": 3}}] and decoded.note == "recovered from text"
    twice = _message(calls=[("math_hypot", json.dumps('{"x": 3}'))])  # arguments JSON-encoded twice
    assert bfcl.decode_server_calls(twice).calls is None
    assert bfcl.decode_course_layer(twice, ["math_hypot"]).calls == [{"math_hypot": {"x": 3}}]
    unknown = _message('```json\n{"name": "no_such_tool", "arguments": {"x": 3}}\n```')
    assert bfcl.decode_course_layer(unknown, ["math_hypot"]).calls is None
    assert bfcl.decode_course_layer(_message("The answer is 5."), ["math_hypot"]).calls is None


def test_irrelevance_is_right_exactly_when_no_call_was_made():
    entry = {"id": "irrelevance_0", "function": [FUNCTION], "answer": None}
    assert bfcl.score("irrelevance", entry, bfcl.Decoded(None, "text only")) == (True, "")
    assert bfcl.score("irrelevance", entry, bfcl.Decoded([{"math_hypot": {}}]))[0] is False
    assert bfcl.score("irrelevance", entry, bfcl.Decoded([]))[0] is True


def test_a_reply_without_calls_fails_a_call_category_without_asking_the_checker():
    entry = {"id": "simple_python_0", "function": [FUNCTION], "answer": [{"math.hypot": {"x": [3]}}]}

    def checker(*args):
        raise AssertionError("the checker must not be called")

    assert bfcl.score("simple_python", entry, bfcl.Decoded(None, "text only"), checker, object()) == (False, "text only")


def test_sample_is_seeded_sorted_and_whole_when_asked():
    entries = [{"id": f"simple_python_{k}"} for k in range(30)]
    first = bfcl.sample(entries, 5, 24)
    assert first == bfcl.sample(list(reversed(entries)), 5, 24)
    assert [e["id"] for e in first] == sorted((e["id"] for e in first), key=lambda i: int(i.rsplit("_", 1)[1]))
    assert len(bfcl.sample(entries, 0, 24)) == 30 and len(bfcl.sample(entries, 99, 24)) == 30
    assert first != bfcl.sample(entries, 5, 25)


def test_builtin_template_server_drops_the_course_template_and_takes_its_own_port():
    args = ["llama-server", "--model", "m.gguf", "--port", "8765", "--jinja", "--chat-template-file", "t.jinja",
            "--slot-save-path", "/s", "--seed", "42"]
    assert bfcl.builtin_template_args(args, 8792) == ["llama-server", "--model", "m.gguf", "--port", "8792",
                                                      "--jinja", "--seed", "42"]


def _rows():
    rows = []
    for config, valid in (("a", [False, False]), ("b", [True, False]), ("c", [True, True])):
        for k, (category, ok) in enumerate(zip(["simple_python", "irrelevance"], valid)):
            rows.append({"config": config, "category": category, "id": f"{category}_{k}", "valid": ok})
    return rows


def test_summary_merge_and_markdown():
    cats = ["simple_python", "irrelevance"]
    table = bfcl.summary(_rows(), cats)
    assert table["b"] == {"simple_python": [1, 1], "irrelevance": [0, 1], "all": [1, 2]}
    settings = bfcl.Settings(cats, 1, 24).key()
    earlier = {"settings": settings, "rows": _rows(), "runs": {c: {"date": "old"} for c in "abc"}}
    new = {"settings": settings, "rows": [r | {"valid": True} for r in _rows() if r["config"] == "a"],
           "runs": {"a": {"date": "new"}}}
    merged = bfcl.merge(earlier, new, ["a"])
    assert bfcl.summary(merged["rows"], cats)["a"]["all"] == [2, 2]
    assert bfcl.summary(merged["rows"], cats)["c"]["all"] == [2, 2] and merged["runs"]["a"] == {"date": "new"}
    assert bfcl.merge(earlier | {"settings": {}}, new, ["a"]) is new
    results = {"date": "today", "bfcl_version": "x", "settings": settings, "machine": "m", "model": "q",
               "rows": _rows(), "runs": {"b": [{"date": "d", "seconds": 1, "load_before": "1.0", "rows": 2}]}}
    text = bfcl.markdown(results)
    assert "| (b) | 1/1 | 0/1 | 1/2 (50 %) |" in text and "seed 24" in text
    assert "math_factorial" in text and "patil25a" in text


# --------------------------------------------------------------------------- with bfcl-eval (bench venv)
def _bfcl_installed() -> bool:
    try:
        import bfcl_eval  # noqa: F401
    except ImportError:
        return False
    return True


needs_bfcl = pytest.mark.skipif(not _bfcl_installed(), reason="bfcl-eval is installed only in .venv-bench")


@needs_bfcl
def test_the_shim_stands_in_for_model_config_and_the_checker_imports():
    checker, language = bfcl.load_checker()
    stub = sys.modules["bfcl_eval.constants.model_config"]
    assert set(stub.MODEL_CONFIG_MAPPING) == {bfcl.MODEL_KEY}
    assert stub.MODEL_CONFIG_MAPPING[bfcl.MODEL_KEY].underscore_to_dot is True
    assert "_" not in bfcl.MODEL_KEY  # the checker replaces "_" by "/" before its look-up
    assert callable(checker) and language.PYTHON.value == "python"
    assert not any(name.startswith("bfcl_eval.model_handler") for name in sys.modules)  # no vendor SDKs pulled in


def _entry(category: str, entry_id: str) -> dict:
    return next(e for e in bfcl.load_category(category) if e["id"] == entry_id)


@needs_bfcl
def test_real_entries_are_scored_by_bfcls_checker_with_underscored_names():
    simple = _entry("simple_python", "simple_python_0")  # calculate_triangle_area(base=10, height=5)
    assert simple["answer"] and simple["function"][0]["name"] == "calculate_triangle_area"
    right = bfcl.Decoded([{"calculate_triangle_area": {"base": 10, "height": 5}}])
    wrong = bfcl.Decoded([{"calculate_triangle_area": {"base": 5, "height": 10}}])
    assert bfcl.score("simple_python", simple, right) == (True, "")
    assert bfcl.score("simple_python", simple, wrong)[0] is False

    parallel = _entry("parallel", "parallel_0")  # spotify.play twice: the dotted name offered as spotify_play
    assert parallel["function"][0]["name"] == "spotify.play"
    calls = [{"spotify_play": {"artist": "Maroon 5", "duration": 15}},
             {"spotify_play": {"artist": "Taylor Swift", "duration": 20}}]
    assert bfcl.score("parallel", parallel, bfcl.Decoded(calls)) == (True, "")  # any order
    assert bfcl.score("parallel", parallel, bfcl.Decoded(calls[:1]))[0] is False
    dotted = [{"spotify.play": c["spotify_play"]} for c in calls]
    assert bfcl.score("parallel", parallel, bfcl.Decoded(dotted))[0] is False  # the API name is the underscored one


@needs_bfcl
def test_the_five_categories_load_with_answers_where_bfcl_has_them():
    sizes = {c: len(bfcl.load_category(c)) for c in bfcl.CATEGORIES}
    assert sizes == {"simple_python": 400, "multiple": 200, "parallel": 200, "parallel_multiple": 200,
                     "irrelevance": 240}
    assert all(e["answer"] is None for e in bfcl.load_category("irrelevance"))
    assert all(e["answer"] for e in bfcl.load_category("multiple"))


ENTRY = {"id": "parallel_0", "question": [[{"role": "user", "content": "Hypot of 3 and of 4."}]],
         "function": [FUNCTION], "answer": None}


def test_one_fc_request_offers_the_converted_tools_and_keeps_the_reply():
    from fakes import FakeLLM

    fake = FakeLLM([{"tool_calls": [("math_hypot", {"x": 3})]}])
    reply = bfcl.run_fc(fake.client(), "fake-model", ENTRY, 300)
    sent = fake.requests[0]
    assert [t["function"]["name"] for t in sent["tools"]] == ["math_hypot"]
    assert sent["temperature"] == 0 and sent["max_tokens"] == 300 and sent["messages"] == ENTRY["question"][0]
    assert bfcl.decode_server_calls(reply["message"]).calls == [{"math_hypot": {"x": 3}}]


def test_the_prompt_based_run_records_every_action_that_ran():
    from fakes import FakeLLM

    fake = FakeLLM([
        'Thought: first\nAction:\n```json\n{"action": "math_hypot", "action_input": {"x": 3}}\n```',
        'Action:\n```json\n{"action": "math_hypot", "action_input": {"y": 4}}\n```',  # no such parameter: not run
        'Action:\n```json\n{"action": "math_hypot", "action_input": {"x": 4}}\n```',
        "Final Answer: 3 and 4",
    ])
    decoded, info = bfcl.run_react(fake.client(), "fake-model", ENTRY, 200, 4)
    assert decoded.calls == [{"math_hypot": {"x": 3}}, {"math_hypot": {"x": 4}}]
    assert info["requests"] == 4 and info["stopped_reason"] == "answer"
    assert "tools" not in fake.requests[0] and "math_hypot" in fake.requests[0]["messages"][0]["content"]


def test_a_failed_request_is_neither_right_nor_wrong_and_is_asked_again(tmp_path):
    rows = _rows() + [{"config": "c", "category": "irrelevance", "id": "irrelevance_9", "valid": True,
                       "error": "APITimeoutError: Request timed out."}]
    assert len(bfcl.answered(rows)) == len(_rows())
    assert all(r["id"] != "irrelevance_9" for r in bfcl.common_rows(rows))
    results = {"date": "today", "bfcl_version": "x", "settings": bfcl.Settings(["simple_python", "irrelevance"], 1).key(),
               "machine": "m", "model": "q", "rows": rows, "runs": {}}
    assert "Requests that failed (not counted): (c) irrelevance_9" in bfcl.markdown(results)


@needs_bfcl
def test_a_plus_c_reads_the_built_in_template_replies_with_the_course_layer():
    entry = _entry("simple_python", "simple_python_0")
    text = '```json\n{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}\n```'
    row = {"config": "a", "category": "simple_python", "id": entry["id"], "valid": False, "calls": None,
           "content": text}
    derived = bfcl.derived_rows([row, row | {"config": "b"}], {entry["id"]: entry})
    assert [(r["config"], r["valid"]) for r in derived] == [("a+c", True)]
