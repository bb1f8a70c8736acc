#!/usr/bin/env python3
"""Drives wink's MCP client for the MCP conformance suite, through wink's public contract only.

The suite runs `client.py SERVER_URL` with the scenario's name in MCP_CONFORMANCE_SCENARIO. This
script writes a prompt file whose catalog names the suite's server by `url`, logs in with
`wink mcp login` when the scenario needs authorization, and calls the server's tools with
`wink call` (as a user would). Which tools a scenario wants called, and with what arguments, is
the scenario's contract (the suite's own example client does the same per scenario).

Environment: WINK (the wink binary, default `wink` on PATH); WINK_HOME is set to a fresh
directory per run, so tool caches and tokens of one scenario never reach another.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

WINK = os.environ.get("WINK", "wink")
SERVER = "suite"

# Scenario -> the tool calls it expects: (tool name or None for "the first tool listed", args).
CALLS = {
    "tools_call": [(None, {"a": 2, "b": 3})],
    "tools-call": [(None, {"a": 2, "b": 3})],
    "initialize": [(None, {"a": 2, "b": 3})],
    "request-metadata": [],
    "json-schema-ref-no-deref": [],
    "http-standard-headers": [("test_headers", {}), ("my-hyphenated-tool", {})],
    "http-invalid-tool-headers": [("valid_tool", {"region": "us-west1"})],
    "sep-2322-client-request-state": [
        ("test_mrtr_echo_state", {}),
        ("test_mrtr_unrelated", {}),
        ("test_mrtr_no_state", {}),
        ("test_mrtr_no_result_type", {}),
    ],
}


def oauth_block(context):
    """The server's `oauth` entry for an auth scenario: the client the scenario registered for
    wink (MCP_CONFORMANCE_CONTEXT), else discovery and registration."""
    oauth = {"client_metadata_url": "https://conformance-test.local/client-metadata.json"}
    if context.get("client_id"):
        oauth["client_id"] = context["client_id"]
    if context.get("client_secret"):
        os.environ["WINK_CONFORMANCE_SECRET"] = context["client_secret"]
        oauth["client_secret_env"] = "WINK_CONFORMANCE_SECRET"
    if context.get("private_key_pem"):
        os.environ["WINK_CONFORMANCE_KEY"] = context["private_key_pem"]
        oauth["private_key_env"] = "WINK_CONFORMANCE_KEY"
        oauth["token_endpoint_auth"] = "private_key_jwt"
    if context.get("name", "").startswith("auth/client-credentials"):
        oauth["grant"] = "client_credentials"
    return oauth


def wink(*args, check=True):
    """Runs wink; its stdout is returned, its stderr passed through for the suite's log."""
    done = subprocess.run([WINK, *args], stdout=subprocess.PIPE, text=True)
    sys.stderr.write(f"$ wink {' '.join(args)}\n{done.stdout}\n")
    if check and done.returncode != 0:
        sys.exit(done.returncode)
    return done.stdout


def main():
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "tools_call")
    work = tempfile.mkdtemp(prefix="wink-conformance-")
    os.environ["WINK_HOME"] = os.path.join(work, "home")
    prompt = os.path.join(work, "prompt.json")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    server = {"url": url}
    if scenario.startswith("auth/"):
        server["oauth"] = oauth_block(context)
        # The authorization page is "opened" by a headless browser that approves at once.
        os.environ["BROWSER"] = f"{sys.executable} {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'browser.py')}"
    section = {
        "key": "tools",
        "title": "Tools",
        "builtin": "catalog",
        "defer": "never",
        "servers": {SERVER: server},
    }
    with open(prompt, "w") as f:
        json.dump({"ns": "conformance", "key": "client", "sections": [section]}, f)
    if scenario.startswith("auth/"):
        wink("mcp", "login", prompt, SERVER)
    rendered = json.loads(wink("render", prompt, "--format", "json"))
    prefix = SERVER + "."
    tools = [t["name"][len(prefix):] for t in rendered.get("tools", []) if t["name"].startswith(prefix)]
    calls = CALLS.get(scenario)
    if calls is None:
        calls = [(None, {})] if scenario.startswith("auth/") else [(None, {"a": 2, "b": 3})]
    if scenario == "json-schema-2020-12-preservation":
        described = [t for t in rendered.get("tools", []) if t["name"] == prefix + "json_schema_2020_12_tool"]
        schema = described[0].get("parameters", {}) if described else {}
        calls = [("json_schema_echo", {"schema": schema})]
    # Some scenarios name the calls they want in MCP_CONFORMANCE_CONTEXT.
    if context.get("toolCalls"):
        # A null argument is left out, as a model leaves out what it has no value for (wink
        # checks arguments against the tool's schema, where null is no boolean).
        calls = [
            (call["name"], {k: v for k, v in call.get("arguments", {}).items() if v is not None})
            for call in context["toolCalls"]
        ]
    for name, args in calls:
        name = name or (tools[0] if tools else None)
        if name is None:
            continue
        wink("call", prompt, prefix + name, json.dumps(args), check=False)


if __name__ == "__main__":
    try:
        main()
    finally:
        for leftover in [os.environ.get("WINK_HOME")]:
            if leftover and os.path.basename(os.path.dirname(leftover)).startswith("wink-conformance-"):
                shutil.rmtree(os.path.dirname(leftover), ignore_errors=True)
