#!/usr/bin/env python3
"""Deterministic command tools for the wink eval suite: `python3 tools.py NAME` reads the call's
JSON arguments on stdin and prints a wink tool result (`{"message", "value"}`) on stdout."""
import datetime
import json
import sys

ORDERS = {
    "A-1042": {"status": "shipped", "tracking": "TRK-9931", "delivery": "2026-11-25"},
    "B-7": {"status": "delivered", "tracking": "TRK-1200", "delivery": "2026-10-02"},
    "C-300": {"status": "processing", "tracking": None, "delivery": "2026-12-04"},
}
PARCELS = {
    "TRK-9931": {"location": "Lyon sorting centre", "eta": "2026-11-25"},
    "TRK-1200": {"location": "delivered to the front desk", "eta": "2026-10-02"},
}
CUSTOMERS = {
    "jane@example.com": {"customer_id": "CU-17", "name": "Jane Roe", "last_order": "B-7"},
    "omar@example.com": {"customer_id": "CU-42", "name": "Omar Haddad", "last_order": "C-300"},
}
FORECASTS = {
    "oslo": {"tomorrow": "snow", "high_c": -2, "low_c": -8},
    "rome": {"tomorrow": "sunny", "high_c": 17, "low_c": 9},
    "lima": {"tomorrow": "cloudy", "high_c": 22, "low_c": 17},
    "cairo": {"tomorrow": "sunny", "high_c": 28, "low_c": 16},
}


def num(x):
    """Integers print without a trailing .0."""
    return int(x) if float(x).is_integer() else round(x, 2)


def add(a):
    r = num(a["a"] + a["b"])
    return f"{num(a['a'])} + {num(a['b'])} = {r}", {"result": r}


def subtract(a):
    r = num(a["a"] - a["b"])
    return f"{num(a['a'])} - {num(a['b'])} = {r}", {"result": r}


def multiply(a):
    r = num(a["a"] * a["b"])
    return f"{num(a['a'])} * {num(a['b'])} = {r}", {"result": r}


def celsius_to_fahrenheit(a):
    r = num(a["celsius"] * 9 / 5 + 32)
    return f"{num(a['celsius'])} °C = {r} °F", {"fahrenheit": r}


def km_to_miles(a):
    r = num(a["km"] * 0.621371)
    return f"{num(a['km'])} km = {r} miles", {"miles": r}


def miles_to_km(a):
    r = num(a["miles"] * 1.609344)
    return f"{num(a['miles'])} miles = {r} km", {"km": r}


def day_of_week(a):
    day = datetime.date.fromisoformat(a["date"]).strftime("%A")
    return f"{a['date']} is a {day}", {"day": day}


def is_leap_year(a):
    y = int(a["year"])
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    return f"{y} is {'a leap year' if leap else 'not a leap year'}", {"leap": leap}


def lookup_order(a):
    order = ORDERS.get(a["order_id"].strip().upper())
    if order is None:
        return None, f"no order {a['order_id']}"
    return f"order {a['order_id']}: {json.dumps(order)}", order


def track_parcel(a):
    parcel = PARCELS.get(a["tracking_number"].strip().upper())
    if parcel is None:
        return None, f"no parcel {a['tracking_number']}"
    return f"parcel {a['tracking_number']}: {json.dumps(parcel)}", parcel


def find_customer(a):
    customer = CUSTOMERS.get(a["email"].strip().lower())
    if customer is None:
        return None, f"no customer {a['email']}"
    return f"customer {a['email']}: {json.dumps(customer)}", customer


def get_forecast(a):
    forecast = FORECASTS.get(a["city"].strip().lower())
    if forecast is None:
        return None, f"no forecast for {a['city']} (known: Oslo, Rome, Lima, Cairo)"
    return f"forecast for {a['city']}: {json.dumps(forecast)}", forecast


def inches_to_cm(a):
    r = num(a["inches"] * 2.54)
    return f"{num(a['inches'])} in = {r} cm", {"cm": r}


def reverse_text(a):
    r = a["text"][::-1]
    return f"reversed: {r}", {"text": r}


def word_count(a):
    r = len(a["text"].split())
    return f"{r} words", {"words": r}


def upper_text(a):
    r = a["text"].upper()
    return f"uppercase: {r}", {"text": r}


def vowel_count(a):
    r = sum(1 for c in a["text"].lower() if c in "aeiou")
    return f"{r} vowels", {"vowels": r}


def divide(a):
    if a["b"] == 0:
        return None, "cannot divide by zero"
    r = num(a["a"] / a["b"])
    return f"{num(a['a'])} / {num(a['b'])} = {r}", {"result": r}


def power(a):
    r = num(a["base"] ** a["exponent"])
    return f"{num(a['base'])} ^ {num(a['exponent'])} = {r}", {"result": r}


def percent_of(a):
    r = num(a["percent"] * a["value"] / 100)
    return f"{num(a['percent'])}% of {num(a['value'])} = {r}", {"result": r}


def fahrenheit_to_celsius(a):
    r = num((a["fahrenheit"] - 32) * 5 / 9)
    return f"{num(a['fahrenheit'])} °F = {r} °C", {"celsius": r}


def cm_to_inches(a):
    r = num(a["cm"] / 2.54)
    return f"{num(a['cm'])} cm = {r} in", {"inches": r}


def kg_to_lb(a):
    r = num(a["kg"] * 2.20462)
    return f"{num(a['kg'])} kg = {r} lb", {"lb": r}


def lb_to_kg(a):
    r = num(a["lb"] / 2.20462)
    return f"{num(a['lb'])} lb = {r} kg", {"kg": r}


def days_between(a):
    start = datetime.date.fromisoformat(a["start"])
    end = datetime.date.fromisoformat(a["end"])
    r = (end - start).days
    return f"{r} days from {a['start']} to {a['end']}", {"days": r}


def add_days(a):
    r = (datetime.date.fromisoformat(a["date"]) + datetime.timedelta(days=int(a["days"]))).isoformat()
    return f"{a['date']} + {int(a['days'])} days = {r}", {"date": r}


def lower_text(a):
    r = a["text"].lower()
    return f"lowercase: {r}", {"text": r}


def text_length(a):
    r = len(a["text"])
    return f"{r} characters", {"length": r}


def title_case(a):
    r = a["text"].title()
    return f"title case: {r}", {"text": r}


def is_palindrome(a):
    letters = [c for c in a["text"].lower() if c.isalnum()]
    r = letters == letters[::-1]
    return f"{'a palindrome' if r else 'not a palindrome'}", {"palindrome": r}


def sort_words(a):
    r = " ".join(sorted(a["text"].split(), key=str.lower))
    return f"sorted: {r}", {"text": r}


def count_char(a):
    r = a["text"].count(a["char"])
    return f"{r} times", {"count": r}


def main():
    name = sys.argv[1]
    args = json.load(sys.stdin)
    message, value = globals()[name](args)
    if message is None:
        print(json.dumps({"message": value, "success": False}))
    else:
        print(json.dumps({"message": message, "value": value}))


main()
