"""The course cache on a full disk or a read-only home (issue 41, part 6): a Chinese sentence, not a traceback.

``settings.cache_dir()`` makes ``~/.cache/llm-agent-course`` (or ``COURSE_CACHE_DIR``), where the
model (1.1 GB) is put together, the server logs and keeps its state.  A home folder that is read-only
(a lab machine), a file in the way, or a disk that fills up while the model is written gave a
``PermissionError`` / ``NotADirectoryError`` / ``OSError: [Errno 28]`` traceback.  Now each is a
``settings.CacheDirError`` (an ``EnvFileError``: the fix is a line in ``.env``) that names the folder,
what is wrong, and the ``COURSE_CACHE_DIR=`` line to add, with an example for this system.

How the failures are made here (the tests run as root, which ignores permission bits): a folder
under a regular FILE (a real ``NotADirectoryError`` / ``FileExistsError`` from the system); a
read-only home and a read-only disk by ``monkeypatch`` (``Path.mkdir`` raising ``EACCES`` /
``EROFS``, ``os.access`` saying no); a full disk by ``monkeypatch`` (the copy raising ``ENOSPC``
after writing some bytes).
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

from course_runtime import local_server, settings, setup_check


@pytest.fixture
def clean(monkeypatch):
    """No cache setting from the environment; .env read (``python course.py test`` sets COURSE_IGNORE_DOTENV=1);
    restored afterwards."""
    monkeypatch.delenv("COURSE_IGNORE_DOTENV", raising=False)
    for name in ("COURSE_CACHE_DIR", "COURSE_GGUF_PATH"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setattr(settings, "_FROM_DOTENV", {})
    monkeypatch.setattr(settings, "_DOTENV_VALUES", {})


def says_what_to_do(text: str, folder: Path) -> bool:
    """The sentence names the folder, the setting, .env, and the example line for this system."""
    example = setup_check.CACHE_EXAMPLES.get(sys.platform, setup_check.CACHE_EXAMPLE_OTHER)
    return str(folder) in text and "COURSE_CACHE_DIR=" in text and ".env" in text and example in text


def test_a_cache_folder_under_a_regular_file_is_named_with_the_fix(clean, tmp_path, monkeypatch):
    blocker = tmp_path / "AI 课程" / "缓存"
    blocker.parent.mkdir()
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("COURSE_CACHE_DIR", str(blocker / "cache"))
    with pytest.raises(settings.EnvFileError) as err:
        settings.cache_dir()
    assert isinstance(err.value, settings.CacheDirError)
    text = str(err.value)
    assert says_what_to_do(text, blocker / "cache") and "不是文件夹" in text and "环境变量" in text
    assert "Traceback" not in text and "Errno" not in text


@pytest.mark.parametrize("code, words", [(errno.EACCES, "不能写入"), (errno.EROFS, "不能写入"),
                                         (errno.ENOSPC, "磁盘空间不够")])
def test_a_read_only_or_full_home_says_where_and_what_to_set(clean, tmp_path, monkeypatch, code, words):
    """The default folder (no COURSE_CACHE_DIR) in a home that cannot be written: ``mkdir`` fails (simulated)."""
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path / "home"))
    real_mkdir = Path.mkdir

    def mkdir(self, *args, **kwargs):
        if self.is_relative_to(tmp_path / "home"):
            raise OSError(code, os.strerror(code), str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    with pytest.raises(settings.CacheDirError) as err:
        settings.cache_dir()
    text = str(err.value)
    folder = tmp_path / "home" / ".cache" / "llm-agent-course"
    assert says_what_to_do(text, folder) and words in text and "默认位置" in text


def test_an_existing_folder_that_is_not_writable_is_named(clean, tmp_path, monkeypatch):
    """A folder made earlier (or by an administrator) that this user cannot write: ``os.access`` says no
    (simulated: root may write anywhere)."""
    folder = tmp_path / "shared cache"
    folder.mkdir()
    (tmp_path / ".env").write_text(f'COURSE_CACHE_DIR="{folder}"\n', encoding="utf-8")
    settings.load_env(tmp_path / ".env")
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != folder)
    with pytest.raises(settings.CacheDirError) as err:
        settings.cache_dir()
    assert says_what_to_do(str(err.value), folder) and "不能写入" in str(err.value) and "来自.env" in str(err.value)


def full_disk_copy(source, target, length=0):
    """``shutil.copyfileobj`` on a disk that fills up: some bytes arrive, then ENOSPC (as on Linux and Windows)."""
    target.write(b"\0" * 4096)
    target.flush()
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_while_writing_into_the_cache_is_named_and_the_partial_file_removed(clean, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path))
    partial = settings.cache_dir() / "model.partial"
    with pytest.raises(settings.CacheDirError) as err:
        with settings.cache_writes(partial), open(partial, "wb") as out:
            full_disk_copy(None, out)
    assert says_what_to_do(str(err.value), tmp_path) and "磁盘空间不够" in str(err.value)
    assert not partial.exists()  # 4 KB here, up to 1.1 GB on a real disk: not left behind


def test_another_error_while_writing_is_raised_as_it_was(clean, tmp_path):
    partial = tmp_path / "model.partial"
    with pytest.raises(OSError) as err:
        with settings.cache_writes(partial), open(partial, "wb"):
            raise OSError(errno.EIO, "Input/output error")
    assert not isinstance(err.value, settings.CacheDirError) and err.value.errno == errno.EIO
    assert not partial.exists()


def test_assembling_the_model_on_a_full_disk_says_so(clean, tmp_path, monkeypatch):
    """The real writer of the 1.1 GB file, on a disk that fills up during the copy."""
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(local_server.shutil, "copyfileobj", full_disk_copy)
    with pytest.raises(settings.CacheDirError) as err:
        local_server.assemble_from_packages(tmp_path / local_server.GGUF_NAME)
    assert "磁盘空间不够" in str(err.value) and not [p for p in tmp_path.iterdir() if "partial" in p.name]


def test_a_relative_cache_folder_is_the_project_folders(clean, tmp_path, monkeypatch):
    """``COURSE_CACHE_DIR=cache`` is the same folder for the set-up (run in the project folder) and a
    kernel (run in notebooks/): both take it from the project folder, where .env is."""
    monkeypatch.setattr(setup_check, "ROOT", tmp_path)
    monkeypatch.setenv("COURSE_CACHE_DIR", "课程 cache")
    monkeypatch.chdir(tmp_path.parent)
    assert settings.cache_dir() == tmp_path / "课程 cache" and (tmp_path / "课程 cache").is_dir()
    assert setup_check.cache_dir() == tmp_path / "课程 cache"


def test_the_set_up_checks_the_cache_folder_dotenv_names(clean, tmp_path, monkeypatch):
    """``python course.py check`` / ``setup`` read ``COURSE_CACHE_DIR`` from ``.env`` as the notebooks do
    (they read only the environment before): the folder a student moved the cache to is the one checked,
    and one that cannot be made is named before anything is installed."""
    monkeypatch.delenv("COURSE_IGNORE_DOTENV", raising=False)
    monkeypatch.setenv("COURSE_MIN_MEMORY_GB", "0")
    monkeypatch.setattr(setup_check, "ROOT", tmp_path)
    blocker = tmp_path / "U 盘"
    blocker.write_text("a file", encoding="utf-8")
    (tmp_path / ".env").write_text(f'COURSE_CACHE_DIR="{blocker / "llm-agent-course"}"\n', encoding="utf-8")
    assert setup_check.cache_dir() == blocker / "llm-agent-course"
    problems = setup_check.run(install=False, build=False, local_model=True)
    cache = [p for p in problems if "COURSE_CACHE_DIR=" in p]
    assert cache and str(blocker / "llm-agent-course") in cache[0] and "来自.env" in cache[0], problems


TWO_SETUPS = r"""
import sys, time
from pathlib import Path
from course_runtime import local_server

