#!/usr/bin/env python3
"""Deterministic command tools for the domain tasks of the wink eval suite.

`python3 tools.py NAME` reads the call's JSON arguments on stdin and prints a wink tool result
(`{"message", "value"}`, or `{"message", "success": false}` for a refused call) on stdout. Every
tool answers from the fixed data below; "today" is TODAY for every domain. The data is made up.
"""
import datetime
import json
import re
import sys

TODAY = datetime.date(2026, 3, 9)


class Refused(Exception):
    """A call the tool refuses: the message goes back to the model as a failed result."""


def key(text):
    return str(text).strip().upper()


STOPWORDS = {"a", "an", "and", "by", "for", "in", "of", "on", "the", "to", "with"}


def words(text):
    return [w for w in re.findall(r"[a-z0-9]+", str(text).lower()) if w not in STOPWORDS]


def matches(query, *fields):
    """Every word of the query (stopwords aside, a plural as its singular) occurs in the fields,
    case-insensitive: `m8 hex bolts` matches `Hex bolt M8x40`."""
    haystack = " ".join(words(" ".join(fields)))
    wanted = words(query)
    return bool(wanted) and all(
        w in haystack or (w.endswith("s") and w[:-1] in haystack)
        or (w.endswith("es") and w[:-2] in haystack) for w in wanted)


def day(text, name):
    try:
        return datetime.date.fromisoformat(str(text).strip())
    except ValueError:
        raise Refused(f"{name} must be a date written YYYY-MM-DD, not {text!r}")


def money(x):
    return f"{x:.2f}"


# --- helpdesk: Kettlebird support desk ----------------------------------------------------------

HD_CUSTOMERS = {
    "li.wei@example.net": {"customer_id": "C-301", "name": "Li Wei", "orders": ["K-881", "K-915"]},
    "m.okafor@example.org": {"customer_id": "C-302", "name": "Maria Okafor", "orders": ["K-902"]},
    "sam.patel@example.com": {"customer_id": "C-303", "name": "Sam Patel", "orders": ["K-870", "K-640"]},
}
HD_ORDERS = {
    "K-881": {"customer_id": "C-301", "item": "Kettle Pro 2", "price_eur": 89.00,
              "status": "delivered", "delivered": "2026-02-10"},
    "K-915": {"customer_id": "C-301", "item": "Milk Frother", "price_eur": 29.90,
              "status": "in transit", "expected_delivery": "2026-03-12"},
    "K-902": {"customer_id": "C-302", "item": "Toaster Duo (red)", "price_eur": 45.50,
              "status": "delivered", "delivered": "2026-03-01"},
    "K-870": {"customer_id": "C-303", "item": "Blender X", "price_eur": 240.00,
              "status": "delivered", "delivered": "2026-01-05"},
    "K-640": {"customer_id": "C-303", "item": "Coffee Grinder", "price_eur": 59.00,
              "status": "delivered", "delivered": "2025-10-14"},
}
HD_TICKETS = {
    "T-5001": {"customer_id": "C-301", "subject": "Kettle Pro 2 stopped heating", "order_id": "K-881",
               "status": "in progress", "priority": "normal", "opened": "2026-03-02"},
    "T-5002": {"customer_id": "C-302", "subject": "Wrong colour delivered: ordered black, got red",
               "order_id": "K-902", "status": "waiting on customer", "priority": "low",
               "opened": "2026-03-05"},
    "T-5003": {"customer_id": "C-303", "subject": "Blender X smells burnt, customer wants a refund",
               "order_id": "K-870", "status": "open", "priority": "high", "opened": "2026-03-06"},
    "T-4990": {"customer_id": "C-303", "subject": "Coffee Grinder delivery late", "order_id": "K-640",
               "status": "closed", "priority": "low", "opened": "2025-10-12"},
    "T-4871": {"customer_id": "C-301", "subject": "How do I descale the kettle?", "order_id": None,
               "status": "closed", "priority": "low", "opened": "2026-01-15"},
}


def hd_order(order_id):
    order = HD_ORDERS.get(key(order_id))
    if order is None:
        raise Refused(f"no order {order_id} (order ids look like K-881)")
    return order


def get_ticket(a):
    ticket = HD_TICKETS.get(key(a["ticket_id"]))
    if ticket is None:
        raise Refused(f"no ticket {a['ticket_id']} (ticket ids look like T-5001)")
    return f"ticket {key(a['ticket_id'])}: {json.dumps(ticket)}", ticket


