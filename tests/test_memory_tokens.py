"""course_lib.summary_memory's token estimate (text_tokens / estimate_tokens) is never below what the server's
tokenizer counts: conservative by construction outside the blocks it has measured rates for.

The unit tests check the construction (a character that is not one of Qwen2.5's merged tokens costs
its UTF-8 byte count); ``test_the_estimate_is_never_below_the_servers_count`` checks SAMPLE against the
local llama-server's ``/tokenize`` (marked ``notebook``: it needs the local model running)."""

from __future__ import annotations

import httpx2
import pytest

from course_runtime import local_server
from course_lib.summary_memory import MESSAGE_OVERHEAD, estimate_tokens, text_tokens

# A few lines of each kind of text; each line is sent to /tokenize on its own.
SAMPLE = {
    "emoji": [
        "今天跑完了😀🎉👍",
        "🏃‍♂️🏅🥇 第一名！",
        "👨‍👩‍👧‍👦❤️🔥✨🌏🍜",
        "🧗🏽‍♀️🫠🪿🛼",
    ],
    "hangul": [
        "안녕하세요, 저는 민수입니다.",
        "오늘 날씨가 정말 좋네요!",
        "마라톤 대회는 다음 주 토요일입니다.",
        "힣귂뷁쓟",
    ],
    "cjk_extension_a": [
        "㐀㐁㐂㐃㑇㒳㓁㔾",
        "䶵䶶䴉䲜䱷䯂",
    ],
    "cjk_extension_b_and_later": [
        "𠀀𠀁𠂇𠮷𡈽𪚥",
        "𫟼𬺰𰻞𱁬𮯠",
    ],
    "full_width_punctuation": [
        "（注意）：请在「设置」里选择【保存】！",
        "ＡＢＣ１２３，。？！；：＠＃％＆＊",
        "……——“引号”‘单引号’《书名》〈篇名〉",
        "ｱｲｳｴｵ｡｢｣､･　〇〡〢",
    ],
    "common_cjk": [
        "你好，我叫小明，下周六我要去杭州跑半程马拉松。",
        "比赛前一天晚上可以吃一些清淡的、容易消化的食物。",
        "北京今天晴，气温二十五度，湿度百分之六十五。",
    ],
    "ascii": [
        "Hello, world! The weather in Beijing is sunny today.",
        'get_weather{"city": "Beijing", "unit": "celsius"}',
        "Order #12345 costs 499.00 yuan, shipped on 2026-12-02.",
        "def add(a, b):\n    return a + b",
    ],
}
LINES = [line for lines in SAMPLE.values() for line in lines]


def utf8(text):
    return len(text.encode("utf-8"))


@pytest.mark.parametrize("char", [
    "😀", "👍", "🥇", "🫠",          # emoji: 4 bytes
    "\u200d", "\ufe0f",             # the zero-width joiner and variation selector inside emoji sequences: 3 bytes
    "안", "녕", "힣", "ᄀ", "ㄱ",      # Hangul syllables and jamo: 3 bytes
    "㐀", "䶵",                      # CJK Extension A: 3 bytes
    "𠀀", "𠮷", "𪚥", "𰻞",            # CJK Extension B and later: 4 bytes
    "ｱ", "〡", "\u3000",             # half-width katakana, Suzhou numerals, the ideographic space: 3 bytes
    "ä", "я",                       # Latin-1, Cyrillic: 2 bytes
])
def test_a_character_outside_the_measured_blocks_costs_its_utf8_bytes(char):
    """Qwen2.5's tokenizer is a byte-level BPE: every token covers at least one byte, so a character
    costs at most its UTF-8 byte count, whatever the vocabulary merged."""
    assert text_tokens(char) == utf8(char)
    assert text_tokens(char * 5) == 5 * utf8(char)


def test_an_emoji_sequence_costs_the_bytes_of_all_its_code_points():
    family = "👨‍👩‍👧‍👦"  # 4 emoji joined by 3 zero-width joiners: one glyph, 7 code points
    assert text_tokens(family) == utf8(family) == 25


@pytest.mark.parametrize("char", list("，。、？！：；（）「」『』【】《》〈〉“”‘’…—～·＠％１Ａ"))
def test_the_punctuation_of_chinese_text_costs_one(char):
    """Each of these is one token of Qwen2.5's vocabulary (text_tokens' docstring says how it was measured)."""
    assert text_tokens(char) == 1


def test_digits_and_ascii_punctuation_cost_one_each():
    """Qwen2's pre-tokenizer splits numbers into single digits; a run of ASCII punctuation is at most one
    token a character (one byte each)."""
    assert text_tokens("2026") == 4
    assert text_tokens('{"":,}') == 6
    assert text_tokens("hello world") == 3  # letters and spaces: 4 to a token (11 / 4, rounded up)
    assert text_tokens("你好") == 2
    assert text_tokens("") == 0


def test_the_estimate_of_a_message_adds_the_overhead():
    assert estimate_tokens([{"role": "user", "content": "안녕"}]) == MESSAGE_OVERHEAD + 6
    assert estimate_tokens([{"role": "user", "content": [{"type": "text", "text": "😀"}]}]) == MESSAGE_OVERHEAD + 4


def test_the_sample_has_every_kind_the_issue_names():
    assert {"emoji", "hangul", "cjk_extension_a", "cjk_extension_b_and_later", "full_width_punctuation",
            "common_cjk", "ascii"} <= set(SAMPLE)
    assert all(len(lines) >= 2 for lines in SAMPLE.values())


def server_count(root: str, text: str) -> int:
    """How many tokens llama-server's tokenizer makes of ``text`` (``POST /tokenize``, llama.cpp's
    tools/server/README.md: ``{"content": ...}`` -> ``{"tokens": [...]}``; special tokens not added)."""
    with httpx2.Client(trust_env=False, timeout=30) as http:  # loopback: never through a proxy
        response = http.post(f"{root}/tokenize", json={"content": text, "add_special": False})
    response.raise_for_status()
    return len(response.json()["tokens"])


@pytest.mark.notebook
@pytest.mark.parametrize("line", LINES)
def test_the_estimate_is_never_below_the_servers_count(line):
    if local_server.health() != "ok":
        pytest.skip("no local llama-server is running (python -m course_runtime.local_server start)")
    root = local_server.base_url().removesuffix("/v1")
    assert text_tokens(line) >= server_count(root, line), f"{line!r}: the estimate is below the server's count"
