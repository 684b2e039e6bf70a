# notebooks/08_human_approval.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 08-1
from course_lib.approval import approve, reject

MAX_PIECES = 3  # 每单最多自动批准 3 件


def order_policy(call):
    """place_order 的审批策略：1 到 3 件批准，更多的拒绝，不是正整数的数量也拒绝。"""
    quantity = (call.arguments or {}).get("quantity")  # 读不出参数时 arguments 是 None
    if isinstance(quantity, bool) or not isinstance(quantity, int):  # True 也是 int，要先排除
        return reject(f"数量必须是整数件数，收到的是 {quantity!r}")
    if quantity < 1:
        return reject(f"数量至少是 1 件，收到的是 {quantity}")
    if quantity > MAX_PIECES:
        return reject(f"每单最多自动批准 {MAX_PIECES} 件，这一单要 {quantity} 件，请顾客联系店员")
    return approve()