def list_tickets(a):
    cid = key(a["customer_id"])
    found = [{"ticket_id": t, "subject": v["subject"], "status": v["status"]}
             for t, v in HD_TICKETS.items() if v["customer_id"] == cid]
    if not any(c["customer_id"] == cid for c in HD_CUSTOMERS.values()):
        raise Refused(f"no customer {a['customer_id']} (customer ids look like C-301)")
    return f"tickets of {cid}: {json.dumps(found)}", {"tickets": found}


def find_customer(a):
    customer = HD_CUSTOMERS.get(str(a["email"]).strip().lower())
    if customer is None:
        raise Refused(f"no customer with email {a['email']}")
    return f"customer {a['email']}: {json.dumps(customer)}", customer


def get_order(a):
    order = hd_order(a["order_id"])
    return f"order {key(a['order_id'])}: {json.dumps(order)}", order


def refund_terms(order_id):
    order = hd_order(order_id)
    if order["status"] != "delivered":
        return {"order_id": key(order_id), "refund": "none: not delivered yet", "max_amount_eur": 0,
                "needs_approval": False}
    days = (TODAY - datetime.date.fromisoformat(order["delivered"])).days
    if days <= 30:
        kind, amount = "full", order["price_eur"]
    elif days <= 90:
        kind, amount = "half, faulty items only", order["price_eur"] / 2
    else:
        kind, amount = "none: offer a warranty repair", 0.0
    return {"order_id": key(order_id), "days_since_delivery": days, "refund": kind,
            "max_amount_eur": round(amount, 2), "needs_approval": amount > 100}


def check_refund(a):
    terms = refund_terms(a["order_id"])
    note = (" Over 100 EUR: do not refund; escalate the ticket to a team lead."
            if terms["needs_approval"] else "")
    return f"refund terms for {terms['order_id']}: {json.dumps(terms)}.{note}", terms


def issue_refund(a):
    terms = refund_terms(a["order_id"])
    amount = float(a["amount_eur"])
    if terms["needs_approval"]:
        raise Refused(f"refund for {terms['order_id']} needs a team lead's approval: escalate the ticket")
    if amount <= 0 or amount > terms["max_amount_eur"] + 1e-9:
        raise Refused(f"amount {money(amount)} EUR is not allowed for {terms['order_id']} "
                      f"(at most {money(terms['max_amount_eur'])} EUR)")
    refund_id = "RF-" + terms["order_id"].split("-")[1]
    value = {"refund_id": refund_id, "order_id": terms["order_id"], "amount_eur": round(amount, 2)}
    return f"refund {refund_id} issued: {money(amount)} EUR for order {terms['order_id']}", value


def escalate_ticket(a):
    tid = key(a["ticket_id"])
    ticket = HD_TICKETS.get(tid)
    if ticket is None:
        raise Refused(f"no ticket {a['ticket_id']} (ticket ids look like T-5001)")
    to = "team lead" if ticket["priority"] == "high" else "second-line support"
    value = {"escalation_id": "ESC-" + tid.split("-")[1], "ticket_id": tid, "escalated_to": to}
    return f"ticket {tid} escalated to the {to}: {value['escalation_id']}", value


# --- inventory: Northbay Supplies warehouse ------------------------------------------------------

INV_PRODUCTS = {
    "NB-1001": {"name": "Hex bolt M8x40 (box of 100)", "unit_price_eur": 12.40,
                "supplier": "Acme Fasteners", "min_stock": 20, "max_stock": 120},
    "NB-1002": {"name": "Hex nut M8 (box of 200)", "unit_price_eur": 6.90,
                "supplier": "Acme Fasteners", "min_stock": 30, "max_stock": 150},
    "NB-2001": {"name": "Nitrile gloves, size L (pack of 100)", "unit_price_eur": 8.50,
                "supplier": "Polytex", "min_stock": 50, "max_stock": 300},
    "NB-2002": {"name": "Nitrile gloves, size M (pack of 100)", "unit_price_eur": 8.50,
                "supplier": "Polytex", "min_stock": 50, "max_stock": 300},
    "NB-3005": {"name": "Pallet wrap 500 mm", "unit_price_eur": 17.80, "supplier": "Wrapco",
                "min_stock": 10, "max_stock": 60},
    "NB-4410": {"name": "Safety goggles", "unit_price_eur": 4.20, "supplier": "Polytex",
                "min_stock": 25, "max_stock": 100},
}
INV_STOCK = {
    "NB-1001": {"on_hand": 14, "bin": "A-03"},
    "NB-1002": {"on_hand": 85, "bin": "A-04"},
    "NB-2001": {"on_hand": 42, "bin": "C-11"},
    "NB-2002": {"on_hand": 160, "bin": "C-12"},
    "NB-3005": {"on_hand": 10, "bin": "D-01"},
    "NB-4410": {"on_hand": 0, "bin": "C-20"},
}


