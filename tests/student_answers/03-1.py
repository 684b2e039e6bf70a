# Exercise 03-1: answers written from the task text alone (notebooks/03_function_calling.ipynb), without reading the checker.
# %% wrong: only amount is required; to_currency is left out of required
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币（CNY）金额换算成美元（USD）、欧元（EUR）或日元（JPY），返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币代码"},
            },
            "required": ["amount"],
        },
    },
}
# %% wrong: amount typed as a string instead of a number
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币（CNY）金额换算成美元（USD）、欧元（EUR）或日元（JPY），返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "string", "description": "要换算的人民币金额，例如 \"100\""},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币代码"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: enum lists only two of the three currencies the function knows (JPY missing)
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币（CNY）金额换算成美元（USD）、欧元（EUR）或日元（JPY），返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR"], "description": "目标货币代码"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: enum adds CNY, which convert_currency does not support
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币（CNY）金额换算成美元（USD）、欧元（EUR）或日元（JPY），返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["CNY", "USD", "EUR", "JPY"], "description": "目标货币代码"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: enum values in lower case, which convert_currency rejects
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币（CNY）金额换算成美元（USD）、欧元（EUR）或日元（JPY），返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["usd", "eur", "jpy"], "description": "目标货币代码（小写）"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: tool name shortened, not the same as the function name
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert",
        "description": "把一笔人民币（CNY）金额换算成美元（USD）、欧元（EUR）或日元（JPY），返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币代码"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: to_currency parameter has no description
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币（CNY）金额换算成美元（USD）、欧元（EUR）或日元（JPY），返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"]},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: description left empty (copied the template and forgot to fill it in)
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币代码"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: required placed inside properties instead of next to it, so nothing is required
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把人民币金额换算成 USD、EUR 或 JPY。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "人民币金额"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币"},
                "required": ["amount", "to_currency"],
            },
        },
    },
}
# %% right: a plain dict literal with Chinese descriptions
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币（CNY）金额换算成美元（USD）、欧元（EUR）或日元（JPY），返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币代码"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% right: built from the function itself: __name__, the docstring and list(RATES) for the enum
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


def _param(type_, description, **extra):
    return {"type": type_, "description": description, **extra}


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": convert_currency.__name__,
        "description": convert_currency.__doc__ + " 返回一句换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": _param("number", "Amount of money in CNY (Chinese yuan) to convert."),
                "to_currency": _param("string", "Target currency code.", enum=list(RATES)),
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% right: filled in step by step on the template, English descriptions, additionalProperties false
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 元人民币能换多少外币（练习用的固定汇率）


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "",
        "description": "",
        "parameters": {
            "type": "object",
            "properties": {},
            "required": [],
        },
    },
}
fn = CURRENCY_TOOL["function"]
fn["name"] = "convert_currency"
fn["description"] = "Convert an amount of Chinese yuan (CNY) into USD, EUR or JPY at a fixed rate."
fn["parameters"]["properties"]["amount"] = {"type": "number", "description": "The amount in CNY, e.g. 250 or 99.5."}
fn["parameters"]["properties"]["to_currency"] = {
    "type": "string",
    "enum": sorted(RATES),
    "description": "The currency to convert into.",
}
fn["parameters"]["required"] = ["amount", "to_currency"]
fn["parameters"]["additionalProperties"] = False
