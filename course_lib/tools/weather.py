"""Offline weather tool: looks a city up in data/weather.json.

Taught in notebook 03.

The data is fixed (no internet needed in class), e.g.
北京 晴 25°C 湿度40%, 上海 多云 28°C 湿度65%.
"""

from __future__ import annotations

import os
from pathlib import Path

from .data_files import DataFileError, read_table, tool_failure
from .failure import ToolFailure

UNITS = ("celsius", "fahrenheit")

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "查询一个中国城市现在的天气（天气状况、气温、湿度）。一次只查一个城市。",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {
                    "type": "string",
                    "description": "城市名，例如 北京",
                },
                "unit": {
                    "type": "string",
                    "enum": list(UNITS),
                    "description": "温度单位，默认 celsius（摄氏度）",
                },
            },
            "required": ["city"],
        },
    },
}


def _data_dir() -> Path:
    """The course data folder: $COURSE_DATA_DIR if set, else <repo>/data."""
    return Path(os.environ.get("COURSE_DATA_DIR") or Path(__file__).resolve().parents[2] / "data")


def load_weather() -> dict:
    """Read data/weather.json (UTF-8 with or without a BOM: ``data_files.read_table``).

    Returns:
        ``{city: {"condition": str, "temperature_c": number, "humidity": number}}``;
        temperature in °C, humidity in percent.
    Raises:
        DataFileError: the file is missing, not UTF-8, not JSON, or a city lacks a field or holds a
            value of the wrong kind - one Chinese sentence with the file, the line and the fix.
    """
    return read_table(_data_dir() / "weather.json",
                      {"condition": "text", "temperature_c": "number", "humidity": "number"})


def get_weather(city: str, unit: str = "celsius") -> str:
    """Return the weather of ``city`` as one short Chinese line.

    Args:
        city: a city name such as "北京"; surrounding spaces and a trailing
            "市" ("北京市") are ignored.
        unit: "celsius" (°C, default) or "fahrenheit" (°F).
    Returns:
        e.g. "北京：晴，25°C，湿度40%".  Never raises: an unknown city gives
        "没有 X 的天气数据", a bad argument or a broken data/weather.json gives a
        string starting with "错误：" (for the file: which line, and the fix).
    Data: data/weather.json (offline, fixed values).
    """
    if not isinstance(city, str) or not city.strip():
        return ToolFailure("错误：city 不能为空，请给出城市名，例如 北京")
    if unit is None:
        unit = "celsius"
    if not isinstance(unit, str) or unit.strip().lower() not in UNITS:
        return ToolFailure(f"错误：unit 只能是 celsius 或 fahrenheit，收到 {unit!r}")
    unit = unit.strip().lower()

    name = city.strip()
    try:
        data = load_weather()
    except DataFileError as error:  # data/weather.json was edited by hand and is broken: say so, never raise
        return tool_failure(error)
    if name not in data and name.endswith("市"):
        name = name[:-1]
    if name not in data:
        return f"没有 {city.strip()} 的天气数据"

    info = data[name]
    temperature = info["temperature_c"]
    symbol = "°C"
    if unit == "fahrenheit":
        temperature = round(temperature * 9 / 5 + 32, 1)
        symbol = "°F"
    return f"{name}：{info['condition']}，{temperature:g}{symbol}，湿度{info['humidity']}%"