def inv_sku(sku):
    s = key(sku)
    if s not in INV_PRODUCTS:
        raise Refused(f"no product {sku} (SKUs look like NB-1001; search_products finds them by name)")
    return s


def search_products(a):
    found = [{"sku": s, "name": p["name"]} for s, p in INV_PRODUCTS.items()
             if matches(a["query"], p["name"], p["supplier"])]
    return f"{len(found)} products match {a['query']!r}: {json.dumps(found)}", {"products": found}


def get_product(a):
    s = inv_sku(a["sku"])
    product = dict(INV_PRODUCTS[s], sku=s)
    return f"product {s}: {json.dumps(product)}", product


def stock_level(a):
    s = inv_sku(a["sku"])
    stock = dict(INV_STOCK[s], sku=s)
    return f"stock of {s}: {json.dumps(stock)}", stock


def create_purchase_order(a):
    s = inv_sku(a["sku"])
    qty = int(a["quantity"])
    if qty <= 0:
        raise Refused("quantity must be at least 1")
    po = f"PO-{s.split('-')[1]}-{qty}"
    value = {"po_number": po, "sku": s, "quantity": qty, "supplier": INV_PRODUCTS[s]["supplier"]}
    return f"purchase order {po} placed with {value['supplier']}: {qty} x {s}", value


# --- hr: Orchard Labs ---------------------------------------------------------------------------

HR_EMPLOYEES = {
    "E-100": {"name": "Grace Kim", "title": "CTO", "team": "Leadership", "manager_id": None,
              "office": "Berlin"},
    "E-101": {"name": "Tomasz Nowak", "title": "Team Lead, Data Platform", "team": "Data Platform",
              "manager_id": "E-100", "office": "Lisbon"},
    "E-104": {"name": "Ana Souza", "title": "Data Engineer", "team": "Data Platform",
              "manager_id": "E-101", "office": "Lisbon"},
    "E-200": {"name": "Fatima Zahra", "title": "Team Lead, Design", "team": "Design",
              "manager_id": "E-100", "office": "Berlin"},
    "E-205": {"name": "Jonas Weber", "title": "Product Designer", "team": "Design",
              "manager_id": "E-200", "office": "Berlin"},
    "E-210": {"name": "Ana Lima", "title": "UX Researcher", "team": "Design", "manager_id": "E-200",
              "office": "Berlin"},
}
HR_LEAVE = {"E-100": 15, "E-101": 7, "E-104": 12, "E-200": 9, "E-205": 4, "E-210": 20}


def hr_id(employee_id):
    e = key(employee_id)
    if e not in HR_EMPLOYEES:
        raise Refused(f"no employee {employee_id} (ids look like E-104; find_employee finds them)")
    return e


def find_employee(a):
    found = [dict(p, employee_id=e) for e, p in HR_EMPLOYEES.items()
             if matches(a["query"], p["name"], p["team"], p["title"])]
    return f"{len(found)} employees match {a['query']!r}: {json.dumps(found)}", {"employees": found}


def get_employee(a):
    e = hr_id(a["employee_id"])
    person = dict(HR_EMPLOYEES[e], employee_id=e)
    return f"employee {e}: {json.dumps(person)}", person


def leave_balance(a):
    e = hr_id(a["employee_id"])
    value = {"employee_id": e, "annual_leave_days_left": HR_LEAVE[e]}
    return f"{e} has {HR_LEAVE[e]} days of annual leave left", value


def book_leave(a):
    e = hr_id(a["employee_id"])
    start, end = day(a["start"], "start"), day(a["end"], "end")
    if end < start:
        raise Refused("end is before start")
    if start <= TODAY:
        raise Refused(f"leave must start after today ({TODAY})")
    days = sum(1 for i in range((end - start).days + 1)
               if (start + datetime.timedelta(days=i)).weekday() < 5)
    if days > HR_LEAVE[e]:
        raise Refused(f"{days} working days asked, {e} has only {HR_LEAVE[e]} left: not booked")
    ref = f"LV-{e.split('-')[1]}-{start:%m%d}"
    value = {"booking": ref, "employee_id": e, "working_days": days,
             "days_left_after": HR_LEAVE[e] - days}
    return f"leave {ref} booked: {days} working days, {HR_LEAVE[e] - days} left", value


# --- flights: Skylark Air -----------------------------------------------------------------------

