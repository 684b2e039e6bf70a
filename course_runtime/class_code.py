"""Joining a class in one step: the teacher's class code becomes the student's ``.env``.

Standard library only (``python course.py join CODE`` runs it before any
package is installed, then the set-up).

The code (``make_code``) is 20 characters in groups of four, for example
``5ZK2-0M8Q-9TB7-XDEE-4R3A``: the teacher machine's IPv4 address (4 bytes),
its progress service's port (2 bytes) and a random secret (5 bytes, made anew
by every ``serve``), in Crockford's base 32 (digits and letters without I, L,
O, U; read without regard to case, with O as 0 and I or L as 1, hyphens and
spaces skipped, as pasted from a chat app too: ``clean_code``), then two
check characters: the whole number modulo the prime 1021.  A wrong character
or two neighbours swapped always changes that remainder (1021 divides neither
a digit's change times a power of 32 nor a swap's ``(a - b) * 31 * 32**k``),
so a typo is reported as a typo and never reaches the wrong machine.

What the secret protects, and how strongly.  ``POST /api/join`` on the
teacher's progress service hands out the class key for the secret
(``progress_service.make_app``): the code is worth the ``.env`` lines the
teacher projected before, no more - the class key itself stays 128 random
bits.  A guesser on the LAN faces 2**40 secrets, and the service answers at
most ``progress_service.JOIN_FAILURES_PER_MINUTE`` (10) wrong ones a minute
from one address (so one laptop's guessing never locks the others out): half
the space takes 2**39 / 10 minutes, about 100,000 years, from one laptop, and
still about 3,500 years with 30 laptops guessing together; the secret is
replaced at the next ``serve``.

One computer account, one student (``join``).  The student token lives per OS user
(``token_file``), and ``joined.json`` beside it (``remember_join``) records the name and the
class it last joined.  On a shared computer account (a school lab) the next student would hold
the previous student's token: when the teacher's service says the token already has another
name (409), or this account's record says it joined another class under another name, ``join``
says the account seems shared and offers ``--new-token`` (``new_student_token``: a fresh token,
the old file kept as a backup) - it never names the other student.  Before ``.env`` is
rewritten, ``join`` also decides whose the course folder's older results are
(``pin_old_results``: results recorded before ``TOKEN_FIELD`` existed).
"""

from __future__ import annotations

import errno
import hashlib
import ipaddress
import json
import os
import secrets
import stat
import sys
import time
import unicodedata
import urllib.error
import urllib.request
from pathlib import Path

from .setup_check import ROOT as PROJECT_ROOT
from .setup_check import decode_dotenv, dotenv_line, dotenv_lines

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32
CHECK_MODULUS = 1021  # a prime below 32**2
SECRET_BYTES = 5
PAYLOAD_SYMBOLS = 18  # ceil((4 + 2 + 5) * 8 / 5)
CODE_SYMBOLS = PAYLOAD_SYMBOLS + 2
ENV_NAMES = ("COURSE_PROVIDER", "COURSE_BASE_URL", "COURSE_PROGRESS_URL", "COURSE_STUDENT_NAME")
# Lines an older join wrote that no longer belong in .env: the class key stays on the teacher's computer
# (class_gateway); a student reaches the model with their own token.  join removes them.
STALE_NAMES = ("COURSE_CLASS_KEY",)
JOIN_TIMEOUT_S = 10.0
# A result's field with the SHA-256 of the student token it was recorded under (progress.record); the
# teacher's service refuses one recorded under another token (progress_store.unbind).
TOKEN_FIELD = "token_sha256"
LEGACY_OWNER = "legacy-owner"  # in the progress folder: whose are the results recorded without TOKEN_FIELD


class CodeError(ValueError):
    """A class code that cannot be read; the message is Chinese and says what to check."""


def t(key: str, **fields: object) -> str:
    from .texts import t

    return t(key, **fields)


def new_secret() -> str:
    """A fresh join secret: ``SECRET_BYTES`` random bytes (``secrets``) as 10 hex digits."""
    return secrets.token_hex(SECRET_BYTES)


