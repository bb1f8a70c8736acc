#!/usr/bin/env python3
"""The handler of every BFCL function: `record.py BFCL_NAME` reads the call's JSON arguments on
stdin, appends `{"name", "arguments"}` as one JSON line to the file `$BFCL_CALLS` names (when
set) and answers with a neutral result, so the run can end."""
import json
import os
import sys

arguments = json.load(sys.stdin)
path = os.environ.get("BFCL_CALLS")
if path:
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps({"name": sys.argv[1], "arguments": arguments}) + "\n")
print(json.dumps({"message": "Done."}))
