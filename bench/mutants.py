"""``python -m bench.mutants``: how strong each exercise checker is, measured by mutation testing (issue 42).

For each exercise ``NN-k`` the reference solution block (``solutions/NN_*.py``, from its
``# %% exercise NN-k`` line to the next) is parsed with ``ast`` and changed in one small place
at a time - a *mutant*: ``<`` made ``<=``, a number made one larger, an argument dropped, an
``append`` removed ...  Each mutant runs the way ``tests/test_exercises.py`` runs the reference:
the block is executed in a fresh namespace ``{"client": <scripted client answering "2">,
"MODEL": "fake-model", "__name__": "__exercise__"}`` and the exercise's checker cell (from the
notebook, cell metadata ``course.checker``) is run on that namespace.  A mutant the checker fails
is *killed*; one it passes has *survived*: a change of the solution that the checker cannot see.
The share of mutants killed is a measure of the checker's strength; each survivor is listed as a
line diff (original line -> mutated line), so it can be read and either fixed in the checker or
argued to be *equivalent* (a change that cannot alter behaviour, e.g. a dropped ``encoding=`` that
is the default) in ``bench/mutants_equivalent.json``::

    {"04-1": [{"line": "constant_changed@return \"错误：min_price 不能大于 max_price\"#1", "why": "only the wording of an error message"}]}

``line`` is a mutant id (below) or the text of the mutated line (stripped); ``why`` an English
reason; a key starting with ``_`` is a note.  Argued equivalents are listed as such and left out of the share.

Why a tool of our own: mutmut and cosmic-ray mutate source files in place and rerun the test
suite (pytest) for every mutant.  The course's solutions are not modules a test imports but
blocks executed in a notebook-like namespace, checked by a notebook cell; rerunning pytest per
mutant would also cost seconds each.  This file uses only the standard library (``ast``,
``multiprocessing``, ``difflib``) and what ``.venv`` already has.

Mutation operators (``OPERATORS``; a mutant id is ``operator@text#k``: ``text`` is the stripped
source line of the changed node, ``k`` the k-th place on a line with that text the operator
changes, so an id stays the same while lines are added, removed or moved around it - a comment
line added above no longer renames every mutant below it and drops them from the equivalence list):

  first_last        ``x[0]`` <-> ``x[-1]``
  compare_negate    ``==`` <-> ``!=``, ``<`` <-> ``>=``, ``>`` <-> ``<=``, ``in`` <-> ``not in``, ``is`` <-> ``is not``
  compare_boundary  ``<`` <-> ``<=``, ``>`` <-> ``>=``
  and_or            ``and`` <-> ``or``
  arith             ``+`` <-> ``-``, ``*`` <-> ``/``, ``//`` -> ``/``, ``%`` -> ``//``, ``**`` -> ``*``, ``|`` <-> ``&`` (also in ``+=`` ...)
  constant_plus1 / constant_minus1   a number one larger / smaller (``-1`` counts as one number)
  constant_flip     ``True`` <-> ``False``
  constant_empty / constant_changed  a string emptied / given a prefix ``"X"`` (docstrings and format specs are left alone)
  constant_none     ``None`` -> ``""``
  drop_arg / drop_kwarg  one positional / keyword argument of a call dropped
  swap_branches     the two branches of an ``if``/``else`` (or ``a if c else b``) swapped
  negate            the condition of an ``if`` without ``else``, a ``while`` or a comprehension's ``if``
                    negated (``not c``; a ``not c`` loses its ``not``); an ``if`` with an ``else`` is
                    covered by swap_branches, which has the same effect
  return_first_arg  ``return x`` -> return the function's first argument
  return_none       ``return x`` -> ``return None``
  remove_stmt       one statement inside a function removed (``pass`` in its place): an expression
                    such as an ``append``, an assignment, ``return``, ``break``, ``continue``,
                    ``raise``, ``assert``, a whole ``if``; the block's top-level definitions are kept

Mutants are deduplicated by ``ast.unparse`` (the first operator keeps a duplicate), those equal
to the original are skipped, and each must compile.  Each mutant runs in a worker process (a pool
of ``--workers``, default 2, started with ``spawn`` so it works on Windows too); a mutant that
takes longer than ``--timeout`` seconds (default 10: the slowest checker takes about one) is
*killed (timeout)* and its worker replaced, one whose block raises when executed is *killed
(error)*, one that ends its worker is *killed (crash)*.  The workers silence the checkers' ✅/❌
lines, keep their progress records in a temporary folder (``COURSE_PROGRESS_DIR``), never in the
student's ``.progress/``, and ignore ``.env`` (``COURSE_IGNORE_DOTENV=1``).  The reference solution
runs first: if it fails its own checker the exercise says "reference fails" and its mutants are not
run (a mutation run is meaningless then), and the command exits with status 1.

Usage (the course's ``.venv`` is enough; ``python course.py bench`` is not needed)::

    python -m bench.mutants                         # every exercise; writes bench/results/mutants.json and .md
    python -m bench.mutants --exercise 04-1 10-3    # some exercises; prints the table (writes only with --out)
    python -m bench.mutants --smoke                 # at most 8 mutants per exercise: is the tool working?

At most ``--cap`` mutants per exercise (default 150) are run, spread evenly over all it generated;
the table says where a cap applied.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import datetime
import difflib
import json
import multiprocessing
import os
import platform
import queue
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "bench" / "results"
EQUIVALENT_FILE = ROOT / "bench" / "mutants_equivalent.json"
MARKER = re.compile(r"^# %% exercise (\S+)\s*$", re.M)  # the same split as tests/notebook_cells.py
DEFAULT_TIMEOUT = 10.0
DEFAULT_CAP = 150
SMOKE_CAP = 8


# ---------------------------------------------------------------------------
# Reading the exercises: solution blocks and checker cells
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Exercise:
    """One exercise: its reference block and its checker cell.

    Attributes:
        key: ``"NN-k"``.
        solution: the block's text (what follows the ``# %% exercise NN-k`` line, up to the next
            such line; it starts with the rest of the marker line, so its line 1 is the marker's).
        checker: the checker cell's source (its last line an expression giving a ``CheckResult``).
        path: the solutions file, relative to the repository (``"solutions/04_sports_equipment.py"``).
        first_line: the marker's line number in that file (1-based): block line n is file line
            ``first_line + n - 1``.
    """

    key: str
    solution: str
    checker: str
    path: str = ""
    first_line: int = 1


def _cells(notebook: Path, kind: str) -> dict[str, str]:
    """``{exercise id: cell source}`` of the cells whose ``metadata.course[kind]`` is set."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    out = {}
    for cell in nb.get("cells", []):
        key = cell.get("metadata", {}).get("course", {}).get(kind)
        if key:
            source = cell.get("source", "")
            out[key] = "".join(source) if isinstance(source, list) else source
    return out


