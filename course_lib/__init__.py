"""Shared helpers for the course; every module is meant to be opened and read.

Import from the module that holds the idea, so the name tells you where to look:

providers     which model to talk to (.env, presets, client, ping)
local_server  the embedded llama-server and its model file
messages      normalize / validate / clean messages; build request kwargs
tables        message chains and responses as tables
tool_calls    read the model's tool calls and run them safely
tools/        the offline tools (weather, calculator, products database, knowledge)
memory        ShortTermMemory: a bounded message list
plots         prompt tokens per turn/step (matplotlib)
react_parser  the ReAct text-protocol parser
widgets       chat boxes for the classroom
checkers      exercise checkers, one module per notebook
"""
