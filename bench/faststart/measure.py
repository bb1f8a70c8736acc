"""Whole-process timings for bench/faststart/run.sh: runs a command RUNS times and prints
`min median max` in milliseconds (wall time from spawn to exit, or, for `mcp`, from spawn to the
`tools/list` answer on stdout).

Usage: python3 measure.py RUNS exec WINK ARGS...
       python3 measure.py RUNS mcp WINK PROMPT.json
"""
import json
import statistics
import subprocess
import sys
import time

MCP_REQUESTS = "".join(
    json.dumps(m) + "\n"
    for m in [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
).encode()


def run_once(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr.decode()}")
    return elapsed


def mcp_once(wink: str, prompt: str) -> float:
    start = time.perf_counter()
    server = subprocess.Popen(
        [wink, "mcp", "serve", prompt],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    server.stdin.write(MCP_REQUESTS)
    server.stdin.flush()
    while True:
        line = server.stdout.readline()
        if not line:
            sys.exit("wink mcp serve exited before answering tools/list")
        if json.loads(line).get("id") == 2:
            break
    elapsed = time.perf_counter() - start
    if not json.loads(line)["result"]["tools"]:
        sys.exit("tools/list answered no tools")
    server.stdin.close()
    server.wait()
    return elapsed


def main() -> None:
    runs, kind, wink, *rest = sys.argv[1:]
    once = (lambda: mcp_once(wink, rest[0])) if kind == "mcp" else (lambda: run_once([wink, *rest]))
    once()  # warm the page cache
    times = sorted(once() * 1000 for _ in range(int(runs)))
    print(f"{times[0]:.1f} {statistics.median(times):.1f} {times[-1]:.1f}")


if __name__ == "__main__":
    main()
