# Reference solutions for notebooks/07_comparison.ipynb. Try the exercises yourself first!

# %% exercise 07-1
import re

# Full-width digits and the full-width decimal point, as some models write them.
FULL_WIDTH = str.maketrans("０１２３４５６７８９．", "0123456789.")
# A number: digits with optional thousands separators ("8,848") and an optional decimal part.
NUMBER_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def contains_number(answer, number):
    """True if `number` appears in `answer` as a whole number (not inside a longer number).

    "8,848.86" and "８８４８．８６" count as 8848.86; "1300", "3000" and "300.5" do not contain "300".
    """
    if not answer:
        return False
    numbers = NUMBER_RE.findall(answer.translate(FULL_WIDTH))
    return any(found.replace(",", "") == number for found in numbers)


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
