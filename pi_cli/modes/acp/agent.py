"""The ACP ``Agent``: protocol methods mapped onto pi_cli sessions.

Methods: ``initialize``, ``authenticate`` (nothing to do: keys come from pi's usual places),
``session/new``, ``session/load`` (replays the history), ``session/list``, ``session/prompt``,
``session/cancel``, ``session/set_mode`` (thinking level), ``session/set_config_option`` (model,
thinking level), and the extension methods ``_pi/steer`` and ``_pi/follow_up`` (params
``{sessionId, text}``) for clients that can steer a running turn. Errors a user can act on come back
as JSON-RPC errors whose message says what was wrong; the process keeps serving.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionListCapabilities,
    SessionNotification,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from pi_cli import __version__
from pi_cli.errors import PiError
from pi_cli.modes.acp import config_options
from pi_cli.modes.acp.fast_init import PROTOCOL_VERSION
from pi_cli.modes.acp.history import replay_updates
from pi_cli.modes.acp.session_handle import AcpSession, PromptFailed
from pi_cli.modes.acp.updates import Update

LIST_PAGE_SIZE = 50

# (cwd, session file to open or None for a new one, the client's MCP servers) -> AgentSession
SessionFactory = Callable[[Path, str | None, list[Any] | None], Any]


def _user_error(message: str) -> RequestError:
    return RequestError(-32602, message)


def _cwd_problem(cwd: Path) -> str | None:
    if not cwd.is_absolute():
        return f"cwd must be an absolute path: {cwd}"
    if not cwd.is_dir():
        return f"cwd is not a directory: {cwd}"
    return None


class PiAcpAgent:
    """Serves every ACP session of one connection; ``conn`` is set by the SDK on connect."""

    def __init__(self, make_session: SessionFactory) -> None:
        self._make_session = make_session
        self._sessions: dict[str, AcpSession] = {}
        self._conn: Any = None
        self._client_capabilities: Any = None

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    # -- lifecycle ------------------------------------------------------------------------------

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, **_: Any) -> InitializeResponse:
        self._client_capabilities = client_capabilities
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True, audio=False),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            auth_methods=[],
            agent_info=Implementation(name="pi_cli", title="pi", version=__version__),
        )

    async def replay_initialize(self, params: dict[str, Any]) -> None:
        """The ``initialize`` :mod:`.fast_init` answered before the SDK was loaded: record what
        :meth:`initialize` records (the client's capabilities); the answer was sent already."""
        from acp.schema import InitializeRequest

        with contextlib.suppress(ValueError):  # the fast path checked the shape; be lenient anyway
            request = InitializeRequest.model_validate(params)
            await self.initialize(request.protocol_version, request.client_capabilities)

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        return AuthenticateResponse()

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any) -> NewSessionResponse:
        handle = await self._open(Path(cwd), None, mcp_servers)
        return NewSessionResponse.model_validate({"sessionId": handle.session_id, **self._session_state(handle)})

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> LoadSessionResponse:
        from pi_cli.store import catalog

        found = catalog.resolve_session_arg(session_id, cwd)
        if found.path is None or found.kind == "path":
            raise _user_error(f"Session not found: {session_id}")
        existing = self._sessions.pop(session_id, None)
        if existing is not None:
            await existing.close()
        handle = await self._open(Path(cwd), str(found.path), mcp_servers)
        for update in replay_updates(handle.session.messages, handle.cwd):
            await self._send(handle.session_id, update)
        await self._announce(handle)
        return LoadSessionResponse.model_validate(self._session_state(handle))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> dict[str, Any]:
        """One page of sessions; ``nextCursor`` is the next page's cursor, ``null`` on the last page.

        Answered as a plain dict (checked against the schema first): the SDK dumps a response model
        with ``exclude_none``, which would drop the ``nextCursor: null`` pi-acp sends.
        """
        from pi_cli.store import catalog

        infos = catalog.list_sessions(cwd) if cwd else catalog.list_all_sessions()
        start = int(cursor) if cursor and cursor.isdigit() else 0
        page = infos[start : start + LIST_PAGE_SIZE]
        rows = [
            {
                "sessionId": info.id,
                "cwd": info.cwd or (cwd or ""),
                "title": info.name or info.first_message,
                "updatedAt": datetime.fromtimestamp(info.modified / 1000, UTC).isoformat().replace("+00:00", "Z"),
            }
            for info in page
        ]
        more = start + LIST_PAGE_SIZE < len(infos)
        answer = ListSessionsResponse.model_validate(
            {"sessions": rows, "nextCursor": str(start + LIST_PAGE_SIZE) if more else None}
        ).model_dump(mode="json", by_alias=True, exclude_none=True)
        answer["nextCursor"] = answer.get("nextCursor")
        return answer

    # -- turns ----------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        handle = self._get(session_id)
        blocks = [b.model_dump(by_alias=True, exclude_none=True) for b in prompt]
        try:
            reason = await handle.prompt(blocks)
        except PromptFailed as exc:
            raise RequestError(-32603, str(exc)) from None
        except PiError as exc:
            raise _user_error(str(exc).removeprefix("Error: ")) from None
        return PromptResponse(stop_reason=reason)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **_: Any) -> None:
        handle = self._sessions.get(session_id)
        if handle is not None:
            await handle.cancel()

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        handle = self._get(session_id)
        try:
            config_options.apply_option(handle.session, config_options.THINKING_OPTION, mode_id)
        except ValueError as exc:
            raise _user_error(str(exc)) from None
        await self._config_changed(handle, mode_changed=True)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        handle = self._get(session_id)
        mode_before = config_options.mode_state(handle.session)["currentModeId"]
        try:
            config_options.apply_option(handle.session, config_id, str(value))
        except ValueError as exc:
            raise _user_error(str(exc)) from None
        mode_after = config_options.mode_state(handle.session)["currentModeId"]
        changed = config_id == config_options.THINKING_OPTION or mode_after != mode_before
        options = await self._config_changed(handle, mode_changed=changed)
        return SetSessionConfigOptionResponse.model_validate({"configOptions": options})

    async def _config_changed(self, handle: AcpSession, mode_changed: bool) -> list[dict[str, Any]]:
        """After a model or thinking change, the notifications pi-acp sends before its answer:
        ``current_mode_update`` when the thinking level (the mode) was set or moved, then
        ``config_option_update`` with every option. Returns the options (the answer's too)."""
        session = handle.session
        if mode_changed:
            current = config_options.mode_state(session)["currentModeId"]
            await self._send(handle.session_id, {"sessionUpdate": "current_mode_update", "currentModeId": current})
        options = config_options.config_options(session)
        await self._send(handle.session_id, {"sessionUpdate": "config_option_update", "configOptions": options})
        return options

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method not in ("pi/steer", "pi/follow_up"):
            raise RequestError.method_not_found(f"_{method}")
        handle = self._get(str(params.get("sessionId")))
        text = params.get("text")
        if not isinstance(text, str) or not text:
            raise _user_error("text: expected a non-empty string")
        (handle.steer if method == "pi/steer" else handle.follow_up)(text)
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        """Dispose of every session (at EOF on stdin)."""
        handles, self._sessions = list(self._sessions.values()), {}
        for handle in handles:
            await handle.close()

    # -- helpers --------------------------------------------------------------------------------

    def _get(self, session_id: str) -> AcpSession:
        handle = self._sessions.get(session_id)
        if handle is None:
            raise _user_error(f"Unknown session: {session_id}")
        return handle

    async def _open(self, cwd: Path, session_path: str | None, mcp_servers: list[Any] | None = None) -> AcpSession:
        problem = _cwd_problem(cwd)
        if problem is not None:
            raise _user_error(problem)
        try:
            session = self._make_session(cwd, session_path, mcp_servers)
        except PiError as exc:
            raise _user_error(str(exc).removeprefix("Error: ")) from None
        holder: dict[str, str] = {}

        async def send(update: Update) -> None:
            await self._send(holder["id"], update)

        handle = AcpSession(session, send)
        holder["id"] = handle.session_id
        gate = session.permissions  # tool approval asks through request_permission
        if gate is not None:
            from pi_cli.modes.acp.permissions import AcpApprovals

            gate.ui = AcpApprovals(lambda: self._conn, handle.session_id)
        if self._client_capabilities is not None:  # the editor's buffers for read/write/edit
            from pi_cli.modes.acp.file_ops import bind_client_fs

            bind_client_fs(session, lambda: self._conn, handle.session_id, self._client_capabilities)
        extensions = session.extensions  # extensions' ctx.ui asks the same way
        if extensions is not None:
            from pi_cli.modes.acp.extension_ui import acp_extension_ui

            extensions.ui = acp_extension_ui(lambda: self._conn, handle.session_id)
        self._sessions[handle.session_id] = handle
        if session_path is None:
            # Announced after the response, so the client knows the session id first.
            asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self._announce(handle)))
        return handle

    async def _announce(self, handle: AcpSession) -> None:
        """Commands the client can offer in its ``/`` menu (templates, skills, compact)."""
        commands = [{"name": "compact", "description": "Summarise older turns to free context"}]
        for command in handle.session.get_commands():
            commands.append({"name": str(command["name"]), "description": str(command.get("description") or "")})
        await self._send(
            handle.session_id, {"sessionUpdate": "available_commands_update", "availableCommands": commands}
        )

    def _session_state(self, handle: AcpSession) -> dict[str, Any]:
        return {
            "modes": config_options.mode_state(handle.session),
            "configOptions": config_options.config_options(handle.session),
        }

    async def _send(self, session_id: str, update: Update) -> None:
        notification = SessionNotification.model_validate({"sessionId": session_id, "update": update})
        await self._conn.session_update(session_id=session_id, update=notification.update)
