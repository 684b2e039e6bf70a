"""Exercise checkers: one module per notebook (``nb00``, ``nb01`` ...).

Used in every notebook: the cell under each exercise calls one.

A checker takes what the student wrote, prints one line that starts with
✅ or ❌ and says why, and returns a ``CheckResult`` (true when passed).
Jupyter shows nothing more for that result, so the checker cell's output is
just the printed line.  It never raises, so an untouched exercise does not
stop "Run All"; ``tests/test_exercises.py`` proves that each checker passes
on the reference solution in ``solutions/`` and fails on the untouched
exercise.  The sentences come from ``course_lib.texts`` (``check.*`` keys),
through this package's ``t``, which keeps the key beside the sentence.  They
are written in ``sentences.py`` here, beside the checkers: importing this
package hands that table to ``texts.register`` (texts.py, first in the import
map, does not import the checkers).

Each checker is decorated with ``@exercise("NN-k")``: its result (the
exercise, passed or not, the key of the sentence it printed) is kept on the
student's computer and, in class, sent to the teacher (``course_runtime.progress``,
which says exactly what is sent).
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .. import texts
from course_runtime import progress
from ..messages import ROLES
from ..recording import Recording, recording
from . import sentences

__all__ = ["CheckResult", "Difference", "Hint", "Recording", "described", "exercise", "first_difference", "recording",
           "report", "request_problem", "safely", "same_behaviour", "short_repr", "t"]

texts.register("zh", sentences.ZH)  # the check.* sentences: from here on texts.t finds them


class Hint(str):
    """A checker's sentence (a ``str``) that also knows its texts key (``.key``; the sentences are in ``sentences.py``)."""

    key: str

    def __new__(cls, text: str, key: str) -> "Hint":
        hint = super().__new__(cls, text)
        hint.key = key
        return hint


def t(key: str, **fields: object) -> Hint:
    """``texts.t(key, **fields)``, as a ``Hint`` that remembers ``key`` (what ``progress`` records)."""
    return Hint(texts.t(key, **fields), key)


@dataclass(frozen=True)
class CheckResult:
    """What a checker found: ``passed`` and the ``message`` it printed.

    True in an ``if`` when passed.  As the last expression of a notebook cell
    it displays nothing (``_ipython_display_``): the ✅/❌ line was printed
    already, and a bare ``True``/``False`` under it would only confuse.
    """

    passed: bool
    message: str
    hint: str = ""  # the texts key of ``message`` ("" when it was not made by ``t``)

    def __bool__(self) -> bool:
        return self.passed

    def _ipython_display_(self) -> None:
        """Show nothing in Jupyter (the checker has printed its line)."""


def report(ok: bool, message: str) -> CheckResult:
    """Print ``✅ 通过：message`` or ``❌ 未通过：message`` and return ``CheckResult(ok, message)``."""
    print(texts.t("check.passed" if ok else "check.failed", message=message))
    return CheckResult(bool(ok), str(message), getattr(message, "key", ""))


