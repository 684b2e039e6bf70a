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

import contextlib
import contextvars
import copy
import functools
import sys
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .. import texts
from course_runtime import progress
from ..messages import ROLES
from ..recording import Recording, recording
from . import sentences
from . import student_calls
from .reference import ReferenceMissing
from .student_calls import CallTimedOut, bounded_output, real_stdout, within_limit

__all__ = ["CheckResult", "Difference", "Hint", "Recording", "described", "exercise", "first_difference", "recording",
           "report", "request_problem", "safely", "timed_out", "same_behaviour", "short_repr", "t"]

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
    # Past the student's own output, which ``bounded_output`` may have cut: the verdict always shows.
    print(texts.t("check.passed" if ok else "check.failed", message=message), file=real_stdout())
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
            interrupted = None
            model = EXPECTED_MODEL.set(expected_model(next((a for a in args if callable(a)), None)))
            with bounded_output() as budget:
                try:
                    result = within_limit(checker, args, kwargs, seconds=student_calls.CHECK_LIMIT_S)
                except CallTimedOut as exc:
                    result = report(False, t("check.timeout", seconds=f"{exc.seconds:g}"))
                except KeyboardInterrupt as exc:  # the stop button, or a student's raise: ❌ kept, then stopped
                    result, interrupted = report(False, t("check.interrupted")), exc
                except SystemExit as exc:
                    result = report(False, t("check.exited", code=short_repr(exc.code)))
                except ReferenceMissing as exc:  # solutions/ removed or its block missing: one sentence
                    result = report(False, Hint(str(exc), "check.reference_missing"))
                except BaseException as exc:  # noqa: BLE001 - a checker never shows the student a traceback
                    result = report(False, t("check.crashed", error=described_error(exc)))
            if budget[1]:
                print(t("check.output_cut", shown=student_calls.OUTPUT_LIMIT, dropped=budget[1]), file=real_stdout())
            if not isinstance(result, CheckResult):  # a checker's own mistake; still one clear line
                result = report(False, t("check.crashed", error=described(result)))
            try:
                progress.record(exercise_id, bool(result), getattr(result, "hint", ""))
            except Exception:  # noqa: BLE001 - keeping the result is a service to the student, never a failure
                pass
            EXPECTED_MODEL.reset(model)
            if interrupted is not None:
                raise interrupted
            return result

        checked.exercise_id = exercise_id  # type: ignore[attr-defined]
        return checked

    return decorate


# The model the student's requests must name while a check runs (set by ``@exercise``; None: not checked).
EXPECTED_MODEL: contextvars.ContextVar[str | None] = contextvars.ContextVar("EXPECTED_MODEL", default=None)


def expected_model(student: Any) -> str | None:
    """The ``MODEL`` the student's notebook set (``MODEL = provider.model``, from ``.env``), or None.

    Read from the student's function's own globals (the notebook's namespace; a ``functools.partial``
    or a decorated function is unwrapped first), else from ``__main__`` (the kernel's namespace).
    Checkers compare every request's ``model`` with it (``request_problem``): a name typed in
    (``"gpt-4o-mini"``) works on one provider and fails on the next, and switching providers by
    one line of ``.env`` is what the course promises.
    """
    func = student
    for _ in range(5):  # partial(...) and functools.wraps chains, a few deep at most
        func = getattr(func, "func", None) or getattr(func, "__wrapped__", None) or func
    names = getattr(func, "__globals__", None)
    if not isinstance(names, dict) or "MODEL" not in names:
        names = vars(sys.modules["__main__"]) if "__main__" in sys.modules else {}
    model = names.get("MODEL")
    return model if isinstance(model, str) and model else None


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


ARGUMENT_LIMIT = 400  # characters of one argument shown in a hint's call


