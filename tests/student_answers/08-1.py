# Exercise 08-1: answers written from the task text alone (notebooks/08_human_approval.ipynb), without reading the checker.
# %% wrong: isinstance(q, int) without excluding bool, so quantity True (== 1) is approved
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    args = call.arguments or {}
    q = args.get("quantity")
    if isinstance(q, int):
        if 1 <= q <= 3:
            return approve()
        if q > 3:
            return reject(f"一次最多下 3 件，这次要 {q} 件，需要人工确认")
    return None
# %% wrong: accepts any whole-valued number, so the float 2.0 is approved
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    args = call.arguments or {}
    q = args.get("quantity")
    if isinstance(q, (int, float)) and not isinstance(q, bool) and q == int(q):
        if 1 <= q <= 3:
            return approve()
        if q > 3:
            return reject("数量超过 3 件")
    return None
# %% wrong: converts the quantity with int(), so the string "3", the floats 2.5 / 2.0 and True are all approved
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    if call.arguments is None or "quantity" not in call.arguments:
        return None
    try:
        q = int(call.arguments["quantity"])
    except (TypeError, ValueError):
        return reject("quantity 不是整数")
    if 1 <= q <= 3:
        return approve()
    if q > 3:
        return reject("数量超过 3 件，需要人工下单")
    return reject("数量必须是正整数")
# %% wrong: reads call.arguments["quantity"] directly, so arguments None or a missing quantity raises instead of returning reject/None
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    q = call.arguments["quantity"]
    if type(q) is not int:
        return reject("quantity 必须是整数")
    if 1 <= q <= 3:
        return approve()
    if q > 3:
        return reject("数量太多了，超过 3 件")
    return reject("数量必须至少为 1")
# %% wrong: rejects large orders with an empty reason (reject() without text), but the reason must not be empty
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    q = (call.arguments or {}).get("quantity")
    if type(q) is not int:
        return None
    if 1 <= q <= 3:
        return approve()
    return reject()
# %% wrong: only checks the upper bound (q <= 3), so 0 and negative quantities are approved
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    q = (call.arguments or {}).get("quantity")
    if type(q) is not int:
        return reject("quantity 必须是整数")
    if q <= 3:
        return approve()
    return reject(f"数量 {q} 超过了 3 件的上限")
# %% wrong: a quantity above 3 is handed to a person (returns None) instead of being rejected with a reason
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    q = (call.arguments or {}).get("quantity")
    if isinstance(q, int) and not isinstance(q, bool) and 1 <= q <= 3:
        return approve()
    return None  # 其余的都交给人决定
# %% wrong: off-by-one upper bound (q < 3), so an order of exactly 3 is rejected instead of approved
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    q = (call.arguments or {}).get("quantity")
    if type(q) is not int or q < 1:
        return None
    if q < 3:
        return approve()
    return reject(f"一次最多 3 件，收到 {q} 件")
# %% wrong: for odd quantities it returns a plain string message instead of a Decision or None
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    q = (call.arguments or {}).get("quantity")
    if type(q) is not int or isinstance(q, bool) or q < 1:
        return "数量不合法，请人工确认"
    if q <= 3:
        return approve()
    return reject("超过 3 件的订单需要人工处理")
# %% right: type(q) is int check (excludes bool), approve 1..3, reject >3 with a reason, None for everything else
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    args = call.arguments
    if not isinstance(args, dict):
        return None
    q = args.get("quantity")
    if type(q) is not int:
        return None
    if 1 <= q <= 3:
        return approve()
    if q > 3:
        return reject(f"一次最多自动批准 3 件，这次要 {q} 件，请减少数量或联系人工。")
    return None
# %% right: structural pattern matching; every odd case is rejected with an explicit reason
from course_lib.approval import approve, reject


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准；更多的拒绝并写原因；奇怪的数量一律不批准。"""
    match call.arguments:
        case {"quantity": bool()}:
            return reject("quantity 不能是布尔值")
        case {"quantity": int(q)} if 1 <= q <= 3:
            return approve()
        case {"quantity": int(q)} if q > 3:
            return reject(f"数量 {q} 超过 3 件，不能自动下单")
        case {"quantity": int()}:
            return reject("数量必须至少是 1")
        case {"quantity": _}:
            return reject("quantity 必须是整数")
        case _:
            return reject("没有读到 quantity 参数")
# %% right: built from the library helper by_argument with limit 3, rejecting every call it does not approve
from course_lib.approval import approve, by_argument, reject

order_policy = by_argument(
    "quantity", 3,
    over=lambda call: reject("只能自动批准 1 到 3 件的整数数量；这次的数量不在这个范围内，需要人工处理。"),
)
