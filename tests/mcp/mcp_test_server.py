"""A small MCP server written by hand for the tests: stdio or streamable HTTP, plus misbehaviours.

    python mcp_test_server.py [--http] [--garbage] [--no-init-answer] [--resources]

Tools: ``echo`` (text; logs a notification; with ``steps: n`` it first reports progress 1/n … n/n
to the call's ``progressToken``; with ``roots: true`` it asks the client for ``roots/list`` and
answers with the roots as JSON text, stdio only), ``add`` (structured content), ``picture`` (image),
``fail`` (isError), ``crash`` (the process exits mid-call), ``hang`` (never answers), ``grow``
(adds the tool ``grown`` and announces list_changed). ``tools/list`` is paged two tools at a time.
``--garbage`` prints non-JSON lines on stdout around every answer; ``--no-init-answer`` never
answers ``initialize``; ``--resources`` declares the ``resources`` capability and serves the
resources of :func:`resources`. With ``--http`` it
serves on 127.0.0.1:0, prints the port on stdout, answers
``tools/call`` as an SSE stream and everything else as JSON, and demands its ``Mcp-Session-Id``;
``--flaky`` answers the first POST with 503, ``--forgetful`` answers the second tool call with 404.
Every start writes one stderr line and appends its pid to $MCP_TEST_PIDS when set.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": "Echo the given text back",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "add",
        "description": "Add two numbers",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
    },
    {"name": "picture", "description": "Return a tiny picture", "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "Always fails", "inputSchema": {"type": "object"}},
    {"name": "crash", "description": "Crash the server process", "inputSchema": {"type": "object"}},
    {"name": "hang", "description": "Never answer", "inputSchema": {"type": "object"}},
    {"name": "grow", "description": "Add another tool", "inputSchema": {"type": "object"}},
]
PAGE = 2
GARBAGE = "--garbage" in sys.argv
NO_INIT = "--no-init-answer" in sys.argv
RESOURCES = "--resources" in sys.argv  # declare the resources capability
FLAKY = ["--flaky" in sys.argv]  # HTTP: the first POST answers 503
FORGETFUL = "--forgetful" in sys.argv  # HTTP: after one tool call the session is gone (404)
CALLS = [0]
ASKED: dict[str, Any] = {}  # our roots/list request id → the tools/call id waiting for its answer


def _result(rid: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def handle(message: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Messages to send back for ``message``; None means: never answer."""
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method is None and rid in ASKED:  # the client's answer to our roots/list
        text = json.dumps(message.get("result", message.get("error")))
        return [_result(ASKED.pop(rid), {"content": [{"type": "text", "text": text}]})]
    if rid is None:
        return []
    if method == "initialize":
        if NO_INIT:
            return None
        return [
            _result(
                rid,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": {
                        "tools": {"listChanged": True},
                        "logging": {},
                        **({"resources": {}} if RESOURCES else {}),
                    },
                    "serverInfo": {"name": "test-server", "version": "1"},
                    "instructions": "A server for tests.\nSecond line.",
                },
            )
        ]
    if method == "tools/list":
        start = int(params.get("cursor") or 0)
        page: dict[str, Any] = {"tools": TOOLS[start : start + PAGE]}
        if start + PAGE < len(TOOLS):
            page["nextCursor"] = str(start + PAGE)
        return [_result(rid, page)]
    if RESOURCES and method in ("resources/list", "resources/templates/list", "resources/read"):
        return [_result(rid, resources(method, params))]
    if method == "tools/call":
        token = (params.get("_meta") or {}).get("progressToken")
        return call(rid, params.get("name"), params.get("arguments") or {}, token)
    return [{"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}}]


RESOURCE_LIST = [
    {"uri": "file:///notes.txt", "name": "notes", "mimeType": "text/plain", "_meta": {"x": 1}},
    {"uri": "ui://widget", "name": "widget", "mimeType": "text/html"},  # an MCP App: not listed
    {"uri": "file:///logo.bin", "name": "logo", "icons": [{"src": "x"}]},
]
READS = {
    "file:///notes.txt": [{"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "the notes"}],
    "file:///dir": [
        {"uri": "file:///dir/a", "text": "A"},
        {"uri": "file:///dir/b", "mimeType": "text/plain", "blob": "Qg=="},
    ],
}


def resources(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """``--resources``: three resources paged two at a time, one template, and reads."""
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "files", "_meta": {}}]}
    if method == "resources/read":
        return {"contents": READS.get(str(params.get("uri")), [])}
    start = int(params.get("cursor") or 0)
    page: dict[str, Any] = {"resources": RESOURCE_LIST[start : start + PAGE]}
    if start + PAGE < len(RESOURCE_LIST):
        page["nextCursor"] = str(start + PAGE)
    return page


def call(rid: Any, name: Any, args: dict[str, Any], token: Any = None) -> list[dict[str, Any]] | None:
    if name == "echo" and args.get("roots"):
        ASKED[f"srv-{rid}"] = rid
        return [{"jsonrpc": "2.0", "id": f"srv-{rid}", "method": "roots/list"}]
    if name == "echo":
        log = {"level": "info", "logger": "echo", "data": f"echoing {args.get('text')}"}
        steps = int(args.get("steps") or 0)
        progress = [
            {"jsonrpc": "2.0", "method": "notifications/progress",
             "params": {"progressToken": token, "progress": i, "total": steps}}
            for i in range(1, steps + 1)
            if token is not None
        ]  # fmt: skip
        return [
            *progress,
            {"jsonrpc": "2.0", "method": "notifications/message", "params": log},
            _result(rid, {"content": [{"type": "text", "text": f"echo: {args.get('text')}"}]}),
        ]
    if name == "add":
        total = args.get("a", 0) + args.get("b", 0)
        return [_result(rid, {"content": [], "structuredContent": {"sum": total}})]
    if name == "picture":
        return [_result(rid, {"content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]})]
    if name == "fail":
        return [_result(rid, {"content": [{"type": "text", "text": "bad thing happened"}], "isError": True})]
    if name == "crash":
        sys.stderr.write("crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "hang":
        return None
    if name == "grow":
        if not any(t["name"] == "grown" for t in TOOLS):
            TOOLS.append(
                {"name": "grown", "description": "A tool that appeared later", "inputSchema": {"type": "object"}}
            )
        return [
            _result(rid, {"content": [{"type": "text", "text": "grown"}]}),
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        ]
    return [{"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": f"unknown tool {name}"}}]


def serve_stdio() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        answers = handle(json.loads(line))
        for answer in answers or []:
            if GARBAGE:
                sys.stdout.write("this is not json {\n")
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


SESSION = "session-42"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep the test output clean
        pass

    def do_GET(self) -> None:
        self.send_response(405)
        self.end_headers()

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.end_headers()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        method = body.get("method")
        if FLAKY[0]:
            FLAKY[0] = False
            self.send_response(503)
            self.end_headers()
            return
        if method != "initialize" and self.headers.get("Mcp-Session-Id") != SESSION:
            self.send_response(400)
            self.end_headers()
            return
        if method == "tools/call" and FORGETFUL:
            CALLS[0] += 1
            if CALLS[0] == 2:
                self.send_response(404)
                self.end_headers()
                return
        answers = handle(body)
        if answers is None:
            threading.Event().wait(3600)
            return
        if not answers:
            self.send_response(202)
            self.end_headers()
            return
        if method == "tools/call":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for answer in answers:
                self.wfile.write(f"event: message\ndata: {json.dumps(answer)}\n\n".encode())
                self.wfile.flush()
            return
        data = json.dumps(answers[-1]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if method == "initialize":
            self.send_header("Mcp-Session-Id", SESSION)
        self.end_headers()
        self.wfile.write(data)


def main() -> None:
    sys.stderr.write(f"test server starting (pid {os.getpid()})\n")
    sys.stderr.flush()
    pids = os.environ.get("MCP_TEST_PIDS")
    if pids:
        with open(pids, "a") as handle_:
            handle_.write(f"{os.getpid()}\n")
    if "--http" in sys.argv:
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        print(server.server_address[1], flush=True)
        server.serve_forever()
    else:
        serve_stdio()


if __name__ == "__main__":
    main()