FL_FLIGHTS = {
    "SK101": {"origin": "LYS", "destination": "LIS", "date": "2026-03-20", "departs": "07:10",
              "arrives": "08:55", "seats_left": 12, "price_eur": 89, "status": "on time"},
    "SK103": {"origin": "LYS", "destination": "LIS", "date": "2026-03-20", "departs": "18:40",
              "arrives": "20:25", "seats_left": 3, "price_eur": 129, "status": "on time"},
    "SK210": {"origin": "LYS", "destination": "CPH", "date": "2026-03-20", "departs": "09:00",
              "arrives": "11:05", "seats_left": 0, "price_eur": 110,
              "status": "delayed 40 minutes: new departure 09:40"},
    "SK212": {"origin": "LYS", "destination": "CPH", "date": "2026-03-21", "departs": "09:00",
              "arrives": "11:05", "seats_left": 20, "price_eur": 99, "status": "on time"},
    "SK330": {"origin": "LYS", "destination": "FCO", "date": "2026-03-22", "departs": "12:15",
              "arrives": "13:50", "seats_left": 8, "price_eur": 75, "status": "on time"},
}
FL_AIRPORTS = {"lyon": "LYS", "lisbon": "LIS", "lisboa": "LIS", "copenhagen": "CPH",
               "rome": "FCO", "roma": "FCO"}
FL_BOOKINGS = {
    "QX7P2L": {"passenger": "Hana Sato", "flight": "SK101", "fare": "Saver", "checked_bags": 0},
    "MB4K9Z": {"passenger": "Olivier Martin", "flight": "SK210", "fare": "Flex", "checked_bags": 1},
    "RT2J8W": {"passenger": "Elena Rossi", "flight": "SK330", "fare": "Saver", "checked_bags": 0},
}


def airport(text):
    t = str(text).strip()
    return FL_AIRPORTS.get(t.lower(), t.upper())


def fl_flight(number):
    n = key(number).replace(" ", "")
    if n not in FL_FLIGHTS:
        raise Refused(f"no flight {number} (flight numbers look like SK101)")
    return n


def search_flights(a):
    origin, dest = airport(a["origin"]), airport(a["destination"])
    date = day(a["date"], "date").isoformat()
    found = [dict(f, flight=n) for n, f in FL_FLIGHTS.items()
             if f["origin"] == origin and f["destination"] == dest and f["date"] == date]
    return (f"{len(found)} flights {origin}->{dest} on {date}: {json.dumps(found)}",
            {"flights": found})


def flight_status(a):
    n = fl_flight(a["flight_number"])
    f = FL_FLIGHTS[n]
    value = {k: f[k] for k in ("date", "origin", "destination", "departs", "arrives", "status")}
    value["flight"] = n
    return f"flight {n}: {json.dumps(value)}", value


def fl_booking(reference):
    r = key(reference)
    if r not in FL_BOOKINGS:
        raise Refused(f"no booking {reference} (references are 6 letters and digits, e.g. QX7P2L)")
    return r


def get_booking(a):
    r = fl_booking(a["reference"])
    b = FL_BOOKINGS[r]
    f = FL_FLIGHTS[b["flight"]]
    value = dict(b, reference=r, date=f["date"], origin=f["origin"], destination=f["destination"])
    return f"booking {r}: {json.dumps(value)}", value


def change_flight(a):
    r = fl_booking(a["reference"])
    n = fl_flight(a["new_flight_number"])
    b, old, new = FL_BOOKINGS[r], FL_FLIGHTS[FL_BOOKINGS[r]["flight"]], FL_FLIGHTS[n]
    if n == b["flight"]:
        raise Refused(f"booking {r} is already on {n}")
    if (old["origin"], old["destination"]) != (new["origin"], new["destination"]):
        raise Refused(f"{n} flies another route: a booking can only move to the same route")
    if new["seats_left"] == 0:
        raise Refused(f"{n} is full")
    fee = 40 if b["fare"] == "Saver" else 0
    value = {"confirmation": f"CHG-{r}-{n}", "reference": r, "new_flight": n, "date": new["date"],
             "departs": new["departs"], "change_fee_eur": fee}
    return f"booking {r} moved to {n}: {json.dumps(value)}", value


# --- library: Elm Street Library ----------------------------------------------------------------

