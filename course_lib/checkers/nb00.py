"""Checkers for notebook 00 (set-up and provider check)."""

from __future__ import annotations

import io

from dotenv import dotenv_values

from ..providers import PRESETS
from . import CheckResult, exercise, report, t


@exercise("00-1")
def check_needs_key(needs_key: object) -> CheckResult:
    """Exercise 00-1: ``needs_key`` lists the preset names that need an API key (any order)."""
    expected = {name for name, preset in PRESETS.items() if preset.key_env and preset.key_required}
    if not isinstance(needs_key, (list, tuple, set)):
        return report(False, t("check.00.needs_key.1"))
    got = set(needs_key)
    if got == expected:
        return report(True, t("check.00.needs_key.2", sorted_got=sorted(got)))
    missing, extra = sorted(expected - got), sorted(got - expected)
    return report(False, t("check.00.needs_key.3", missing=missing, extra=extra))


@exercise("00-2")
def check_env_line(env_text: object) -> CheckResult:
    """Exercise 00-2: ``env_text`` is .env content that selects DeepSeek and names its key variable."""
    if not isinstance(env_text, str) or not env_text.strip():
        return report(False, t("check.00.env_line.1"))
    values = dotenv_values(stream=io.StringIO(env_text))
    # get_provider() lower-cases and strips the name, so "DeepSeek" works too
    if (values.get("COURSE_PROVIDER") or "").strip().lower() != "deepseek":
        return report(False, t("check.00.env_line.2", course_provider=repr(values.get('COURSE_PROVIDER'))))
    if "DEEPSEEK_API_KEY" not in values:
        return report(False, t("check.00.env_line.3"))
    return report(True, t("check.00.env_line.4"))
