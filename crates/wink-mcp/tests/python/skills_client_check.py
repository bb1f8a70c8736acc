"""Drive a wink MCP server's Skills extension (io.modelcontextprotocol/skills, SEP-2640) with the
official MCP Python SDK (`pip install mcp`), which has no skills helpers yet: `skills/list` and
`skills/get` go out as raw requests through the SDK's session; skill files are read with the SDK's
own `read_resource`. Prints what the client saw as one JSON object. Used by the Rust tests;
runnable by hand:

    python3 skills_client_check.py --mode legacy -- wink mcp serve examples/07_skills/prompt.json
"""

import argparse
import asyncio
import base64
import hashlib
import json
import sys
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from pydantic import RootModel


class AnyResult(RootModel[dict[str, Any]]):
    pass


class RawRequest(types.Request[dict[str, Any] | None, str]):
    """A request whose params pass through as written (the SDK's `Request` keeps only the
    fields it knows)."""


def content_bytes(contents):
    if getattr(contents, "text", None) is not None:
        return contents.text.encode("utf-8")
    return base64.b64decode(contents.blob)


async def raw(client, method, params):
    result = await client.session.send_request(RawRequest(method=method, params=params), AnyResult)
    return result.root


async def run(args):
    server = StdioServerParameters(command=args.command[0], args=args.command[1:])
    out = {}
    async with Client(server, mode=args.mode, read_timeout_seconds=60) as client:
        out["modern"] = client.protocol_version == "2026-07-28"
        extensions = client.server_capabilities.extensions or {}
        out["extension"] = extensions.get("io.modelcontextprotocol/skills")
        resources = await client.list_resources()
        out["skill_resources"] = [
            {"uri": r.uri, "name": r.name, "mimeType": r.mime_type}
            for r in resources.resources
            if r.uri.startswith("skill://")
        ]
        listed = await raw(client, "skills/list", {})
        out["listed_uris"] = [s["uri"] for s in listed["skills"]]
        out["list_cache_hints"] = sorted(k for k in ("ttlMs", "cacheScope") if k in listed)
        # Verify every file of every listed skill against the manifest, as a host must.
        verified = 0
        for skill in listed["skills"]:
            for resource in skill["resources"]:
                read = await client.read_resource(resource["uri"])
                data = content_bytes(read.contents[0])
                digest = "sha256:" + hashlib.sha256(data).hexdigest()
                if digest != resource["digest"] or len(data) != resource["size"]:
                    raise SystemExit(f"manifest mismatch for {resource['uri']}")
                verified += 1
        out["verified_files"] = verified
        got = await raw(client, "skills/get", {"uri": args.skill_uri})
        entry = got["skill"]
        out["get"] = {
            "uri": entry["uri"],
            "frontmatter": entry["frontmatter"],
            "files": [r["uri"] for r in entry["resources"]],
        }
        skill_md = await client.read_resource(args.skill_uri)
        out["skill_md_head"] = skill_md.contents[0].text.split("\n")[0:3]
        try:
            await raw(client, "skills/get", {"uri": "skill://no-such-skill/SKILL.md"})
            out["unknown_get"] = None
        except MCPError as e:
            out["unknown_get"] = e.error.code
        try:
            await client.read_resource(args.skill_uri.replace("SKILL.md", "../../etc/passwd"))
            out["escape"] = "read"
        except MCPError as e:
            out["escape"] = "refused"
        if args.refused_tool:
            # The skill as a model reaches it over MCP: read its section, then a tool outside its
            # allowed-tools is refused.
            read = await client.call_tool("read_section", {"section_key": args.section})
            out["read_section_head"] = texts(read).split("\n")[0]
            refused = await client.call_tool(args.refused_tool, json.loads(args.tool_args))
            out["refused"] = {"is_error": bool(refused.is_error), "text": texts(refused)}
    return out


def texts(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--skill-uri", required=True)
    parser.add_argument("--section")
    parser.add_argument("--refused-tool")
    parser.add_argument("--tool-args", default="{}")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args)), indent=1, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