def make_code(address: str, port: int, secret: str) -> str:
    """The class code for IPv4 ``address``, ``port`` and ``secret`` (10 hex digits), grouped ``XXXX-XXXX-...``.

    Raises:
        ValueError: not an IPv4 address, a port outside 1-65535, or a secret that is not 10 hex digits.
    """
    packed = ipaddress.IPv4Address(address).packed
    if not 0 < port < 65536:
        raise ValueError(t("class_code.bad_port", port=port))
    raw = bytes.fromhex(secret)
    if len(raw) != SECRET_BYTES:
        raise ValueError(t("class_code.bad_secret"))
    number = int.from_bytes(packed + port.to_bytes(2, "big") + raw, "big")
    symbols = _symbols(number << 2, PAYLOAD_SYMBOLS)  # 88 bits in 18 symbols (90 bits): 2 zero bits at the end
    symbols += _symbols(number % CHECK_MODULUS, 2)
    return "-".join(symbols[i:i + 4] for i in range(0, len(symbols), 4))


def _symbols(number: int, count: int) -> str:
    out = []
    for _ in range(count):
        out.append(ALPHABET[number % 32])
        number //= 32
    return "".join(reversed(out))


# Characters that look like a hyphen but are not U+002D, beyond Unicode's dash punctuation (category Pd:
# en dash, em dash, U+2010/2011, the full-width hyphen U+FF0D, ...): the minus sign, the hyphen bullet,
# and the prolonged sound marks a Japanese or Chinese input method may give for "-" (code points: no CJK
# text in this module, tests/test_texts.py).
_DASH_LIKE = frozenset(map(chr, (0x2212, 0x2043, 0x30FC, 0xFF70)))


def clean_code(code: str) -> str:
    """A class code as pasted from a chat app, reduced to the symbols that carry it (upper case, no separators).

    NFKC first (full-width ``ＡＢ１２`` becomes ``AB12``, the ideographic space a space), then every
    dash-like character (``_DASH_LIKE``, Unicode category Pd: ``–``, ``—``, ``－``), every space of any
    kind (``str.isspace``, category Z) and every invisible character (categories Cc and Cf: U+200B
    zero-width space, U+FEFF byte order mark, U+2060 word joiner, the soft hyphen) is left out;
    then upper case, with O read as 0 and I or L as 1 (Crockford).  Anything else stays, so
    ``read_code`` can name it.
    """
    kept = []
    for c in unicodedata.normalize("NFKC", code):
        kind = unicodedata.category(c)
        if c in _DASH_LIKE or kind == "Pd" or c.isspace() or kind[0] == "Z" or kind in ("Cc", "Cf"):
            continue
        kept.append(c)
    cleaned = "".join(kept).upper()
    return cleaned.replace("O", "0").replace("I", "1").replace("L", "1")


def read_code(code: str) -> tuple[str, int, str]:
    """``(address, port, secret)`` from a class code as a student typed or pasted it (``clean_code``).

    Raises:
        CodeError: a character that is not in the code's alphabet, the wrong
            length, or check characters that do not match (a typo).
    """
    cleaned = clean_code(code)
    bad = [c for c in cleaned if c not in ALPHABET]
    if bad:
        raise CodeError(t("class_code.bad_char", char=bad[0]))
    if len(cleaned) != CODE_SYMBOLS:
        raise CodeError(t("class_code.bad_length", n=len(cleaned), want=CODE_SYMBOLS))
    value = 0
    for c in cleaned[:PAYLOAD_SYMBOLS]:
        value = value * 32 + ALPHABET.index(c)
    check = ALPHABET.index(cleaned[-2]) * 32 + ALPHABET.index(cleaned[-1])
    if value & 3 or (value >> 2) % CHECK_MODULUS != check:
        raise CodeError(t("class_code.typo"))
    raw = (value >> 2).to_bytes(11, "big")
    return str(ipaddress.IPv4Address(raw[:4])), int.from_bytes(raw[4:6], "big"), raw[6:].hex()


