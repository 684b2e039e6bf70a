"""Checkers of notebook 00: the right answers pass in every style, plausible wrong ones fail, odd values never raise."""

from __future__ import annotations

import os

import pytest

from course_lib.checkers import nb00
from course_lib.checkers.nb00 import check_env_line, check_needs_key
from course_lib.providers import PRESETS


class BrokenRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


ODD = [None, 3, 2.5, BrokenRepr(), (x for x in ["deepseek"]), b"COURSE_PROVIDER=deepseek", {"deepseek": True}]

# ---------------------------------------------------------------------------------------------- 00-1


@pytest.mark.parametrize("answer", [
    ["deepseek", "dashscope", "openai"],
    ["openai", "deepseek", "dashscope"],                                         # another order
    ("deepseek", "dashscope", "openai"),                                         # a tuple
    {"deepseek", "dashscope", "openai"},                                         # a set
    [name for name, p in PRESETS.items() if p.key_env and p.key_required],       # computed from the table
], ids=["list", "order", "tuple", "set", "computed"])
def test_needs_key_accepts_every_style(answer):
    assert check_needs_key(answer).passed


@pytest.mark.parametrize("answer,hint", [
    (["deepseek", "openai"], "check.00.needs_key.3"),                              # one missing
    (["deepseek", "dashscope", "openai", "custom"], "check.00.needs_key.3"),       # custom's key is optional
    (["deepseek", "dashscope", "openai", "classroom"], "check.00.needs_key.3"),    # so is classroom's
    (["deepseek", "dashscope", "openai", "local"], "check.00.needs_key.3"),
    ([name for name, p in PRESETS.items() if p.key_env], "check.00.needs_key.3"),  # key_required ignored
    (["DeepSeek", "DashScope", "OpenAI"], "check.00.needs_key.3"),                 # labels, not names
    (["DEEPSEEK_API_KEY", "DASHSCOPE_API_KEY", "OPENAI_API_KEY"], "check.00.needs_key.3"),  # the variables
    ([], "check.00.needs_key.3"),
    ("deepseek", "check.00.needs_key.1"),
    ("deepseek, dashscope, openai", "check.00.needs_key.1"),
    ([["deepseek"], ["dashscope"], ["openai"]], "check.00.needs_key.4"),          # unhashable items
    ([PRESETS["deepseek"], PRESETS["dashscope"], PRESETS["openai"]], "check.00.needs_key.4"),  # the presets
], ids=["missing", "custom", "classroom", "local", "key_env_only", "labels", "variables", "empty", "str", "csv",
        "nested", "preset_objects"])
def test_needs_key_rejects_wrong_answers(answer, hint):
    result = check_needs_key(answer)
    assert not result.passed
    assert result.hint == hint


@pytest.mark.parametrize("value", ODD, ids=lambda v: type(v).__name__)
def test_needs_key_odd_values_fail_without_raising(value, capsys):
    assert not check_needs_key(value).passed
    assert "❌" in capsys.readouterr().out

# ---------------------------------------------------------------------------------------------- 00-2


@pytest.mark.parametrize("text", [
    "COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx\n",
    "\nCOURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx\n",                    # the solution's leading newline
    "COURSE_PROVIDER=DeepSeek\nDEEPSEEK_API_KEY=sk-xxxx",                        # get_provider() lower-cases the name
    "# my key\nCOURSE_PROVIDER = deepseek \nDEEPSEEK_API_KEY=sk-xxxx",
    "DEEPSEEK_API_KEY=sk-xxxx\nCOURSE_PROVIDER=deepseek",                        # another order
    'COURSE_PROVIDER="deepseek"\nDEEPSEEK_API_KEY="sk-xxxx"',                    # quoted
    "COURSE_PROVIDER=deepseek\r\nDEEPSEEK_API_KEY=sk-xxxx\r\n",                  # Windows line ends
    "export COURSE_PROVIDER=deepseek\nexport DEEPSEEK_API_KEY=sk-xxxx",          # python-dotenv reads export
    "COURSE_PROVIDER=deepseek\nCOURSE_MODEL=deepseek-chat\nDEEPSEEK_API_KEY=<your-key>",
])
def test_env_line_accepts_what_the_course_reads(text):
    assert check_env_line(text).passed


