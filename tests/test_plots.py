"""course_lib.plots (notebooks 02 and 05): token counts from usage, and the prompt-token chart."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from course_lib.plots import plot_prompt_tokens, usage_of, usage_table


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