def exercises(root: Path = ROOT) -> dict[str, Exercise]:
    """Every exercise of ``root``'s notebooks that has a checker cell and a solution block, by key.

    Raises:
        OSError / ValueError: a notebook or solutions file that cannot be read or is not JSON.
    """
    found: dict[str, Exercise] = {}
    for notebook in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        checkers = _cells(notebook, "checker")
        solutions = root / "solutions" / (notebook.stem + ".py")
        if not solutions.exists():
            continue
        text = solutions.read_text(encoding="utf-8")
        marks = list(MARKER.finditer(text))
        for i, mark in enumerate(marks):
            key = mark.group(1)
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            if key in checkers:
                found[key] = Exercise(key, text[mark.end():end], checkers[key],
                                      solutions.relative_to(root).as_posix(), text[:mark.start()].count("\n") + 1)
    return found


# ---------------------------------------------------------------------------
# Mutation operators
# ---------------------------------------------------------------------------

@dataclass
class Site:
    """A node of the block's tree and where it hangs: ``getattr(parent, field)[index]`` (index None: no list)."""

    node: ast.AST
    parent: ast.AST | None
    field: str
    index: int | None
    function: ast.FunctionDef | ast.AsyncFunctionDef | None  # the innermost enclosing function
    docstring: bool = False  # the node is a docstring (its Expr statement or its Constant)
    in_spec: bool = False  # inside an f-string's format spec (``{x:.2f}``)
    statement: ast.stmt | None = None  # the innermost statement that is or holds the node


NEGATE_COMPARE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
                  ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
BOUNDARY = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
         ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr}
REMOVABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Break, ast.Continue, ast.Raise,
             ast.If, ast.Assert, ast.Delete)


def _number(node: ast.AST) -> int | float | None:
    """The value of a number literal (``3``, ``2.5``, ``-1``), else None (bools are not numbers here)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _literal(value: int | float) -> ast.expr:
    """An expression node for a number (a negative one as ``-n``, the way it is written)."""
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def _with(node: ast.AST, **changes: Any) -> ast.AST:
    """A deep copy of ``node`` with some fields replaced."""
    new = copy.deepcopy(node)
    for name, value in changes.items():
        setattr(new, name, value)
    return new


def _negated(test: ast.expr) -> ast.expr:
    """``not test``, or ``x`` for ``test`` = ``not x``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return copy.deepcopy(test.operand)
    return ast.UnaryOp(ast.Not(), copy.deepcopy(test))


def op_first_last(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, ast.Subscript):
        if _number(node.slice) == 0 and isinstance(node.slice, ast.Constant):
            yield _with(node, slice=_literal(-1))
        elif _number(node.slice) == -1:
            yield _with(node, slice=ast.Constant(0))


def _compare_op(table: dict) -> Callable[[Site], Iterator[ast.AST]]:
    def operator(site: Site) -> Iterator[ast.AST]:
        node = site.node
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in table:
                    ops = list(copy.deepcopy(node.ops))
                    ops[i] = table[type(op)]()
                    yield _with(node, ops=ops)
    return operator


def op_and_or(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, ast.BoolOp):
        yield _with(node, op=ast.Or() if isinstance(node.op, ast.And) else ast.And())


