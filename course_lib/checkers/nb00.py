"""Checkers for notebook 00 (set-up and provider check).

00-1 compares a collection of names with the one computed from ``providers.PRESETS``;
00-2 reads the text as the course reads ``.env`` (python-dotenv, a line without ``=``
counts as not written) and asks what ``get_provider`` asks of the key.
"""

from __future__ import annotations

import io
from collections.abc import KeysView

from dotenv import dotenv_values
from dotenv.parser import parse_stream

from ..providers import PRESETS, ProviderError, check_key_characters
from . import CheckResult, described, exercise, report, t

COLLECTIONS = (list, tuple, set, frozenset, KeysView)  # every way to write "a list of names" that can be read twice


def needs_key_names() -> set[str]:
    """The preset names whose key is required (``key_env`` set and ``key_required``), from the table itself."""
    return {name for name, preset in PRESETS.items() if preset.key_env and preset.key_required}


@exercise("00-1")
def check_needs_key(needs_key: object) -> CheckResult:
    """Exercise 00-1: ``needs_key`` holds exactly the preset names that need an API key.

    Any order; a list, tuple, set (or ``dict.keys()``) of str.  Checked: the shape (a
    collection, not a str / dict / generator), that every item is a str, then the set of
    names against ``needs_key_names()``, naming what is missing and what is extra.
    """
    if not isinstance(needs_key, COLLECTIONS):
        return report(False, t("check.00.needs_key.1", value=described(needs_key)))
    odd = [item for item in needs_key if not isinstance(item, str)]
    if odd:
        return report(False, t("check.00.needs_key.4", item=described(odd[0])))
    expected, got = needs_key_names(), set(needs_key)
    if got == expected:
        return report(True, t("check.00.needs_key.2", sorted_got=sorted(got)))
    missing, extra = sorted(expected - got), sorted(got - expected)
    return report(False, t("check.00.needs_key.3", missing=missing, extra=extra))


@exercise("00-2")
def check_env_line(env_text: object) -> CheckResult:
    """Exercise 00-2: ``env_text`` (a str) is ``.env`` content that selects DeepSeek with a usable key.

    Read with python-dotenv as ``settings.load_env`` reads it (the last line of a name wins,
    a name without ``=`` is not set).  Checked in order: a non-empty str; ``COURSE_PROVIDER``
    is ``deepseek`` once stripped and lower-cased (as ``get_provider`` reads it);
    ``DEEPSEEK_API_KEY`` is set and not blank; the key is printable ASCII without spaces
    (``providers.check_key_characters``, what the course asks before the key goes into a header);
    then every line is ``NAME=value`` (``export`` allowed), a comment or blank: a junk line that
    python-dotenv cannot read (``X``, ``=5``, a name without ``=``) fails, naming that line; last,
    the course's provider code reads the values as the notebook will (``_provider_problem``).
    """
    if not isinstance(env_text, str) or not env_text.strip():
        return report(False, t("check.00.env_line.1", value=described(env_text)))
    values = {name: value for name, value in dotenv_values(stream=io.StringIO(env_text)).items() if value is not None}
    provider = values.get("COURSE_PROVIDER")
    if (provider or "").strip().lower() != "deepseek":
        return report(False, t("check.00.env_line.2", course_provider=repr(provider)))
    key_env = PRESETS["deepseek"].key_env
    key = (values.get(key_env) or "").strip()
    if not key:
        return report(False, t("check.00.env_line.3", key_env=key_env))
    try:
        check_key_characters(key, key_env)
    except ProviderError:
        return report(False, t("check.00.env_line.5", key_env=key_env))
    junk = _junk_line(env_text)
    if junk is not None:
        return report(False, t("check.00.env_line.6", line=repr(junk)))
    problem = _provider_problem(values)
    if problem is not None:
        return report(False, t("check.00.env_line.provider", problem=problem))
    return report(True, t("check.00.env_line.4"))


def _provider_problem(values: dict[str, str]) -> str | None:
    """What the course's own provider code (``providers.get_provider``) says of these ``.env`` values, or None.

    Every line counts, not only the two the task names: a ``COURSE_BASE_URL`` without ``https://``, a
    ``COURSE_EXTRA_BODY`` that is not JSON, a DeepSeek key bound for another address ... fail in the
    notebook as they fail here.  The real environment's course settings and keys are hidden meanwhile
    (``COURSE_*`` and ``*_API_KEY``; ``.env`` is not read), and restored after.
    """
    import os
    import warnings
    from unittest import mock

    from ..providers import ProviderError, get_provider

    with mock.patch.dict(os.environ, {}):
        for name in [n for n in os.environ if n.startswith("COURSE_") or n.endswith("_API_KEY")]:
            del os.environ[name]
        os.environ.update(values)
        os.environ["COURSE_IGNORE_DOTENV"] = "1"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                get_provider()
            except ProviderError as exc:
                return str(exc)
    return None


def _junk_line(env_text: str) -> str | None:
    """The first line of ``env_text`` that is not ``NAME=value``, a comment or blank (python-dotenv's parser), or None."""
    for binding in parse_stream(io.StringIO(env_text)):
        if binding.error or (binding.key is not None and binding.value is None):
            return binding.original.string.strip()
    return None
