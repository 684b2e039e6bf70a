"""Watching a client: every ``chat.completions.create`` call made inside a ``with`` block.

Used from notebook 01 on: the exercise checkers look at what your code sent,
and the step-through debugger (05, 06) counts the requests of each step.
"""

from __future__ import annotations

import contextlib
import copy
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator


@dataclass
class Recording:
    """What ``recording`` saw: ``requests[i]`` are the kwargs of request i, ``responses[i]`` its result,
    ``seconds[i]`` its wall time in seconds (the call to ``create``, reading the reply included)."""

    requests: list[dict] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


@contextlib.contextmanager
def recording(client: Any, answer: Callable[[dict], Any] | None = None) -> Iterator[Recording]:
    """Record every ``client.chat.completions.create`` call made inside the ``with`` block.

    Args:
        client: an ``openai.OpenAI`` client (anything with ``chat.completions.create``).
        answer: None (default): the real method runs, on whatever model the
            client talks to.  Otherwise a function ``answer(kwargs) -> response``
            that answers instead, without any request (a checker that looks only
            at what was sent uses it to save the model's time).
    The real method is restored on exit.
    """
    completions = client.chat.completions
    original = completions.create
    seen = Recording()

    def create(*args: Any, **kwargs: Any) -> Any:
        # A copy: student code may keep appending to the same messages list afterwards.
        seen.requests.append(copy.deepcopy(kwargs))
        began = time.perf_counter()
        response = original(*args, **kwargs) if answer is None else answer(kwargs)
        seen.seconds.append(time.perf_counter() - began)
        seen.responses.append(response)
        return response

    completions.create = create
    try:
        yield seen
    finally:
        completions.create = original
