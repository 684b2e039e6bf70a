"""Small matplotlib charts for the notebooks: how many tokens each request cost.

Taught in notebook 02; used again in 05, 07 and 09.

The numbers always come from the API's own ``usage`` field of each response
(``usage.prompt_tokens`` = tokens the model had to read for that request,
``usage.completion_tokens`` = tokens it wrote), never from an estimate.

Every plotting function builds its figure with pyplot and returns the
``Figure`` after closing it in pyplot, so a notebook cell that ends with the
call shows the chart exactly once, as an image (Jupyter's inline backend
displays a returned figure; a figure left open would be shown a second time at
the end of the cell).  A ``Figure`` built without pyplot
(``matplotlib.figure.Figure()``) is NOT displayed as an image unless pyplot's
inline backend was loaded - it shows only ``<Figure size ...>`` - which is why
charts are drawn here.

The texts on a chart come from ``course_lib.texts``: Chinese when a font that
can draw Chinese is installed (``chinese_font``), otherwise the ``*_plain``
ASCII variant, so a chart never shows empty boxes.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any, Iterable, Mapping, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator

from .replies import USAGE_KEYS, read_usage
from .texts import t

USAGE_COLUMNS = list(USAGE_KEYS)

# Fonts that draw Chinese (Linux, macOS, Windows), tried in this order.
CHINESE_FONTS = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
    "Droid Sans Fallback", "PingFang SC", "Hiragino Sans GB", "Heiti SC", "Microsoft YaHei", "SimHei",
)
# Font files that hold one of them (matplotlib's font cache may be older than the font).
_CHINESE_FONT_FILES = re.compile(r"wqy|notosanscjk|notosanssc|sourcehansans|droidsansfallback|msyh|simhei|pingfang|hiragino",
                                 re.IGNORECASE)
_CJK = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")


def _known_chinese_font() -> str | None:
    names = {entry.name for entry in font_manager.fontManager.ttflist}
    return next((name for name in CHINESE_FONTS if name in names), None)


@functools.lru_cache(maxsize=None)
def chinese_font() -> str | None:
    """The name of an installed font that can draw Chinese (one of ``CHINESE_FONTS``), or None.

    Looks in matplotlib's font list first, then once through the system's
    font files (a font installed after matplotlib built its cache is added).
    """
    found = _known_chinese_font()
    if found is None:
        for path in font_manager.findSystemFonts():
            if _CHINESE_FONT_FILES.search(os.path.basename(path)):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):
                    continue
        found = _known_chinese_font()
    return found


def chart_text(key: str, **fields: Any) -> str:
    """The chart text ``t(key)``, or ``t(key + "_plain")`` (ASCII) when no Chinese font is installed."""
    text = t(key, **fields)
    if _CJK.search(text) and chinese_font() is None:
        return t(key + "_plain", **fields)
    return text


def _finish(fig: Figure) -> Figure:
    """Lay out ``fig``, let its texts fall back to the Chinese font, close it in pyplot; return it."""
    font = chinese_font()
    if font is not None:
        # The font's own weight for regular text (e.g. 500 for WenQuanYi), or matplotlib warns at every draw.
        weight = next(entry.weight for entry in font_manager.fontManager.ttflist if entry.name == font)
        for text in fig.findobj(Text):
            text.set_fontfamily(font)
            if text.get_fontweight() in ("normal", 400):
                text.set_fontweight(weight)
    fig.tight_layout()
    plt.close(fig)  # shown once, as the cell's result - not again when the cell ends
    return fig


def usage_of(response: Any) -> dict:
    """Return ``{"prompt_tokens", "completion_tokens", "total_tokens"}`` of one response.

    Args:
        response: an SDK ``ChatCompletion`` or the equivalent dict.
    Returns:
        The three counts as ints (tokens; a missing completion/total count is 0).
    Raises:
        ValueError: the response carries no ``usage`` (some servers leave it
            out, e.g. when streaming); we do not guess a number.
    """
    usage = read_usage(response)
    if usage is None or usage["prompt_tokens"] is None:
        raise ValueError(t("plots.no_usage"))
    return {key: int(usage.get(key) or 0) for key in USAGE_COLUMNS}


def usage_table(responses: Iterable[Any], labels: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per response with its token counts, taken from ``response.usage``.

    Args:
        responses: ChatCompletion objects (or dicts) in the order they were made.
        labels: optional text per row (e.g. the user's message), shown as a
            ``label`` column.
    Returns:
        A DataFrame indexed by request number (1, 2, ...) with columns
        ``prompt_tokens, completion_tokens, total_tokens`` (and ``label``).
    Raises:
        ValueError: a response has no usage, or ``labels`` has the wrong length.
    """
    rows = [usage_of(r) for r in responses]
    frame = pd.DataFrame(rows, columns=USAGE_COLUMNS, index=pd.RangeIndex(1, len(rows) + 1, name="request"))
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(rows):
            raise ValueError(t("plots.labels_count", labels=len(labels), responses=len(rows)))
        frame.insert(0, "label", labels)
    return frame


