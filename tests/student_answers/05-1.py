# Exercise 05-1: answers written from the task text alone (notebooks/05_react.ipynb), without reading the checker.
# %% wrong: no re.IGNORECASE; the character class [Aa] accepts "action:" but not "ACTION:"
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^[Aa]ction\s*[:：]\s*(\w+)\s*[:：]\s*(.*)$", reply, flags=re.MULTILINE)
    return (m.group(1), m.group(2).strip()) if m else None
# %% wrong: only the colon after "Action" may be full-width; the colon after the tool name must still be an ASCII ":"
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：]\s*(\w+)\s*:\s*(.*)$", reply, flags=re.MULTILINE | re.IGNORECASE)
    return (m.group(1), m.group(2).strip()) if m else None
# %% wrong: spaces are allowed only after each colon, not before it, so "Action : calculate : 2+3" is not found
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action[:：]\s*(\w+)[:：]\s*(.*)$", reply, flags=re.MULTILINE | re.IGNORECASE)
    return (m.group(1), m.group(2).strip()) if m else None
# %% wrong: re.MULTILINE was dropped, so ^ only matches the very start of the reply and an Action after a Thought line is missed
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*)$", reply, flags=re.IGNORECASE)
    return (m.group(1), m.group(2).strip()) if m else None
# %% wrong: the ^ anchor was removed, so an "Action:" in the middle of a line (not at the line start) is accepted
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"action\s*[:：]\s*(\w+)\s*[:：]\s*(.*)", reply, flags=re.IGNORECASE)
    return (m.group(1), m.group(2).strip()) if m else None
# %% wrong: the input is not stripped at its end: trailing spaces after the input are returned
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*)$", reply, flags=re.MULTILINE | re.IGNORECASE)
    return m.groups() if m else None
# %% wrong: the whole reply is lower-cased to make "Action" case-insensitive, which also lower-cases the tool name and the input
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action *[:：] *(\w+) *[:：] *(.*)$", reply.lower(), flags=re.MULTILINE)
    return (m.group(1), m.group(2).strip()) if m else None
# %% wrong: findall + [-1] returns the LAST Action line instead of the first one
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    found = re.findall(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*)$", reply, flags=re.MULTILINE | re.IGNORECASE)
    if not found:
        return None
    name, value = found[-1]
    return (name, value.strip())
# %% right: one regex with IGNORECASE | MULTILINE, [ \t\u3000] spaces around both colon classes, input stripped in Python
import re

ACTION_RE = re.compile(r"^action[ \t\u3000]*[:：][ \t\u3000]*(\w+)[ \t\u3000]*[:：](.*)$", re.IGNORECASE | re.MULTILINE)


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = ACTION_RE.search(reply)
    if m is None:
        return None
    return (m.group(1), m.group(2).strip())
# %% right: no regex for the line: walk the lines, compare the first six characters case-insensitively and split at the first colon of either kind
def _split_colon(text):
    """在第一个 ':' 或 '：' 处分开；没有冒号返回 None。"""
    for i, ch in enumerate(text):
        if ch in ":：":
            return text[:i], text[i + 1:]
    return None


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    for line in reply.splitlines():
        if line[:6].lower() != "action":
            continue
        rest = line[6:].lstrip(" \t\u3000")
        if not rest or rest[0] not in ":：":
            continue  # 例如 "Actions ..." 或 "Action Input: ..."
        parts = _split_colon(rest[1:])
        if parts is None:
            continue
        name, value = parts[0].strip(), parts[1].strip()
        if not name or not all(c.isalnum() or c == "_" for c in name):
            continue
        return (name, value)
    return None
# %% right: named groups, re.I | re.M flags written inline in the pattern, and a fullmatch-free search with \s restricted to non-newline spaces
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    pattern = r"(?im)^action[^\S\n]*[:：][^\S\n]*(?P<tool>\w+)[^\S\n]*[:：](?P<input>[^\n]*)"
    m = re.search(pattern, reply)
    if not m:
        return None
    return m.group("tool"), m.group("input").strip()
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: forgets re.MULTILINE, so ^ only matches at the very start of the reply and an Action line after a Thought line is missed
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*?)\s*$", reply, flags=re.IGNORECASE)
    return (m.group(1), m.group(2)) if m else None
# %% wrong: drops the ^ anchor, so an "Action:" in the middle of a line (not at line start) is accepted
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"action\s*[:：]\s*(\w+)\s*[:：]\s*(.*?)\s*$", reply, flags=re.IGNORECASE | re.MULTILINE)
    return (m.group(1), m.group(2)) if m else None
# %% wrong: case handled only as [Aa]ction, so "ACTION:" is not recognised although Action must be case-insensitive
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^[Aa]ction\s*[:：]\s*(\w+)\s*[:：]\s*(.*?)\s*$", reply, flags=re.MULTILINE)
    return (m.group(1), m.group(2)) if m else None
# %% wrong: full-width colon accepted only after "Action"; the colon after the tool name must still be a half-width ':'
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：]\s*(\w+)\s*:\s*(.*?)\s*$", reply, flags=re.IGNORECASE | re.MULTILINE)
    return (m.group(1), m.group(2)) if m else None
# %% wrong: allows no space before the second colon ("Action: search : x" fails), spaces are only allowed after the colons
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：]\s*(\w+)[:：]\s*(.*)", reply, flags=re.IGNORECASE | re.MULTILINE)
    return (m.group(1), m.group(2).strip()) if m else None
# %% wrong: never strips the input, so trailing spaces after the input stay in the returned value
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*)$", reply, flags=re.IGNORECASE | re.MULTILINE)
    return (m.group(1), m.group(2)) if m else None
# %% wrong: greedy (.+) for the tool name, so an input that itself contains a colon (e.g. "12:30") splits at the last colon
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：](.+)[:：](.*)$", reply, flags=re.IGNORECASE | re.MULTILINE)
    if not m:
        return None
    return (m.group(1).strip(), m.group(2).strip())
# %% right: returns a list [tool, input] (relabelled: the reader called it wrong; a 2-item list unpacks as the tuple does, and the checker accepts both on purpose)
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = re.search(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*?)\s*$", reply, flags=re.IGNORECASE | re.MULTILINE)
    return [m.group(1), m.group(2)] if m else None
# %% wrong: takes the LAST line-start Action (findall()[-1]) instead of the first one
import re


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    found = re.findall(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*?)\s*$", reply, flags=re.IGNORECASE | re.MULTILINE)
    return tuple(found[-1]) if found else None
# %% wrong: line-by-line scan without regex, full-width colon normalised per line (relabelled: the reader called it right; it also turns a full-width colon inside the input into ":", and the task returns the input only stripped)
def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    for line in reply.splitlines():
        if line[:6].lower() != "action":
            continue
        rest = line[6:].replace("：", ":").lstrip()
        if not rest.startswith(":"):
            continue
        name, sep, tool_input = rest[1:].partition(":")
        name = name.strip()
        if not sep or not name or not all(ch.isalnum() or ch == "_" for ch in name):
            continue
        return (name, tool_input.strip())
    return None
# %% right: compiled verbose regex with inline flags, horizontal-whitespace classes, strip done in Python
import re

_ACTION = re.compile(
    r"""(?im)
    ^action [^\S\n]* [:：] [^\S\n]*     # Action + colon (half or full width)
    (?P<tool>\w+) [^\S\n]* [:：]        # tool name + colon
    (?P<arg>[^\n]*)                     # rest of the line
    """,
    re.VERBOSE,
)


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = _ACTION.search(reply)
    if m is None:
        return None
    return m.group("tool"), m.group("arg").strip()
