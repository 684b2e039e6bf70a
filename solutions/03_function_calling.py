# Reference solutions for notebooks/03_function_calling.ipynb. Try the exercises yourself first!

# %% exercise 03-1
RATES = {"USD": 0.14, "EUR": 0.13, "JPY": 21.0}   # 1 CNY in each currency (fixed, for the exercise)


def convert_currency(amount, to_currency):
    """Convert an amount of Chinese yuan (CNY) into USD, EUR or JPY."""
    if to_currency not in RATES:
        return f"错误：不支持的货币 {to_currency}，只支持 {', '.join(RATES)}"
    return f"{amount} 人民币 = {amount * RATES[to_currency]:.2f} {to_currency}"


CURRENCY_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "Convert an amount of Chinese yuan (CNY, 人民币) into US dollars, euros or Japanese yen.",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "The amount in yuan (CNY), e.g. 100"},
                "to_currency": {
                    "type": "string",
                    "enum": ["USD", "EUR", "JPY"],
                    "description": "The target currency code",
                },
            },
            "required": ["amount", "to_currency"],
        },
    },
}

# %% exercise 03-2
import json


def answer_tool_calls(message, functions):
    """One role="tool" message per tool call of `message`, in order."""
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
    """One round of function calling; returns the final answer text."""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if not message.tool_calls:
        return message.content
    messages.append(message)  # the SDK object is accepted as it is
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": str(get_weather(**args))})
    final = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=300)
    return final.choices[0].message.content
