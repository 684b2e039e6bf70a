"""A tool registry: names -> (function, schema), and a ``call`` that never raises.

Taught in notebook 04; every loop of 05-07 runs its tools through it.

The model only ever sends a tool *name* and *arguments*; the registry looks the
name up, checks the arguments against the tool's JSON schema, calls the
function and always hands back a string for the ``role="tool"`` message
(``messages.tool_content``, the course's one tool-result converter).
Errors come back as short Chinese strings too, so the model can read them and
try again instead of crashing the loop; ``call`` also says whether the tool
really ran (``ok``), so code never has to guess that from the text.

Tool names are matched here, once, for every loop (``lookup_tool``: case,
full-width letters and markdown around a name do not matter), and the names
of a list of schemas are ``names_of(schemas)``.  What a model puts around a
name or a text input - markdown (``unwrap``), ASCII or Chinese quotes
(``unquote``), any Unicode space such as the ideographic space U+3000 - is
taken off here too, for the ReAct parser and the recovery of calls written as
text alike.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..messages import tool_content
from ..texts import t
from .calculator import CALCULATOR_TOOL, calculate
from .failure import ToolFailure
from .knowledge import KNOWLEDGE_TOOL, search_knowledge
from .products import PRODUCT_TOOL, query_by_product_name
from .weather import WEATHER_TOOL, get_weather


# Markdown wrapped around a whole name: **x**, __x__, `x`, ```x```, *x*.
WRAPPED_RE = re.compile(r"^(?P<mark>\*\*|__|`{1,3}|\*)(?P<body>.+)(?P=mark)$", re.DOTALL)

# Quotes a model puts around a whole input, opening -> closing: ASCII, backticks and the
# Chinese ones (“” ‘’ 「」 『』).
QUOTE_PAIRS = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」", "『": "』"}

# Characters around a tool name that are never part of it (besides spaces): markdown and every quote.
NAME_MARKS = "*" + "".join(QUOTE_PAIRS) + "".join(QUOTE_PAIRS.values())


def names_of(schemas: Iterable[dict]) -> list[str]:
    """The function names of OpenAI tool schemas, in order (``""`` for a schema without one)."""
    return [(schema.get("function") or {}).get("name", "") for schema in schemas]


def unwrap(text: str) -> str:
    """``text`` without markdown wrapped around the whole of it: ``**x**`` / ```x``` -> ``x``."""
    m = WRAPPED_RE.match(text)
    return m.group("body").strip() if m else text


def unquote(text: str) -> str:
    """``text`` without spaces around it and without ONE pair of quotes around the whole of it.

    Spaces are any Unicode whitespace (``str.strip``: the ideographic space U+3000
    too).  The pair must enclose the whole text: ``“跑步鞋”`` -> ``跑步鞋``,
    ``「北京」`` -> ``北京``, ``"20 * 15"`` -> ``20 * 15``; but ``“长江”和“黄河”``
    stays as it is (its first quote closes in the middle), and so do unpaired
    quotes (``“北京``, ``「北京』``) and quotes inside (``他说“好”``).

    Args:
        text: a tool input as the model wrote it.
    Returns:
        The input without the spaces and the pair of quotes.
    """
    text = text.strip()
    if len(text) < 2 or QUOTE_PAIRS.get(text[0]) != text[-1]:
        return text
    inner = text[1:-1]
    if text[0] in inner or text[-1] in inner:  # the first quote closes earlier: not a pair around the whole
        return text
    return inner.strip()


def unquote_values(arguments: Any) -> Any:
    """An arguments dict with ``unquote`` applied to each of its string values; anything else unchanged.

    ``{"product_name": "“跑步鞋”"}`` -> ``{"product_name": "跑步鞋"}`` (a new dict).
    """
    if not isinstance(arguments, dict):
        return arguments
    return {key: unquote(value) if isinstance(value, str) else value for key, value in arguments.items()}


def bare_name(text: str) -> str:
    """A tool name without what a model puts around it: spaces, markdown, quotes (``NAME_MARKS``).

    ``" **“calculate”** "`` -> ``"calculate"``.
    """
    name = unwrap(text.strip())
    while name and (name[0] in NAME_MARKS or name[0].isspace()):  # leading marks and spaces
        name = name[1:]
    while name and (name[-1] in NAME_MARKS or name[-1].isspace()):  # trailing ones
        name = name[:-1]
    return name


def tool_key(name: str) -> str:
    """Comparison key for tool names: NFKC (full-width letters -> ASCII), trimmed, case-folded."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def lookup_tool(name: str, tool_names: Iterable[str]) -> str | None:
    """The registered spelling of ``name`` among ``tool_names``, or None.

    Case, full-width letters (NFKC), surrounding spaces (U+3000 too), quotes
    (ASCII or Chinese), backticks and markdown emphasis do not matter
    (``bare_name``): ``"**Get_Weather**"`` and ``"“get_weather”"`` find ``get_weather``.
    A namespace some models and gateways put in front (``functions.get_weather``,
    ``default_api.calculate``) is dropped when the name after the last dot is a
    registered tool; an unknown name after it is still unknown.
    Used by the ReAct parser, the recovery of calls written as text, and the
    native loop's reading of ``tool_calls``.
    """
    names = [tool_names] if isinstance(tool_names, str) else list(tool_names)
    table = {tool_key(n): n for n in names}
    key = tool_key(bare_name(name))
    return table.get(key) or table.get(key.rsplit(".", 1)[-1])


def available_text(names: Iterable[str]) -> str:
    """The tool names as the model reads them in an error: ``"a, b"`` (a sentence when there are none)."""
    return ", ".join(names) or t("tools.no_tools")


