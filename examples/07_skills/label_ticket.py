"""Ticket tools for the skills example: reads the tool's arguments as JSON on stdin and prints a
wink tool result. `label_ticket` records a label; `close_ticket` closes a ticket."""
import json
import sys

LABELS = {"billing", "outage", "how-to"}

action = sys.argv[1]
params = json.load(sys.stdin)
ticket = str(params.get("ticket_id", "")).strip()
if action == "label":
    label = str(params.get("label", "")).strip().lower()
    if label not in LABELS:
        print(json.dumps({"message": f"Unknown label {label!r}; labels: billing, outage, how-to.", "success": False}))
    else:
        print(json.dumps({"message": f"Ticket {ticket} labelled {label}."}))
else:
    print(json.dumps({"message": f"Ticket {ticket} closed."}))
