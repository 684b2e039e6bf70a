# Exercise 06-1: answers written from the task text alone (notebooks/06_agent_loop.ipynb), without reading the checker.
# %% wrong: only removes spaces from the raw text, so the key order still matters (and spaces inside string values are lost)
def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    if arguments_json is None:
        return None
    return (name, arguments_json.replace(" ", "").replace("\n", ""))
# %% wrong: re-serialises the parsed JSON without sort_keys, so {"a":1,"b":2} and {"b":2,"a":1} give different keys
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        args = json.loads(arguments_json)
    except json.JSONDecodeError:
        return None
    return (name, json.dumps(args, ensure_ascii=False))
# %% wrong: puts the parsed dict itself in the tuple, which is not hashable, so the key cannot go into a set
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        return (name, json.loads(arguments_json))
    except json.JSONDecodeError:
        return None
# %% wrong: frozenset of the top-level items only - any nested list/dict value is unhashable and the valid call gets None
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        args = json.loads(arguments_json)
        return (name, frozenset(args.items()))
    except (ValueError, TypeError, AttributeError):
        return None
# %% wrong: no error handling, so invalid JSON raises JSONDecodeError instead of returning None
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    args = json.loads(arguments_json)
    return (name, json.dumps(args, sort_keys=True, ensure_ascii=False))
# %% wrong: for invalid JSON returns the tuple (name, None) instead of None itself
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        canonical = json.dumps(json.loads(arguments_json), sort_keys=True, ensure_ascii=False)
    except (ValueError, TypeError):
        canonical = None
    return (name, canonical)
# %% wrong: the key leaves out the tool name, so two different tools with the same arguments count as the same call
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        return json.dumps(json.loads(arguments_json), sort_keys=True, ensure_ascii=False)
    except (ValueError, TypeError):
        return None
# %% wrong: lower-cases the canonical text, so arguments that differ only in case ("Beijing" vs "beijing") are wrongly treated as the same call
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        args = json.loads(arguments_json)
    except (ValueError, TypeError):
        return None
    return (name, json.dumps(args, sort_keys=True, ensure_ascii=False).lower())
# %% right: parse, then re-serialise canonically with sort_keys and fixed separators; any parse error gives None
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        args = json.loads(arguments_json)
    except (ValueError, TypeError):
        return None
    return (name, json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
# %% right: recursive freeze into nested tuples (dicts sorted by key, scalars tagged with their type) instead of a JSON string
import json


def _freeze(value):
    """把解析后的 JSON 值变成可哈希、与键顺序无关的结构。"""
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _freeze(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("list", tuple(_freeze(v) for v in value))
    return (type(value).__name__, value)


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        parsed = json.loads(arguments_json)
    except (json.JSONDecodeError, TypeError):
        return None
    return (name, _freeze(parsed))
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: leaves the tool name out of the key, so two different tools with the same arguments count as the same call
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        args = json.loads(arguments_json)
    except json.JSONDecodeError:
        return None
    return json.dumps(args, sort_keys=True)
# %% wrong: re-dumps the parsed JSON without sort_keys, so the key still depends on the order of the keys
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        return (name, json.dumps(json.loads(arguments_json)))
    except ValueError:
        return None
# %% wrong: for invalid JSON returns (name, None) instead of None
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        canonical = json.dumps(json.loads(arguments_json), sort_keys=True)
    except json.JSONDecodeError:
        canonical = None
    return (name, canonical)
# %% wrong: normalises the raw text by deleting spaces and sorting nothing, so spaces inside values vanish ("New York" == "NewYork") and key order still matters; invalid JSON never gives None
def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    return (name, "".join(arguments_json.split()))
# %% wrong: sorts only the top-level items via str(sorted(...)), so nested objects with a different key order give different keys (and non-object JSON crashes)
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        args = json.loads(arguments_json)
    except json.JSONDecodeError:
        return None
    return (name, str(sorted(args.items())))
# %% wrong: frozenset of the top-level items is not hashable when a value is a list or nested object (TypeError instead of a key)
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        args = json.loads(arguments_json)
    except json.JSONDecodeError:
        return None
    return (name, frozenset(args.items()))
# %% wrong: returns the parsed dict inside the tuple, which cannot be put into a set (unhashable)
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        return (name, json.loads(arguments_json))
    except json.JSONDecodeError:
        return None
# %% right: recursive freeze into type-tagged tuples/frozensets (no re-serialisation)
import json


def _freeze(value):
    if isinstance(value, dict):
        return ("obj", frozenset((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("arr", tuple(_freeze(v) for v in value))
    return (type(value).__name__, value)


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        parsed = json.loads(arguments_json)
    except (TypeError, ValueError):
        return None
    return (name, _freeze(parsed))
# %% right: one canonical string "name\x00json" built with sort_keys, compact separators and ensure_ascii=False
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        data = json.loads(arguments_json)
    except (TypeError, ValueError):
        data = ...
    if data is ...:
        return None
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{name}\x00{canonical}"
