# Exercise 11-1: answers written from the task text alone (notebooks/11_multi_agent.ipynb), without reading the checker.
# %% wrong: each word is put in double quotes, but a " inside a word is not doubled, so 篮球" breaks the query (MATCH syntax error)
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    return " OR ".join(f'"{word}"' for word in words)
# %% wrong: escapes an inner quote with a backslash (\") as in Python/JSON instead of writing it twice ("")
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    return " OR ".join('"' + word.replace('"', '\\"') + '"' for word in words)
# %% wrong: strips the spaces around each word, though the task says not to remove spaces
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    return " OR ".join('"' + word.strip().replace('"', '""') + '"' for word in words)
# %% wrong: removes repeated words with dict.fromkeys, though the task says not to de-duplicate
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    unique = list(dict.fromkeys(words))
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in unique)
# %% wrong: joins with a lowercase " or ", which FTS5 reads as one more word to match (implicit AND), not the OR operator
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    return " or ".join('"' + word.replace('"', '""') + '"' for word in words)
# %% wrong: wraps the joined string in one pair of quotes from outside, so an empty list gives '""' instead of ""
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    escaped = [word.replace('"', '""') for word in words]
    return '"' + '" OR "'.join(escaped) + '"'
# %% wrong: drops blank or whitespace-only words, though every word must be quoted and kept in order (spaces are not removed)
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words if word.strip())
# %% wrong: single quotes from SQL habit instead of FTS5 double quotes, so AND / NEAR( / * / : inside a word stay syntax
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    return " OR ".join("'" + word.replace("'", "''") + "'" for word in words)
# %% right: a generator inside " OR ".join, replace('"', '""') per word
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)
# %% right: an explicit loop building the parts, quote doubled via split/join
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    parts = []
    for word in words:
        parts.append('"%s"' % '""'.join(word.split('"')))
    return " OR ".join(parts)
# %% right: outer quotes around '" OR "'.join with the empty list handled first, re.sub for the doubling
import re


def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    if not words:
        return ""
    return '"' + '" OR "'.join(re.sub('"', '""', word) for word in words) + '"'
