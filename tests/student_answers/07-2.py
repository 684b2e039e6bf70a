# Exercise 07-2: answers written from the task text alone (notebooks/07_comparison.ipynb), without reading the checker.
# %% wrong: success_rate is a percentage (multiplied by 100) instead of a ratio between 0 and 1
import pandas as pd


def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    grouped = results.groupby("loop")
    return pd.DataFrame({
        "success_rate": grouped["success"].mean() * 100,
        "mean_prompt_tokens": grouped["prompt_tokens"].mean(),
        "total_seconds": grouped["seconds"].sum(),
    })
# %% wrong: mean_prompt_tokens is the total prompt tokens of the loop (sum), not the average per task
import pandas as pd


def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    grouped = results.groupby("loop")
    return pd.DataFrame({
        "success_rate": grouped["success"].mean(),
        "mean_prompt_tokens": grouped["prompt_tokens"].sum(),
        "total_seconds": grouped["seconds"].sum(),
    })
# %% wrong: total_seconds is averaged per task instead of summed
def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    return results.groupby("loop").agg(
        success_rate=("success", "mean"),
        mean_prompt_tokens=("prompt_tokens", "mean"),
        total_seconds=("seconds", "mean"),
    )
# %% wrong: groupby with as_index=False, so loop ends up as an ordinary column instead of the index
def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    return results.groupby("loop", as_index=False).agg(
        success_rate=("success", "mean"),
        mean_prompt_tokens=("prompt_tokens", "mean"),
        total_seconds=("seconds", "sum"),
    )
# %% wrong: aggregates with a dict but never renames, so the columns are still called success / prompt_tokens / seconds
def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    return results.groupby("loop").agg({"success": "mean", "prompt_tokens": "mean", "seconds": "sum"})
# %% wrong: success_rate divides each loop's successes by the number of rows of the whole table, not of that loop
import pandas as pd


def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    grouped = results.groupby("loop")
    return pd.DataFrame({
        "success_rate": grouped["success"].sum() / len(results),
        "mean_prompt_tokens": grouped["prompt_tokens"].mean(),
        "total_seconds": grouped["seconds"].sum(),
    })
# %% wrong: success_rate is the count of successful tasks (sum), not the fraction
def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    summary = results.groupby("loop").agg(
        success_rate=("success", "sum"),
        mean_prompt_tokens=("prompt_tokens", "mean"),
        total_seconds=("seconds", "sum"),
    )
    return summary
# %% right: named aggregation in one groupby().agg call
def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    return results.groupby("loop").agg(
        success_rate=("success", "mean"),
        mean_prompt_tokens=("prompt_tokens", "mean"),
        total_seconds=("seconds", "sum"),
    )
# %% right: plain loop over the loop names building one dict per row, then a DataFrame indexed by loop
import pandas as pd


def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    rows = []
    for loop_name in results["loop"].unique():
        part = results[results["loop"] == loop_name]
        n = len(part)
        rows.append({
            "loop": loop_name,
            "success_rate": part["success"].astype(float).sum() / n,
            "mean_prompt_tokens": part["prompt_tokens"].sum() / n,
            "total_seconds": part["seconds"].sum(),
        })
    return pd.DataFrame(rows).set_index("loop")
# %% right: three separate Series from groupby joined with pd.concat(axis=1) and named via rename
import pandas as pd


def summarize(results):
    """每种循环一行：success_rate（0..1）、mean_prompt_tokens、total_seconds。"""
    by_loop = results.groupby("loop")
    parts = [
        by_loop["success"].mean().rename("success_rate"),
        by_loop["prompt_tokens"].mean().rename("mean_prompt_tokens"),
        by_loop["seconds"].sum().rename("total_seconds"),
    ]
    return pd.concat(parts, axis=1)
