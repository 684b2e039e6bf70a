"""No API key in anything that gets committed or shared (issue 5, item 10).

Scanned: every file git would commit (tracked, plus new files that are not
git-ignored; without git: every file under the repository except .venv,
.git, caches and .env), every notebook with its outputs, and test-artifacts/
(executed notebooks, logs) if it exists.  ``.env`` is git-ignored on purpose:
that is where keys belong.

The patterns are assembled from pieces at run time, so this file does not
match itself; the self-test below proves that the scanner does find keys.
A hit is reported as ``path:line: kind sk-T…`` - never the whole key.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".ipynb_checkpoints", "node_modules", "build"}
SKIP_SUFFIXES = {".pyc", ".db", ".gguf", ".bin", ".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".zip", ".gz"}
MAX_BYTES = 20_000_000

_S, _K = "s", "k"  # "s" + "k" + "-" is the OpenAI/DeepSeek/DashScope/Anthropic key prefix
KEY_PATTERNS: dict[str, re.Pattern] = {
    "openai-style key": re.compile(r"(?<![A-Za-z0-9_-])" + _S + _K + r"-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_-]{20,}"),
    "AWS access key": re.compile("AK" + "IA" + r"[0-9A-Z]{16}(?![0-9A-Z])"),
    "Google API key": re.compile("AI" + "za" + r"[0-9A-Za-z_-]{35}"),
    "GitHub token": re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{40,})"),
    "Hugging Face token": re.compile("h" + r"f_[A-Za-z0-9]{30,}"),
    "Slack token": re.compile("xo" + r"x[abprs]-[A-Za-z0-9-]{10,}"),
    "private key": re.compile("-----BEGIN " + r"(?:[A-Z]+ )?PRIVATE KEY-----"),
    "bearer token": re.compile("Bear" + r"er\s+[A-Za-z0-9_\-.=]{24,}"),
    # the class key of python course.py serve (course_runtime/classroom.py: KEY_PREFIX + 32 hex digits)
    "class key": re.compile("course-" + r"class-[0-9a-f]{32}(?![0-9a-f])"),
    # the teacher key of the progress page (course_runtime/progress_service.py: TEACHER_KEY_PREFIX + 32 hex digits)
    "teacher key": re.compile("course-" + r"teacher-[0-9a-f]{32}(?![0-9a-f])"),
    # api_key="…", "api_key": "…", OPENAI_API_KEY = '…': a long quoted literal
    "key assignment": re.compile(
        r"(?i)[A-Za-z0-9_]*(?:api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token)[\"']?\s*[:=]\s*"
        r"[\"'](?P<value>[A-Za-z0-9_\-.+/]{24,})[\"']"
    ),
    # DEEPSEEK_API_KEY=… in a .env-style line (quotes optional)
    "env-file key": re.compile(
        r"(?m)^[ \t#]*(?:export[ \t]+)?[A-Z0-9_]*(?:API_KEY|SECRET|TOKEN)[ \t]*=[ \t]*[\"']?(?P<value>[A-Za-z0-9_\-.+/]{24,})"
    ),
}


def class_keys() -> list[str]:
    """The class and teacher keys made on this machine (``.class-key``, ``.teacher-key``, git-ignored), and this
    machine's student token (``class_code.token_file()``, and ``.progress/student-token`` where an older
    course kept it): their exact text is searched too."""
    from course_runtime.class_code import progress_dir, token_file
    from course_runtime.classroom import KEY_FILE, read_key
    from course_runtime.keys import TEACHER_KEY_FILE

    keys = []
    for file in (KEY_FILE, TEACHER_KEY_FILE, token_file(), progress_dir() / "student-token"):
        try:
            key = read_key(file)  # as the class server reads it: a Notepad BOM or CRLF is not part of the key
        except Exception:  # noqa: BLE001 - a key no client could send (LocalModelError): its raw lines are searched
            key = "\n".join(line.strip() for line in file.read_text(encoding="utf-8-sig").splitlines() if line.strip())
        keys += [k for k in key.split("\n") if k]
    return keys


def masked(secret: str) -> str:
    return secret[:4] + "…"


def scan_text(text: str) -> list[tuple[int, str, str]]:
    """Return ``(line number, kind, masked match)`` for every key-shaped string in ``text``."""
    hits = []
    for key in class_keys():
        start = text.find(key)
        if start >= 0:
            hits.append((text.count("\n", 0, start) + 1, "this machine's class or teacher key", masked(key)))
    for kind, pattern in KEY_PATTERNS.items():
        for m in pattern.finditer(text):
            found = m.groupdict().get("value") or m.group(0)
            hits.append((text.count("\n", 0, m.start()) + 1, kind, masked(found)))
    return hits


def _git_files() -> list[Path] | None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True, timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [ROOT / name for name in out.decode("utf-8", "replace").split("\0") if name]


def _walk(top: Path) -> list[Path]:
    files = []
    for path in top.rglob("*"):
        rel = path.relative_to(ROOT).parts
        if any(part in SKIP_DIRS or part.endswith(".egg-info") for part in rel):
            continue
        if path.is_file() and path.name != ".env":
            files.append(path)
    return files


def files_to_scan() -> list[Path]:
    files = _git_files()
    if files is None:
        files = _walk(ROOT)
    files += list((ROOT / "notebooks").glob("*.ipynb"))  # outputs included: the whole JSON is read
    files += [p for p in (ROOT / "bench" / "results").rglob("*") if p.is_file()]  # logs and results, also ignored ones
    from course_runtime.classroom import log_path

    files += [log_path()] if log_path().is_file() else []  # the class server's log
    if (ROOT / "test-artifacts").is_dir():
        files += [p for p in (ROOT / "test-artifacts").rglob("*") if p.is_file()]
    unique = {p.resolve(): p for p in files if p.is_file()}
    return sorted(p for p in unique.values() if p.suffix.lower() not in SKIP_SUFFIXES)


def scan_file(path: Path) -> list[tuple[int, str, str]]:
    if path.stat().st_size > MAX_BYTES:
        return []
    return scan_text(path.read_bytes().decode("utf-8", "replace"))


# --------------------------------------------------------------------------- the scan


def test_no_api_key_in_committed_files_notebooks_or_logs():
    files = files_to_scan()
    assert any(p.name == "messages.py" for p in files), "the scan found no course files at all"
    assert Path(__file__).resolve() in {p.resolve() for p in files}, "this test must scan itself too"
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {kind} {shown}"
        for path in files
        for line, kind, shown in scan_file(path)
    ]
    assert not problems, "API key pattern(s) found - remove the key and rotate it:\n" + "\n".join(problems)


def test_the_class_key_file_is_never_committed():
    files = _git_files()
    if files is None:
        pytest.skip("git is not available")
    assert ".class-key" not in {p.relative_to(ROOT).as_posix() for p in files}
    ignored = subprocess.run(["git", "check-ignore", "-q", ".class-key"], cwd=ROOT, timeout=60)
    assert ignored.returncode == 0, ".class-key must be git-ignored"


def test_the_git_file_list_when_git_is_available():
    files = _git_files()
    if files is None:
        pytest.skip("git is not available; the scan walks the directory instead")
    names = {p.relative_to(ROOT).as_posix() for p in files}
    assert "course_lib/messages.py" in names and ".env" not in names
    assert not any(n.startswith(".venv/") for n in names)


def test_walk_fallback_skips_the_venv_and_dotenv():
    names = {p.relative_to(ROOT).as_posix() for p in _walk(ROOT)}
    assert "course_lib/messages.py" in names
    assert ".env" not in names and not any(n.startswith((".venv/", ".git/")) for n in names)


# --------------------------------------------------------------------------- the scanner itself


def fake(prefix: str, body: str) -> str:
    return prefix + body  # assembled at run time: never a literal in this file


@pytest.mark.parametrize(
    "text, kind",
    [
        (fake("s" + "k-", "a1B2c3D4e5F6g7H8i9J0k1L2m3"), "openai-style key"),
        (fake("s" + "k-proj-", "a1B2c3D4e5F6g7H8i9J0k1L2m3_x-y"), "openai-style key"),
        (fake("s" + "k-ant-api03-", "a1B2c3D4e5F6g7H8i9J0k1L2"), "openai-style key"),
        (fake("AK" + "IA", "ABCDEFGHIJ012345"), "AWS access key"),
        (fake("AI" + "za", "S" * 35), "Google API key"),
        (fake("gh" + "p_", "a" * 36), "GitHub token"),
        (fake("h" + "f_", "abcdefghijklmnopqrstuvwxyz12345"), "Hugging Face token"),
        (fake("-----BEGIN RSA ", "PRIVATE KEY-----"), "private key"),
        (fake("Authorization: Bear", "er abcdefghijklmnopqrstuvwxyz0123"), "bearer token"),
        (fake('client = OpenAI(api_', 'key="0123456789abcdefABCDEF0123")'), "key assignment"),
        (fake('{"api_', 'key": "0123456789abcdefABCDEF0123"}'), "key assignment"),
        (fake("OPENAI_API_", "KEY = '0123456789abcdefABCDEF0123'"), "key assignment"),
        (fake("COURSE_CLASS_KEY=course-", "class-0123456789abcdef0123456789abcdef"), "class key"),
    ],
)
def test_scanner_finds_key_shapes(text, kind, tmp_path):
    """Each shape is found inside a line of code, and in a notebook output."""
    hits = scan_text(f"line one\nprint('x')  # {text}\n")
    assert (2, kind) in {(line, k) for line, k, _ in hits}
    assert all(text not in shown and len(shown) <= 5 for _, _, shown in hits)  # never printed whole
    (tmp_path / "leak.ipynb").write_text('{"outputs": ["' + text + '"]}', encoding="utf-8")
    assert scan_file(tmp_path / "leak.ipynb")


@pytest.mark.parametrize("line", [fake("DEEPSEEK_API_", "KEY=0123456789abcdefABCDEF0123"),
                                  fake("  export COURSE_API_", "KEY='0123456789abcdefABCDEF0123'"),
                                  fake("# DASHSCOPE_API_", "KEY=0123456789abcdefABCDEF0123")])
def test_scanner_finds_env_file_keys(line):
    assert "env-file key" in [kind for _, kind, _ in scan_text("COURSE_PROVIDER=deepseek\n" + line)]


@pytest.mark.parametrize(
    "text",
    [
        "api_key=some_very_long_variable_name_for_the_key",  # code, not a literal
        "task-management-for-everyone-in-the-classroom",  # contains the prefix letters inside a word
        "DEEPSEEK_API_KEY=",
        "# DASHSCOPE_API_KEY=<your key>",
        'api_key=provider.api_key or "not-needed"',
        'api_key="test-key-not-real"',
        "key_env: environment variable holding the API key",
        "max_tokens=100, total_tokens: 1234567890123456789012345",
        "def _redact(text: str, provider: Provider) -> str:",
        "Authorization: Bearer <your key>",
    ],
)
def test_scanner_ignores_ordinary_text(text):
    assert scan_text(text) == []
