"""Shared helpers for the course; every module is meant to be opened and read.

Import from the module that holds the idea, so the name tells you where to look.
The notebook that teaches each module is in brackets (its docstring says so too).
The list is in import order: a module imports only modules above it (a package
- tools/, checkers/ - also its own files), so there is no circle and nothing
runs back up (tests/test_package_map.py checks it).

texts           every sentence a student sees (errors, hints, titles)       [all]
platforms       which engine serves the model on this OS / CPU (stdlib only) [00]
setup_check     the set-up's pre-checks (standard library only)             [00]
settings        the project root, the cache folder and the .env file         [00]
server_process  start / watch / stop the model server on every OS (guard)   [00]
windows_engine  llama.cpp's Windows release from PyPI, unpacked             [00]
xllamacpp_server  the xllamacpp engine with llama-server's flags (macOS)   [00]
local_server    the embedded model server (any engine) and its model file   [00]
classroom       the teacher's class server (course.py serve), class key     [guide]
json_scan       find and read JSON objects inside a model's text            [05]
recording       record every request a client makes (the checkers)          [01 on]
quiz_questions  the questions of every notebook's quiz                      [00-07]
quiz            the quiz widget                                             [00-07]
request_rules   what some endpoints need changed in a request               [00, 01]
messages        normalize / validate messages and tools; build request kwargs [01-04]
replies         read one reply / one stream / its usage / an error          [01 on]
http_client     the HTTP client under every client: rules, proxies, class   [00]
request_log     one JSON line per request (the bench, the tests)            [bench]
providers       which model to talk to (presets, .env, get_client, ping)    [00, 01]
records         what a loop run leaves: one record per step, RunResult      [05, 06]
tables          message chains, responses and loop steps as tables          [01, 05, 06]
plots           prompt tokens per turn/step (matplotlib)                    [02, 05, 09]
memory          bounded message lists: ShortTermMemory, SummaryMemory       [02, 09]
tools/          the offline tools, the ToolRegistry, tool-name matching     [03-05, 08]
tool_calls      read the model's tool calls and run them safely             [04]
number_check    where a calculation's numbers come from (the loop's check)  [06]
approval        the one approval gate every loop asks; approve/reject/edit [08]
react_parser    the ReAct text-protocol parser (ParsedReply)                [05]
loop            what every loop shares: start / done / result, max_steps    [05, 06]
react           the prompt-based ReAct loops (LineReAct, JsonReAct)         [05]
agent           the native function-calling loop (Agent, run_agent)         [06]
mcp_server      the course's tools as an MCP server (stdio)                 [09]
mcp_client      use an MCP server's tools from the course Agent             [09]
widgets         chat boxes (ChatSession, chat_box); with tools, an Agent    [01, 02, 04]
debugger        the step-through debugger for any loop                      [05, 06]
eval_set        notebook 10's test set, its keys computed from data/       [10]
evaluation      run a test set; facts, invented numbers, trajectories, agreement [10]
judge           an LLM judge answering through a JSON schema                [10]
tracing         an agent run's spans (OpenTelemetry) in a local file        [10]
checkers/       exercise checkers, one module per notebook                  [00-10]
"""
