"""A recording ACP client for driving ``pi --mode acp`` in tests, through the official SDK."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from acp import PROTOCOL_VERSION
from acp.client.connection import ClientSideConnection
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse
from cli.pi_harness import PI, PiEnv


class RecordingClient:
    """Records every ``session/update`` (as camelCase dicts) and answers permission requests."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.permission_requests: list[dict[str, Any]] = []
        self.permission_choice: str | None = None  # optionId to pick; None = cancelled
        self.changed = asyncio.Event()
        self.buffers: dict[str, str] = {}  # the editor's (unsaved) file texts, by absolute path
        self.writes: list[tuple[str, str]] = []
        self.wire: list[dict[str, Any]] = []  # every message from the agent, as sent (before the SDK parses it)

    def observe(self, event: Any) -> None:
        """The SDK's stream observer: keeps the agent's raw messages (keys the models would drop)."""
        if event.direction.value == "incoming":
            self.wire.append(event.message)

    def wire_updates(self) -> list[dict[str, Any]]:
        """The raw ``update`` objects of every ``session/update`` notification."""
        return [m["params"]["update"] for m in self.wire if m.get("method") == "session/update"]

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append({"sessionId": session_id, **update.model_dump(by_alias=True, exclude_none=True)})
        self.changed.set()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        self.permission_requests.append(
            {
                "toolCall": tool_call.model_dump(by_alias=True, exclude_none=True),
                "options": [o.model_dump(by_alias=True) for o in options],
            }
        )
        if self.permission_choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.permission_choice))

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> Any:
        from acp import RequestError
        from acp.schema import ReadTextFileResponse

        if path not in self.buffers:
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> Any:
        from acp.schema import WriteTextFileResponse

        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [u for u in self.updates if u.get("sessionUpdate") == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u["content"]["text"] for u in self.of(kind) if u["content"].get("type") == "text")

    async def wait_for(self, predicate: Any, timeout: float = 15.0) -> dict[str, Any]:
        async def scan() -> dict[str, Any]:
            while True:
                for update in self.updates:
                    if predicate(update):
                        return update
                self.changed.clear()
                await self.changed.wait()

        return await asyncio.wait_for(scan(), timeout)


@contextlib.asynccontextmanager
async def acp_agent(
    env: PiEnv, *args: str, fs: bool = False
) -> AsyncIterator[tuple[ClientSideConnection, RecordingClient, Any]]:
    """``pi --mode acp`` as a subprocess, initialized; yields (connection, client, process)."""
    proc = await asyncio.create_subprocess_exec(
        *PI, "--mode", "acp", "--model", "fake/fake-model", *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=env.cwd, env=env.env, limit=50 * 1024 * 1024,
    )  # fmt: skip
    client = RecordingClient()
    assert proc.stdin is not None and proc.stdout is not None
    conn = ClientSideConnection(client, proc.stdin, proc.stdout, observers=[client.observe])
    try:
        caps = {"fs": {"readTextFile": True, "writeTextFile": True}} if fs else None
        await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps), 30)
        yield conn, client, proc
    finally:
        await conn.close()
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}
