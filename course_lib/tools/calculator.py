"""A safe calculator tool: arithmetic only, never ``eval``.

Taught in notebook 03.

The expression is parsed into a syntax tree with ``ast.parse`` and we walk the
tree ourselves, allowing only numbers, + - * / // % ** and parentheses.
Anything else (names, function calls, attributes, strings ...) is refused, and
numbers that would become huge are refused *before* they are computed.

Full-width characters (``７＊８``, ``（１＋２）``) are made plain with NFKC.  NFKC
would also turn the superscript in ``7²`` into a plain 2 - ``72``, a different
number - so superscript digits are read first, as a power (``7²`` -> ``7**(2)``),
and any other character NFKC would turn into a digit (``2₃``, ``①``) is refused.
"""

from __future__ import annotations

import ast
import math
import operator
import unicodedata

from .failure import ToolFailure

MAX_EXPRESSION_LENGTH = 200  # characters
MAX_DIGITS = 1000            # largest result we accept, in decimal digits
MAX_EXPONENT = 10_000        # largest |exponent| we accept in a ** b

CALCULATOR_TOOL = {
    "type": "function",
    "function": {
        "name": "calculate",
        "description": "精确计算一个算术表达式：数字、+ - * / // % ** 和括号。凡是要计算都用它，不要心算。",
        "parameters": {
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "description": "算式，例如 (3 + 4) * 2",
                },
            },
            "required": ["expression"],
        },
    },
}

_BINARY_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}

_UNARY_OPERATORS = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}

# Characters people (and models) type that Python does not know.
_REPLACEMENTS = str.maketrans({"×": "*", "÷": "/", "−": "-", "·": "*"})

# Superscript digits and signs -> plain ones: "²" is "2", "⁻" is "-".  A run of them is an exponent.
SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-"))

_ALLOWED = "只支持数字、+ - * / // % ** 和括号"


class CalculatorError(ValueError):
    """Raised inside the calculator; ``calculate`` turns it into "错误：..."."""


def calculate(expression: str) -> str:
    """Compute an arithmetic expression and return the result as text.

    Args:
        expression: e.g. "20 * 15", "(1 + 2) ** 3", "7 ÷ 2" (at most 200
            characters).  Full-width characters such as （ ） ＋ and ×, ÷ are
            accepted.
    Returns:
        The result as a string: "300" for integers, "0.3333333333" for
        floats (rounded to 10 decimals).  Never raises: every problem
        (unsupported syntax, division by zero, a result that is too large)
        gives a string starting with "错误：".
    """
    if not isinstance(expression, str):
        return ToolFailure("错误：expression 必须是字符串，例如 \"20 * 15\"")
    lookalike = _digit_lookalike(expression)
    if lookalike:
        return ToolFailure(f"错误：不支持的字符 {lookalike!r}，{_ALLOWED}（乘方请用 ** 或上标，例如 7² 或 7**2）")
    text = unicodedata.normalize("NFKC", _powers(expression)).translate(_REPLACEMENTS).strip()
    if not text:
        return ToolFailure("错误：expression 不能为空")
    if len(text) > MAX_EXPRESSION_LENGTH:
        return ToolFailure(f"错误：表达式太长（最多 {MAX_EXPRESSION_LENGTH} 个字符）")

    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ToolFailure(f"错误：无法解析表达式 {text!r}，{_ALLOWED}")

    try:
        value = _evaluate(tree.body)
    except CalculatorError as error:
        return ToolFailure(f"错误：{error}")
    return _format(value)


def _powers(text: str) -> str:
    """Write each run of superscript digits as a power: ``"2¹⁰ + 7²"`` -> ``"2**(10) + 7**(2)"``.

    The parentheses keep a signed exponent whole: ``"10⁻²"`` -> ``"10**(-2)"``.  A run with
    nothing before it (``"²3"``) becomes ``"**(2)3"``, which the parser refuses.
    """
    out, run = [], []
    for ch in text + " ":  # the extra space ends a run at the end of the text
        if ch in SUPERSCRIPTS:
            run.append(SUPERSCRIPTS[ch])
            continue
        if run:
            out.append("**(" + "".join(run) + ")")
            run = []
        out.append(ch)
    return "".join(out)[:-1]


def _digit_lookalike(text: str) -> str | None:
    """The first character that NFKC would turn into a digit but is neither a digit, a full-width
    digit nor a superscript (``₂``, ``①``, ``⑴``): read as a plain digit it would change the number.

    Returns:
        That character, or None.
    """
    for ch in text:
        if ch in SUPERSCRIPTS or ch.isdecimal():  # 0-9, ０-９ (and other scripts' digits, refused by ast later)
            continue
        if any(c.isdigit() for c in unicodedata.normalize("NFKC", ch)):
            return ch
    return None


def _evaluate(node: ast.AST) -> int | float:
    """Evaluate one node of the syntax tree, refusing anything not whitelisted."""
    if isinstance(node, ast.Constant):
        value = node.value
        # bool is a subclass of int, so exclude it explicitly.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CalculatorError(f"不支持的语法 {value!r}，{_ALLOWED}")
        return _check_size(value)

    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY_OPERATORS:
        operand = _evaluate(node.operand)
        return _UNARY_OPERATORS[type(node.op)](operand)

    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_OPERATORS:
        left = _evaluate(node.left)
        right = _evaluate(node.right)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
            raise CalculatorError("除数不能为零")
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        try:
            result = _BINARY_OPERATORS[type(node.op)](left, right)
        except ZeroDivisionError:  # e.g. 0 ** -1
            raise CalculatorError("除数不能为零") from None
        except OverflowError:      # e.g. 10.0 ** 400, or a huge int turned into a float
            raise CalculatorError("结果太大") from None
        return _check_size(result)

    if isinstance(node, (ast.BinOp, ast.UnaryOp)):  # e.g. 2 ^ 10 is BitXor in Python
        raise CalculatorError(f"不支持的运算符 {type(node.op).__name__}，{_ALLOWED}（乘方请用 **）")
    raise CalculatorError(f"不支持的语法 {type(node).__name__}，{_ALLOWED}")


def _check_power(base: int | float, exponent: int | float) -> None:
    """Refuse ``base ** exponent`` before computing it if the result would be huge."""
    if abs(exponent) > MAX_EXPONENT:
        raise CalculatorError("结果太大（指数太大）")
    if abs(base) > 1 and exponent > 0 and exponent * math.log10(abs(base)) > MAX_DIGITS:
        raise CalculatorError(f"结果太大（超过 {MAX_DIGITS} 位数）")


def _check_size(value) -> int | float:
    """Return ``value`` if it is a finite real number of reasonable size."""
    if isinstance(value, complex):  # e.g. (-8) ** 0.5
        raise CalculatorError("结果不是实数")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError("结果太大或不是有限的数")
    if isinstance(value, int) and abs(value).bit_length() * math.log10(2) > MAX_DIGITS:
        raise CalculatorError(f"结果太大（超过 {MAX_DIGITS} 位数）")
    return value


def _format(value: int | float) -> str:
    """300 -> "300"; 5.0 -> "5"; 1/3 -> "0.3333333333"; 1e-12 stays "1e-12"."""
    if isinstance(value, int):
        return str(value)
    rounded = round(value, 10)
    text = repr(value) if rounded == 0 and value != 0 else repr(rounded)
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
