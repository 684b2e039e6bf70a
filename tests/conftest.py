import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/fakes.py

from fakes import FakeLLM  # noqa: E402


@pytest.fixture
def fake_llm():
    """A fresh scripted fake server; use ``fake_llm.add(...)`` and ``fake_llm.client()``."""
    return FakeLLM()
