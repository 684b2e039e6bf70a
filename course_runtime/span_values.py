"""What the course's tracer hands OpenTelemetry: attribute values it can store, and times that never go back.

Machinery under ``course_lib/tracing.py`` (notebook 10); not taught.

Attribute values: OpenTelemetry's attribute types are str, bool, int
(64-bit signed), float and homogeneous arrays of them (the spec's
"Attribute" in common/README.md; ``opentelemetry.attributes`` turns anything
else into ``str`` with a warning, and ``to_json`` then fails on bytes and writes
NaN as ``NaN``, which is not JSON).  ``attribute_value`` turns what a caller
passes into one of them first: numpy numbers into Python ones, a NaN or an
infinity into the text ``"NaN"`` / ``"Infinity"`` / ``"-Infinity"`` (JSON's
missing numbers as Python's json spells them: the file stays strict JSON),
``Decimal`` into its exact text (``"19.90"``), an int beyond 64 bits into its
digits, bytes into UTF-8 text, a set into a sorted list, a list of one scalar
type into a list (ints and floats mixed: floats), and anything else - a dict,
nested or mixed lists - into JSON text.

Times (``SpanClock``): the sdk stamps a span with the wall clock
(``time.time_ns``), which can step back (NTP, a resumed virtual machine) and
make a span end before it started.  The tracer gives every start, end and
event time to the sdk explicitly: the wall clock read once when a run starts,
plus the monotonic ``time.perf_counter_ns`` since (as OpenTelemetry JS does
with ``performance.timeOrigin + performance.now()``), and never before a time
already given.  Durations are then never negative and a child lies inside its
parent; the timestamps may be off the wall clock by as much as it stepped
during the run.
"""

from __future__ import annotations

import json
import math
import numbers
import time
from collections.abc import Mapping, Sequence, Set
from decimal import Decimal
from typing import Any

# An attribute int is signed 64-bit (OpenTelemetry's common spec, "Attribute").
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
# How deep attribute_value follows nested containers before it writes the rest as text (a list that holds itself).
MAX_DEPTH = 20
_NOT_SCALAR = object()

def as_text(value: Any) -> str:
    """``str(value)``, or the type's name when even that fails."""
    try:
        return str(value)
    except Exception:  # a broken __str__ must not cost the span
        return f"<{type(value).__name__}>"


def _plain(value: Any) -> Any:
    """A numpy number or array as Python's own value (its ``tolist()``: ``np.int64(3)`` -> 3, an array -> a
    list), anything else as it is.  By the type's module, so numpy is not imported here."""
    if type(value).__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        return value.tolist()
    return value


def _scalar(value: Any) -> Any:
    """``value`` as one attribute scalar (str, bool, int, float), or ``_NOT_SCALAR`` for a container
    or an object.  NaN / ±inf -> ``"NaN"`` / ``"Infinity"`` / ``"-Infinity"`` (JSON has no such numbers)."""
    value = _plain(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="backslashreplace")
    if isinstance(value, Decimal):
        return str(value)  # exact ("19.90"); "NaN", "Infinity", "-Infinity" for those
    if isinstance(value, numbers.Integral):
        number = int(value)
        return number if INT64_MIN <= number <= INT64_MAX else str(number)
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "Infinity" if number > 0 else "-Infinity"
        return number
    return _NOT_SCALAR


def _sorted(items: Any) -> list:
    """A set's items in a stable order: sorted, or by type name and text when they do not compare."""
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=lambda v: (type(v).__name__, as_text(v)))


def _jsonable(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data (dict with str keys, list, str, bool, int, float, None): no NaN."""
    if value is None:
        return None
    scalar = _scalar(value)
    if scalar is not _NOT_SCALAR:
        return scalar
    if depth >= MAX_DEPTH:
        return as_text(value)
    value = _plain(value)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else as_text(_jsonable(k, MAX_DEPTH)): _jsonable(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, Set):
        return [_jsonable(v, depth + 1) for v in _sorted(value)]
    if isinstance(value, Sequence):
        return [_jsonable(v, depth + 1) for v in value]
    return as_text(value)


def attribute_value(value: Any) -> Any:
    """``value`` as an OpenTelemetry attribute value the trace file can hold as strict JSON.

    Returns:
        None for None (the attribute is left out: OpenTelemetry refuses None); a str, bool, int or
        float (numpy numbers as Python ones; NaN / ±inf as ``"NaN"`` / ``"Infinity"`` /
        ``"-Infinity"``; ``Decimal`` as its exact text; an int beyond signed 64 bits as its digits;
        bytes as UTF-8 text); a list of one of those types for a list, tuple, numpy array or set
        (a set sorted; ints among floats become floats); anything else - a dict, nested or mixed
        lists, an object - as JSON text (``ensure_ascii=False``) or ``str(value)``.  Never raises.

    The types are OpenTelemetry's "Attribute" (specification/common/README.md): a string, a
    boolean, a double or a signed 64-bit integer, or a homogeneous array of one of them.
    """
    try:
        if value is None:
            return None
        scalar = _scalar(value)
        if scalar is not _NOT_SCALAR:
            return scalar
        value = _plain(value)
        if isinstance(value, Set):
            items = _sorted(value)
        elif isinstance(value, Sequence):
            items = list(value)
        elif isinstance(value, Mapping):
            return json.dumps(_jsonable(value), ensure_ascii=False, allow_nan=False)
        else:
            return as_text(value)
        scalars = [_scalar(v) if v is not None else _NOT_SCALAR for v in items]
        kinds = {type(v) for v in scalars}
        if _NOT_SCALAR not in scalars:
            if len(kinds) <= 1:
                return scalars
            if kinds == {int, float}:
                return [float(v) for v in scalars]
        return json.dumps(_jsonable(items), ensure_ascii=False, allow_nan=False)
    except Exception:  # anything unforeseen: the run and the span go on, the value as text
        return as_text(value)


class SpanClock:
    """Span timestamps in nanoseconds since the epoch that never go back.

    ``anchor()`` (at the start of each run) reads the wall clock once (``time.time_ns``), but never
    earlier than a time already given; ``now()`` is that anchor plus ``time.perf_counter_ns`` since
    (monotonic, ``time.get_clock_info("perf_counter").monotonic``, and fine-grained on Windows too).
    """

    def __init__(self) -> None:
        self._last = 0
        self._wall = self._mono = 0
        self.anchor()

    def anchor(self) -> None:
        self._wall = max(time.time_ns(), self._last + 1)
        self._mono = time.perf_counter_ns()

    def now(self) -> int:
        self._last = max(self._last, self._wall + time.perf_counter_ns() - self._mono)
        return self._last
