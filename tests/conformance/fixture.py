#!/usr/bin/env python3
"""The command handlers of tests/conformance/server.json: the tools, resources and prompts the
MCP conformance suite expects a server to have, as a prompt file's commands.

`fixture.py KIND NAME`: reads the arguments (a JSON object) on stdin and prints the result in
MCP's form. A tool that needs the client's input prints {"resultType": "input_required", ...};
wink runs it again with the client's answers in WINK_INPUT_RESPONSES and the state it gave in
WINK_REQUEST_STATE (see docs/prompt-files.md).
"""

import json
import os
import sys
import time

# A 1x1 PNG and a tiny WAV, base64.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA="


def text(value):
    return {"type": "text", "text": value}


def content(*blocks, error=False):
    result = {"content": list(blocks)}
    if error:
        result["isError"] = True
    return result


def ask(requests, state=None):
    result = {"resultType": "input_required", "inputRequests": requests}
    if state is not None:
        result["requestState"] = state
    return result


def elicit(message, properties, required):
    return {
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {"type": "object", "properties": properties, "required": required},
        },
    }


def sample(prompt, max_tokens=50):
    return {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": text(prompt)}],
            "maxTokens": max_tokens,
        },
    }


ROOTS = {"method": "roots/list", "params": {}}
NAME = elicit("What is your name?", {"name": {"type": "string"}}, ["name"])


def answers():
    raw = os.environ.get("WINK_INPUT_RESPONSES")
    value = json.loads(raw) if raw else None
    return value if isinstance(value, dict) else None


def answer(key):
    """The content of the client's answer to request `key` (elicitation: `content`)."""
    given = (answers() or {}).get(key)
    return given.get("content", given) if isinstance(given, dict) else given


