"""Unit tests for the code behind notebooks 02-04: plots, the scripted checker client,
and the checkers' verdicts on typical wrong answers (no network, no real model)."""

from __future__ import annotations

import json
import sqlite3

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from course_lib.checkers import nb02, nb03, nb04
from course_lib.checkers.scripted import SCRIPT_OVER, ScriptedModel
from course_lib.plots import plot_prompt_tokens, usage_of, usage_table
from course_lib.tools import get_weather, query_by_product_name
from course_lib.tools.products import connect_readonly, database_path
from fakes import FakeLLM
from notebook_cells import ROOT, solutions_for


def load_solution(stem: str, key: str) -> dict:
    """Run one reference-solution block of solutions/<stem>.py and return its namespace."""
    namespace = {"client": None, "MODEL": "fake-model", "__name__": "__solution__"}
    exec(solutions_for(ROOT / "notebooks" / f"{stem}.ipynb")[key], namespace)
    return namespace


# -- plots -----------------------------------------------------------------------------------


def _usage_response(prompt, completion=5):
    return {"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}


def test_usage_of_reads_sdk_responses_and_dicts(fake_llm):
    fake_llm.add({"content": "hi", "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}})
    response = fake_llm.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert usage_of(response) == {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    assert usage_of(_usage_response(40, 2)) == {"prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42}


def test_usage_of_refuses_to_guess():
    with pytest.raises(ValueError, match="no usage"):
        usage_of({"choices": []})


def test_usage_table_rows_and_labels():
    frame = usage_table([_usage_response(10), _usage_response(25)], labels=["a", "b"])
    assert list(frame.index) == [1, 2]
    assert frame["prompt_tokens"].tolist() == [10, 25]
    assert frame["label"].tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="labels"):
        usage_table([_usage_response(10)], labels=["a", "b"])


def test_plot_prompt_tokens_one_series():
    before = plt.get_fignums()
    fig = plot_prompt_tokens([40, 76, 108])
    (line,) = fig.axes[0].get_lines()
    assert list(line.get_ydata()) == [40, 76, 108]
    assert list(line.get_xdata()) == [1, 2, 3]
    assert fig.axes[0].get_legend() is None
    assert plt.get_fignums() == before  # closed in pyplot: shown once, never leaks


def test_plot_prompt_tokens_compares_series():
    fig = plot_prompt_tokens({"full": [1, 2, 3, 4], "short": [1, 2, 2]})
    ax = fig.axes[0]
    assert [list(l.get_ydata()) for l in ax.get_lines()] == [[1, 2, 3, 4], [1, 2, 2]]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["full", "short"]
    assert list(ax.get_xticks()) == [1, 2, 3, 4]


def test_plot_prompt_tokens_needs_data():
    with pytest.raises(ValueError):
        plot_prompt_tokens([])


# -- the scripted client ------------------------------------------------------------------------


def test_scripted_model_answers_in_order_and_records():
    script = ScriptedModel([{"tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]}, "好的"])
    client = script.client()
    first = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    message = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert message.content is None
    assert [c.id for c in message.tool_calls] == [ScriptedModel.call_id(1, 0), ScriptedModel.call_id(1, 1)]
    assert json.loads(message.tool_calls[1].function.arguments) == {"city": "上海"}
    second = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q2"}])
    assert second.choices[0].message.content == "好的"
    third = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q3"}])
    assert third.choices[0].message.content == SCRIPT_OVER
    assert [r["messages"][0]["content"] for r in script.requests] == ["q", "q2", "q3"]


# -- nb02 ------------------------------------------------------------------------------------


def _chat_turn_good(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = client.chat.completions.create(model="m", messages=messages, max_tokens=50).choices[0].message.content
        messages.append({"role": "assistant", "content": reply})
        return reply

    return chat_turn


def test_chat_turn_checker_accepts_sdk_message_objects():
    client = FakeLLM(default="小红").client()

    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        message = client.chat.completions.create(model="m", messages=messages).choices[0].message
        messages.append(message)  # the SDK object, not a dict
        return message.content

    assert nb02.check_chat_turn(chat_turn, client) is True
    assert nb02.check_chat_turn(_chat_turn_good(client), client) is True


def test_chat_turn_checker_rejects_forgetting_the_reply(capsys):
    client = FakeLLM(default="ok").client()

    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        return client.chat.completions.create(model="m", messages=messages).choices[0].message.content

    assert nb02.check_chat_turn(chat_turn, client) is False
    assert "assistant" in capsys.readouterr().out


def test_chat_turn_checker_rejects_sending_only_the_last_message():
    client = FakeLLM(default="ok").client()

    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = client.chat.completions.create(model="m", messages=[messages[0], messages[-1]]).choices[0].message.content
        messages.append({"role": "assistant", "content": reply})
        return reply

    assert nb02.check_chat_turn(chat_turn, client) is False


def test_keep_last_turns_checker():
    from course_lib.memory import trim_messages

    def by_turns(messages, n):
        rest = messages[1:]
        starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
        return messages[:1] + (rest if n >= len(starts) else rest[starts[-n]:])

    def mutating(messages, n):
        kept = by_turns(messages, n)
        del messages[1:-len(kept) + 1]
        return kept

    def drops_system(messages, n):
        return by_turns(messages, n)[1:]

    assert nb02.check_keep_last_turns(by_turns) is True
    assert nb02.check_keep_last_turns(lambda m, n: m[-2 * n:]) is False
    assert nb02.check_keep_last_turns(drops_system) is False
    assert nb02.check_keep_last_turns(mutating) is False
    # trim_messages bounds messages, not turns: with n=2 it would keep 2 messages
    assert nb02.check_keep_last_turns(lambda m, n: trim_messages(m, n)) is False


def test_sample_conversation_is_valid():
    from course_lib.messages import validate

    validate(nb02.sample_conversation())


# -- nb03 ------------------------------------------------------------------------------------


def _currency_tool(**changes):
    tool = {
        "type": "function",
        "function": {
            "name": "convert_currency",
            "description": "Convert an amount of Chinese yuan into USD, EUR or JPY.",
            "parameters": {
                "type": "object",
                "properties": {
                    "amount": {"type": "number", "description": "yuan"},
                    "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "code"},
                },
                "required": ["amount", "to_currency"],
            },
        },
    }
    params = tool["function"]["parameters"]
    for key, value in changes.items():
        if key == "no_enum":
            del params["properties"]["to_currency"]["enum"]
        elif key == "required":
            params["required"] = value
        elif key == "extra":
            params["properties"]["rate"] = {"type": "number", "description": "x"}
        elif key == "name":
            tool["function"]["name"] = value
        elif key == "no_param_description":
            del params["properties"]["amount"]["description"]
    return tool


@pytest.mark.parametrize(
    "changes",
    [{"no_enum": True}, {"required": ["amount"]}, {"extra": True}, {"name": "currency"}, {"no_param_description": True}],
)
def test_currency_tool_checker_rejects_each_missing_part(changes):
    assert nb03.check_currency_tool(_currency_tool()) is True
    assert nb03.check_currency_tool(_currency_tool(**changes)) is False


def test_answer_tool_calls_checker():
    def good(message, functions):
        return [
            {"role": "tool", "tool_call_id": c.id, "content": str(functions[c.function.name](**json.loads(c.function.arguments)))}
            for c in message.tool_calls
        ]

    def not_a_string(message, functions):
        return [
            {"role": "tool", "tool_call_id": c.id, "content": functions[c.function.name](**json.loads(c.function.arguments))}
            for c in message.tool_calls
        ]

    def only_first(message, functions):
        return good(message, functions)[:1]

    assert nb03.check_answer_tool_calls(good) is True
    assert nb03.check_answer_tool_calls(not_a_string) is False
    assert nb03.check_answer_tool_calls(only_first) is False


def _single_step(answer_all=True, append_assistant=True):
    from course_lib.tools import WEATHER_TOOL

    def single_step(client, question):
        messages = [{"role": "user", "content": question}]
        message = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message
        if not message.tool_calls:
            return message.content
        if append_assistant:
            messages.append(message)
        calls = message.tool_calls if answer_all else message.tool_calls[:1]
        for call in calls:
            content = get_weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        return client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message.content

    return single_step


def test_single_step_checker():
    assert nb03.check_single_step(_single_step()) is True
    assert nb03.check_single_step(_single_step(append_assistant=False)) is False
    assert nb03.check_single_step(_single_step(answer_all=False)) is False


# -- nb04 ------------------------------------------------------------------------------------

SELECT = "SELECT product_id, product_name, price FROM products"


def _price_tool():
    return load_solution("04_sports_equipment", "04-1")["PRICE_TOOL"]


def _rows_json(rows):
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


def test_price_checker_accepts_pandas_with_params():
    def with_pandas(low, high):
        connection = connect_readonly(database_path())
        try:
            frame = pd.read_sql(f"{SELECT} WHERE price >= ? AND price <= ?", connection, params=(low, high))
        finally:
            connection.close()
        return frame.to_json(orient="records", force_ascii=False)

    assert nb04.check_price_tool(with_pandas, _price_tool()) is True


def test_price_checker_rejects_sql_built_with_an_f_string(capsys):
    def pasted(low, high):
        connection = connect_readonly(database_path())
        connection.row_factory = sqlite3.Row
        try:
            return _rows_json(connection.execute(f"{SELECT} WHERE price BETWEEN {low} AND {high}").fetchall())
        finally:
            connection.close()

    assert nb04.check_price_tool(pasted, _price_tool()) is False
    assert "占位符" in capsys.readouterr().out


def test_price_checker_rejects_a_writable_connection(capsys):
    def writable(low, high):
        connection = sqlite3.connect(database_path())
        connection.row_factory = sqlite3.Row
        try:
            return _rows_json(connection.execute(f"{SELECT} WHERE price BETWEEN ? AND ?", (low, high)).fetchall())
        finally:
            connection.close()

    assert nb04.check_price_tool(writable, _price_tool()) is False
    assert "只读" in capsys.readouterr().out


@pytest.mark.parametrize("flaw", ["exclusive", "escaped", "list", "raises"])
def test_price_checker_rejects_wrong_results(flaw):
    def flawed(low, high):
        if flaw == "raises" and low > high:
            raise ValueError("min > max")
        connection = connect_readonly(database_path())
        connection.row_factory = sqlite3.Row
        sql = f"{SELECT} WHERE price > ? AND price < ?" if flaw == "exclusive" else f"{SELECT} WHERE price BETWEEN ? AND ?"
        try:
            rows = [dict(r) for r in connection.execute(sql, (low, high)).fetchall()]
        finally:
            connection.close()
        if flaw == "list":
            return rows
        return json.dumps(rows, ensure_ascii=flaw == "escaped")

    assert nb04.check_price_tool(flawed, _price_tool()) is False


def test_price_checker_checks_the_schema_first():
    tool = _price_tool()
    tool["function"]["parameters"]["properties"]["min_price"]["type"] = "string"
    assert nb04.check_price_tool(lambda low, high: "[]", tool) is False


def test_watching_sqlite_restores_connect_even_after_an_error():
    original = sqlite3.connect
    with pytest.raises(RuntimeError):
        with nb04.watching_sqlite():
            raise RuntimeError("boom")
    assert sqlite3.connect is original


def test_watching_sqlite_records_read_only_and_parameters():
    path = database_path()
    with nb04.watching_sqlite() as opened:
        connection = connect_readonly(path)
        connection.execute("SELECT 1 WHERE 1 = ?", (1,)).fetchall()
        connection.close()
    assert len(opened) == 1 and opened[0].read_only
    assert opened[0].statements == [("SELECT 1 WHERE 1 = ?", (1,))]


def test_run_tool_call_checker():
    def careless(call, functions):
        return str(functions[call["function"]["name"]](**json.loads(call["function"]["arguments"])))

    def no_tool_list(call, functions):
        if call["function"]["name"] not in functions:
            return "错误：没有这个工具"
        try:
            return str(functions[call["function"]["name"]](**json.loads(call["function"]["arguments"])))
        except Exception as err:  # noqa: BLE001
            return f"错误：{err}"

    solution = load_solution("04_sports_equipment", "04-2")["run_tool_call"]
    assert nb04.check_run_tool_call(solution) is True
    assert nb04.check_run_tool_call(careless) is False
    assert nb04.check_run_tool_call(no_tool_list) is False
    assert query_by_product_name("篮球") in solution(
        {"id": "x", "type": "function", "function": {"name": "query_by_product_name", "arguments": '{"product_name": "篮球"}'}},
        {"query_by_product_name": query_by_product_name},
    )