def progress_dir() -> Path:
    """The student's progress folder (``progress`` uses this one): ``COURSE_PROGRESS_DIR``, else ``.progress``."""
    return Path(os.environ.get("COURSE_PROGRESS_DIR") or PROJECT_ROOT / ".progress")


TOKEN_DIR_ENV = "COURSE_STUDENT_TOKEN_DIR"  # another folder for the student token (the tests set it)
APP_FOLDER = "llm-agent-course"


def token_dir() -> Path:
    """The folder of this OS user's student token: ``COURSE_STUDENT_TOKEN_DIR`` when set, else
    ``llm-agent-course`` in the user's configuration folder - ``%APPDATA%`` on Windows,
    ``~/Library/Application Support`` on macOS, ``$XDG_CONFIG_HOME`` or ``~/.config`` elsewhere.

    Outside the course folder on purpose: a copied course folder does not carry the token, and a
    course downloaded again on the same computer finds it.
    """
    if os.environ.get(TOKEN_DIR_ENV):
        return Path(os.environ[TOKEN_DIR_ENV])
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or os.path.expanduser("~/AppData/Roaming")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Application Support")
    else:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / APP_FOLDER


def token_file() -> Path:
    """``token_dir() / "student-token"``."""
    return token_dir() / "student-token"


def _read_token(path: Path) -> str | None:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return token if len(token) == 32 and all(c in "0123456789abcdef" for c in token) else None


def joined_token() -> str | None:
    """This OS user's student token if there is one (``token_file()``), else None; never makes one.

    The ``classroom`` provider sends it as its key (``providers.get_provider``): the teacher's
    door to the model (``class_gateway``) knows the token once ``join`` has handed it over.
    """
    return _read_token(token_file())


def token_sha256(token: str) -> str:
    """The SHA-256 (hex) of a student token: what the teacher's service keeps, and what a result carries."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def student_token(folder: Path | None = None) -> str:
    """This OS user's student token (32 hex digits), made once and kept in ``token_file()`` (owner only).

    The teacher's service ties the display name to it, so nobody else can post
    or read under that name; it never leaves this computer except to that service.
    A token that an older course kept in the progress folder (``folder``, default
    ``progress_dir()``: ``.progress/student-token``) is moved there the first time, when
    this user has none yet; once the user has one, a token in a course folder is ignored.
    """
    path = token_file()
    token = _read_token(path)
    if token is not None:
        return token
    old = (folder or progress_dir()) / "student-token"
    token = _write_token(path, _read_token(old) or secrets.token_hex(16))
    if old.is_file():
        try:
            old.unlink()
        except OSError:
            pass
    return token


def _write_token(path: Path, token: str) -> str:
    """Keep ``token`` in ``path``, owner only, unless a readable token got there first (returned instead)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.parent.chmod(0o700)
    except OSError:
        pass
    try:  # created owner-only, and only once (two kernels starting together keep the first token)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        fd = None
    if fd is None:
        kept = _read_token(path)
        if kept is not None:
            return kept
        path.write_text(token + "\n", encoding="utf-8")  # an unreadable leftover: replaced
    else:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
    path.chmod(0o600)
    return token


def new_student_token() -> tuple[str, Path | None]:
    """A fresh student token for this OS user (``join --new-token``): the old ``token_file()`` is kept as
    ``student-token.<time>.bak`` beside it.  Returns ``(token, backup path or None when there was none)``.

    Raises:
        OSError: the folder cannot be written.
    """
    path = token_file()
    backup = None
    if path.exists():
        backup = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}.bak")
        os.replace(path, backup)
    return _write_token(path, secrets.token_hex(16)), backup


def join_record() -> Path:
    """``token_dir() / "joined.json"``: the name and the class this OS user's token last joined (``remember_join``)."""
    return token_dir() / "joined.json"


def remember_join(token: str, name: str, address: str, port: int) -> None:
    """Record that ``token`` joined the class at ``address:port`` as ``name`` (never raises: only a help)."""
    record = {"token_sha256": token_sha256(token), "name": name, "class": f"{address}:{port}"}
    try:
        join_record().parent.mkdir(parents=True, exist_ok=True)
        replace_file(join_record(), json.dumps(record, ensure_ascii=False).encode("utf-8"))
    except OSError:
        pass