def plot_prompt_tokens(
    series: Mapping[str, Sequence[int]] | Sequence[int],
    title: str | None = None,
    xlabel: str | None = None,
) -> Figure:
    """Line chart of prompt tokens per request, one line per series.

    Args:
        series: either one list of prompt-token counts (request 1, 2, ...) or a
            mapping ``{legend label: counts}`` to compare several runs
            (e.g. full history vs. a bounded memory).
        title, xlabel: chart texts (default: ``texts`` keys ``plots.prompt_tokens_title`` and
            ``plots.turn``).
    Returns:
        A matplotlib ``Figure`` (Jupyter displays it when it is the last
        expression of a cell; ``fig.savefig(path)`` writes it to a file).
    Raises:
        ValueError: no data at all.
    """
    if not isinstance(series, Mapping):
        series = {"prompt_tokens": list(series)}
    if not any(len(values) for values in series.values()):
        raise ValueError(t("plots.nothing_to_plot"))

    fig, ax = plt.subplots(figsize=(7, 3.6))
    for label, values in series.items():
        xs = range(1, len(values) + 1)
        ax.plot(xs, list(values), marker="o", label=label)
        for x, y in zip(xs, values):
            ax.annotate(str(y), (x, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    longest = max(len(values) for values in series.values())
    ax.set_xticks(range(1, longest + 1))
    ax.set_xlabel(chart_text("plots.turn") if xlabel is None else xlabel)
    ax.set_ylabel("usage.prompt_tokens")
    ax.set_title(chart_text("plots.prompt_tokens_title") if title is None else title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend()
    return _finish(fig)


def plot_memory_comparison(trimmed: Sequence[int], summarized: Sequence[int], summary_turns: Iterable[int] = ()) -> Figure:
    """Prompt tokens per turn of the same conversation with two memories (notebook 09).

    ``plot_prompt_tokens`` with two lines, plus a dashed vertical line at every
    turn in which a summary was written.

    Args:
        trimmed: ``usage.prompt_tokens`` per turn with ``memory.ShortTermMemory`` (02's trimming).
        summarized: the same with ``summary_memory.SummaryMemory``.
        summary_turns: the turns (1, 2, ...) in which a summary was written.
    Returns:
        A matplotlib ``Figure``; title and legend from ``texts`` (keys ``memory.chart_*``).
    Raises:
        ValueError: both lists are empty.
    """
    series = {chart_text("memory.chart_trimmed"): list(trimmed), chart_text("memory.chart_summarized"): list(summarized)}
    fig = plot_prompt_tokens(series, title=chart_text("memory.chart_title"))
    ax = fig.axes[0]
    for k, turn in enumerate(summary_turns):
        label = chart_text("memory.chart_summary_made") if k == 0 else "_nolegend_"
        ax.axvline(turn, color="grey", linestyle="--", alpha=0.6, label=label)
    ax.legend()
    return _finish(fig)


def plot_loop_comparison(
    results: pd.DataFrame,
    task_ids: Sequence[str] | None = None,
    loops: Sequence[str] = ("react", "native"),
) -> Figure:
    """Three bar charts comparing loops task by task (notebook 07): prompt tokens, seconds, tasks solved.

    Args:
        results: one row per (task, loop) with columns ``task``, ``loop``,
            ``prompt_tokens`` (tokens, summed over the run's requests),
            ``seconds`` (wall time) and ``success`` (bool); missing values count as 0.
        task_ids: the tasks in the order to show (default: as they first appear).
        loops: the values of ``loop`` to compare, one bar colour each.
    Returns:
        A matplotlib ``Figure`` with three axes (shown as an image when it is
        the last expression of a cell).
    Raises:
        ValueError: ``results`` lacks one of the columns, or has no rows.
    """
    needed = ["task", "loop", "prompt_tokens", "seconds", "success"]
    missing = [c for c in needed if c not in results.columns]
    if missing or results.empty:
        raise ValueError(t("plots.comparison_columns", missing=missing or "-", needed=needed))
    ids = list(task_ids) if task_ids is not None else list(dict.fromkeys(results["task"]))
    table = results.pivot_table(index="task", columns="loop", values=["prompt_tokens", "seconds"], aggfunc="sum")
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.8))
    width = 0.8 / max(len(loops), 1)
    xs = range(len(ids))
    for ax, metric, key in [(axes[0], "prompt_tokens", "plots.tokens_per_task"), (axes[1], "seconds", "plots.seconds_per_task")]:
        for k, loop in enumerate(loops):
            values = table[metric][loop].reindex(ids) if loop in table[metric] else pd.Series(0, index=ids)
            offset = (k - (len(loops) - 1) / 2) * width
            ax.bar([x + offset for x in xs], values.fillna(0).astype(float).tolist(), width, label=loop)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(ids)
        ax.set_title(chart_text(key))
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
    solved = [int(results.loc[results["loop"] == loop, "success"].fillna(False).astype(bool).sum()) for loop in loops]
    axes[2].bar(list(loops), solved, color=[f"C{k}" for k in range(len(loops))])
    axes[2].set_ylim(0, max(len(ids), 1) * 1.15)  # room for the count above a full bar
    axes[2].yaxis.set_major_locator(MaxNLocator(integer=True))
    axes[2].set_title(chart_text("plots.solved", total=len(ids)))
    for x, value in enumerate(solved):
        axes[2].annotate(str(value), (x, value), ha="center", xytext=(0, 4), textcoords="offset points")
    return _finish(fig)


def plot_eval_results(table: pd.DataFrame) -> Figure:
    """An evaluation run at a glance (notebook 10): passed per kind of question, and seconds per question.

    Args:
        table: ``evaluation.results_frame(runs)`` (columns ``id``, ``kind``, ``passed``, ``seconds``).
    Returns:
        A matplotlib ``Figure`` with two bar charts; texts from ``texts`` (keys ``evaluation.chart_*``).
    Raises:
        ValueError: the table is empty.
    """
    if table.empty:
        raise ValueError(t("evaluation.chart_empty"))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.6))
    by_kind = table.groupby("kind", sort=False)["passed"].agg(["sum", "count"])
    left.bar(by_kind.index, by_kind["count"], color="#f4c7c3", label=chart_text("evaluation.chart_failed"))
    left.bar(by_kind.index, by_kind["sum"], color="#57bb8a", label=chart_text("evaluation.chart_passed"))
    left.set_title(chart_text("evaluation.chart_by_kind"))
    left.legend()
    right.bar(table["id"], table["seconds"], color=["#57bb8a" if p else "#e06666" for p in table["passed"]])
    right.set_title(chart_text("evaluation.chart_seconds"))
    right.set_ylabel("s")
    right.tick_params(axis="x", labelrotation=90)
    return _finish(fig)
