"""A todo list the model keeps (pi's ``todo`` example): a tool with its own renderers.

``pi -e example:todo``. The ``todo`` tool takes ``action`` (``list``, ``add`` with ``text``,
``toggle`` with ``id``, ``clear``). The list lives in the tool results' ``details``, not in a
file, so it follows the branch: on ``session_start`` and ``session_tree`` it is rebuilt from the
current branch's results. ``render_call`` draws ``todo add "text"`` and ``render_result`` the
outcome (a list shows 5 items collapsed, all expanded) in the theme's colours. ``/todos`` shows
the branch's list in a custom component (``ctx.ui.custom``) until Escape or Ctrl-C; outside the
TUI and inline mode it says it needs interactive mode, as pi.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.rendering import ExtensionTheme, matches_key, truncate_to_width

PARAMETERS = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["list", "add", "toggle", "clear"]},
        "text": {"type": "string", "description": "Todo text (for add)"},
        "id": {"type": "number", "description": "Todo ID (for toggle)"},
    },
    "required": ["action"],
}
COLLAPSED_ITEMS = 5


def _reply(
    text: str, action: str, todos: list[dict[str, Any]], next_id: int, error: str | None = None
) -> dict[str, Any]:
    details: dict[str, Any] = {"action": action, "todos": [dict(t) for t in todos], "nextId": next_id}
    if error:
        details["error"] = error
    return {"content": [{"type": "text", "text": text}], "details": details}


def _first_text(result: dict[str, Any]) -> str:
    content = result.get("content") or []
    first = content[0] if content else {}
    return str(first.get("text", "")) if isinstance(first, dict) and first.get("type") == "text" else ""


def render_call(args: dict[str, Any], theme: ExtensionTheme, context: Any) -> str:
    text = theme.fg("toolTitle", theme.bold("todo ")) + theme.fg("muted", str(args.get("action", "")))
    if args.get("text"):
        text += " " + theme.fg("dim", f'"{args["text"]}"')
    if args.get("id") is not None:
        text += " " + theme.fg("accent", f"#{args['id']}")
    return text


def render_result(result: dict[str, Any], options: Any, theme: ExtensionTheme, context: Any) -> str:
    details = result.get("details")
    if not isinstance(details, dict):
        return _first_text(result)
    if details.get("error"):
        return theme.fg("error", f"Error: {details['error']}")
    todos: list[dict[str, Any]] = list(details.get("todos") or [])
    action = details.get("action")
    if action == "list":
        if not todos:
            return theme.fg("dim", "No todos")
        lines = [theme.fg("muted", f"{len(todos)} todo(s):")]
        for todo in todos if options.expanded else todos[:COLLAPSED_ITEMS]:
            check = theme.fg("success", "✓") if todo["done"] else theme.fg("dim", "○")
            item = theme.fg("dim", todo["text"]) if todo["done"] else theme.fg("muted", todo["text"])
            lines.append(f"{check} {theme.fg('accent', '#' + str(todo['id']))} {item}")
        if not options.expanded and len(todos) > COLLAPSED_ITEMS:
            lines.append(theme.fg("dim", f"... {len(todos) - COLLAPSED_ITEMS} more"))
        return "\n".join(lines)
    if action == "add" and todos:
        added = todos[-1]
        number = theme.fg("accent", f"#{added['id']}")
        return theme.fg("success", "✓ Added ") + number + " " + theme.fg("muted", added["text"])
    if action == "toggle":
        return theme.fg("success", "✓ ") + theme.fg("muted", _first_text(result))
    if action == "clear":
        return theme.fg("success", "✓ ") + theme.fg("muted", "Cleared all todos")
    return theme.fg("error", _first_text(result))


class TodoListComponent:
    """The ``/todos`` view: the list with a completed count, closed by Escape or Ctrl-C. Its lines
    are kept per width (``invalidate`` drops them when the theme changes)."""

    def __init__(self, todos: list[dict[str, Any]], theme: ExtensionTheme, on_close: Any) -> None:
        self.todos = todos
        self.theme = theme
        self.on_close = on_close
        self._cached: tuple[int, list[str]] | None = None

    def handle_input(self, data: str) -> None:
        if matches_key(data, "escape") or matches_key(data, "ctrl+c"):
            self.on_close()

    def render(self, width: int) -> list[str]:
        if self._cached is not None and self._cached[0] == width:
            return self._cached[1]
        th = self.theme
        header = th.fg("borderMuted", "─" * 3) + th.fg("accent", " Todos ") + th.fg("borderMuted", "─" * (width - 10))
        body: list[str] = []
        if not self.todos:
            body.append(f"  {th.fg('dim', 'No todos yet. Ask the agent to add some!')}")
        else:
            done = sum(1 for t in self.todos if t["done"])
            body += [f"  {th.fg('muted', f'{done}/{len(self.todos)} completed')}", ""]
            for todo in self.todos:
                check = th.fg("success", "✓") if todo["done"] else th.fg("dim", "○")
                text = th.fg("dim", todo["text"]) if todo["done"] else th.fg("text", todo["text"])
                body.append(f"  {check} {th.fg('accent', '#' + str(todo['id']))} {text}")
        rows = ["", header, "", *body, "", f"  {th.fg('dim', 'Press Escape to close')}", ""]
        lines = [truncate_to_width(row, width) for row in rows]
        self._cached = (width, lines)
        return lines

    def invalidate(self) -> None:
        self._cached = None


def register(pi: ExtensionAPI) -> None:
    state: dict[str, Any] = {"todos": [], "next_id": 1}

    def reconstruct(event: dict[str, Any], ctx: Any) -> None:
        """The branch's last todo result decides the list (so branching restores it)."""
        state["todos"], state["next_id"] = [], 1
        for entry in ctx.session_manager.get_branch():
            message = entry.get("message") or {}
            if entry.get("type") != "message" or message.get("role") != "toolResult":
                continue
            details = message.get("details")
            if message.get("toolName") == "todo" and isinstance(details, dict):
                state["todos"] = [dict(t) for t in details.get("todos") or []]
                state["next_id"] = int(details.get("nextId") or 1)

    def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> dict[str, Any]:
        todos: list[dict[str, Any]] = state["todos"]
        action = params.get("action")
        if action == "list":
            text = "\n".join(f"[{'x' if t['done'] else ' '}] #{t['id']}: {t['text']}" for t in todos)
            return _reply(text or "No todos", "list", todos, state["next_id"])
        if action == "add":
            if not params.get("text"):
                return _reply("Error: text required for add", "add", todos, state["next_id"], "text required")
            todo = {"id": state["next_id"], "text": str(params["text"]), "done": False}
            state["next_id"] += 1
            todos.append(todo)
            return _reply(f"Added todo #{todo['id']}: {todo['text']}", "add", todos, state["next_id"])
        if action == "toggle":
            if params.get("id") is None:
                return _reply("Error: id required for toggle", "toggle", todos, state["next_id"], "id required")
            found = next((t for t in todos if t["id"] == params["id"]), None)
            if found is None:
                error = f"#{params['id']} not found"
                return _reply(f"Todo #{params['id']} not found", "toggle", todos, state["next_id"], error)
            found["done"] = not found["done"]
            done = "completed" if found["done"] else "uncompleted"
            return _reply(f"Todo #{found['id']} {done}", "toggle", todos, state["next_id"])
        if action == "clear":
            count = len(todos)
            state["todos"], state["next_id"] = [], 1
            return _reply(f"Cleared {count} todos", "clear", [], 1)
        error = f"unknown action: {action}"
        return _reply(f"Unknown action: {action}", "list", todos, state["next_id"], error)

    async def show(args: str, ctx: Any) -> None:
        if ctx.mode not in ("tui", "inline"):  # the terminal front ends
            ctx.ui.notify("/todos requires interactive mode", "error")
            return
        await ctx.ui.custom(lambda tui, theme, kb, done: TodoListComponent(state["todos"], theme, lambda: done()))

    pi.on("session_start", reconstruct)
    pi.on("session_tree", reconstruct)
    pi.register_tool(
        {
            "name": "todo",
            "label": "Todo",
            "description": "Manage a todo list. Actions: list, add (text), toggle (id), clear",
            "parameters": PARAMETERS,
            "execute": execute,
            "render_call": render_call,
            "render_result": render_result,
        }
    )
    pi.register_command("todos", show, "Show all todos on the current branch")