@pytest.mark.parametrize("text,hint", [
    ("", "check.00.env_line.1"),
    ("   \n", "check.00.env_line.1"),
    ("COURSE_PROVIDER=openai\nDEEPSEEK_API_KEY=sk-xxxx", "check.00.env_line.2"),
    ("COURSE_PROVIDER=deepseek-chat\nDEEPSEEK_API_KEY=sk-xxxx", "check.00.env_line.2"),
    ("COURSE_PROVIDER: deepseek\nDEEPSEEK_API_KEY: sk-xxxx", "check.00.env_line.2"),      # YAML, not .env
    ("# COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx", "check.00.env_line.2"),      # commented out
    ("COURSE_PROVIDER=deepseek\nCOURSE_PROVIDER=local\nDEEPSEEK_API_KEY=sk-x", "check.00.env_line.2"),  # last wins
    ("COURSE_PROVIDER=deepseek DEEPSEEK_API_KEY=sk-xxxx", "check.00.env_line.2"),         # one line
    ("DEEPSEEK_API_KEY=sk-xxxx", "check.00.env_line.2"),
    ("COURSE_PROVIDER=deepseek\nOPENAI_API_KEY=sk-xxxx", "check.00.env_line.3"),
    ("COURSE_PROVIDER=deepseek", "check.00.env_line.3"),
    ("COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=", "check.00.env_line.3"),               # empty key: key_missing
    ("COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY", "check.00.env_line.3"),                # no "=": not read
    ("COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=你的key", "check.00.env_line.5"),        # not ASCII: refused
    ("COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk xxxx", "check.00.env_line.5"),        # a space inside
    ("COURSE_PROVIDER=deepseek\ndeepseek_api_key=sk-xxxx", "check.00.env_line.3"),        # names are case-sensitive
    ("X\nCOURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx\n", "check.00.env_line.6"),    # a junk line
    ("COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx\n=5\n", "check.00.env_line.6"),    # no name
    ("COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx\nDEBUG\n", "check.00.env_line.6"),  # no "="
], ids=["empty", "blank", "openai", "model_id", "yaml", "commented", "overridden", "one_line", "no_provider",
        "other_key", "no_key", "empty_key", "no_equals", "chinese_key", "space_in_key", "lower_case_name",
        "junk_line", "no_name", "name_without_value"])
def test_env_line_rejects_wrong_env_files(text, hint):
    result = check_env_line(text)
    assert not result.passed
    assert result.hint == hint


@pytest.mark.parametrize("value", ODD + [["COURSE_PROVIDER=deepseek", "DEEPSEEK_API_KEY=sk-x"]],
                         ids=lambda v: type(v).__name__)
def test_env_line_odd_values_fail_without_raising(value, capsys):
    result = check_env_line(value)
    assert not result.passed
    assert result.hint == "check.00.env_line.1"
    assert "❌" in capsys.readouterr().out


@pytest.mark.parametrize("extra", ["COURSE_BASE_URL=api.deepseek.com", "COURSE_BASE_URL=https://api.deepseek.com.evil.example",
                                   'COURSE_EXTRA_BODY={"enable_thinking": false'])
def test_every_line_is_read_by_the_real_provider_code(extra):
    """Issue 54: a line the task does not name still breaks the notebook (a base URL without https://)."""
    result = nb00.check_env_line(f"COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx\n{extra}\n")
    assert result.passed is False and result.hint == "check.00.env_line.provider", result.message


def test_the_real_environment_is_neither_used_nor_changed(monkeypatch):
    monkeypatch.setenv("COURSE_BASE_URL", "not-a-url")  # the student's own .env setting must not leak into the check
    monkeypatch.setenv("DEEPSEEK_API_KEY", "test-key-of-this-machine")
    assert nb00.check_env_line("COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx\n").passed is True
    assert os.environ["COURSE_BASE_URL"] == "not-a-url" and os.environ["DEEPSEEK_API_KEY"] == "test-key-of-this-machine"
