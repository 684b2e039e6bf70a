# Exercise 07-1: answers written from the task text alone (notebooks/07_comparison.ipynb), without reading the checker.
# %% wrong: skips the NFKC step, so full-width digits like ８８４８．８６ (and the full-width comma in 2，000) are not recognised
import re


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", answer)
    pattern = r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)"
    return re.search(pattern, text) is not None
# %% wrong: removes every comma, so the list 1,2,3 is read as the single number 123
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer).replace(",", "")
    pattern = r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)"
    return re.search(pattern, text) is not None
# %% wrong: boundaries only look at digits, not the decimal point, so "300.5" still counts as containing "300"
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.search(r"(?<!\d)" + re.escape(number) + r"(?!\d)", text) is not None
# %% wrong: uses \b word boundaries - Chinese characters are word characters, so "约300元" is missed, and "300.5" still matches
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.search(r"\b" + re.escape(number) + r"\b", text) is not None
# %% wrong: no None check - contains_number(None, "300") raises TypeError instead of returning False
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    pattern = r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)"
    return re.search(pattern, text) is not None
# %% wrong: strips thousands commas before NFKC, so the full-width comma in 2，000 is never removed and "2000" is not found
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", answer)
    text = unicodedata.normalize("NFKC", text)
    pattern = r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)"
    return re.search(pattern, text) is not None
# %% wrong: the thousands-separator rule allows a space after the comma, so "3, 400" is merged into 3400
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),\s*(?=\d{3}(?!\d))", "", text)
    pattern = r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)"
    return re.search(pattern, text) is not None
# %% wrong: the separator rule does not require exactly three digits after the comma, so "1,2345" is read as 12345
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    pattern = r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)"
    return re.search(pattern, text) is not None
# %% wrong: the trailing check forbids any following dot, so a number ending a sentence ("约300.") is not counted
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d.])", text) is not None
# %% right: the three hinted steps - NFKC, drop thousands commas, search with look-around
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    pattern = r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)"
    return re.search(pattern, text) is not None
# %% right: no regex - NFKC, then a character loop drops thousands commas and str.find checks each occurrence's neighbours by hand
import unicodedata


def _drop_thousands_commas(text):
    """去掉「数字 , 正好三位数字」里的逗号（逗号后面不能有空格）。"""
    kept = []
    for i, ch in enumerate(text):
        if ch == "," and i > 0 and text[i - 1].isdecimal():
            after = text[i + 1:i + 4]
            next_char = text[i + 4] if i + 4 < len(text) else ""
            if len(after) == 3 and after.isdecimal() and not next_char.isdecimal():
                continue
        kept.append(ch)
    return "".join(kept)


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None or not number:
        return False
    text = _drop_thousands_commas(unicodedata.normalize("NFKC", str(answer)))
    start = text.find(number)
    while start != -1:
        end = start + len(number)
        before = text[start - 1] if start > 0 else ""
        after = text[end] if end < len(text) else ""
        after2 = text[end + 1] if end + 1 < len(text) else ""
        ok_before = not (before.isdecimal() or before == ".")
        ok_after = not (after.isdecimal() or (after == "." and after2.isdecimal()))
        if ok_before and ok_after:
            return True
        start = text.find(number, start + 1)
    return False
# %% right: tokenise - findall every maximal number (not preceded by a digit or dot, digits with ".digits" parts) and test membership
import re
import unicodedata

NUMBER_TOKEN = re.compile(r"(?<![\d.])\d+(?:\.\d+)*")


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return number in set(NUMBER_TOKEN.findall(text))
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: uses \b word boundaries, which let "300.5" count as "300" and miss "约300米" (Chinese characters are word characters)
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.search(r"\b" + re.escape(number) + r"\b", text) is not None
# %% wrong: skips the NFKC step, so full-width digits such as ８８４８．８６ and the full-width comma in 2，000 are not recognised
import re


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", answer)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None
# %% wrong: deletes every comma, not only thousands separators followed by exactly three digits, so "1,2,3" is read as 123 and "12,3456" as 123456
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer).replace(",", "")
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None
# %% wrong: lookahead only forbids a following digit, so "300.5" still counts as containing "300"
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?!\d)", text) is not None
# %% wrong: lookbehind only forbids a preceding digit, so "0.300" or "1.300" counts as containing "300" (a decimal point right before is not allowed)
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.search(r"(?<!\d)" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None
# %% wrong: does not handle answer None (TypeError from normalize instead of returning False)
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None
# %% wrong: thousands-comma regex also swallows spaces after the comma, so "3, 400" is read as 3400 (a separator must be followed by three digits with no space)
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),\s*(?=\d{3}(?!\d))", "", text)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None
# %% wrong: removes commas BEFORE normalising, so the full-width comma of "2，000" survives as "," and 2000 is not found
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", answer)
    text = unicodedata.normalize("NFKC", text)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None
# %% right: compares numeric values with float() (relabelled: the reader called it wrong for "300.0" and "0300"; the course draws no such text on purpose - readings differ there, and the library's has_number reads both as 300 too)
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    target = float(number)
    return any(float(tok) == target for tok in re.findall(r"\d+(?:\.\d+)?", text))
# %% wrong: the thousands-comma regex has no (?!\d) after \d{3}, so "12,3456" is glued into 123456 although a separator must be followed by exactly three digits
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None
# %% right: tokenising style, normalise then compare whole numeric tokens (a leading "." kept in the token) with ==
import re
import unicodedata

_TOKEN = re.compile(r"\.?\d+(?:\.\d+)*")


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", str(answer))
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    wanted = unicodedata.normalize("NFKC", number)
    return wanted in _TOKEN.findall(text)
# %% right: str.find loop that checks the neighbouring characters by hand instead of lookarounds
import re
import unicodedata


def contains_number(answer, number):
    """`number` 作为一个完整的数出现在 `answer` 里时返回 True（更长的数里包含它不算）。"""
    if not isinstance(answer, str):
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    start = text.find(number)
    while start != -1:
        end = start + len(number)
        before = text[start - 1] if start > 0 else ""
        after = text[end:end + 2]
        bad_before = before.isdigit() or before == "."
        bad_after = after[:1].isdigit() or (after[:1] == "." and after[1:2].isdigit())
        if not bad_before and not bad_after:
            return True
        start = text.find(number, start + 1)
    return False
