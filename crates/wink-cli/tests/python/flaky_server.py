"""A small MCP server (official Python SDK) for wink's MCP catalog tests: a tool that reports the
process id, one that kills the process mid-call (a crash), one that answers late, and one that
adds a tool and sends notifications/tools/list_changed.

Over stdio by default; `--http PORT` serves streamable HTTP on 127.0.0.1:PORT/mcp instead.
Other arguments are ignored (tests pass a folder so the command line names it)."""

import os
import sys
import time

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer

# Its tool list stays fresh for an hour (SEP-2549), so clients may cache it.
server = MCPServer("flaky", cache_hints={"tools/list": CacheHint(ttl_ms=3_600_000)})


@server.tool(description="Report this server's process id (`note` is ignored).")
def pid(note: str = "") -> str:
    return str(os.getpid())


@server.tool(description="Crash the server process in the middle of the call (`note` is ignored).")
def crash(note: str = "") -> str:
    os._exit(3)


@server.tool(description="Answer after `seconds` seconds.")
def sleep(seconds: float) -> str:
    time.sleep(seconds)
    return f"slept {seconds} s"


def extra() -> str:
    return "extra tool ran"


@server.tool(description="Add the tool `extra` and announce the new tool list.")
async def grow(ctx: Context) -> str:
    server.add_tool(extra, description="A tool added while the server runs.")
    # 2026-07-28 clients hear of it on their subscriptions/listen stream, handshake-era ones on
    # their session.
    await ctx.notify_tools_changed()
    await ctx.session.send_tool_list_changed()
    return "added extra"


if __name__ == "__main__":
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run("stdio")
