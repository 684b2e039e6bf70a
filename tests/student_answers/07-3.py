# Exercise 07-3: answers written from the task text alone (notebooks/07_comparison.ipynb), without reading the checker.
# %% wrong: the single request still passes tools=[WEATHER_TOOL], although the fixed flow must send it without tools
from course_lib.tools import WEATHER_TOOL, get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    reports = [get_weather(city) for city in cities]
    prompt = "各城市天气：\n" + "\n".join(reports) + "\n请根据这些天气写一句出行建议。"
    response = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": prompt}], tools=[WEATHER_TOOL], max_tokens=200)
    return response.choices[0].message.content
# %% wrong: sends one request per city inside the loop instead of exactly one request in total
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    advice = []
    for city in cities:
        weather = get_weather(city)
        response = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": f"{weather}\n请根据天气写一句出行建议。"}],
            max_tokens=100,
        )
        advice.append(response.choices[0].message.content)
    return "\n".join(advice)
# %% wrong: forgets max_tokens in the request
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    reports = [get_weather(city) for city in cities]
    prompt = "下面是几个城市现在的天气：\n" + "\n".join(reports) + "\n请写一句出行建议。"
    response = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}])
    return response.choices[0].message.content
# %% wrong: puts the weather results in the system message; the user message only asks for advice and contains no weather
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    reports = "\n".join(get_weather(city) for city in cities)
    messages = [
        {"role": "system", "content": "你是出行助手。已知天气：\n" + reports},
        {"role": "user", "content": "请根据天气写一句出行建议。"},
    ]
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: calls get_weather once with all cities joined into one string, so the tool gets no real city and no per-city result reaches the model
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    weather = get_weather("、".join(cities))
    prompt = f"天气情况：{weather}\n请写一句出行建议。"
    response = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}], max_tokens=200)
    return response.choices[0].message.content
# %% wrong: returns the message object instead of the answer text
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    reports = [get_weather(city) for city in cities]
    prompt = "各城市天气如下：\n" + "\n".join(reports) + "\n请写一句出行建议。"
    response = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}], max_tokens=200)
    return response.choices[0].message
# %% wrong: a model name is typed in ("qwen-plus") instead of using MODEL
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    reports = [get_weather(city) for city in cities]
    prompt = "各城市天气如下：\n" + "\n".join(reports) + "\n请写一句出行建议。"
    response = client.chat.completions.create(model="qwen-plus", messages=[{"role": "user", "content": prompt}], max_tokens=200)
    return response.choices[0].message.content
# %% wrong: off-by-one slice cities[:-1] when building the weather list, so the last city's weather is missing from the user message
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    lines = ""
    for city in cities[:-1]:
        lines += get_weather(city) + "；"
    lines += "以上是全部城市的天气。"
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": lines + "请写一句出行建议。"}],
        max_tokens=200,
    )
    return response.choices[0].message.content
# %% right: list comprehension for the weather lines, one user message, one request without tools
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    reports = [get_weather(city) for city in cities]
    prompt = "下面是几个城市现在的天气：\n" + "\n".join(reports) + "\n请根据这些天气，用一句话给出出行建议。"
    response = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": prompt}], max_tokens=200)
    return response.choices[0].message.content
# %% right: explicit for loop into a dict, a system message plus a user message that lists every city's weather, keyword dict passed with **
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    weather_by_city = {}
    for city in cities:
        weather_by_city[city] = str(get_weather(city))

    bullet_list = "\n".join(f"- {city}：{text}" for city, text in weather_by_city.items())
    request = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "你是一个简洁的出行助手，只用一句话回答。"},
            {"role": "user", "content": f"这些城市的天气查询结果：\n{bullet_list}\n请给我一句出行建议。"},
        ],
        "max_tokens": 150,
    }
    reply = client.chat.completions.create(**request)
    return reply.choices[0].message.content
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: sends one request per city inside the loop instead of exactly one request in total
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    advice = []
    for city in cities:
        weather = get_weather(city)
        response = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": f"{weather}。请写一句出行建议。"}],
            max_tokens=100,
        )
        advice.append(response.choices[0].message.content)
    return "".join(advice)
# %% wrong: passes tools=[WEATHER_TOOL] to the single request although the fixed pipeline must send it without tools
from course_lib.tools import WEATHER_TOOL, get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    results = "\n".join(get_weather(city) for city in cities)
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": f"各城市天气：\n{results}\n请写一句出行建议。"}],
        tools=[WEATHER_TOOL],
        max_tokens=150,
    )
    return response.choices[0].message.content
# %% wrong: forgets max_tokens on the request
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    results = "\n".join(get_weather(city) for city in cities)
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": f"各城市天气：\n{results}\n请写一句出行建议。"}],
    )
    return response.choices[0].message.content
# %% wrong: puts the weather results into a system message; the user message only asks for advice and does not contain them
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    results = "\n".join(get_weather(city) for city in cities)
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": f"你是出行助手。今天的天气：\n{results}"},
            {"role": "user", "content": "请根据天气写一句出行建议。"},
        ],
        max_tokens=150,
    )
    return response.choices[0].message.content
# %% wrong: the loop overwrites one variable, so only the LAST city's weather reaches the user message
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    for city in cities:
        weather = get_weather(city)
    prompt = f"天气情况：{weather}\n请写一句出行建议。"
    response = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": prompt}], max_tokens=150
    )
    return response.choices[0].message.content
# %% wrong: the user message lists only the city names, not the get_weather results that were fetched
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    weathers = [get_weather(city) for city in cities]
    print("查到的天气：", weathers)
    prompt = f"我要去{'、'.join(cities)}，请根据这些城市的天气写一句出行建议。"
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": prompt}],
        max_tokens=150,
    )
    return response.choices[0].message.content
# %% wrong: looks all cities up in one get_weather call on the joined names ("北京、上海"), which returns "no data" instead of each city's result
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    weather = get_weather("、".join(cities))
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": f"天气：{weather}\n请写一句出行建议。"}],
        max_tokens=150,
    )
    return response.choices[0].message.content
# %% wrong: returns the whole response object instead of the answer text
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    results = "\n".join(get_weather(city) for city in cities)
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": f"各城市天气：\n{results}\n请写一句出行建议。"}],
        max_tokens=150,
    )
    return response
# %% right: plain for loop building lines, a system message plus the user message with all results, attribute access
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    lines = []
    for city in cities:
        lines.append("- " + get_weather(city))
    user_text = "下面是这些城市现在的天气：\n" + "\n".join(lines) + "\n请据此写一句出行建议。"
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": "你是一个简洁的出行助手，只回答一句话。"},
            {"role": "user", "content": user_text},
        ],
        max_tokens=120,
    )
    return response.choices[0].message.content
# %% right: dict of city -> result, request kwargs in a dict, answer read via model_dump() dict access
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    reports = {city: get_weather(city) for city in cities}
    body = "；".join(reports.values())
    request = {
        "model": MODEL,
        "max_tokens": 150,
        "messages": [{"role": "user", "content": f"天气结果：{body}。请用一句话给出出行建议。"}],
    }
    data = client.chat.completions.create(**request).model_dump()
    return data["choices"][0]["message"]["content"]
# %% right: streaming the single request and joining the text chunks
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    i = 0
    results = []
    while i < len(cities):
        results.append(get_weather(cities[i]))
        i += 1
    stream = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "\n".join(results) + "\n根据以上天气，写一句出行建议。"}],
        max_tokens=150,
        stream=True,
    )
    text = ""
    for chunk in stream:
        if chunk.choices:
            text += chunk.choices[0].delta.content or ""
    return text
