"""How a tool says "I could not do that": a ``ToolFailure`` instead of a result.

Taught in notebook 04 (tools never raise at the model; the registry reports ``ok``).

A course tool answers bad input with a sentence the model can read and act on
("错误：city 不能为空……"), never with an exception.  That sentence is a
``ToolFailure``: a ``str`` in every way (printed, sent, compared), and its type
tells the registry that the tool did not produce a result, so
``ToolRegistry.call`` returns ``ok`` False for it.  Nothing is guessed from
the text.
"""

from __future__ import annotations


class ToolFailure(str):
    """A tool's answer that says why it produced no result (a ``str``; ``ToolRegistry.call`` gives ``ok`` False)."""

    __slots__ = ()