def exercise(exercise_id: str) -> Callable[[Callable[..., CheckResult]], Callable[..., CheckResult]]:
    """Decorator: the checker of exercise ``exercise_id`` (``"NN-k"``, one of ``progress.EXERCISES``).

    The wrapped checker runs as before; its ``CheckResult`` is then recorded
    (``progress.record``).  Recording never changes the result and never
    raises: a full disk or a read-only folder only means this one result is
    not kept.
    """
    if exercise_id not in progress.EXERCISES:
        raise ValueError(texts.t("progress.unknown_exercise", exercise=exercise_id))

    def decorate(checker: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        @functools.wraps(checker)
        def checked(*args: Any, **kwargs: Any) -> CheckResult:
            try:
                result = checker(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - a checker never shows the student a traceback
                result = report(False, t("check.crashed", error=described_error(exc)))
            if not isinstance(result, CheckResult):  # a checker's own mistake; still one clear line
                result = report(False, t("check.crashed", error=described(result)))
            try:
                progress.record(exercise_id, bool(result), getattr(result, "hint", ""))
            except Exception:  # noqa: BLE001 - keeping the result is a service to the student, never a failure
                pass
            return result

        checked.exercise_id = exercise_id  # type: ignore[attr-defined]
        return checked

    return decorate


def described(value: Any, limit: int = 80) -> str:
    """What came back, for a hint: its type and a short ``repr`` (``"str '一共 5 元'"``, ``"NoneType None"``).

    ``limit`` characters of the ``repr`` at most (an ellipsis marks a cut); never raises, even when
    the value's own ``repr`` does.
    """
    return f"{type(value).__name__} {short_repr(value, limit)}"


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut at ``limit`` characters (an ellipsis marks a cut); ``"<?>"`` when the ``repr`` raises."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a student's class may have a broken __repr__
        text = "<?>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def described_error(exc: BaseException) -> str:
    """``"ExceptionType: message"``, as ``safely`` gives it."""
    return f"{type(exc).__name__}: {exc}"


def safely(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, str | None]:
    """Call student code; return ``(result, None)`` or ``(None, "ExceptionType: message")``."""
    try:
        return func(*args, **kwargs), None
    except Exception as exc:  # student code may raise anything
        return None, described_error(exc)


@dataclass(frozen=True)
class Difference:
    """Where the student's function and the reference part: the inputs, and what each gave.

    ``got`` is what the student's function returned (None when it raised; then ``error`` is
    ``"ExceptionType: message"``), ``want`` what the reference returned for the same ``args``.
    """

    args: tuple
    got: Any
    want: Any
    error: str | None = None

    def call(self, name: str) -> str:
        """The call as a student would write it: ``name(arg1, arg2)`` (each argument's ``repr``, cut at 60)."""
        return f"{name}({', '.join(short_repr(a, 60) for a in self.args)})"


def first_difference(
    student: Callable[..., Any],
    reference: Callable[..., Any],
    inputs: Any = None,
    examples: Sequence[tuple] = (),
    same: Callable[[Any, Any], bool] | None = None,
    max_examples: int = 60,
) -> Difference | None:
    """Run the student's function and the reference side by side; the first input where they differ.

    First every tuple of ``examples`` (the edge cases the exercise names), in order; then inputs
    generated by ``inputs``, a hypothesis strategy of argument tuples (``st.tuples(...)``), with
    ``hypothesis.find``: a fixed seed (``derandomize=True``), no example database, at most
    ``max_examples`` inputs, and the smallest differing input it can find (hypothesis shrinks
    it), so the hint shows a short case.  Each call gets its own deep copy of the arguments, so a
    function that changes its input changes nothing for the other.

    Args:
        student, reference: called as ``f(*args)``.
        inputs: a strategy of tuples, or None for the examples only.
        examples: tuples of arguments, tried first.
        same: ``same(got, want) -> bool``; default ``got == want``.  An exception in it counts as
            different.
        max_examples: the generated inputs' budget (about 60 keeps a check under a second or two).
    Returns:
        None when they agree everywhere tried, else a ``Difference``.  Never raises for the
        student's code (an exception there is a difference with ``error`` set).
    """
    def differs(args: tuple) -> Difference | None:
        got, error = safely(student, *copy.deepcopy(args))
        want = reference(*copy.deepcopy(args))
        if error:
            return Difference(args, None, want, error)
        try:
            agree = same(got, want) if same else bool(got == want)
        except Exception:  # noqa: BLE001 - an odd return value (e.g. an array) is a difference
            agree = False
        return None if agree else Difference(args, got, want)

    for args in examples:
        found = differs(tuple(args))
        if found:
            return found
    if inputs is None:
        return None
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.configuration import set_hypothesis_home_dir
    from hypothesis.errors import NoSuchExample

    # hypothesis keeps a cache (.hypothesis/) in the working folder, the student's notebooks/; it goes to
    # the student's own progress folder instead (git-ignored, never shared with another student).
    set_hypothesis_home_dir(progress.progress_dir() / "hypothesis")

    budget = settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                      suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink])
    try:
        args = find(inputs, lambda a: differs(tuple(a)) is not None, settings=budget)
    except NoSuchExample:
        return None
    return differs(tuple(args))


