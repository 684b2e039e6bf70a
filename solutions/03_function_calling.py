# notebooks/03_function_calling.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 03-1
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
        "description": "把一笔人民币（CNY）金额换算成美元、欧元或日元。",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "人民币金额，单位：元，例如 100"},
                "to_currency": {
                    "type": "string",
                    "enum": ["USD", "EUR", "JPY"],
                    "description": "要换成的目标货币代码",
                },
            },
            "required": ["amount", "to_currency"],
        },
    },
}

# %% exercise 03-2
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = []
    for call in message.tool_calls or []:
        args = json.loads(call.function.arguments)
        result = functions[call.function.name](**args)
        tool_messages.append({"role": "tool", "tool_call_id": call.id, "content": str(result)})
    return tool_messages


# %% exercise 03-3
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if not message.tool_calls:
        return message.content
    messages.append(message)  # SDK 的消息对象可以直接放进去
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": str(get_weather(**args))})
    final = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=300)
    return final.choices[0].message.content