parts, start_at = Path(sys.argv[1]), float(sys.argv[2])
local_server._part_file = lambda n: (time.sleep(0.03), parts / f"part{n:02d}.bin")[1]  # a slow disk: the copies overlap
local_server.verify_gguf = lambda path: None  # small stand-in chunks, not the real model
while time.time() < start_at:
    time.sleep(0.005)
print(local_server.model_path())
"""


def test_two_set_ups_at_once_both_finish_with_one_model(clean, tmp_path, monkeypatch):
    """Issue 57: two set-ups assembled the model into the same ``.partial`` file outside any lock; the second
    exited with a raw FileNotFoundError (3 of 3 runs).  Both processes must finish with the same, whole file."""
    import subprocess
    import time

    parts = tmp_path / "parts"
    parts.mkdir()
    for n in range(1, local_server.PART_COUNT + 1):
        (parts / f"part{n:02d}.bin").write_bytes(bytes([n]) * 200_000)
    cache = tmp_path / "cache"
    env = {**os.environ, "COURSE_CACHE_DIR": str(cache), "PYTHONPATH": str(Path(local_server.__file__).parents[1])}
    env.pop("COURSE_GGUF_PATH", None)
    start_at = str(time.time() + 2.0)
    runs = [subprocess.Popen([sys.executable, "-c", TWO_SETUPS, str(parts), start_at], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
            for _ in range(2)]
    outs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-500:] for _, err in outs]
    model = cache / local_server.GGUF_NAME
    assert {out.strip() for out, _ in outs} == {str(model)}
    assert model.read_bytes() == b"".join(bytes([n]) * 200_000 for n in range(1, local_server.PART_COUNT + 1))
    assert not [p.name for p in cache.iterdir() if "partial" in p.name]
