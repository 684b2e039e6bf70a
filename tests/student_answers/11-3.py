# Exercise 11-3: answers written from the task text alone (notebooks/11_multi_agent.ipynb), without reading the checker.
# %% wrong: forgets that message.tool_calls is None when the model called no tool (iterating None raises TypeError)
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    for call in tool_calls:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_") and name[len("transfer_to_"):] in names:
            return name[len("transfer_to_"):]
    return None
# %% wrong: reads only dicts (call["function"]["name"]), so the SDK's tool call objects raise TypeError
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    if not tool_calls:
        return None
    for call in tool_calls:
        name = call["function"]["name"]
        for specialist in names:
            if name == "transfer_to_" + specialist:
                return specialist
    return None
# %% wrong: uses str.lstrip("transfer_to_"), which strips a set of characters, so transfer_to_shop becomes "hop" and transfer_to_orders "ders"
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_"):
            specialist = name.lstrip("transfer_to_")
            if specialist in names:
                return specialist
    return None
# %% wrong: removes the prefix with replace() and looks the rest up in names, so a plain tool called "shop" (no transfer_to_) is taken as a transfer
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        specialist = name.replace("transfer_to_", "")
        if specialist in names:
            return specialist
    return None
# %% wrong: startswith("transfer_to_" + name) instead of an exact match, so transfer_to_shopping counts as shop
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    if tool_calls is None:
        return None
    for call in tool_calls:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        for specialist in names:
            if name.startswith("transfer_to_" + specialist):
                return specialist
    return None
# %% wrong: loops over names first and the calls inside, so the specialist listed first in names wins instead of the first call in order
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    if not tool_calls:
        return None
    called = [c["function"]["name"] if isinstance(c, dict) else c.function.name for c in tool_calls]
    for specialist in names:
        if "transfer_to_" + specialist in called:
            return specialist
    return None
# %% wrong: stops at the first transfer_to_ call even when its specialist is not in names (returns None instead of skipping it)
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_"):
            specialist = name[len("transfer_to_"):]
            return specialist if specialist in names else None
    return None
# %% wrong: keeps overwriting the result in the loop, so the last matching transfer call wins instead of the first
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    chosen = None
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_") and name[len("transfer_to_"):] in names:
            chosen = name[len("transfer_to_"):]
    return chosen
# %% right: isinstance(dict) to pick the access, removeprefix-style slicing after an exact startswith
PREFIX = "transfer_to_"


def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    if tool_calls is None:
        return None
    for call in tool_calls:
        if isinstance(call, dict):
            name = call["function"]["name"]
        else:
            name = call.function.name
        if name.startswith(PREFIX) and name[len(PREFIX):] in names:
            return name[len(PREFIX):]
    return None
# %% right: a lookup table {"transfer_to_<name>": name} and next() over a generator; getattr/get cover both kinds of call
def _tool_name(call):
    function = call.get("function") if isinstance(call, dict) else getattr(call, "function", None)
    if function is None:
        return None
    return function.get("name") if isinstance(function, dict) else getattr(function, "name", None)


def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    targets = {f"transfer_to_{name}": name for name in names}
    return next((targets[n] for n in map(_tool_name, tool_calls or []) if n in targets), None)
# %% right: try attribute access first and fall back to subscripting (EAFP), then compare with each exact transfer name
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    for call in tool_calls or ():
        try:
            name = call.function.name
        except AttributeError:
            name = call["function"]["name"]
        for specialist in names:
            if name == "transfer_to_" + specialist:
                return specialist
    return None
