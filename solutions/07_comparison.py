# Reference solutions for notebooks/07_comparison.ipynb. Try the exercises yourself first!

# %% exercise 07-1
import re


def contains_number(answer, number):
    """True if `number` appears in `answer` as a whole number (not inside a longer number)."""
    if not answer:
        return False
    # not preceded by a digit or a decimal point; not followed by a digit or by a decimal point plus digit
    pattern = r"(?<![\d.])" + re.escape(number) + r"(?!\d)(?!\.\d)"
    return re.search(pattern, answer) is not None


# %% exercise 07-2
def summarize(results):
    """Per loop: success_rate (0..1), mean_prompt_tokens, total_seconds."""
    grouped = results.groupby("loop")
    return grouped.agg(
        success_rate=("success", "mean"),
        mean_prompt_tokens=("prompt_tokens", "mean"),
        total_seconds=("seconds", "sum"),
    )


# %% exercise 07-3
from course_lib.tools import get_weather


def weather_brief(cities):
    """A fixed workflow: look up every city in code, then ONE request without tools."""
    facts = "\n".join(get_weather(city) for city in cities)
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": f"根据下面的天气，用一句话给出出行建议：\n{facts}"}],
        max_tokens=100,
        temperature=0,
    )
    return response.choices[0].message.content
