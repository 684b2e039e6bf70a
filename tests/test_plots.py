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
    with pytest.raises(ValueError, match="usage.prompt_tokens"):
        usage_of({"choices": []})


def test_usage_table_rows_and_labels():
    frame = usage_table([_usage_response(10), _usage_response(25)], labels=["a", "b"])
    assert list(frame.index) == [1, 2]
    assert frame["prompt_tokens"].tolist() == [10, 25]
    assert frame["label"].tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="labels 有 2 个"):
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


def _comparison_results():
    import pandas as pd

    return pd.DataFrame([
        {"task": "T1", "loop": "react", "success": True, "prompt_tokens": 1000, "seconds": 10.0},
        {"task": "T2", "loop": "react", "success": False, "prompt_tokens": 2000, "seconds": 20.5},
        {"task": "T1", "loop": "native", "success": True, "prompt_tokens": 800, "seconds": 8.0},
        {"task": "T2", "loop": "native", "success": True, "prompt_tokens": None, "seconds": 9.0},
    ])


def test_plot_loop_comparison_bars_follow_the_results():
    from course_lib.plots import plot_loop_comparison

    before = plt.get_fignums()
    fig = plot_loop_comparison(_comparison_results(), ["T2", "T1"])
    tokens, seconds, solved = fig.axes
    react, native = tokens.containers
    assert [b.get_height() for b in react] == [2000, 1000]      # in the order asked for
    assert [b.get_height() for b in native] == [0, 800]         # a missing count is drawn as 0
    assert [b.get_height() for b in seconds.containers[0]] == [20.5, 10.0]
    assert [b.get_height() for b in solved.containers[0]] == [1, 2]
    assert [tick.get_text() for tick in tokens.get_xticklabels()] == ["T2", "T1"]
    assert plt.get_fignums() == before
    with pytest.raises(ValueError, match="success"):
        plot_loop_comparison(_comparison_results().drop(columns="success"))


def test_chart_texts_fall_back_to_ascii_without_a_chinese_font(monkeypatch):
    from course_lib import plots

    monkeypatch.setattr(plots, "chinese_font", lambda: None)
    assert plots.chart_text("plots.solved", total=8) == "tasks solved (of 8)"
    monkeypatch.setattr(plots, "chinese_font", lambda: "WenQuanYi Zen Hei")
    assert plots.chart_text("plots.solved", total=8) == "答对的任务（共 8 个）"


def test_every_plot_function_displays_as_an_image_in_a_kernel(tmp_path):
    """Run a tiny notebook in a real kernel: each plot function's figure comes back as image/png."""
    import os

    import nbformat
    from nbclient import NotebookClient

    from conftest import ROOT

    cells = [
        "from course_lib.plots import plot_loop_comparison, plot_memory_comparison, plot_prompt_tokens\nimport pandas as pd",
        "plot_prompt_tokens([40, 76, 108])",
        "plot_prompt_tokens({'full': [1, 2, 3], 'short': [1, 2, 2]}, title='x')",
        "plot_loop_comparison(pd.DataFrame({'task': ['T1', 'T1'], 'loop': ['react', 'native'],\n"
        "    'success': [True, False], 'prompt_tokens': [900, 700], 'seconds': [9.5, 7.0]}))",
        "plot_memory_comparison([40, 80, 90], [40, 80, 60], summary_turns=[3])",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        client.execute()
    for cell in nb.cells[1:]:
        results = [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]
        assert len(results) == 1, cell.outputs  # shown once, not twice
        assert "image/png" in results[0]["data"], results[0]["data"].get("text/plain")
        assert not [o for o in cell.outputs if o.output_type == "error"]


def test_plot_memory_comparison_two_series_titles_and_summary_marks():
    from course_lib.plots import chart_text, plot_memory_comparison

    before = plt.get_fignums()
    fig = plot_memory_comparison([40, 80, 90, 95], [40, 80, 60, 75], summary_turns=[3, 4])
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [list(l.get_ydata()) for l in lines[:2]] == [[40, 80, 90, 95], [40, 80, 60, 75]]
    assert [list(l.get_xdata()) for l in lines[2:]] == [[3, 3], [4, 4]]  # the dashed marks at turns 3 and 4
    assert ax.get_title() == chart_text("memory.chart_title")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        chart_text("memory.chart_trimmed"), chart_text("memory.chart_summarized"), chart_text("memory.chart_summary_made")]
    assert plt.get_fignums() == before
