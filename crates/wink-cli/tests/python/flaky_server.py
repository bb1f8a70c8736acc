"""A small MCP server (official Python SDK, stdio) for wink's MCP catalog tests: a tool that
reports the process id, one that kills the process mid-call (a crash), and one that adds a tool
and sends notifications/tools/list_changed."""

import os

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("flaky")


@server.tool(description="Report this server's process id (`note` is ignored).")
def pid(note: str = "") -> str:
    return str(os.getpid())


@server.tool(description="Crash the server process in the middle of the call (`note` is ignored).")
def crash(note: str = "") -> str:
    os._exit(3)


def extra() -> str:
    return "extra tool ran"


@server.tool(description="Add the tool `extra` and announce the new tool list.")
async def grow(ctx: Context) -> str:
    server.add_tool(extra, description="A tool added while the server runs.")
    await ctx.session.send_tool_list_changed()
    return "added extra"


if __name__ == "__main__":
    server.run("stdio")