LIB_BOOKS = {
    "B-101": {"title": "The Left Hand of Darkness", "author": "Ursula K. Le Guin", "year": 1969,
              "available_copies": 0, "holds": 2},
    "B-102": {"title": "A Wizard of Earthsea", "author": "Ursula K. Le Guin", "year": 1968,
              "available_copies": 3, "holds": 0},
    "B-205": {"title": "Piranesi", "author": "Susanna Clarke", "year": 2020, "available_copies": 1,
              "holds": 0},
    "B-206": {"title": "Jonathan Strange & Mr Norrell", "author": "Susanna Clarke", "year": 2004,
              "available_copies": 0, "holds": 0},
    "B-310": {"title": "The Hitchhiker's Guide to the Galaxy", "author": "Douglas Adams",
              "year": 1979, "available_copies": 2, "holds": 0},
    "B-404": {"title": "Braiding Sweetgrass", "author": "Robin Wall Kimmerer", "year": 2013,
              "available_copies": 0, "holds": 1},
}
LIB_MEMBERS = {
    "2231-0047": {"name": "Noor Haddad", "loans": {"B-206": ("2026-03-12", 0),
                                                     "B-310": ("2026-03-04", 2)}},
    "2231-0192": {"name": "Ben Carter", "loans": {"B-101": ("2026-03-15", 1),
                                                    "B-205": ("2026-03-25", 0)}},
}


def lib_card(card):
    c = str(card).strip().replace(" ", "")
    if re.fullmatch(r"\d{8}", c):
        c = c[:4] + "-" + c[4:]
    if c not in LIB_MEMBERS:
        raise Refused(f"no member with card {card} (card numbers look like 2231-0047)")
    return c


def search_catalogue(a):
    found = [dict(b, book_id=i) for i, b in LIB_BOOKS.items()
             if matches(a["query"], b["title"], b["author"])]
    return f"{len(found)} books match {a['query']!r}: {json.dumps(found)}", {"books": found}


def member_loans(a):
    c = lib_card(a["card_number"])
    loans = []
    for book_id, (due, renewals) in LIB_MEMBERS[c]["loans"].items():
        late = (TODAY - datetime.date.fromisoformat(due)).days
        loans.append({"book_id": book_id, "title": LIB_BOOKS[book_id]["title"], "due": due,
                      "renewals_used": renewals, "days_overdue": max(late, 0)})
    value = {"card_number": c, "member": LIB_MEMBERS[c]["name"], "today": TODAY.isoformat(),
             "loans": loans}
    return f"loans of card {c}: {json.dumps(value)}", value


def renew_loan(a):
    c = lib_card(a["card_number"])
    book_id = key(a["book_id"])
    loan = LIB_MEMBERS[c]["loans"].get(book_id)
    if loan is None:
        raise Refused(f"card {c} has no loan of {a['book_id']}")
    due, renewals = loan
    if LIB_BOOKS[book_id]["holds"] > 0:
        raise Refused(f"{book_id} cannot be renewed: another member has a hold on it")
    if renewals >= 2:
        raise Refused(f"{book_id} cannot be renewed: it has been renewed twice already")
    new_due = (datetime.date.fromisoformat(due) + datetime.timedelta(days=21)).isoformat()
    value = {"book_id": book_id, "title": LIB_BOOKS[book_id]["title"], "new_due": new_due}
    return f"{book_id} renewed: now due {new_due}", value


def place_hold(a):
    c = lib_card(a["card_number"])
    book_id = key(a["book_id"])
    if book_id not in LIB_BOOKS:
        raise Refused(f"no book {a['book_id']} (book ids look like B-101)")
    position = LIB_BOOKS[book_id]["holds"] + 1
    hold = f"H-{c.split('-')[1]}-{book_id.split('-')[1]}"
    value = {"hold_id": hold, "book_id": book_id, "queue_position": position}
    return f"hold {hold} placed on {book_id}: position {position} in the queue", value


TOOLS = {f.__name__: f for f in (
    get_ticket, list_tickets, find_customer, get_order, check_refund, issue_refund, escalate_ticket,
    search_products, get_product, stock_level, create_purchase_order,
    find_employee, get_employee, leave_balance, book_leave,
    search_flights, flight_status, get_booking, change_flight,
    search_catalogue, member_loans, renew_loan, place_hold,
)}


def call(name, args):
    """(ok, message, value): the result of one call, as the command prints it."""
    try:
        message, value = TOOLS[name](args)
        return True, message, value
    except Refused as refused:
        return False, str(refused), None
    except (KeyError, TypeError, ValueError) as e:
        return False, f"bad arguments for {name}: {e!r}", None


def main():
    ok, message, value = call(sys.argv[1], json.load(sys.stdin))
    if ok:
        print(json.dumps({"message": message, "value": value}))
    else:
        print(json.dumps({"message": message, "success": False}))


if __name__ == "__main__":
    main()