def _normal_name(name: str) -> str:
    """A typed name as the service stores it, near enough to compare: NFKC, runs of spaces made one, trimmed."""
    return " ".join(part for part in unicodedata.normalize("NFKC", name).split(" ") if part)


def _same_name(a: str, b: str) -> bool:
    return _normal_name(a) == _normal_name(b)


def joined_elsewhere(token: str, name: str, address: str, port: int) -> bool:
    """Whether this account's record says ``token`` joined *another* class under *another* name.

    That class's service, not this one, knows the token: this one would tie a second student's
    name to the first student's token.  The same class is left to its service (it answers 409 when
    the token has another name; a name the teacher renamed or released is its to decide).
    """
    try:
        record = json.loads(join_record().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(record, dict) and record.get("token_sha256") == token_sha256(token)
            and record.get("class") != f"{address}:{port}"
            and isinstance(record.get("name"), str) and not _same_name(record["name"], name))


def legacy_owner(folder: Path) -> str | None:
    """Whose are the results in ``folder`` recorded without ``TOKEN_FIELD`` (by an older course): the SHA-256
    of a student token, "" for nobody's (``join`` found the folder joined under another name), or None when
    not decided (they count as the current token's: ``progress.send_pending``)."""
    try:
        return (folder / LEGACY_OWNER).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def pin_old_results(folder: Path, old_name: str | None, new_name: str, token: str) -> None:
    """Decide, once, whose are ``folder``'s results recorded without ``TOKEN_FIELD`` (``legacy_owner``).

    Called by ``join`` before it rewrites ``.env``: ``old_name`` is the ``COURSE_STUDENT_NAME`` the
    course folder had (a copied folder brings the classmate's).  They are ``token``'s when the folder
    had no name or the same name as the one joined now (``new_name``), else nobody's: they stay on
    disk, never sent.  Nothing is written when there are no such results or it was decided before.
    """
    if legacy_owner(folder) is not None:
        return
    try:
        lines = (folder / "results.jsonl").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    old = False
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        old = old or (isinstance(item, dict) and TOKEN_FIELD not in item)
    if not old:
        return
    mine = old_name is None or _same_name(old_name, new_name)
    try:
        (folder / LEGACY_OWNER).write_text((token_sha256(token) if mine else "") + "\n", encoding="utf-8")
    except OSError:
        pass


def _env_name(lines: list[str]) -> str | None:
    """The ``COURSE_STUDENT_NAME`` of ``.env`` lines (python-dotenv's reading, ``setup_check.dotenv_line``), or None."""
    for line in lines:
        parsed = dotenv_line(line)
        if parsed and parsed[0] == "COURSE_STUDENT_NAME" and parsed[1]:
            return parsed[1]
    return None


