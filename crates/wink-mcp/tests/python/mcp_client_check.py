"""Drive a wink MCP server with the official MCP Python SDK (`pip install mcp`) and print what
the client saw as one JSON object. Used by the Rust integration tests; runnable by hand:

    python3 mcp_client_check.py --mode legacy --section math --tool add --tool-args '{"a": 2, "b": 3}' \
        -- wink mcp serve prompt.json
    python3 mcp_client_check.py --mode auto --url http://127.0.0.1:8765/mcp --section math --tool add ...

`--mode legacy` uses the initialize handshake (list_changed arrives as a plain notification);
`--mode auto` lets the SDK probe `server/discover` and, on a 2026-07-28 server, receives
list_changed through `subscriptions/listen`.
"""

import argparse
import asyncio
import json
import sys

import mcp_types as types
from mcp import Client, StdioServerParameters


def texts(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def run(args):
    changed = asyncio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    if args.url:
        server = args.url
    else:
        server = StdioServerParameters(command=args.command[0], args=args.command[1:])
    out = {}
    async with Client(server, mode=args.mode, message_handler=on_message, read_timeout_seconds=60) as client:
        out["modern"] = client.protocol_version == "2026-07-28"
        caps = client.server_capabilities
        out["tools_list_changed_capability"] = bool(caps.tools and caps.tools.list_changed)
        out["instructions_head"] = (client.instructions or "").split("\n")[0]
        out["tools_before"] = [t.name for t in (await client.list_tools()).tools]
        resources = await client.list_resources()
        out["resources"] = [r.uri for r in resources.resources]
        listed = [r for r in out["resources"] if str(r).endswith("/" + args.section)]
        section = await client.read_resource(listed[0])
        out["section_resource"] = section.contents[0].text
        alias = await client.read_resource(f"wink://section/{args.section}")
        out["alias_resource"] = alias.contents[0].text
        prompts = await client.list_prompts()
        out["prompts"] = [p.name for p in prompts.prompts]
        prompt = await client.get_prompt(prompts.prompts[0].name)
        out["prompt_text"] = prompt.messages[0].content.text
        early = await client.call_tool(args.tool, json.loads(args.tool_args))
        out["early_call"] = {"is_error": bool(early.is_error), "text": texts(early)}

        async def read_section():
            result = await client.call_tool("read_section", {"section_key": args.section})
            out["read_section"] = {"is_error": bool(result.is_error), "text": texts(result)}

        if out["modern"]:
            async with client.listen(tools_list_changed=True) as subscription:
                # Let the subscription reach the server before the change it must observe
                # (a loaded machine can otherwise process read_section first).
                await client.list_tools()
                await asyncio.sleep(0.5)
                await read_section()
                event = await asyncio.wait_for(anext(aiter(subscription)), timeout=10)
                out["list_changed"] = type(event).__name__ == "ToolsListChanged"
        else:
            await read_section()
            try:
                await asyncio.wait_for(changed.wait(), timeout=10)
                out["list_changed"] = True
            except TimeoutError:
                out["list_changed"] = False
        out["tools_after"] = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
        called = await client.call_tool(args.tool, json.loads(args.tool_args))
        out["tool_call"] = {"is_error": bool(called.is_error), "text": texts(called)}
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--url")
    parser.add_argument("--section", required=True)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--tool-args", default="{}")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    if not args.url and not args.command:
        parser.error("give --url or a server command after --")
    print(json.dumps(asyncio.run(run(args)), indent=1, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