def tool(name, args):
    responses = answers()
    state = os.environ.get("WINK_REQUEST_STATE")
    if name == "test_simple_text":
        return content(text("This is a simple text response for testing."))
    if name == "test_image_content":
        return content({"type": "image", "data": PNG, "mimeType": "image/png"})
    if name == "test_audio_content":
        return content({"type": "audio", "data": WAV, "mimeType": "audio/wav"})
    embedded = {"type": "resource", "resource": {"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}
    if name == "test_embedded_resource":
        return content(embedded)
    if name == "test_multiple_content_types":
        return content(text("Multiple content types test:"), {"type": "image", "data": PNG, "mimeType": "image/png"}, embedded)
    if name == "test_error_handling":
        return content(text("This tool intentionally returns an error for testing"), error=True)
    if name == "test_tool_with_progress":
        for progress in (0, 50, 100):
            print(json.dumps({"progress": progress, "total": 100}), file=sys.stderr, flush=True)
            time.sleep(0.05)
        return content(text("Progress test completed"))
    if name == "greet":
        return content(text(f"Hello, {args.get('name')}!"))
    if name == "slow_compute":
        time.sleep(float(args.get("seconds", 0)))
        return content(text(f"Computed {args.get('label', 'result')} after {args.get('seconds')} s"))
    if name == "failing_job":
        time.sleep(1)
        return content(text("The job failed."), error=True)
    if name == "confirm_delete":
        if answer("confirm") is None:
            return ask({"confirm": elicit("Delete the item?", {"confirm": {"type": "boolean"}}, ["confirm"])})
        return content(text("Deleted." if (answer("confirm") or {}).get("confirm") else "Kept."))
    if name == "multi_input":
        if answer("first") is None or answer("second") is None:
            return ask({
                "first": elicit("First question?", {"value": {"type": "string"}}, ["value"]),
                "second": elicit("Second question?", {"value": {"type": "string"}}, ["value"]),
            })
        return content(text("Both answered."))
    if name == "test_custom_headers":
        return content(text(f"Region: {args.get('region')}"))
    if name == "test_logging_tool":
        return content(text("Logging test completed"))
    if name == "json_schema_2020_12_tool":
        return content(text("Received: " + json.dumps(args, sort_keys=True)))
    if name == "test_missing_capability":
        return ask({"capital": sample("What is the capital of France?")})
    if name in ("test_input_required_result_elicitation", "test_streaming_elicitation", "test_tool_with_task"):
        if responses is None or answer("user_name") is None:
            return ask({"user_name": NAME})
        return content(text(f"Hello, {(answer('user_name') or {}).get('name', 'stranger')}!"))
    if name == "test_input_required_result_sampling":
        if answer("capital_question") is None:
            return ask({"capital_question": sample("What is the capital of France?")})
        return content(text("Sampling answered: " + json.dumps(answer("capital_question"))))
    if name == "test_input_required_result_list_roots":
        roots = answer("client_roots")
        if roots is None:
            return ask({"client_roots": ROOTS})
        uris = [r.get("uri") for r in roots.get("roots", [])] if isinstance(roots, dict) else []
        return content(text("Roots: " + ", ".join(str(u) for u in uris)))
    if name == "test_input_required_result_request_state":
        if answer("confirm") is None:
            return ask({"confirm": elicit("Please confirm", {"ok": {"type": "boolean"}}, ["ok"])}, "round-1")
        return content(text("state-ok" if state == "round-1" else f"unexpected state {state!r}"), error=state != "round-1")
    if name == "test_input_required_result_multiple_inputs":
        keys = ("user_name", "greeting", "client_roots")
        if any(answer(k) is None for k in keys):
            return ask({"user_name": NAME, "greeting": sample("Generate a greeting"), "client_roots": ROOTS}, "multiple")
        return content(text("All inputs received."))
    if name == "test_input_required_result_multi_round":
        if state is None or answer("step1") is None and answer("step2") is None:
            return ask({"step1": elicit("Step 1: What is your name?", {"name": {"type": "string"}}, ["name"])}, "round-1")
        if state == "round-1":
            return ask({"step2": elicit("Step 2: What is your favorite color?", {"color": {"type": "string"}}, ["color"])}, "round-2")
        return content(text("Both steps completed."))
    if name == "test_input_required_result_tampered_state":
        if state is None:
            return ask({"confirm": elicit("Please confirm", {"ok": {"type": "boolean"}}, ["ok"])}, "untampered")
        return content(text("state verified"))
    if name == "test_input_required_result_capabilities":
        if responses is None:
            return ask({"user_name": NAME, "capital_question": sample("What is the capital of France?"), "client_roots": ROOTS})
        return content(text("Capabilities respected."))
    raise SystemExit(f"unknown tool {name}")


def resource(name, args):
    if name == "template":
        return {"contents": [{"uri": args["uri"], "mimeType": "application/json", "text": json.dumps({"id": args["id"], "templateTest": True, "data": f"Data for ID: {args['id']}"})}]}
    raise SystemExit(f"unknown resource {name}")


def prompt(name, args):
    if name == "test_prompt_with_embedded_resource":
        uri = args.get("resourceUri", "test://example-resource")
        return {"messages": [
            {"role": "user", "content": {"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": text("Please process the embedded resource above.")},
        ]}
    if name == "test_prompt_with_image":
        return {"messages": [
            {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
            {"role": "user", "content": text("Please analyze the image above.")},
        ]}
    if name == "test_input_required_result_prompt":
        context = answer("user_context")
        if context is None:
            return ask({"user_context": elicit("What context should the prompt use?", {"context": {"type": "string"}}, ["context"])})
        return {"messages": [{"role": "user", "content": text(f"Use this context: {context.get('context') if isinstance(context, dict) else context}")}]}
    raise SystemExit(f"unknown prompt {name}")


def main():
    kind, name = sys.argv[1], sys.argv[2]
    args = json.load(sys.stdin)
    handler = {"tool": lambda: tool(name, args), "resource": lambda: resource(name, args), "prompt": lambda: prompt(name, args)}[kind]
    print(json.dumps(handler()))


if __name__ == "__main__":
    main()
