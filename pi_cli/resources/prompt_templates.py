"""Prompt templates: Markdown files that ``/name args`` expands into a full prompt (pi's format).

Locations (non-recursive ``*.md``; the file stem is the command name), in pi's precedence — on a
name collision the first wins and the loser is reported:

1. project settings ``prompts`` entries (files or directories), then ``<cwd>/.pi/prompts/``;
2. global settings ``prompts`` entries, then ``<agentDir>/prompts/``;
3. explicit ``--prompt-template`` paths (loaded even when discovery is off).

Frontmatter is optional: ``description`` (else the first non-empty body line, cut at 60 chars
with ``...``) and ``argument-hint``. Arguments are split on whitespace with ``'`` / ``"`` quoting
and substituted into ``$1 … $N``, ``$@`` / ``$ARGUMENTS`` (all, space-joined), ``${@:N}`` (from
the N-th on) and ``${@:N:L}`` (L of them). Substitution is one pass over the template, so text
inside an argument is never substituted again.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pi_cli.resources.frontmatter import read_frontmatter_file

__all__ = [
    "PromptTemplate",
    "TemplateSource",
    "expand_prompt_template",
    "load_prompt_templates",
    "parse_command_args",
    "substitute_args",
]

TemplateSource = Literal["user", "project", "path"]
_DESCRIPTION_LIMIT = 60
_PLACEHOLDER_RE = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}|\$(\d+)|\$ARGUMENTS|\$@")
_COMMAND_RE = re.compile(r"^/(\S+)(?:\s+([\s\S]*))?$")


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """A loaded template; ``content`` is the body without frontmatter."""

    name: str
    description: str
    content: str
    file_path: str
    source: TemplateSource
    argument_hint: str | None = None

    @property
    def base_dir(self) -> str:
        return os.path.dirname(self.file_path)


def parse_command_args(text: str) -> list[str]:
    """Split ``text`` into arguments like a shell would, minus escapes.

    Whitespace separates; ``'…'`` or ``"…"`` groups (quotes removed, the other quote kind kept
    literally inside); an unterminated quote runs to the end. Empty results (``""``) are dropped,
    as in pi.
    """
    args: list[str] = []
    current: list[str] = []
    quote: str | None = None
    for ch in text:
        if quote is not None:
            if ch == quote:
                quote = None
            else:
                current.append(ch)
        elif ch in ("'", '"'):
            quote = ch
        elif ch.isspace():
            if current:
                args.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        args.append("".join(current))
    return args


def substitute_args(content: str, args: Sequence[str]) -> str:
    """Fill the placeholders of ``content`` from ``args`` (see the module doc); missing → ""."""
    joined = " ".join(args)

    def replace(match: re.Match[str]) -> str:
        start_text, length_text, position = match.group(1), match.group(2), match.group(3)
        if position is not None:
            index = int(position) - 1
            return args[index] if 0 <= index < len(args) else ""
        if start_text is not None:
            start = max(int(start_text) - 1, 0)  # ${@:0} means "from the first", like bash
            if length_text is not None:
                return " ".join(args[start : start + int(length_text)])
            return " ".join(args[start:])
        return joined

    return _PLACEHOLDER_RE.sub(replace, content)


def _describe(meta: dict[str, object], body: str) -> str:
    described = meta.get("description")
    if isinstance(described, str) and described:
        return described
    first = next((line for line in body.split("\n") if line.strip()), "")
    if len(first) > _DESCRIPTION_LIMIT:
        return first[:_DESCRIPTION_LIMIT] + "..."
    return first


def _load_template(path: str, source: TemplateSource, diagnostics: list[str]) -> PromptTemplate | None:
    parsed = read_frontmatter_file(path, "prompt template", diagnostics)
    if parsed is None:
        return None
    meta, body = parsed
    hint = meta.get("argument-hint")
    return PromptTemplate(
        name=os.path.basename(path)[: -len(".md")],
        description=_describe(meta, body),
        content=body,
        file_path=path,
        source=source,
        argument_hint=hint if isinstance(hint, str) and hint else None,
    )


def _load_dir(directory: str, source: TemplateSource, diagnostics: list[str]) -> list[PromptTemplate]:
    try:
        names = sorted(entry.name for entry in os.scandir(directory))
    except OSError:
        return []
    found: list[PromptTemplate] = []
    for name in names:
        path = os.path.join(directory, name)
        if name.endswith(".md") and os.path.isfile(path):
            template = _load_template(path, source, diagnostics)
            if template is not None:
                found.append(template)
    return found


def load_prompt_templates(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str],
    extra_paths: Iterable[str] = (),
    *,
    project_settings_paths: Sequence[str] = (),
    user_settings_paths: Sequence[str] = (),
    include_defaults: bool = True,
    diagnostics: list[str] | None = None,
    include_project: bool = True,
) -> list[PromptTemplate]:
    """All prompt templates for ``cwd``, unique by name, in precedence order.

    ``extra_paths`` (``--prompt-template``) and the settings entries are files or directories;
    relative ones are taken from cwd, ``~`` is expanded (callers resolve settings entries against
    their own settings file's base first). Problems (unreadable file, bad frontmatter, missing path,
    name collision) are appended to ``diagnostics`` as ``<path>: <problem>`` lines when given.
    ``include_project=False`` (project trust declined) skips project entries and ``.pi/prompts``.
    """
    cwd_abs = os.path.abspath(os.path.expanduser(os.fspath(cwd)))
    agent_abs = os.path.abspath(os.path.expanduser(os.fspath(agent_dir)))
    sink: list[str] = diagnostics if diagnostics is not None else []
    ordered: list[PromptTemplate] = []

    def add_path(raw: str, source: TemplateSource = "path") -> None:
        path = os.path.abspath(os.path.join(cwd_abs, os.path.expanduser(raw.strip())))
        if os.path.isdir(path):
            ordered.extend(_load_dir(path, source, sink))
        elif os.path.isfile(path) and path.endswith(".md"):
            template = _load_template(path, source, sink)
            if template is not None:
                ordered.append(template)
        elif not os.path.exists(path):
            sink.append(f"{path}: prompt template path does not exist")
        else:
            sink.append(f"{path}: prompt template path is not a markdown file")

    if include_defaults and include_project:
        for raw in project_settings_paths:
            add_path(raw, "project")
        ordered.extend(_load_dir(os.path.join(cwd_abs, ".pi", "prompts"), "project", sink))
    if include_defaults:
        for raw in user_settings_paths:
            add_path(raw, "user")
        ordered.extend(_load_dir(os.path.join(agent_abs, "prompts"), "user", sink))
    for raw in extra_paths:
        add_path(raw)

    unique: dict[str, PromptTemplate] = {}
    for template in ordered:
        winner = unique.get(template.name)
        if winner is None:
            unique[template.name] = template
        elif os.path.realpath(winner.file_path) != os.path.realpath(template.file_path):
            sink.append(f'{template.file_path}: prompt name "/{template.name}" collision, keeping {winner.file_path}')
    return list(unique.values())


def expand_prompt_template(text: str, templates: Sequence[PromptTemplate]) -> str:
    """Expand ``/name args`` when ``name`` is a known template; any other text comes back unchanged."""
    if not text.startswith("/"):
        return text
    match = _COMMAND_RE.match(text)
    if not match:
        return text
    template = next((candidate for candidate in templates if candidate.name == match.group(1)), None)
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(match.group(2) or ""))