def op_arith(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in ARITH:
        yield _with(node, op=ARITH[type(node.op)]())


def _constant_op(variant: str) -> Callable[[Site], Iterator[ast.AST]]:
    def operator(site: Site) -> Iterator[ast.AST]:
        node = site.node
        if site.docstring or site.in_spec:
            return
        if isinstance(site.parent, ast.UnaryOp) and isinstance(site.parent.op, ast.USub) and _number(site.parent) is not None:
            return  # the number is its parent, ``-1``
        number = _number(node)
        if number is not None:
            if variant == "plus1":
                yield _literal(number + 1)
            elif variant == "minus1":
                yield _literal(number - 1)
            return
        if not isinstance(node, ast.Constant):
            return
        value = node.value
        if variant == "flip" and isinstance(value, bool):
            yield ast.Constant(not value)
        elif variant == "empty" and isinstance(value, str) and value:
            yield ast.Constant("")
        elif variant == "changed" and isinstance(value, str):
            yield ast.Constant("X" + value)
        elif variant == "none" and value is None:
            yield ast.Constant("")
    return operator


def op_drop_arg(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, ast.Call):
        for i in range(len(node.args)):
            yield _with(node, args=[copy.deepcopy(a) for j, a in enumerate(node.args) if j != i])


def op_drop_kwarg(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, ast.Call):
        for i in range(len(node.keywords)):
            yield _with(node, keywords=[copy.deepcopy(k) for j, k in enumerate(node.keywords) if j != i])


def op_swap_branches(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, ast.If) and node.orelse:
        yield _with(node, body=copy.deepcopy(node.orelse), orelse=copy.deepcopy(node.body))
    elif isinstance(node, ast.IfExp):
        yield _with(node, body=copy.deepcopy(node.orelse), orelse=copy.deepcopy(node.body))


def op_negate(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, (ast.If, ast.While)) and not (isinstance(node, ast.If) and node.orelse):
        yield _with(node, test=_negated(node.test))
    elif isinstance(site.parent, ast.comprehension) and site.field == "ifs":
        yield _negated(node)


def _first_argument(function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> str | None:
    if function is None:
        return None
    arguments = [*function.args.posonlyargs, *function.args.args]
    return arguments[0].arg if arguments else None


def op_return_first_arg(site: Site) -> Iterator[ast.AST]:
    node = site.node
    first = _first_argument(site.function)
    if isinstance(node, ast.Return) and node.value is not None and first:
        if not (isinstance(node.value, ast.Name) and node.value.id == first):
            yield _with(node, value=ast.Name(first, ast.Load()))


def op_return_none(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            yield _with(node, value=ast.Constant(None))


def op_remove_stmt(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if site.function is not None and site.index is not None and isinstance(node, REMOVABLE) and not site.docstring:
        yield ast.Pass()


# The order matters where two operators make the same mutant: the first keeps it (``[0]`` -> ``[-1]``
# is first_last, not constant_minus1).
OPERATORS: dict[str, Callable[[Site], Iterator[ast.AST]]] = {
    "first_last": op_first_last,
    "compare_negate": _compare_op(NEGATE_COMPARE),
    "compare_boundary": _compare_op(BOUNDARY),
    "and_or": op_and_or,
    "arith": op_arith,
    "constant_plus1": _constant_op("plus1"),
    "constant_minus1": _constant_op("minus1"),
    "constant_flip": _constant_op("flip"),
    "constant_empty": _constant_op("empty"),
    "constant_changed": _constant_op("changed"),
    "constant_none": _constant_op("none"),
    "drop_arg": op_drop_arg,
    "drop_kwarg": op_drop_kwarg,
    "swap_branches": op_swap_branches,
    "negate": op_negate,
    "return_first_arg": op_return_first_arg,
    "return_none": op_return_none,
    "remove_stmt": op_remove_stmt,
}


def sites(tree: ast.AST) -> list[Site]:
    """Every node of ``tree`` below its root, in source order (depth first), with where it hangs."""
    out: list[Site] = []

    def visit(parent: ast.AST, function: Any, in_spec: bool, in_doc: bool, statement: Any) -> None:
        body = getattr(parent, "body", None)
        doc = None
        if isinstance(parent, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                doc = first
        inner = parent if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
        for name, value in ast.iter_fields(parent):
            children = value if isinstance(value, list) else [value]
            for i, child in enumerate(children):
                if not isinstance(child, ast.AST):
                    continue
                spec = in_spec or (isinstance(parent, ast.FormattedValue) and name == "format_spec")
                is_doc = in_doc or child is doc
                holder = child if isinstance(child, ast.stmt) else statement
                out.append(Site(child, parent, name, i if isinstance(value, list) else None, inner, is_doc, spec,
                                holder))
                visit(child, inner, spec, is_doc, holder)

    visit(tree, None, False, False, None)
    return out


@contextlib.contextmanager
def _replaced(site: Site, new: ast.AST) -> Iterator[None]:
    """Put ``new`` where ``site.node`` hangs, for the ``with`` block; then put the node back."""
    if site.index is None:
        setattr(site.parent, site.field, new)
    else:
        getattr(site.parent, site.field)[site.index] = new
    try:
        yield
    finally:
        if site.index is None:
            setattr(site.parent, site.field, site.node)
        else:
            getattr(site.parent, site.field)[site.index] = site.node


@dataclass(frozen=True)
class Mutant:
    """One mutant of a solution block.

    Attributes:
        id: ``"operator@text#k"`` (stable when other lines move; see the module docstring).
        operator: a key of ``OPERATORS``.
        line: the block line of the changed node (1 = the ``# %% exercise`` line).
        source: the whole mutated block, as run (compiles).
        changes: ``(block line or 0, original line, mutated line)`` for each changed line; the line
            is 0 where the mutant could not be written in the block's own layout and the lines are
            ``ast.unparse``'s.
    """

    id: str
    operator: str
    line: int
    source: str
    changes: tuple[tuple[int, str, str], ...]


def _segment(source_bytes: bytes, starts: list[int], node: ast.AST) -> tuple[int, int]:
    """``node``'s span in the block as byte offsets (``col_offset`` counts UTF-8 bytes)."""
    return starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset


def _fields(node: ast.AST) -> dict[str, Any]:
    return {name: (ast.dump(v) if isinstance(v, ast.AST) else [ast.dump(x) if isinstance(x, ast.AST) else x for x in v]
                   if isinstance(v, list) else v) for name, v in ast.iter_fields(node)}


def _narrowed(node: ast.AST, new: ast.AST) -> tuple[ast.AST, ast.AST]:
    """The smallest part of ``node`` that ``new`` changes, and its replacement.

    When both are of one type and differ only in one field that holds a node with a position
    (an ``if``'s test, a ``return``'s value), that field's pair, narrowed again; so a mutant keeps
    the rest of the line (its comment, an ``if``'s body) as written.
    """
    while type(node) is type(new):
        old_fields, new_fields = _fields(node), _fields(new)
        differ = [name for name in old_fields if old_fields[name] != new_fields[name]]
        if len(differ) != 1:
            break
        inner_old, inner_new = getattr(node, differ[0]), getattr(new, differ[0])
        if not (isinstance(inner_old, ast.AST) and isinstance(inner_new, ast.AST)) or \
                getattr(inner_old, "end_lineno", None) is None:
            break
        node, new = inner_old, inner_new
    return node, new


def _dropped_argument(raw: bytes, starts: list[int], node: ast.AST, new: ast.AST) -> tuple[int, int] | None:
    """For a call that ``new`` has with one argument fewer: the byte span to cut (the argument and its comma)."""
    if not (isinstance(node, ast.Call) and isinstance(new, ast.Call)):
        return None
    kept = {ast.dump(a) for a in [*new.args, *new.keywords]}
    every = sorted([*node.args, *node.keywords], key=lambda a: (a.lineno, a.col_offset))
    gone = [i for i, a in enumerate(every) if ast.dump(a) not in kept]
    if len(gone) != 1 or len(every) != len(new.args) + len(new.keywords) + 1:
        return None
    i = gone[0]
    if i + 1 < len(every):
        return _segment(raw, starts, every[i])[0], _segment(raw, starts, every[i + 1])[0]
    if i > 0:
        return _segment(raw, starts, every[i - 1])[1], _segment(raw, starts, every[i])[1]
    return _segment(raw, starts, every[i])


def _spliced(source: str, node: ast.AST, new: ast.AST) -> Iterator[str]:
    """Candidate texts of the block with ``node``'s text replaced by ``new`` (the caller checks them)."""
    node, new = _narrowed(node, new)
    if getattr(node, "end_lineno", None) is None:
        return
    raw = source.encode("utf-8")
    starts, total = [], 0
    for line in raw.splitlines(keepends=True):
        starts.append(total)
        total += len(line)
    try:
        start, end = _segment(raw, starts, node)
        dropped = _dropped_argument(raw, starts, node, new)
    except IndexError:  # positions inside an f-string are not always right before Python 3.12
        return
    if dropped is not None:  # the argument's own text cut out, so a call over several lines keeps its layout
        yield (raw[:dropped[0]] + raw[dropped[1]:]).decode("utf-8")
    text = ast.unparse(new)
    if isinstance(new, ast.stmt):
        indent = " " * len(raw[starts[node.lineno - 1]:start].decode("utf-8"))
        text = text.replace("\n", "\n" + indent)
        candidates = [text]
    else:
        candidates = [text, f"({text})"]
    for candidate in candidates:
        yield (raw[:start] + candidate.encode("utf-8") + raw[end:]).decode("utf-8")


def _changes(before: str, after: str, numbered: bool) -> tuple[tuple[int, str, str], ...]:
    """The changed lines, paired: ``(line of before (1-based) or 0, before line, after line)``."""
    a, b = before.splitlines(), after.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        olds, news = a[i1:i2], b[j1:j2]
        for k in range(max(len(olds), len(news))):
            out.append(((i1 + k + 1) if numbered and k < len(olds) else 0,
                        olds[k] if k < len(olds) else "", news[k] if k < len(news) else ""))
    return tuple(out)


def mutants(source: str, operators: Iterable[str] | None = None) -> list[Mutant]:
    """Every distinct, compilable mutant of ``source`` (a solution block), in a stable order.

    Args:
        source: Python source (a block of a solutions file, or any module text).
        operators: names from ``OPERATORS`` (default: all, in their order).
    Returns:
        Mutants ordered by operator, then by place in the source; none equal to the original
        (by ``ast.unparse``), no two alike.
    Raises:
        SyntaxError: ``source`` does not parse.
    """
    tree = ast.parse(source)
    original = ast.unparse(tree)
    seen = {original}
    places = sites(tree)
    lines = source.splitlines()
    out: list[Mutant] = []
    for name in operators or OPERATORS:
        operator = OPERATORS[name]
        count: dict[str, int] = {}
        for site in places:
            line = getattr(site.node, "lineno", None) or getattr(site.parent, "lineno", 0)
            line_text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            for new in operator(site):
                count[line_text] = count.get(line_text, 0) + 1
                mutant_id = f"{name}@{line_text}#{count[line_text]}"
                with _replaced(site, new):
                    key = ast.unparse(tree)
                    # the second choice: the whole statement rewritten (positions inside an f-string are
                    # not always right before Python 3.12); the node is changed in place here
                    holder = new if site.node is site.statement else site.statement
                    whole = [] if holder is None or key in seen else list(_spliced(source, site.statement, holder))
                if key in seen:
                    continue
                seen.add(key)
                candidates = [*_spliced(source, site.node, new), *whole]
                text = next((c for c in candidates if _same_tree(c, key)), None)
                numbered = text is not None
                if text is None:
                    text = key
                try:
                    compile(text, "<mutant>", "exec")
                except (SyntaxError, ValueError):
                    continue
                changes = _changes(source if numbered else original, text, numbered)
                out.append(Mutant(mutant_id, name, line, text, changes))
    return out


def _same_tree(text: str, unparsed: str) -> bool:
    """Whether ``text`` parses to the code ``unparsed`` (an ``ast.unparse``; an f-string's empty part is no part)."""
    try:
        return ast.unparse(ast.parse(text)) == unparsed
    except (SyntaxError, ValueError):
        return False


def spread(items: list, cap: int | None) -> list:
    """At most ``cap`` of ``items``, evenly spread over the list (all when ``cap`` is None or not below it)."""
    if cap is None or len(items) <= cap:
        return list(items)
    return [items[(i * len(items)) // cap] for i in range(cap)]


# ---------------------------------------------------------------------------
# Running: worker processes with a time limit per mutant
# ---------------------------------------------------------------------------

def run_checker(source: str, namespace: dict) -> Any:
    """Execute a checker cell in ``namespace``; the value of its last expression (as tests/notebook_cells.py).

    Raises:
        ValueError: the cell does not end with an expression.
        Exception: whatever the cell raises.
    """
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body else None
    if not isinstance(last, ast.Expr):
        raise ValueError("a checker cell must end with an expression")
    exec(compile(tree, "<checker>", "exec"), namespace)
    return eval(compile(ast.Expression(last.value), "<checker>", "eval"), namespace)


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


def judge(block: str, checker: str) -> tuple[str, str]:
    """Run ``block`` and then ``checker`` in a fresh namespace, in this process.

    Returns:
        ``("survived", "")`` when the checker passes; ``("killed", how)`` otherwise, ``how`` one
        of ``"checker"`` (it failed the block), ``"error"`` (the block or the checker cell
        raised; the exception follows after a colon).
    """
    from course_lib.checkers.scripted import ScriptedModel

    namespace = {"client": ScriptedModel(when_done="2").client(), "MODEL": "fake-model", "__name__": "__exercise__"}
    try:
        exec(compile(block, "<mutant>", "exec"), namespace)
    except BaseException as exc:  # noqa: BLE001 - a mutant may raise anything, SystemExit too
        return "killed", "error: " + _short(exc)
    try:
        result = run_checker(checker, namespace)
    except BaseException as exc:  # noqa: BLE001
        return "killed", "error: " + _short(exc)
    return ("survived", "") if getattr(result, "passed", None) is True else ("killed", "checker")


def _worker(conn: Any, root: str, progress_dir: str) -> None:
    """A worker process: answers each ``(block, checker)`` received with ``judge``'s pair; None ends it."""
    os.environ["COURSE_PROGRESS_DIR"] = progress_dir
    os.environ["COURSE_IGNORE_DOTENV"] = "1"
    sys.path.insert(0, root)
    os.chdir(root)
    sink = open(os.devnull, "w", encoding="utf-8")  # the checkers' ✅/❌ lines, the mutants' prints
    sys.stdout = sys.stderr = sink
    import importlib
    import pkgutil

    import course_lib.checkers as package
    for info in pkgutil.iter_modules(package.__path__):  # imported now, not in a mutant's time
        with contextlib.suppress(Exception):
            importlib.import_module(f"course_lib.checkers.{info.name}")
    conn.send("ready")
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(judge(*job))


class Worker:
    """A worker process and its pipe; ``run`` judges one block with a time limit, replacing a stuck worker.

    Args:
        progress_dir: ``COURSE_PROGRESS_DIR`` for the process (a temporary folder).
    Raises:
        RuntimeError: the process did not start (no "ready" within 120 s).
    """

    def __init__(self, progress_dir: str):
        self.progress_dir = progress_dir
        self.context = multiprocessing.get_context("spawn")
        self.process: Any = None
        self._start()

    def _start(self) -> None:
        parent, child = self.context.Pipe()
        self.process = self.context.Process(target=_worker, args=(child, str(ROOT), self.progress_dir), daemon=True)
        self.process.start()
        child.close()
        self.conn = parent
        if not parent.poll(120) or parent.recv() != "ready":
            self.close()
            raise RuntimeError("a mutation worker did not start")

    def run(self, block: str, checker: str, timeout: float) -> tuple[str, str]:
        """``judge(block, checker)`` in the worker: ``(outcome, how)``; ``("killed", "timeout")`` after
        ``timeout`` seconds, ``("killed", "crash: ...")`` when the worker died."""
        try:
            self.conn.send((block, checker))
            if self.conn.poll(timeout):
                return self.conn.recv()
            outcome = ("killed", "timeout")
        except (EOFError, OSError, BrokenPipeError) as exc:
            outcome = ("killed", f"crash: {type(exc).__name__}")
        self._kill()
        self._start()
        return outcome

    def _kill(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.process.kill()
        if self.process is not None:
            self.process.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()

    def close(self) -> None:
        """End the process (politely, then by force after 5 s)."""
        with contextlib.suppress(Exception):
            self.conn.send(None)
        if self.process is not None:
            self.process.join(5)
        self._kill()


def start_workers(count: int, progress_dir: str) -> list[Worker]:
    """``count`` (at least 1) workers, started side by side (each takes a few seconds to import the checkers).

    Raises:
        RuntimeError: one did not start (the others are closed).
    """
    started: list[Worker | BaseException] = []

    def start() -> None:
        try:
            started.append(Worker(progress_dir))
        except BaseException as exc:  # noqa: BLE001 - re-raised below, after the others are closed
            started.append(exc)

    threads = [threading.Thread(target=start) for _ in range(max(1, count))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [w for w in started if not isinstance(w, Worker)]
    if failed:
        for worker in started:
            if isinstance(worker, Worker):
                worker.close()
        raise RuntimeError(f"a mutation worker did not start: {failed[0]}")
    return started  # type: ignore[return-value]


# ---------------------------------------------------------------------------
# One exercise, all exercises
# ---------------------------------------------------------------------------

@dataclass
class Outcome:
    """What happened to one mutant: ``outcome`` "killed"/"survived", ``how`` (see ``judge``), ``seconds``."""

    mutant: Mutant
    outcome: str
    how: str
    seconds: float


def _equivalent_reason(mutant: Mutant, entries: list[dict]) -> str | None:
    """The ``why`` of the first entry naming this mutant (by id, or by a mutated line's stripped text)."""
    lines = {new.strip() for _, _, new in mutant.changes if new.strip()}
    for entry in entries:
        named = str(entry.get("line", "")).strip()
        if named and (named == mutant.id or named in lines):
            return str(entry.get("why", ""))
    return None


def _first_changed_line(mutant: Mutant) -> int:
    """The block line of the mutant's first changed line (its node's line when the lines are unparse's)."""
    numbered = [line for line, _, _ in mutant.changes if line]
    return numbered[0] if numbered else mutant.line


def load_equivalents(path: Path = EQUIVALENT_FILE) -> dict[str, list[dict]]:
    """``{exercise: [{"line": ..., "why": ...}, ...]}`` from ``path``; ``{}`` when it does not exist.

    Raises:
        ValueError: the file is not JSON of that shape.
    """
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if not k.startswith("_")}  # "_about": a note for the reader
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ValueError(f"{path}: expected {{exercise: [{{'line': ..., 'why': ...}}]}}")
    return {k: [e for e in v if isinstance(e, dict)] for k, v in data.items()}


def run_exercise(exercise: Exercise, workers: list[Worker], timeout: float = DEFAULT_TIMEOUT,
                 cap: int | None = DEFAULT_CAP, equivalents: list[dict] | None = None,
                 operators: Iterable[str] | None = None) -> dict:
    """Mutation-test one exercise's checker with ``workers`` (each mutant on one of them, in parallel).

    Returns:
        A dict: ``reference`` ("passes", or "fails: ..." - then no mutant was run), ``generated``
        (mutants made), ``mutants`` (run: at most ``cap``), ``killed``, ``killed_by`` ({how: n}, how
        "checker", "error", "timeout" or "crash"), ``equivalent``, ``survived`` (not argued
        equivalent), ``share`` (killed / (mutants - equivalent), 0..1, None when nothing to share),
        ``seconds`` (wall), ``survivors`` (one dict per surviving mutant: ``id``, ``operator``,
        ``line`` (its first changed line in the solutions file), ``changes`` [[original, mutated], ...],
        ``equivalent`` (the argued reason or None)), ``unused_equivalents`` (entries that named no
        survivor), ``operators`` ({operator: [mutants, killed]}).
    """
    started = time.perf_counter()
    outcome, how = workers[0].run(exercise.solution, exercise.checker, max(timeout, 60.0))
    result: dict[str, Any] = {"solution": exercise.path, "reference": "passes", "generated": 0, "mutants": 0,
                              "killed": 0, "killed_by": {}, "equivalent": 0, "survived": 0, "share": None,
                              "seconds": 0.0, "survivors": [], "unused_equivalents": [], "operators": {}}
    if outcome != "survived":
        result["reference"] = "fails: " + (how or "the checker fails it")
        result["seconds"] = round(time.perf_counter() - started, 2)
        return result
    made = mutants(exercise.solution, operators)
    chosen = spread(made, cap)
    result["generated"], result["mutants"] = len(made), len(chosen)
    jobs: queue.Queue = queue.Queue()
    for mutant in chosen:
        jobs.put(mutant)
    done: list[Outcome] = []
    lock = threading.Lock()

    def drain(worker: Worker) -> None:
        while True:
            try:
                mutant = jobs.get_nowait()
            except queue.Empty:
                return
            t0 = time.perf_counter()
            status, detail = worker.run(mutant.source, exercise.checker, timeout)
            with lock:
                done.append(Outcome(mutant, status, detail, time.perf_counter() - t0))

    threads = [threading.Thread(target=drain, args=(w,), daemon=True) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    order = {m.id: i for i, m in enumerate(chosen)}
    done.sort(key=lambda o: order[o.mutant.id])
    entries = equivalents or []
    used: set[int] = set()
    for item in done:
        stats = result["operators"].setdefault(item.mutant.operator, [0, 0])
        stats[0] += 1
        if item.outcome == "killed":
            kind = item.how.split(":")[0]
            result["killed"] += 1
            result["killed_by"][kind] = result["killed_by"].get(kind, 0) + 1
            stats[1] += 1
            continue
        why = _equivalent_reason(item.mutant, entries)
        if why is not None:
            result["equivalent"] += 1
            used.update(i for i, e in enumerate(entries) if _equivalent_reason(item.mutant, [e]) is not None)
        else:
            result["survived"] += 1
        result["survivors"].append({
            "id": item.mutant.id, "operator": item.mutant.operator,
            "line": exercise.first_line + _first_changed_line(item.mutant) - 1,
            "changes": [[old, new] for _, old, new in item.mutant.changes],
            "equivalent": why,
        })
    result["unused_equivalents"] = [e for i, e in enumerate(entries) if i not in used]
    counted = result["mutants"] - result["equivalent"]
    result["share"] = round(result["killed"] / counted, 3) if counted else None
    result["seconds"] = round(time.perf_counter() - started, 2)
    return result


def run(keys: Iterable[str] | None = None, workers: int = 2, timeout: float = DEFAULT_TIMEOUT,
        cap: int | None = DEFAULT_CAP, root: Path = ROOT, equivalents: dict[str, list[dict]] | None = None,
        progress: Callable[[str], None] | None = None) -> dict:
    """Mutation-test the checkers of ``keys`` (default: every exercise) and return the results.

    Args:
        keys: exercise ids (``"04-1"``).
        workers: worker processes (at least 1).
        timeout: seconds one mutant may take.
        cap: mutants run per exercise at most (None: all).
        root: the repository whose notebooks and solutions are read (the workers always import
            ``course_lib`` from this file's repository).
        equivalents: ``load_equivalents()``'s shape (default: that file).
        progress: called with one line per exercise done (e.g. ``print``).
    Returns:
        ``{"date", "python", "platform", "workers", "timeout_s", "cap", "seconds", "exercises":
        {key: run_exercise's dict}}``.
    Raises:
        KeyError: an exercise id that the tree does not have.
    """
    found = exercises(root)
    wanted = list(keys) if keys else list(found)
    missing = [k for k in wanted if k not in found]
    if missing:
        raise KeyError(f"no such exercise (with a checker cell and a solution block): {', '.join(missing)}")
    if equivalents is None:
        equivalents = load_equivalents()
    started = time.perf_counter()
    results: dict[str, Any] = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "python": platform.python_version(), "platform": platform.platform(),
        "workers": workers, "timeout_s": timeout, "cap": cap, "seconds": 0.0, "exercises": {},
    }
    with tempfile.TemporaryDirectory(prefix="course-mutants-") as progress_dir:
        pool = start_workers(workers, progress_dir)
        try:
            for key in wanted:
                result = run_exercise(found[key], pool, timeout, cap, equivalents.get(key.split("v")[0], []))  # 04-1v2: the list of 04-1
                results["exercises"][key] = result
                if progress:
                    progress(_progress_line(key, result))
        finally:
            for worker in pool:
                worker.close()
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


def _progress_line(key: str, result: dict) -> str:
    if result["reference"] != "passes":
        return f"{key}: REFERENCE FAILS its checker ({result['reference']}); no mutant run"
    share = "-" if result["share"] is None else f"{100 * result['share']:.0f} %"
    return (f"{key}: {result['mutants']} mutants, {result['killed']} killed, {result['equivalent']} equivalent, "
            f"{result['survived']} survived ({share}) in {result['seconds']} s")


# ---------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------

def _cell(text: str) -> str:
    """Text for a Markdown table cell / inline code: pipes escaped, backticks softened, at most 120 characters."""
    text = text.strip().replace("|", "\\|").replace("`", "'")
    return text if len(text) <= 120 else text[:119] + "…"


def markdown(results: dict) -> str:
    """The results as Markdown: the table per exercise, then every survivor as a line diff."""
    rows = ["| exercise | mutants | killed | equivalent | survivors | killed share | seconds |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    total = {"mutants": 0, "killed": 0, "equivalent": 0, "survived": 0, "seconds": 0.0}
    capped = False
    for key, r in results["exercises"].items():
        if r["reference"] != "passes":
            rows.append(f"| {key} | **reference fails** | | | | | {r['seconds']} |")
            continue
        mark = ""
        if r["generated"] > r["mutants"]:
            mark, capped = f" (of {r['generated']})", True
        share = "–" if r["share"] is None else f"{100 * r['share']:.0f} %"
        rows.append(f"| {key} | {r['mutants']}{mark} | {r['killed']} | {r['equivalent']} | {r['survived']} | "
                    f"{share} | {r['seconds']} |")
        for name in total:
            total[name] += r[name]
    counted = total["mutants"] - total["equivalent"]
    share = f"{100 * total['killed'] / counted:.0f} %" if counted else "–"
    rows.append(f"| **all** | {total['mutants']} | {total['killed']} | {total['equivalent']} | {total['survived']} | "
                f"{share} | {total['seconds']:.0f} |")
    kinds: dict[str, int] = {}
    for r in results["exercises"].values():
        for kind, n in r["killed_by"].items():
            kinds[kind] = kinds.get(kind, 0) + n
    head = [
        "# How strong each checker is: mutation testing",
        "",
        f"Made by `python -m bench.mutants` on {results['date']} (Python {results['python']}, "
        f"{results['workers']} worker processes, at most {results['timeout_s']:g} s per mutant, "
        f"{'at most ' + str(results['cap']) + ' mutants per exercise' if results['cap'] else 'no cap'}); "
        f"the whole run took {results['seconds']:.0f} s.",
        "Each mutant is the reference solution changed in one place; *killed* means the exercise's checker "
        "failed it, *equivalent* that the change was argued not to alter behaviour (bench/mutants_equivalent.json), "
        "and the share is killed / (mutants - equivalent). Seconds are wall time per exercise.",
        "",
    ]
    notes = [""]
    if capped:
        notes.append("A count \"N (of M)\" means M mutants were made and N of them, spread evenly, were run (`--cap`).")
    if kinds:
        notes.append("Killed by: " + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())) +
                     " (checker: it failed the mutant; error: the block or the cell raised; "
                     "timeout / crash: the mutant hung or ended its worker).")
    out = head + rows + notes + ["", "## Survivors", ""]
    for key, r in results["exercises"].items():
        if not r["survivors"] and not r["unused_equivalents"]:
            continue
        out.append(f"### {key} ({r['solution']})")
        out.append("")
        for s in r["survivors"]:
            where = f"line {s['line']}" if s["line"] else "the block"
            diff = "; ".join(f"`{_cell(old) or '(nothing)'}` → `{_cell(new) or '(nothing)'}`" for old, new in s["changes"])
            tag = f" — equivalent (argued): {s['equivalent']}" if s["equivalent"] is not None else ""
            out.append(f"- `{s['id']}` ({where}): {diff}{tag}")
        for e in r["unused_equivalents"]:
            out.append(f"- unused entry of bench/mutants_equivalent.json (names no survivor): `{_cell(str(e.get('line')))}`")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def write(results: dict, out: Path) -> tuple[Path, Path]:
    """Write ``mutants.json`` and ``mutants.md`` into ``out`` (created if needed); return both paths."""
    out.mkdir(parents=True, exist_ok=True)
    as_json, as_md = out / "mutants.json", out / "mutants.md"
    as_json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    as_md.write_text(markdown(results), encoding="utf-8")
    return as_json, as_md


def main(argv: list[str] | None = None) -> int:
    """The command line; returns 0, or 1 when a reference solution fails its own checker."""
    parser = argparse.ArgumentParser(prog="python -m bench.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercise", nargs="+", metavar="NN-k", help="only these exercises (default: all)")
    parser.add_argument("--smoke", action="store_true", help=f"at most {SMOKE_CAP} mutants per exercise")
    parser.add_argument("--out", type=Path, help="folder for mutants.json and mutants.md "
                        "(default bench/results on a full run; a partial run only prints unless given)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per mutant (default 10)")
    parser.add_argument("--cap", type=int, default=DEFAULT_CAP, help="mutants per exercise at most (default 150; 0: all)")
    args = parser.parse_args(argv)
    cap = SMOKE_CAP if args.smoke else (args.cap or None)
    for stream in (sys.stdout, sys.stderr):  # the diffs hold Chinese text; a Windows console may not be UTF-8
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="replace")
    results = run(args.exercise, workers=args.workers, timeout=args.timeout, cap=cap,
                  progress=lambda line: print(line, flush=True))
    out = args.out if args.out else (None if (args.exercise or args.smoke) else DEFAULT_OUT)
    if out is not None:
        for path in write(results, out):
            print(f"wrote {path}")
    else:
        print(markdown(results))
    failing = [k for k, r in results["exercises"].items() if r["reference"] != "passes"]
    if failing:
        print(f"REFERENCE FAILS its checker for {', '.join(failing)}: the mutation figures of "
              "those exercises mean nothing until the solution or the checker is fixed.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
