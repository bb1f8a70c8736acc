"""Order lookup for the demo: reads {"order_id": ...} on stdin, prints a wink tool result."""
import json
import sys

ORDERS = {
    "A-1042": {"status": "shipped", "estimated_delivery": "2026-11-25", "carrier": "PostNord"},
    "A-1043": {"status": "processing", "estimated_delivery": "2026-11-28", "carrier": None},
}

params = json.load(sys.stdin)
order_id = str(params.get("order_id", "")).strip().upper()
order = ORDERS.get(order_id)
if order is None:
    print(json.dumps({"message": f"No order with id {order_id!r}.", "success": False}))
else:
    print(json.dumps({"message": f"Order {order_id}:", "value": order}))
