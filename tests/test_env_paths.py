"""Windows paths in ``.env`` (issue 41, part 5): a backslash in a path setting is a backslash.

A student whose folder has a space writes the path in double quotes, as Windows
shows it: ``COURSE_GGUF_PATH="C:\\new\\table\\模型.gguf"``.  python-dotenv reads
``\\n``, ``\\t``, ``\\\\`` ... inside double quotes as escapes, so that path became
``C:<newline>ew<tab>able\\模型.gguf`` - and the set-up (``setup_check.dotenv_value``,
standard library only) read the same line as the path, so the two readers
disagreed.  Now the course's path settings (``setup_check.PATH_SETTINGS``) are
taken as written by both readers; every other value keeps python-dotenv's
meaning, and one that holds a control character after that is refused with a
Chinese sentence naming the line, before anything is changed.
"""

from __future__ import annotations

import os

import pytest

from course_runtime import settings, setup_check

# Every setting the course reads as a file or folder path (grep os.environ in course_lib/ and bench/).
PATHS = ["COURSE_CACHE_DIR", "COURSE_DATA_DIR", "COURSE_GGUF_PATH", "COURSE_LLAMA_SERVER", "COURSE_PROGRESS_DIR",
         "COURSE_REPLAY_DIR", "COURSE_REQUEST_LOG", "COURSE_SHOP_DB"]
