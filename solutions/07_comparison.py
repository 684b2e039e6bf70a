# notebooks/07_comparison.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 07-1
import re

# 全角数字、全角小数点和全角逗号，有些模型会这样写。
FULL_WIDTH = str.maketrans("０１２３４５６７８９．，", "0123456789.,")
# 一个数：一串数字，可以带千位分隔符（"8,848"：逗号后面正好三位数字），也可以带小数部分。
NUMBER_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?")


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。

    "8,848.86" 和 "８８４８．８６" 都算作 8848.86，"2，000" 算作 2000；"1300"、"3000" 和 "300.5" 里都不算有 "300"，
    "1,2,3" 里也没有 "123"（千位分隔符后面正好是三位数字）。
    """
    if not answer:
        return False
    numbers = NUMBER_RE.findall(answer.translate(FULL_WIDTH))
    return any(found.replace(",", "") == number for found in numbers)


# %% exercise 07-2
def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    grouped = results.groupby("loop")
    return grouped.agg(
        success_rate=("success", "mean"),
        mean_prompt_tokens=("prompt_tokens", "mean"),
        total_seconds=("seconds", "sum"),
    )


# %% exercise 07-3
from course_lib.tools import get_weather


def weather_brief(cities):
    """固定流程：先用代码查每个城市的天气，再发「一次」不带工具的请求。"""
    facts = "\n".join(get_weather(city) for city in cities)
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": f"根据下面的天气，用一句话给出出行建议：\n{facts}"}],
        max_tokens=100,
        temperature=0,
    )
    return response.choices[0].message.content
