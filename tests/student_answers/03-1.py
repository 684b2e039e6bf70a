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
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: amount is typed "integer" although the task says it is a number (金额，数字) - 12.5 yuan would be refused
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币金额换算成美元、欧元或日元。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "integer", "description": "人民币金额"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币代码"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: the enum also lists CNY, a currency the function does not know (it only knows the three in RATES)
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "货币换算：把人民币金额换算成其他货币。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "要换算的人民币金额"},
                "to_currency": {"type": "string", "enum": ["CNY", "USD", "EUR", "JPY"], "description": "目标货币"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: the enum values are written in lower case (usd/eur/jpy), which the function rejects
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把人民币金额换算成美元、欧元或日元，返回换算结果。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "人民币金额，例如 100"},
                "to_currency": {"type": "string", "enum": ["usd", "eur", "jpy"], "description": "目标货币"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: only amount is listed as required; to_currency must be required too
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "人民币金额"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币：USD、EUR 或 JPY"},
            },
            "required": ["amount"],
        },
    },
}
# %% wrong: the currencies are only named in the description, there is no enum on to_currency
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币金额换算成外币。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "人民币金额"},
                "to_currency": {"type": "string", "description": "目标货币，只能是 USD、EUR 或 JPY 之一"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: the name is a camelCase variant (convertCurrency), not the function's own name convert_currency
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convertCurrency",
        "description": "把人民币金额换算成 USD、EUR 或 JPY。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "人民币金额"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: amount has no description (only to_currency is explained), though both parameters must be described
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币金额（amount，单位：元）换算成 USD、EUR 或 JPY。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币代码"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: amount is typed "float", which is not a JSON Schema type (the schema types are number/integer/string/...)
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币金额换算成美元、欧元或日元。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "float", "description": "人民币金额，可以有小数"},
                "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "目标货币"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% wrong: the enum is one comma-separated string "USD,EUR,JPY" instead of a list of three values
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "把一笔人民币金额换算成美元、欧元或日元。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "人民币金额"},
                "to_currency": {"type": "string", "enum": ", ".join(RATES), "description": "目标货币"},
            },
            "required": ["amount", "to_currency"],
        },
    },
}
# %% right: built from the function itself - name from __name__, enum from list(RATES), required from the properties' keys
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


_properties = {
    "amount": {"type": "number", "description": "要换算的人民币（CNY）金额，单位：元，例如 100 或 12.5"},
    "to_currency": {
        "type": "string",
        "enum": list(RATES),
        "description": "换成哪种外币的代码：" + "、".join(RATES),
    },
}

CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": convert_currency.__name__,
        "description": convert_currency.__doc__ + " 返回一行换算结果，汇率是固定的练习汇率。",
        "parameters": {
            "type": "object",
            "properties": _properties,
            "required": list(_properties),
        },
    },
}
# %% right: strict-style literal in English, with a minimum on amount and additionalProperties false
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}


def convert_currency(amount, to_currency):
    """把一笔人民币（CNY）金额换算成 USD、EUR 或 JPY。"""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "Convert an amount of Chinese yuan (CNY) into US dollars, euros or Japanese yen at a fixed rate.",
        "parameters": {
            "type": "object",
            "properties": {
                "to_currency": {
                    "description": "Target currency code: USD, EUR or JPY.",
                    "type": "string",
                    "enum": ["JPY", "EUR", "USD"],
                },
                "amount": {
                    "description": "The amount in yuan (CNY) to convert, e.g. 250.5.",
                    "type": "number",
                    "minimum": 0,
                },
            },
            "required": ["to_currency", "amount"],
            "additionalProperties": False,
        },
    },
}