def unknown_tool_text(name: str, names: Iterable[str]) -> str:
    """What the model reads when it called a tool that does not exist, naming the available ones:
    ``"工具 X 不存在。可用的工具：a, b"``.  Every loop says it this way: the native loop's tool
    result (``"错误："`` in front, like every tool error), the ReAct parser's correction, the
    correction for a call written as text."""
    return t("tools.unknown_tool", name=name, available=available_text(names))


@dataclass
class Tool:
    """One tool: its name, the Python function, and the full OpenAI schema
    ``{"type": "function", "function": {"name", "description", "parameters"}}``.

    ``needs_approval``: the tool changes something (notebook 08's ``place_order``), so the
    loop asks a person before it runs (``approval.ApprovalGate``: the native ``Agent``, both ReAct loops, the chat box).
    """

    name: str
    function: Callable[..., Any]
    schema: dict
    needs_approval: bool = False

    def __post_init__(self):
        schema_name = self.schema.get("function", {}).get("name")
        if schema_name != self.name:
            raise ValueError(t("tools.schema_name_differs", name=repr(self.name), schema_name=repr(schema_name)))

    @property
    def parameters(self) -> dict:
        """The JSON schema of the arguments: {"type": "object", "properties", "required"}."""
        return self.schema["function"].get("parameters", {})

    def describe_parameters(self) -> str:
        """e.g. "city（必填）, unit（可选）" - used in error messages."""
        required = self.parameters.get("required", [])
        names = self.parameters.get("properties", {})
        if not names:
            return "（无参数）"
        return ", ".join(f"{n}（{'必填' if n in required else '可选'}）" for n in names)


class ToolRegistry:
    """Tools by name.  Example::

        registry = ToolRegistry([Tool("get_weather", get_weather, WEATHER_TOOL)])
        registry.schemas()                           # pass as tools=... to the API
        registry.call("get_weather", {"city": "北京"})  # -> ("北京：晴，25°C，湿度40%", True)

    ``call`` is the one way to run a tool by name; ``mcp_client.McpTools.call`` keeps its contract.
    """

    def __init__(self, tools: Iterable[Tool] = ()):
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register ``tool`` (a tool with the same name is replaced)."""
        if not isinstance(tool, Tool):
            raise TypeError(t("tools.not_a_tool", name=type(tool).__name__))
        self._tools[tool.name] = tool

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> list[str]:
        """Names of the registered tools, in the order they were added."""
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        """The Tool called ``name``, or None."""
        return self._tools.get(name) if isinstance(name, str) else None

    def schemas(self) -> list[dict]:
        """The schemas of all tools: the ``tools=`` argument of a chat request."""
        return [tool.schema for tool in self._tools.values()]

    def approval_names(self) -> list[str]:
        """Names of the tools marked ``needs_approval`` (a person says yes before they run), in order."""
        return [tool.name for tool in self._tools.values() if tool.needs_approval]

    def check_arguments(self, name: str, arguments: Any) -> str | None:
        """Return a Chinese error string if ``arguments`` do not fit the tool
        ``name`` (unknown tool, not a dict, missing or unexpected parameters),
        otherwise None."""
        tool = self.get(name)
        if tool is None:
            return "错误：" + unknown_tool_text(name, self.names)
        params = tool.describe_parameters()
        if not isinstance(arguments, dict):
            return (f"错误：工具 {name} 的参数必须是 JSON 对象（dict），"
                    f"收到 {type(arguments).__name__}。参数：{params}")
        required = tool.parameters.get("required", [])
        allowed = tool.parameters.get("properties", {})
        missing = [key for key in required if key not in arguments]
        if missing:
            return f"错误：工具 {name} 缺少必填参数 {', '.join(missing)}。参数：{params}"
        unexpected = [str(key) for key in arguments if key not in allowed]
        if unexpected:
            return f"错误：工具 {name} 没有参数 {', '.join(unexpected)}。参数：{params}"
        return None

    def call(self, name: str, arguments: dict) -> tuple[str, bool]:
        """Run tool ``name`` with ``arguments`` (an already json.loads-ed dict).

        Returns:
            ``(text, ok)``: the tool's result as the string of a tool message
            (``messages.tool_content``: str unchanged, None -> a "no result" sentence, dict/list/
            tuple/bool/numbers -> JSON, anything else -> str()) and True; or,
            when the tool gave no result - an unknown tool, arguments that do not
            fit its schema, an exception inside it, or the tool's own
            ``failure.ToolFailure`` (its sentence is the text) - a string starting
            with "错误：" that says why, and False.  Never raises: only a tool's
            ``failure.ToolWaiting`` (a ``BaseException``, like ``KeyboardInterrupt``: "a person
            must decide first", an agent used as a tool) passes through, for the loop to wait on.
        """
        problem = self.check_arguments(name, arguments)
        if problem:
            return problem, False
        try:
            result = self._tools[name].function(**arguments)
        except Exception as error:
            return f"错误：工具 {name} 出错：{type(error).__name__}: {error}", False
        return tool_content(result), not isinstance(result, ToolFailure)


def default_registry() -> ToolRegistry:
    """A registry with the four course tools: get_weather, calculate,
    query_by_product_name and search_knowledge."""
    return ToolRegistry([
        Tool("get_weather", get_weather, WEATHER_TOOL),
        Tool("calculate", calculate, CALCULATOR_TOOL),
        Tool("query_by_product_name", query_by_product_name, PRODUCT_TOOL),
        Tool("search_knowledge", search_knowledge, KNOWLEDGE_TOOL),
    ])