def contrast(got: Any, want: Any, limit: int = 80) -> tuple[str, str]:
    """Two values for one hint, as ``described`` gives them, cut where they differ.

    Short ones (both ``repr``s within ``limit``) come back whole.  Otherwise each is cut to
    ``limit`` characters starting a third of ``limit`` before the first differing character of the
    two ``repr``s, with … where something was left out - so the part that differs is always shown
    (a plain cut at the start showed two identical beginnings).
    """
    g, w = short_repr(got, 10**6), short_repr(want, 10**6)
    if len(g) <= limit and len(w) <= limit:
        return f"{type(got).__name__} {g}", f"{type(want).__name__} {w}"
    first = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
    start = max(0, first - limit // 3)

    def cut(text: str) -> str:
        piece = text[start:start + limit]
        return ("…" if start else "") + piece + ("…" if start + limit < len(text) else "")

    return f"{type(got).__name__} {cut(g)}", f"{type(want).__name__} {cut(w)}"


def described_error(exc: BaseException) -> str:
    """``"ExceptionType: message"``, as ``safely`` gives it."""
    return f"{type(exc).__name__}: {exc}"


def safely(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, str | None]:
    """Call student code; return ``(result, None)`` or ``(None, "ExceptionType: message")``.

    The call gets ``student_calls.CALL_LIMIT_S`` seconds: one that runs longer is stopped and comes
    back as ``(None, "<a sentence: it did not return in N s>")``; ``sys.exit()`` inside it comes back
    as ``"SystemExit: ..."`` with a sentence, like any exception.  ``KeyboardInterrupt`` goes on
    up (the ``@exercise`` decorator records ❌ and lets the stop button stop).
    """
    try:
        return within_limit(func, args, kwargs), None
    except CallTimedOut as exc:
        return None, t("check.call_timeout", seconds=f"{exc.seconds:g}")
    except SystemExit as exc:
        return None, t("check.call_exited", code=short_repr(exc.code))
    except Exception as exc:  # student code may raise anything
        return None, described_error(exc)


def timed_out(error: str | None) -> bool:
    """True when ``error`` (from ``safely``) says the call was stopped for running too long."""
    return getattr(error, "key", "") == "check.call_timeout"


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

    def call(self, name: str, limit: int = ARGUMENT_LIMIT) -> str:
        """The call as a student would write it: ``name(arg1, arg2)``, each argument's ``repr`` whole up to
        ``limit`` characters (hypothesis shrinks inputs, so they are short; a cut hides what matters)."""
        return f"{name}({', '.join(short_repr(a, limit) for a in self.args)})"

    def contrast(self, limit: int = 80) -> tuple[str, str]:
        """``(got, want)`` for a hint: ``described`` each, or, when either is longer than ``limit``, the
        part around the first character where their ``repr``s differ, cut marks (…) on both sides."""
        return contrast(self.got, self.want, limit)


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
    stopped: list[Difference] = []  # a call that ran out of time: no more calls (hypothesis would shrink it)

    def differs(args: tuple) -> Difference | None:
        if stopped:
            return stopped[0]
        got, error = safely(student, *copy.deepcopy(args))
        want = reference(*copy.deepcopy(args))
        if error:
            if timed_out(error):
                stopped.append(Difference(args, None, want, error))
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
        with _same_inputs_in_every_kernel():
            args = find(inputs, lambda a: differs(tuple(a)) is not None, settings=budget)
    except NoSuchExample:
        return None
    return stopped[0] if stopped else differs(tuple(args))


@contextlib.contextmanager
def _same_inputs_in_every_kernel() -> Any:
    """While a checker draws inputs: hypothesis mixes in no constants from the modules imported so far.

    hypothesis (6.131 on) also draws numbers and strings it finds in the local modules already
    imported - in a notebook, whatever course_lib modules the earlier cells used - so the same
    check showed another counter-example in another kernel (issue 54).  With that pool empty the
    inputs depend only on the strategy and the seed: the same hint on every laptop.  The pool is
    a private part of hypothesis (pinned in requirements-client.txt); if it moves, nothing breaks,
    and ``tests/test_exercises.py`` sees the hints differ again.
    """
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
        original = providers._get_local_constants
    except (ImportError, AttributeError):  # another hypothesis: its own behaviour
        yield
        return
    empty = Constants()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        providers.CONSTANTS_CACHE.cache.clear()


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
    got, want = found.contrast()
    return report(False, t("check.generic.differs", call=found.call(name), got=got, want=want))


def request_problem(kwargs: dict) -> str | None:
    """What the API would refuse in one ``chat.completions.create`` call's keyword arguments, or None.

    Checked: ``temperature`` (0-2), ``top_p`` (0-1), ``max_tokens`` / ``max_completion_tokens``
    (a whole number, at least 1), ``n`` (1 when given: the exercises read ``choices[0]``).  The
    ranges are the Chat Completions API reference's (platform.openai.com/docs/api-reference/chat/create).
    While a check runs, ``model`` must be the notebook's ``MODEL`` (``expected_model``).
    Also each message of ``messages`` (dicts only): its ``role`` one of the five roles (a misspelt
    ``role`` key or value is refused) and no key the API does not know (``"Xcontent"``, ``""``).
    A checker that records the student's requests (``recording``) calls it on each, so a request
    a real provider answers with a 400 never passes.

    Returns:
        a Chinese sentence (``check.request.*``) naming the argument and its value, or None.
    """
    def number(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    want = EXPECTED_MODEL.get()
    if want is not None and kwargs.get("model") != want:
        return t("check.request.model", value=described(kwargs.get("model")), want=repr(want))

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