NAMES = PATHS + ["COURSE_PROVIDER", "COURSE_MODEL", "COURSE_ENGINE", "COURSE_EXTRA_BODY",
                                             "COURSE_BASE_URL", "COURSE_CLASS_KEY", "COURSE_LANGUAGE"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project folder whose .env ``load_env`` reads; the settings it may write are restored afterwards."""
    monkeypatch.delenv("COURSE_IGNORE_DOTENV", raising=False)
    monkeypatch.setattr(settings, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(settings, "_FROM_DOTENV", {})
    monkeypatch.setattr(settings, "_DOTENV_VALUES", {})
    for name in NAMES:
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return tmp_path


def test_every_path_setting_is_read_as_a_path():
    assert set(getattr(setup_check, "PATH_SETTINGS", ())) == set(PATHS)


def write_env(folder, text: str):
    path = folder / ".env"
    path.write_text(text, encoding="utf-8")
    return path


# (the line as a student writes it, the name, the value both readers must give)
WINDOWS_LINES = [
    (r'COURSE_GGUF_PATH="C:\new\table\模型.gguf"', "COURSE_GGUF_PATH", r"C:\new\table\模型.gguf"),
    (r'COURSE_CACHE_DIR="D:\课程\cache"', "COURSE_CACHE_DIR", r"D:\课程\cache"),
    (r'COURSE_CACHE_DIR="D:\AI 课程\缓存\"', "COURSE_CACHE_DIR", "D:\\AI 课程\\缓存\\"),  # ends in a backslash
    (r"COURSE_LLAMA_SERVER='\\server\share\bin\llama-server.exe'", "COURSE_LLAMA_SERVER",
     r"\\server\share\bin\llama-server.exe"),  # a UNC path in single quotes: python-dotenv made \\ one \
    (r'export COURSE_PROGRESS_DIR = "C:\Users\张三\AI 课程\.progress"  # 进度', "COURSE_PROGRESS_DIR",
     r"C:\Users\张三\AI 课程\.progress"),
    (r'COURSE_DATA_DIR="C:\data\x\t\a\b\f\v\r"', "COURSE_DATA_DIR", r"C:\data\x\t\a\b\f\v\r"),
    (r'COURSE_SHOP_DB="C:\Users\张三\AI 课程\shop.db"', "COURSE_SHOP_DB", r"C:\Users\张三\AI 课程\shop.db"),
    (r"COURSE_REQUEST_LOG=C:\logs\new\requests.jsonl", "COURSE_REQUEST_LOG", r"C:\logs\new\requests.jsonl"),
    (r'COURSE_REPLAY_DIR="C:\\double\\backslashes"', "COURSE_REPLAY_DIR", r"C:\\double\\backslashes"),
]


@pytest.mark.parametrize("line, name, expected", WINDOWS_LINES, ids=[n for _, n, _ in WINDOWS_LINES])
def test_a_windows_path_keeps_its_backslashes_in_both_readers(project, line, name, expected):
    env = write_env(project, line + "\nCOURSE_PROVIDER=classroom\n")
    assert setup_check.dotenv_value(name, env) == expected
    settings.load_env()
    assert os.environ[name] == expected
    assert os.environ["COURSE_PROVIDER"] == "classroom"  # the next line is still read


def test_a_path_that_ends_in_a_backslash_does_not_swallow_the_next_lines(project):
    """python-dotenv reads ``\\"`` as an escaped quote, so ``"D:\\课程\\"`` went on to the next quote in the file."""
    write_env(project, 'COURSE_CACHE_DIR="D:\\课程\\"\nCOURSE_PROVIDER=classroom\n'
                       'COURSE_BASE_URL=http://192.168.1.23:8766/v1\nCOURSE_EXTRA_BODY={"enable_thinking": false}\n')
    settings.load_env()
    assert os.environ["COURSE_CACHE_DIR"] == "D:\\课程\\"
    assert os.environ["COURSE_PROVIDER"] == "classroom"
    assert os.environ["COURSE_BASE_URL"] == "http://192.168.1.23:8766/v1"
    assert os.environ["COURSE_EXTRA_BODY"] == '{"enable_thinking": false}'


# Lines whose values both readers must read alike (path settings and the others).
AGREEING = [
    "COURSE_PROVIDER=classroom",
    "COURSE_PROVIDER = deepseek   # 老师说的",
    "export COURSE_ENGINE='xllamacpp'  # on this laptop",
    'COURSE_MODEL="qwen-plus"',
    "COURSE_MODEL=",
    "COURSE_MODEL= # nothing",
    "COURSE_MODEL=a#b",
    'COURSE_EXTRA_BODY="{\\"enable_thinking\\": false}"',
    "COURSE_EXTRA_BODY='{\"stop\": [\"\\\\n\"]}'",
    "COURSE_CLASS_KEY='it\\'s'",
    'COURSE_LANGUAGE="zh"  # 中文',
    r'COURSE_CACHE_DIR="C:\new\table"',
    r"COURSE_CACHE_DIR='C:\new\table'",
    r"COURSE_CACHE_DIR=C:\new\table   # 缓存",
    'COURSE_GGUF_PATH="/home/张三/AI 课程/模型.gguf"',
    'COURSE_GGUF_PATH=',
]


@pytest.mark.parametrize("line", AGREEING)
def test_the_set_up_and_the_notebooks_read_the_same_value(project, line):
    """``setup_check.dotenv_value`` (before python-dotenv is installed) and ``settings.load_env`` agree."""
    env = write_env(project, line + "\n")
    name = line.removeprefix("export ").split("=", 1)[0].strip()
    settings.load_env()
    assert setup_check.dotenv_value(name, env) == os.environ.get(name)


def test_other_values_keep_python_dotenvs_escapes(project):
    """Only paths are taken as written: a JSON value in double quotes still has its escaped quotes read."""
    write_env(project, 'COURSE_EXTRA_BODY="{\\"enable_thinking\\": false}"\n')
    settings.load_env()
    assert os.environ["COURSE_EXTRA_BODY"] == '{"enable_thinking": false}'


@pytest.mark.parametrize("line, char", [(r'COURSE_MODEL="qwen\table"', "U+0009"),
                                        (r'COURSE_BASE_URL="http://192.168.1.23:8766/v1\n"', "U+000A"),
                                        ('COURSE_CLASS_KEY="course\\aclass"', "U+0007")])
def test_a_value_with_a_control_character_is_named_and_changes_nothing(project, monkeypatch, line, char):
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    write_env(project, "COURSE_PROVIDER=classroom\n# 一行注释\n" + line + "\n")
    name = line.split("=", 1)[0]
    with pytest.raises(settings.EnvFileError) as err:
        settings.load_env()
    text = str(err.value)
    assert name in text and "第 3 行" in text and char in text and str(project / ".env") in text
    assert "单引号" in text  # the fix: single quotes, or no quotes
    assert os.environ["COURSE_PROVIDER"] == "deepseek" and name not in os.environ  # nothing was changed