def same_behaviour(
    student: object,
    reference: Callable[..., Any],
    name: str,
    inputs: Any = None,
    examples: Sequence[tuple] = (),
    same: Callable[[Any, Any], bool] | None = None,
    max_examples: int = 60,
) -> CheckResult:
    """A whole checker for "write a function that does X": the student's function against ``reference``.

    What ``python course.py new-exercise`` writes into a new checker, and what a teacher's own
    checker can return: ``first_difference(student, reference, inputs, examples, same,
    max_examples)``, reported with the generic sentences (``check.generic.*``): not a function; the
    first call that raised (with the exception); the first call whose result differs (what came
    back, what was expected, both computed); or passed, with how many examples were named.

    Args:
        student: what the student wrote (anything: it is checked to be callable first).
        reference: the right answer, a plain function with the same arguments.
        name: the function's name in the exercise (shown in the hint: ``name(1, 2)``).
        inputs, examples, same, max_examples: as ``first_difference``.
    Returns:
        the ``CheckResult`` (printed already).
    """
    if not callable(student):
        return report(False, t("check.generic.not_callable", name=name, got=described(student)))
    found = first_difference(student, reference, inputs, examples, same, max_examples)
    if found is None:
        key = "check.generic.passed_examples" if inputs is None else "check.generic.passed"
        return report(True, t(key, name=name, n=len(examples)))
    if found.error:
        return report(False, t("check.generic.error", call=found.call(name), error=found.error))
    return report(False, t("check.generic.differs", call=found.call(name), got=described(found.got),
                           want=described(found.want)))


def request_problem(kwargs: dict) -> str | None:
    """What the API would refuse in one ``chat.completions.create`` call's keyword arguments, or None.

    Checked: ``temperature`` (0-2), ``top_p`` (0-1), ``max_tokens`` / ``max_completion_tokens``
    (a whole number, at least 1), ``n`` (1 when given: the exercises read ``choices[0]``).  The
    ranges are the Chat Completions API reference's (platform.openai.com/docs/api-reference/chat/create).
    Also each message of ``messages`` (dicts only): its ``role`` one of the five roles (a misspelt
    ``role`` key or value is refused) and no key the API does not know (``"Xcontent"``, ``""``).
    A checker that records the student's requests (``recording``) calls it on each, so a request
    a real provider answers with a 400 never passes.

    Returns:
        a Chinese sentence (``check.request.*``) naming the argument and its value, or None.
    """
    def number(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    for name, low, high in (("temperature", 0, 2), ("top_p", 0, 1)):
        if name in kwargs and kwargs[name] is not None and not (number(kwargs[name]) and low <= kwargs[name] <= high):
            return t("check.request.range", name=name, value=described(kwargs[name]), low=low, high=high)
    for name in ("max_tokens", "max_completion_tokens"):
        value = kwargs.get(name)
        if value is not None and not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            return t("check.request.tokens", name=name, value=described(value))
    if kwargs.get("n") not in (None, 1):
        return t("check.request.n", value=described(kwargs.get("n")))
    messages = kwargs.get("messages")
    for index, message in enumerate(messages if isinstance(messages, (list, tuple)) else []):
        if not isinstance(message, dict):
            continue
        if message.get("role") not in ROLES:
            return t("check.request.role", index=index, role=repr(message.get("role")), keys=list(message))
        unknown = [key for key in message if key not in MESSAGE_KEYS]
        if unknown:  # OpenAI: 400 "Additional properties are not allowed"
            return t("check.request.key", index=index, unknown=unknown, keys=list(message))
    return None


MESSAGE_KEYS = {"role", "content", "name", "tool_calls", "tool_call_id", "refusal", "audio", "function_call",
                "annotations", "reasoning_content", "prefix"}  # the API's message fields (and DeepSeek's)