def ask_service(address: str, port: int, secret: str, name: str, token: str,
                timeout: float = JOIN_TIMEOUT_S) -> dict[str, str]:
    """``POST http://address:port/api/join``; return the ``.env`` values it hands out (``ENV_NAMES``).

    No proxy is used (the teacher's machine is on the LAN).
    Raises:
        CodeError: the service is unreachable, refused the secret or the name
            (its own Chinese reason), or answered something else.
    """
    body = json.dumps({"secret": secret, "name": name, "token": token}).encode("utf-8")
    request = urllib.request.Request(f"http://{address}:{port}/api/join", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as reply:
            values = json.loads(reply.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        try:
            why = json.loads(exc.read().decode("utf-8")).get("error", "")
        except ValueError:
            why = ""
        raise CodeError(t("class_code.refused", status=exc.code, why=why)) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise CodeError(t("class_code.unreachable", address=address, port=port,
                           error=getattr(exc, "reason", exc))) from None
    if not isinstance(values, dict) or not all(isinstance(values.get(k), str) for k in ENV_NAMES):
        raise CodeError(t("class_code.bad_answer"))
    return {k: values[k] for k in ENV_NAMES}


def env_lines(path: Path) -> list[str]:
    """The lines of the ``.env`` at ``path`` (``[]`` when there is none), read as the course reads it
    (UTF-8, or UTF-16 / UTF-8 with a BOM from Notepad), split where python-dotenv splits them
    (``setup_check.dotenv_lines``: CR LF, LF or CR; a form feed or U+2028 inside a value stays in its line).

    Raises:
        CodeError: a file in another encoding (e.g. GBK from an old editor): rewriting it would
            turn its other lines into replacement characters, so nothing is written; the
            sentence says how to save it as UTF-8.
    """
    if not path.is_file():
        return []
    try:
        lines = dotenv_lines(decode_dotenv(path.read_bytes()))
        return lines[:-1] if lines and lines[-1] == "" else lines  # the end of the last line is not a line
    except UnicodeDecodeError as exc:
        raise CodeError(t("class_code.env_not_utf8", path=path, position=exc.start)) from exc


def dotenv_quote(value: str) -> str:
    r"""``value`` as a ``.env`` value that python-dotenv 1.2 (``dotenv/parser.py``, ``variables.py``) and the
    course (``setup_check.dotenv_line``) read back exactly.

    Letters, digits and ``_ . : / - + @`` are written as they are (URLs, keys, most names).  Anything else
    goes in single quotes, where python-dotenv's only escapes are ``\`` and ``'`` (so ``#`` and spaces
    are kept).  Single quotes do not stop python-dotenv's ``${VAR}`` expansion, and it has no escape for
    ``$``: a ``$`` before ``{`` is written ``${:-$}`` (an empty variable name, never set, with ``$`` as
    its default), which reads back as ``$``.
    """
    if value and all(c.isalnum() or c in "_.:/-+@" for c in value):
        return value
    escaped = value.replace("\\", "\\\\").replace("'", "\\'").replace("${", "${:-$}{")
    return "'" + escaped + "'"


def write_env(values: dict[str, str], path: Path | None = None, remove: tuple[str, ...] = ()) -> Path:
    """Put ``values`` into ``.env``: each line ``NAME=value`` replaced where it was, else added at the end;
    the lines of the names in ``remove`` are left out (``join`` passes ``STALE_NAMES``).

    Values are written with ``dotenv_quote`` (a name with ``#``, ``${HOME}`` or ``'`` reads back the same).
    Other lines are kept as they were.  The file is read as ``env_lines`` reads
    it and written as UTF-8 without a BOM, ``\n`` line ends.  Returns the path.

    Written atomically (``replace_file``): a full disk, a read-only folder or file, or a stop
    half-way never leaves a cut or empty ``.env``; the old one stays as it was.

    Raises:
        CodeError: the file is not UTF-8 / UTF-16 (``env_lines``), or it could not be written
            (``class_code.env_not_written``: the path, the system's reason, what to do, and the
            lines to add by hand); either way it is left as it was.
    """
    path = path or PROJECT_ROOT / ".env"
    lines = env_lines(path)
    kept, done = [], set()
    for line in lines:
        name = line.split("=", 1)[0].strip().removeprefix("export ").strip()
        if "=" in line and name in remove and name not in values:
            continue
        if "=" in line and name in values:
            if name not in done:  # the first line of that name gets the value; repeats would override it
                kept.append(f"{name}={dotenv_quote(values[name])}")
                done.add(name)
            continue
        kept.append(line)
    lines = kept + [f"{name}={dotenv_quote(value)}" for name, value in values.items() if name not in done]
    try:
        replace_file(path, ("\n".join(lines) + "\n").encode("utf-8"))
    except OSError as exc:
        by_hand = "\n".join(f"{name}={dotenv_quote(value)}" for name, value in values.items())
        raise CodeError(t("class_code.env_not_written", path=path, error=exc.strerror or exc,
                          advice=t(_WRITE_ADVICE.get(exc.errno, "class_code.env_advice_other")),
                          lines=by_hand)) from exc
    return path


# What to do when .env cannot be written, by the system's reason (errno).
_WRITE_ADVICE = {
    errno.ENOSPC: "class_code.env_advice_full",
    getattr(errno, "EDQUOT", errno.ENOSPC): "class_code.env_advice_full",  # a quota (not on Windows)
    errno.EACCES: "class_code.env_advice_read_only",  # also Windows: a read-only file, or open in another program
    errno.EPERM: "class_code.env_advice_read_only",
    getattr(errno, "EROFS", errno.EACCES): "class_code.env_advice_read_only",
}


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a new file next to it (same folder, so the same disk),
    flushed to the disk, then ``os.replace`` (atomic on POSIX and Windows).

    The old file keeps its permission bits (copied to the new one).  On any failure the new file is
    removed and the old one is untouched (never cut, never empty).

    Raises:
        OSError: the folder cannot be written, the disk is full, the old file is read-only or open
            elsewhere (Windows refuses to replace it then), ...
    """
    temporary = path.with_name(f"{path.name}.{secrets.token_hex(4)}.tmp")  # .gitignore: .env.*.tmp
    try:
        with temporary.open("xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
        except FileNotFoundError:
            pass  # a new .env: the mode open() gave it
        os.replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise


def _remove(path: Path) -> None:
    """Delete ``path`` even when it carries the read-only mark: Windows refuses to delete a read-only file
    (``PermissionError: [WinError 5] Access is denied``), and ``replace_file`` copied the old file's mark
    onto the new one - so a read-only ``.env`` used to leave a read-only ``.env.<hex>.tmp`` with the
    class settings in it."""
    try:
        path.unlink(missing_ok=True)
        return
    except PermissionError:
        pass
    try:
        os.chmod(path, stat.S_IREAD | stat.S_IWRITE)
        path.unlink(missing_ok=True)
    except OSError:
        pass


def join(code: str, name: str | None = None, env_path: Path | None = None, new_token: bool = False) -> int:
    """``python course.py join CODE [--name NAME] [--new-token]``: read the code, ask the service, write ``.env``.

    The name is asked for when not given.  ``new_token``: this OS user gets a fresh student token first
    (``new_student_token``; the next student on a shared computer account).  Refused, with the sentence
    that offers ``--new-token`` and never names the other student, when this account's token joined
    another class under another name (``joined_elsewhere``) - and by the service (409) when the token has
    another name in this class.  Returns 0, or 1 after printing why (Chinese) on stderr.
    """
    try:
        address, port, secret = read_code(code)
        old_env = env_lines(env_path or PROJECT_ROOT / ".env")  # an unreadable .env stops here, before the teacher is asked
        if name is None:
            name = input(t("class_code.ask_name")).strip()
        if new_token:
            try:
                token, backup = new_student_token()
            except OSError as exc:
                raise CodeError(t("class_code.token_not_written", path=token_file(), error=exc.strerror or exc)) from exc
            print(t("class_code.new_token", backup=backup or "-"))
        else:
            token = student_token()
        if joined_elsewhere(token, name, address, port):
            raise CodeError(t("class_code.shared_account"))
        values = ask_service(address, port, secret, name, token)
        pin_old_results(progress_dir(), _env_name(old_env), values["COURSE_STUDENT_NAME"], token)
        path = write_env(values, env_path, remove=STALE_NAMES)
        remember_join(token, values["COURSE_STUDENT_NAME"], address, port)
    except CodeError as exc:
        print(t("class_code.error_line", error=exc), file=sys.stderr)
        return 1
    except (EOFError, KeyboardInterrupt):
        return 1
    print(t("class_code.joined", name=values["COURSE_STUDENT_NAME"], path=path,
             url=values["COURSE_BASE_URL"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m course_runtime.class_code CODE [--name NAME] [--new-token]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python course.py join", description=__doc__.split("\n")[0])
    parser.add_argument("code")
    parser.add_argument("--name", default=None)
    parser.add_argument("--new-token", action="store_true",
                        help="a new student token for this computer account (the old one is kept as a backup)")
    opts = parser.parse_args(argv)
    return join(opts.code, opts.name, new_token=opts.new_token)


if __name__ == "__main__":
    sys.exit(main())
