"""Small matplotlib charts for the notebooks: how many tokens each request cost.

Taught in notebook 02; used again in 05.

The numbers always come from the API's own ``usage`` field of each response
(``usage.prompt_tokens`` = tokens the model had to read for that request,
``usage.completion_tokens`` = tokens it wrote), never from an estimate.

A plotting function returns its ``Figure`` after closing it in pyplot, so a
notebook cell that ends with the call shows the chart exactly once (Jupyter's
inline backend displays a returned figure; a figure left open would be shown a
second time at the end of the cell).  Labels are plain ASCII by default so the
chart renders on machines without a Chinese font.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from .replies import USAGE_KEYS, read_usage

USAGE_COLUMNS = list(USAGE_KEYS)


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
        raise ValueError("this response has no usage.prompt_tokens; the server did not report token counts")
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
            raise ValueError(f"got {len(labels)} labels for {len(rows)} responses")
        frame.insert(0, "label", labels)
    return frame


def plot_prompt_tokens(
    series: Mapping[str, Sequence[int]] | Sequence[int],
    title: str = "Prompt tokens per request",
    xlabel: str = "turn",
) -> Figure:
    """Line chart of prompt tokens per request, one line per series.

    Args:
        series: either one list of prompt-token counts (request 1, 2, ...) or a
            mapping ``{legend label: counts}`` to compare several runs
            (e.g. full history vs. a bounded memory).
        title, xlabel: chart texts.
    Returns:
        A matplotlib ``Figure`` (Jupyter displays it when it is the last
        expression of a cell; ``fig.savefig(path)`` writes it to a file).
    Raises:
        ValueError: no data at all.
    """
    if not isinstance(series, Mapping):
        series = {"prompt_tokens": list(series)}
    if not any(len(values) for values in series.values()):
        raise ValueError("nothing to plot: every series is empty")

    fig, ax = plt.subplots(figsize=(7, 3.6))
    for label, values in series.items():
        xs = range(1, len(values) + 1)
        ax.plot(xs, list(values), marker="o", label=label)
        for x, y in zip(xs, values):
            ax.annotate(str(y), (x, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    longest = max(len(values) for values in series.values())
    ax.set_xticks(range(1, longest + 1))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("usage.prompt_tokens")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend()
    fig.tight_layout()
    plt.close(fig)  # shown once, as the cell's result - not again when the cell ends
    return fig
