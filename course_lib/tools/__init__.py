"""The offline tools the notebooks call, and a registry that runs them.

Taught in notebooks 03 (weather, calculator), 04 (products, registry), 05 (knowledge),
08 (orders) and 11 (shop_notes).

weather     get_weather(city, unit)          data/weather.json
calculator  calculate(expression)            safe arithmetic, no eval
products    query_by_product_name(name)      data/SportsEquipment.db (from products.csv)
knowledge   search_knowledge(query)          data/knowledge.json
orders      place_order(product_id, quantity) the one write tool: data/my_shop.db, a per-student copy
            get_product, list_orders         read the copy (read-only); reset_shop() renews it
            get_reviews(product_id)          data/reviews.json (one review is an injection sample)
            shop_registry()                  the shop's four tools, place_order needs approval
shop_notes  search_notes(query)              data/shop_notes.json, SQLite FTS5 + BM25 (in memory)
            shop_expert_registry()           products + notes: notebook 11's shop expert
failure     ToolFailure: a tool's "错误：..." answer (a str; the registry reports ok False)
registry    Tool, ToolRegistry, default_registry()
"""

from .calculator import CALCULATOR_TOOL, calculate
from .failure import ToolFailure
from .knowledge import KNOWLEDGE_TOOL, search_knowledge
from .orders import (
    GET_PRODUCT_TOOL,
    ORDER_TOOL,
    REVIEWS_TOOL,
    get_product,
    get_reviews,
    list_orders,
    place_order,
    reset_shop,
    shop_registry,
)
from .products import PRODUCT_TOOL, build_database, query_by_product_name
from .registry import Tool, ToolRegistry, default_registry
from .shop_notes import NOTES_TOOL, search_notes, shop_expert_registry
from .weather import WEATHER_TOOL, get_weather

__all__ = [
    "CALCULATOR_TOOL",
    "GET_PRODUCT_TOOL",
    "KNOWLEDGE_TOOL",
    "NOTES_TOOL",
    "ORDER_TOOL",
    "PRODUCT_TOOL",
    "REVIEWS_TOOL",
    "WEATHER_TOOL",
    "Tool",
    "ToolFailure",
    "ToolRegistry",
    "build_database",
    "calculate",
    "default_registry",
    "get_product",
    "get_reviews",
    "get_weather",
    "list_orders",
    "place_order",
    "query_by_product_name",
    "reset_shop",
    "search_knowledge",
    "search_notes",
    "shop_expert_registry",
    "shop_registry",
]
