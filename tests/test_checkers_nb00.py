"""Checkers of notebook 00: the right answers pass, plausible wrong ones fail."""

from __future__ import annotations

import pytest

from course_lib.checkers.nb00 import check_env_line, check_needs_key


@pytest.mark.parametrize("text", [
    "COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY=sk-xxxx\n",
    "COURSE_PROVIDER=DeepSeek\nDEEPSEEK_API_KEY=sk-xxxx",       # get_provider() lower-cases the name
    "# my key\nCOURSE_PROVIDER = deepseek \nDEEPSEEK_API_KEY=sk-xxxx",
])
def test_env_line_accepts_what_get_provider_accepts(text):
    assert check_env_line(text).passed


@pytest.mark.parametrize("text", [
    "",
    "COURSE_PROVIDER=openai\nDEEPSEEK_API_KEY=sk-xxxx",
    "COURSE_PROVIDER=deepseek\nOPENAI_API_KEY=sk-xxxx",
    "DEEPSEEK_API_KEY=sk-xxxx",
    None,
])
def test_env_line_rejects_wrong_env_files(text):
    assert not check_env_line(text).passed


def test_needs_key_wants_exactly_the_cloud_presets():
    assert check_needs_key(["deepseek", "dashscope", "openai"]).passed
    assert not check_needs_key(["deepseek", "openai"]).passed
    assert not check_needs_key(["deepseek", "dashscope", "openai", "custom"]).passed
    assert not check_needs_key("deepseek").passed
