"""A stand-in for the `claude` CLI (stdlib only) speaking its stream-json protocol.

It checks the flags wink passes (-p, stream-json in and out, --mcp-config with one HTTP server,
--strict-mcp-config, --system-prompt, --allowedTools), connects to the MCP server named in the
config over streamable HTTP, lists its tools and behaves like a model that wants to add 2 and 3:

- if the `add` tool is offered, it calls it and answers "The sum is <tool result>";
- otherwise it calls `read_section` with key "math" to disclose the section holding `add`
  (with wink's restart path the process is stopped while that call is pending);
- it writes what it saw to the file named by FAKE_CLAUDE_LOG (one JSON object per run).
"""

import json
import os
import sys
import urllib.request


def fail(message):
    print(json.dumps({"type": "result", "subtype": "error_during_execution", "is_error": True,
                      "result": f"fake claude: {message}"}), flush=True)
    sys.exit(1)


def flag(argv, name):
    if name not in argv:
        fail(f"missing {name}")
    index = argv.index(name)
    if index + 1 >= len(argv):
        fail(f"{name} needs a value")
    return argv[index + 1]


class McpHttp:
    def __init__(self, url):
        self.url = url
        self.session = None
        self.next_id = 0

    def post(self, message):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-06-18"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        request = urllib.request.Request(self.url, data=json.dumps(message).encode(), headers=headers)
        with urllib.request.urlopen(request, timeout=60) as response:
            self.session = response.headers.get("Mcp-Session-Id") or self.session
            if "id" not in message:
                return None
            if response.headers.get("Content-Type", "").startswith("text/event-stream"):
                for raw in response:
                    line = raw.decode().strip()
                    if line.startswith("data:") and line[5:].strip():
                        data = json.loads(line[5:])
                        if data.get("id") == message["id"]:
                            return data
                fail("SSE stream ended without a response")
            return json.loads(response.read())

    def request(self, method, params):
        self.next_id += 1
        reply = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        if "error" in reply:
            fail(f"{method}: {reply['error']}")
        return reply["result"]


def emit(event):
    print(json.dumps(event), flush=True)


def main():
    argv = sys.argv[1:]
    for required in ["-p", "--verbose", "--strict-mcp-config"]:
        if required not in argv:
            fail(f"missing {required}")
    if flag(argv, "--input-format") != "stream-json" or flag(argv, "--output-format") != "stream-json":
        fail("expected --input-format stream-json --output-format stream-json")
    with open(flag(argv, "--mcp-config")) as handle:
        config = json.load(handle)
    servers = config.get("mcpServers", {})
    if list(servers) != ["wink"] or servers["wink"].get("type") != "http":
        fail(f"unexpected MCP config {config}")
    system = flag(argv, "--system-prompt")
    allowed = flag(argv, "--allowedTools").split(",")

    mcp = McpHttp(servers["wink"]["url"])
    mcp.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "fake-claude", "version": "0"}})
    mcp.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools = [t["name"] for t in mcp.request("tools/list", {})["tools"]]
    if sorted(f"mcp__wink__{t}" for t in tools) != sorted(allowed):
        fail(f"--allowedTools {allowed} does not match the server's tools {tools}")
    emit({"type": "system", "subtype": "init", "session_id": "fake", "model": "fake",
          "tools": [f"mcp__wink__{t}" for t in tools], "mcp_servers": [{"name": "wink", "status": "connected"}]})

    user = json.loads(sys.stdin.readline())
    if user.get("type") != "user" or user["message"]["role"] != "user":
        fail(f"unexpected stdin message {user}")
    log = os.environ.get("FAKE_CLAUDE_LOG")
    if log:
        with open(log, "a") as handle:
            handle.write(json.dumps({"tools": tools, "system": system, "user": user["message"]["content"]}) + "\n")

    def call(name, arguments, call_id):
        emit({"type": "assistant", "session_id": "fake", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": call_id, "name": f"mcp__wink__{name}", "input": arguments}]}})
        result = mcp.request("tools/call", {"name": name, "arguments": arguments})
        text = "\n".join(block["text"] for block in result["content"] if block["type"] == "text")
        emit({"type": "user", "session_id": "fake", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": result.get("isError", False)}]}})
        return text

    if "add" in tools:
        text = call("add", {"a": 2, "b": 3}, "toolu_2")
        answer = f"The sum is {text}"
    else:
        call("read_section", {"section_key": "math"}, "toolu_1")
        answer = "I could not find an add tool."
    emit({"type": "assistant", "session_id": "fake", "message": {"role": "assistant", "content": [
        {"type": "text", "text": answer}]}})
    emit({"type": "result", "subtype": "success", "is_error": False, "result": answer, "session_id": "fake",
          "num_turns": 2, "usage": {"input_tokens": 100, "output_tokens": 10, "cache_read_input_tokens": 40}})
    sys.stdin.readline()  # like the real CLI in stream-json mode: wait for more input or EOF


if __name__ == "__main__":
    main()
