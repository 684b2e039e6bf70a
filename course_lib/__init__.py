"""The course's lessons in code: every module here is taught in a notebook and meant to be opened.

Import from the module that holds the idea, so the name tells you where to
look.  Listed in notebook order; the notebook that teaches each module is in
brackets (its docstring says so too).  What runs underneath - the model
server, the HTTP layer, the set-up, the class server - is ``course_runtime/``,
which never imports this package (tests/test_package_map.py checks both).

providers       which model to talk to: presets, .env, get_client, ping      [00, 01]
recording       record every request a client makes (the checkers)          [00 on]
quiz            the quiz widget                                             [00-12]
quiz_questions  the questions of every notebook's quiz                      [00-12]
replies         read one reply / one stream / its usage / an error          [01 on]
messages        normalize / validate messages and tools; build request kwargs [01-04]
tables          message chains, responses and loop steps as tables          [01, 05, 06]
widgets         chat boxes (ChatSession, chat_box); with tools, an Agent    [01, 02, 04]
memory          bounded message lists by trimming: ShortTermMemory          [02]
plots           prompt tokens per turn/step (matplotlib)                    [02, 05, 09]
tools/          the offline tools, the ToolRegistry, tool-name matching     [03-05, 08, 11]
tool_calls      read the model's tool calls and run them safely             [04]
json_scan       find and read JSON objects inside a model's text            [05]
react_parser    the ReAct text-protocol parser (ParsedReply)                [05]
records         what a loop run leaves: calls, results, steps, RunResult    [05, 06]
loop_base       what every loop shares: start / done / result, max_steps    [05, 06]
react           the prompt-based ReAct loops (LineReAct, JsonReAct)         [05]
debugger        the step-through debugger for any loop                      [05, 06]
agent           the native function-calling loop (Agent, run_agent)         [06]
number_check    where a calculation's numbers come from (the loop's check)  [06]
approval        the one approval gate every loop asks; approve/reject/edit [08]
summary_memory  compressed memory: SummaryMemory, a model-written summary   [09]
mcp_server      the course's tools as an MCP server (stdio)                 [09]
mcp_client      use an MCP server's tools from the course Agent             [09]
eval_set        notebook 10's test set, its keys computed from data/       [10]
evaluation      run a test set; facts, invented numbers, trajectories, agreement [10]
judge           an LLM judge answering through a JSON schema                [10]
tracing         an agent run's spans (OpenTelemetry) in a local file        [10]
multi_agent     an agent as a tool; a handoff to a specialist (who owns it) [11]
capstone        your own agent: practice set, hidden exam, its scorer       [12]
texts           the lessons' sentences (the table: course_runtime/texts.py) [all]
checkers/       exercise checkers, one module per notebook                  [00-11]
"""
