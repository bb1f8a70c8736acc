"""Drive `wink mcp serve` of a prompt whose catalog is backed by MCP servers, with the official MCP
Python SDK as the client (`pip install mcp`), and print what the client saw as one JSON object:
the tools before and after `tool.describe`, and the results of find_tool, tool.describe and the
proxied call. Used by crates/wink-cli/tests/mcp_servers.rs; runnable by hand:

    python3 mcp_proxy_check.py --purpose "read a text file" --tool fs.read_text_file \
        --tool-args '{"path": "/tmp/notes.txt"}' -- wink mcp serve prompt.json
"""

import argparse
import asyncio
import json
import os

from mcp import Client, StdioServerParameters


def texts(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def run(args):
    # The whole environment: the prompt's servers read their settings and secrets from it.
    server = StdioServerParameters(command=args.command[0], args=args.command[1:], env=dict(os.environ))
    out = {}
    async with Client(server, mode="legacy", read_timeout_seconds=120) as client:
        out["tools_before"] = [t.name for t in (await client.list_tools()).tools]
        found = await client.call_tool("find_tool", {"purpose": args.purpose})
        out["find_tool"] = texts(found)
        described = await client.call_tool("tool.describe", {"names": [args.tool]})
        out["describe"] = {"is_error": bool(described.is_error), "text": texts(described)}
        out["tools_after"] = [t.name for t in (await client.list_tools()).tools]
        called = await client.call_tool(args.tool, json.loads(args.tool_args))
        out["call"] = {"is_error": bool(called.is_error), "text": texts(called)}
    print(json.dumps(out))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--purpose", required=True)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--tool-args", default="{}")
    parser.add_argument("command", nargs="+")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
