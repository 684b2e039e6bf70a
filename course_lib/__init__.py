"""Shared helpers for the course; every module is meant to be opened and read.

Import from the module that holds the idea, so the name tells you where to look.
The notebook that teaches each module is in brackets (its docstring says so too).
Imports go one way, down this list's dependencies: no module imports one that
imports it back.

texts         every sentence a student sees (errors, hints, titles)       [all]
settings      the project root and the .env file                          [00]
local_server  the embedded llama-server and its model file                [00]
classroom     the teacher's class server (course.sh serve), class key     [guide]
providers     which model to talk to (presets, client, ping)              [00, 01]
replies       read one reply / one stream / its usage / an error          [01 on]
tables        message chains, responses and loop steps as tables          [01, 05, 06]
recording     record every request a client makes (checkers, debugger)    [01 on]
messages      normalize / validate / clean messages; build request kwargs [02-04]
memory        ShortTermMemory: a bounded message list                     [02]
plots         prompt tokens per turn/step (matplotlib)                    [02, 05]
tools/        the offline tools and the ToolRegistry that runs them       [03, 04, 05]
tool_calls    read the model's tool calls and run them safely             [04]
widgets       chat boxes for the classroom (ChatSession, chat_box)        [01, 02, 04]
json_scan     find and read JSON objects inside a model's text            [05]
react_parser  the ReAct text-protocol parser (ParsedReply)                [05]
loop          one run shape: StepLoop, Step, ToolCallRecord, RunResult,
              and the StepKind / StopReason vocabulary                    [05, 06]
react         the prompt-based ReAct loops (LineReAct, JsonReAct)         [05]
number_check  where a calculation's numbers come from (the loop's check)  [06]
agent         the native function-calling loop (Agent, run_agent)         [06]
debugger      the step-through debugger for any loop                      [05, 06]
checkers/     exercise checkers, one module per notebook                  [00-07]
"""
