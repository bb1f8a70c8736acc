#!/usr/bin/env python3
"""Deterministic command tools for the bookshop prompt: `python3 tools.py NAME` reads the call's
JSON arguments on stdin and prints a wink tool result (`{"message", "value"}`) on stdout."""
import json
import sys

STOCK = {"dune": 7, "neuromancer": 0, "foundation": 3, "hyperion": 12}
PRICES = {"dune": 12.5, "neuromancer": 9.9, "foundation": 11.0, "hyperion": 14.2}
ORDERS = {
    "BK-204": {"status": "shipped", "delivery": "2026-11-27"},
    "BK-318": {"status": "waiting for stock", "delivery": "2026-12-09"},
}


def title_of(args):
    return str(args.get("title", "")).strip().strip("\"'").lower()


def stock(args):
    title = title_of(args)
    if title not in STOCK:
        return f"No book titled {args.get('title')!r} in the catalogue.", None
    n = STOCK[title]
    return f"{n} copies of {title.title()} in stock.", {"title": title.title(), "copies": n}


def price(args):
    title = title_of(args)
    if title not in PRICES:
        return f"No book titled {args.get('title')!r} in the catalogue.", None
    p = PRICES[title]
    return f"{title.title()} costs {p:.2f} euros.", {"title": title.title(), "euros": p}


def order_status(args):
    order = str(args.get("order", "")).strip().upper()
    if order not in ORDERS:
        return f"No order {order!r}.", None
    o = ORDERS[order]
    return f"Order {order}: {o['status']}, expected {o['delivery']}.", dict(o, order=order)


def main():
    name = sys.argv[1]
    args = json.load(sys.stdin)
    message, value = {"stock": stock, "price": price, "order_status": order_status}[name](args)
    print(json.dumps({"message": message, "value": value, "success": value is not None}))


main()
