"""The offline tools the notebooks call, and a registry that runs them.

Taught in notebooks 03 (weather, calculator), 04 (products, registry) and 05 (knowledge).

weather     get_weather(city, unit)          data/weather.json
calculator  calculate(expression)            safe arithmetic, no eval
products    query_by_product_name(name)      data/SportsEquipment.db (from products.csv)
knowledge   search_knowledge(query)          data/knowledge.json
failure     ToolFailure: a tool's "错误：..." answer (a str; the registry reports ok False)
registry    Tool, ToolRegistry, default_registry()
"""

from .calculator import CALCULATOR_TOOL, calculate
from .failure import ToolFailure
from .knowledge import KNOWLEDGE_TOOL, search_knowledge
from .products import PRODUCT_TOOL, build_database, query_by_product_name
from .registry import Tool, ToolRegistry, default_registry
from .weather import WEATHER_TOOL, get_weather

__all__ = [
    "CALCULATOR_TOOL",
    "KNOWLEDGE_TOOL",
    "PRODUCT_TOOL",
    "WEATHER_TOOL",
    "Tool",
    "ToolFailure",
    "ToolRegistry",
    "build_database",
    "calculate",
    "default_registry",
    "get_weather",
    "query_by_product_name",
    "search_knowledge",
]
