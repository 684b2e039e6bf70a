"""Checkers for notebook 00 (set-up and provider check)."""

from __future__ import annotations

import io

from dotenv import dotenv_values

from ..providers import PRESETS
from . import CheckResult, report


def check_needs_key(needs_key: object) -> CheckResult:
    """Exercise 00-1: ``needs_key`` lists the preset names that need an API key (any order)."""
    expected = {name for name, preset in PRESETS.items() if preset.key_env and preset.key_required}
    if not isinstance(needs_key, (list, tuple, set)):
        return report(False, "needs_key 应该是一个列表，例如 ['openai']")
    got = set(needs_key)
    if got == expected:
        return report(True, f"需要 key 的 provider：{sorted(got)}")
    missing, extra = sorted(expected - got), sorted(got - expected)
    return report(False, f"还缺 {missing}，多了 {extra}。提示：看 PRESETS 表里 key_env 和 key_required 两列（custom 的 key 可有可无，不算）。")


def check_env_line(env_text: object) -> CheckResult:
    """Exercise 00-2: ``env_text`` is .env content that selects DeepSeek and names its key variable."""
    if not isinstance(env_text, str) or not env_text.strip():
        return report(False, "env_text 还是空的：写出切换到 DeepSeek 需要的 .env 内容")
    values = dotenv_values(stream=io.StringIO(env_text))
    if values.get("COURSE_PROVIDER") != "deepseek":
        return report(False, f"COURSE_PROVIDER 应该是 deepseek，现在是 {values.get('COURSE_PROVIDER')!r}")
    if "DEEPSEEK_API_KEY" not in values:
        return report(False, "还需要一行 DEEPSEEK_API_KEY=...（在这里可以写一个假的占位符）")
    return report(True, "这两行放进 .env 就会切换到 DeepSeek（真实的 key 只写在 .env 里，永远不要提交）")
