"""Ask the user one question (pi's ``question`` example): a tool whose dialog is a custom component.

``pi -e example:question``. The model calls ``question`` with ``question`` and ``options``
(``{label, description?}``); the user moves with Up/Down and picks with Enter, or picks the last
entry, "Type something.", to write an answer in a one-line editor (Enter sends, Escape goes back
to the list); Escape on the list cancels. The result says what was chosen or written;
``render_call`` / ``render_result`` draw the call and the answer. In print, json and RPC the tool answers
that no UI is available, as pi.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.rendering import ExtensionTheme, Key, matches_key, visible_width, wrap_text_with_ansi
from pi_cli.extensions.rendering.line_editor import LineEditor

PARAMETERS = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "description": "The question to ask the user"},
        "options": {
            "type": "array",
            "description": "Options for the user to choose from",
            "items": {
                "type": "object",
                "properties": {
                    "label": {"type": "string", "description": "Display label for the option"},
                    "description": {"type": "string", "description": "Optional description shown below label"},
                },
                "required": ["label"],
            },
        },
    },
    "required": ["question", "options"],
}
OTHER = "Type something."


class QuestionDialog:
    """The list of options plus "Type something."; ``done`` gets ``{answer, was_custom, index}``
    or None (cancelled)."""

    def __init__(self, question: str, options: list[dict[str, Any]], tui: Any, theme: ExtensionTheme, done: Any):
        self.question = question
        self.options = [*options, {"label": OTHER, "is_other": True}]
        self.tui, self.theme, self.done = tui, theme, done
        self.index = 0
        self.editing = False
        self.editor = LineEditor(self._submit)
        self._cached: list[str] | None = None

    def _submit(self, value: str) -> None:
        if value.strip():
            self.done({"answer": value.strip(), "was_custom": True})
        else:  # an empty answer goes back to the list
            self.editing = False
            self.editor.set_text("")
            self.refresh()

    def refresh(self) -> None:
        self._cached = None
        self.tui.request_render()

    def handle_input(self, data: str) -> None:
        if self.editing:
            if matches_key(data, Key.escape):
                self.editing = False
                self.editor.set_text("")
            else:
                self.editor.handle_input(data)
            self.refresh()
            return
        if matches_key(data, Key.up):
            self.index = max(0, self.index - 1)
        elif matches_key(data, Key.down):
            self.index = min(len(self.options) - 1, self.index + 1)
        elif matches_key(data, Key.enter):
            chosen = self.options[self.index]
            if chosen.get("is_other"):
                self.editing = True
            else:
                self.done({"answer": chosen["label"], "was_custom": False, "index": self.index + 1})
                return
        elif matches_key(data, Key.escape):
            self.done(None)
            return
        self.refresh()

    def render(self, width: int) -> list[str]:
        if self._cached is not None:
            return self._cached
        th, width = self.theme, max(1, width)
        lines: list[str] = [th.fg("accent", "─" * width)]

        def add(prefix: str, text: str) -> None:
            room = width - visible_width(prefix)
            if room < 1:
                lines.extend(wrap_text_with_ansi(prefix + text, width))
                return
            for n, row in enumerate(wrap_text_with_ansi(text, room)):
                lines.append((prefix if n == 0 else " " * visible_width(prefix)) + row)

        add(" ", th.fg("text", self.question))
        lines.append("")
        for n, option in enumerate(self.options):
            selected, other = n == self.index, bool(option.get("is_other"))
            mark = " ✎" if other and self.editing else ""
            colour = "accent" if selected or (other and self.editing) else "text"
            add(th.fg("accent", "> ") if selected else "  ", th.fg(colour, f"{n + 1}. {option['label']}{mark}"))
            if option.get("description"):
                add("     ", th.fg("muted", str(option["description"])))
        if self.editing:
            lines.append("")
            add(" ", th.fg("muted", "Your answer:"))
            lines.extend(f" {row}" for row in self.editor.render(max(1, width - 2)))
        lines.append("")
        hint = "Enter to submit • Esc to go back" if self.editing else "↑↓ navigate • Enter to select • Esc to cancel"
        add(" ", th.fg("dim", hint))
        lines.append(th.fg("accent", "─" * width))
        self._cached = lines
        return lines

    def invalidate(self) -> None:
        self._cached = None


def _result(text: str, question: str, options: list[str], answer: str | None, custom: bool = False) -> dict[str, Any]:
    details: dict[str, Any] = {"question": question, "options": options, "answer": answer}
    if answer is not None:
        details["wasCustom"] = custom
    return {"content": [{"type": "text", "text": text}], "details": details}


async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> dict[str, Any]:
    question = str(params.get("question", ""))
    options = [o for o in params.get("options") or [] if isinstance(o, dict)]
    labels = [str(o.get("label", "")) for o in options]
    if ctx.mode not in ("tui", "inline"):  # the terminal front ends
        return _result("Error: UI not available (running in non-interactive mode)", question, labels, None)
    if not options:
        return _result("Error: No options provided", question, [], None)
    answer = await ctx.ui.custom(lambda tui, theme, kb, done: QuestionDialog(question, options, tui, theme, done))
    if not answer:
        return _result("User cancelled the selection", question, labels, None)
    if answer["was_custom"]:
        return _result(f"User wrote: {answer['answer']}", question, labels, answer["answer"], True)
    return _result(f"User selected: {answer['index']}. {answer['answer']}", question, labels, answer["answer"])


def render_call(args: dict[str, Any], theme: ExtensionTheme, context: Any) -> str:
    text = theme.fg("toolTitle", theme.bold("question ")) + theme.fg("muted", str(args.get("question", "")))
    options = args.get("options") if isinstance(args.get("options"), list) else []
    if options:
        labels = [str(o.get("label", "")) if isinstance(o, dict) else str(o) for o in options]
        numbered = ", ".join(f"{n}. {label}" for n, label in enumerate([*labels, OTHER], 1))
        text += "\n" + theme.fg("dim", f"  Options: {numbered}")
    return text


def render_result(result: dict[str, Any], options: Any, theme: ExtensionTheme, context: Any) -> str:
    details = result.get("details")
    if not isinstance(details, dict):
        content = result.get("content") or [{}]
        return str(content[0].get("text", "")) if isinstance(content[0], dict) else ""
    answer = details.get("answer")
    if answer is None:
        return theme.fg("warning", "Cancelled")
    if details.get("wasCustom"):
        return theme.fg("success", "✓ ") + theme.fg("muted", "(wrote) ") + theme.fg("accent", str(answer))
    labels = list(details.get("options") or [])
    shown = f"{labels.index(answer) + 1}. {answer}" if answer in labels else str(answer)
    return theme.fg("success", "✓ ") + theme.fg("accent", shown)


def register(pi: ExtensionAPI) -> None:
    pi.register_tool(
        {
            "name": "question",
            "label": "Question",
            "description": "Ask the user a question and let them pick from options. "
            "Use when you need user input to proceed.",
            "parameters": PARAMETERS,
            "execution_mode": "sequential",
            "execute": execute,
            "render_call": render_call,
            "render_result": render_result,
        }
    )
