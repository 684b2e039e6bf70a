"""course_lib.json_scan: finding JSON objects inside a model's text (notebook 05, 4.2)."""

from __future__ import annotations

import pytest

from course_lib.json_scan import (
    MAX_JSON_CANDIDATES,
    JsonCandidate,
    find_json_object,
    load_object,
    matching_brace,
    outside_strings,
    scan_objects,
)


def test_matching_brace_respects_strings_and_escapes():
    text = 'x {"a": "}", "b": {"c": "\\"}"}, \'d\': \'}\'} tail }'
    start = text.index("{")
    end = matching_brace(text, start)
    assert text[end + 1 :] == " tail }"
    assert matching_brace('{"a": "never closed}', 0) is None


def test_find_json_object_skips_objects_without_action():
    obj, pos, problem = find_json_object('{"x": 1} then {"action": "a"}')
    assert obj == {"action": "a"} and pos == 14 and problem is None
    assert find_json_object("no braces")[0] is None


def test_load_object_never_replaces_quotes_blindly():
    assert load_object('{"q": "it\'s"}') == {"q": "it's"}
    assert load_object("{'q': 'a', 'n': [1, 2,],}") == {"q": "a", "n": [1, 2]}
    with pytest.raises(ValueError):
        load_object("{'a': open('x')}")


def test_outside_strings_marks_quotes_and_escapes():
    text = r'x"a\"}"y' + "'b'"
    flags = "".join("s" if inside else "." for _, _, inside in outside_strings(text))
    assert flags == ".ssssss.sss"
    assert [i for i, _, _ in outside_strings(text, 7)] == [7, 8, 9, 10]


def test_scan_objects_reports_every_brace_with_what_it_read():
    text = 'a {"x": 1} b {"y": [1,]} c {"z": '
    found = list(scan_objects(text))
    assert [c.start for c in found] == [2, 13, 27]
    assert found[0] == JsonCandidate(2, 10, {"x": 1}, None) and found[0].snippet(text) == '{"x": 1}'
    assert found[1].value == {"y": [1]} and found[1].error is None  # trailing comma repaired
    assert found[2].value is None and found[2].end == len(text) and "没有闭合" in found[2].error


def test_scan_objects_respects_start_end_and_skip_nested():
    text = '{"outer": {"inner": 1}} {"next": 2}'
    assert [c.start for c in scan_objects(text)] == [0, 10, 24]
    assert [c.start for c in scan_objects(text, skip_nested=lambda c: c.start == 0)] == [0, 24]
    assert [c.start for c in scan_objects(text, 1, 20)] == [10]


def test_scan_objects_gives_up_after_max_candidates():
    assert len(list(scan_objects("{" * (MAX_JSON_CANDIDATES + 50)))) == MAX_JSON_CANDIDATES


def test_find_json_object_names_the_first_problem():
    assert find_json_object('{"a": }')[2].startswith("JSON 格式错误")
    assert find_json_object('{"a": 1}') == (None, -1, 'JSON 对象里没有 "action" 字段。')
    assert find_json_object('{"action": "x"') == (None, -1, "JSON 对象不完整（括号没有闭合）。")
