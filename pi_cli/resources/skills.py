"""Skills: on-demand instruction packages the model loads with ``read`` (pi's Agent Skills support).

A skill is a directory holding ``SKILL.md``; its frontmatter gives ``name`` (≤ 64 chars of
``a-z 0-9 -``, no leading/trailing/double hyphen, expected to equal the directory name) and a
required ``description`` (≤ 1024 chars); ``disable-model-invocation: true`` keeps it out of the
system prompt so only ``/skill:name`` can use it. Rule violations are warnings and the skill still
loads; a missing description drops it.

Locations, in pi's precedence (on a name collision the first wins and the loser is reported):

1. project settings ``skills`` entries (files or directories);
2. project: ``<cwd>/.pi/skills/``, then ``.agents/skills/`` in the cwd and each parent up to the
   git repository root (or the filesystem root outside a repository);
3. global settings ``skills`` entries;
4. global: ``<agentDir>/skills/``, then ``~/.agents/skills/``;
5. explicit paths (``--skill``), which load even when discovery is off.

In ``.pi/skills`` and ``<agentDir>/skills`` loose ``*.md`` files at the top level are skills too;
in ``.agents/skills`` directories they are ignored. A directory that has a ``SKILL.md`` is not
searched further; dot-entries, ``node_modules`` and whatever ``.gitignore`` / ``.ignore`` /
``.fdignore`` files exclude are skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pi_cli.resources.frontmatter import read_frontmatter_file, strip_frontmatter
from pi_cli.resources.ignore_rules import IgnoreRule, is_ignored, read_ignore_rules

__all__ = [
    "MAX_DESCRIPTION_LENGTH",
    "MAX_NAME_LENGTH",
    "Skill",
    "SkillSource",
    "expand_skill_command",
    "format_skills_for_prompt",
    "load_skills",
    "load_skills_from_dir",
]

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
_NAME_RE = re.compile(r"^[a-z0-9-]+$")
SKILL_COMMAND_PREFIX = "/skill:"

SkillSource = Literal["user", "project", "path"]


@dataclass(frozen=True, slots=True)
class Skill:
    """A loaded skill. ``file_path`` is the absolute SKILL.md (or loose .md); ``base_dir`` its folder."""

    name: str
    description: str
    file_path: str
    base_dir: str
    source: SkillSource
    disable_model_invocation: bool = False


def _name_problems(name: str, dir_name: str | None) -> list[str]:
    problems: list[str] = []
    if dir_name is not None and name != dir_name:
        problems.append(f'name "{name}" does not match parent directory "{dir_name}"')
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"name exceeds {MAX_NAME_LENGTH} characters ({len(name)})")
    if not _NAME_RE.match(name):
        problems.append("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def _load_skill_file(path: str, source: SkillSource, diagnostics: list[str], *, explicit: bool = False) -> Skill | None:
    """Read one skill file; warnings go to ``diagnostics`` as ``<path>: <problem>`` lines.

    A ``SKILL.md`` or a file named explicitly (``--skill file.md``) is a declared skill and gets
    every warning; a loose ``.md`` met during a walk without a description is silently not a skill.
    """
    is_skill_md = os.path.basename(path) == "SKILL.md"
    is_declared = is_skill_md or explicit
    parsed = read_frontmatter_file(path, "skill file", diagnostics)
    if parsed is None:
        return None
    meta = parsed[0]

    description = meta.get("description")
    has_description = isinstance(description, str) and description.strip() != ""
    if not has_description:
        # A loose .md without a description is just a Markdown file, not a broken skill.
        if is_declared:
            diagnostics.append(f"{path}: description is required")
        return None
    assert isinstance(description, str)
    if len(description) > MAX_DESCRIPTION_LENGTH:
        diagnostics.append(f"{path}: description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len(description)})")

    base_dir = os.path.dirname(path)
    dir_name = os.path.basename(base_dir)
    meta_name = meta.get("name")
    # Without a name a SKILL.md is named after its folder (as in pi); a loose .md after its own
    # file stem, since every loose file shares the same folder.
    fallback = dir_name if is_skill_md else os.path.splitext(os.path.basename(path))[0]
    name = meta_name if isinstance(meta_name, str) and meta_name else fallback
    for problem in _name_problems(name, dir_name if is_skill_md else None):
        diagnostics.append(f"{path}: {problem}")

    return Skill(
        name=name,
        description=description,
        file_path=path,
        base_dir=base_dir,
        source=source,
        disable_model_invocation=meta.get("disable-model-invocation") is True,
    )


def _is_dir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except OSError:
        return False


def load_skills_from_dir(
    directory: str,
    source: SkillSource,
    diagnostics: list[str],
    *,
    include_root_files: bool = True,
) -> list[Skill]:
    """Skills under ``directory`` (see the module doc for the walk's rules); missing dir → [].

    ``.gitignore`` / ``.ignore`` / ``.fdignore`` files met on the way exclude what they name.
    """
    found: list[Skill] = []
    _Walk(directory, source, diagnostics, found).visit(directory, include_root_files, [])
    return found


@dataclass(slots=True)
class _Walk:
    root: str
    source: SkillSource
    diagnostics: list[str]
    found: list[Skill]
    visiting: set[str] = field(default_factory=set)

    def _relative(self, path: str) -> str:
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def _take(self, path: str) -> None:
        skill = _load_skill_file(path, self.source, self.diagnostics)
        if skill is not None:
            self.found.append(skill)

    def visit(self, directory: str, include_root_files: bool, inherited: list[IgnoreRule]) -> None:
        try:
            real = os.path.realpath(directory)
            if real in self.visiting:  # a symlink loop must not recurse forever
                return
            self.visiting.add(real)
            entries = sorted(entry.name for entry in os.scandir(directory))
        except OSError:
            return
        rules = inherited + read_ignore_rules(directory, self.root)
        skill_md = os.path.join(directory, "SKILL.md")
        if "SKILL.md" in entries and os.path.isfile(skill_md):
            if not is_ignored(self._relative(skill_md), False, rules):
                self._take(skill_md)
            return
        for name in entries:
            if name.startswith(".") or name == "node_modules":
                continue
            full = os.path.join(directory, name)
            is_dir = _is_dir(full)
            if is_ignored(self._relative(full), is_dir, rules):
                continue
            if is_dir:
                self.visit(full, False, rules)
            elif include_root_files and name.endswith(".md") and os.path.isfile(full):
                self._take(full)


def _git_root(start: str) -> str | None:
    current = start
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _agents_skill_dirs(cwd: str, home: str) -> list[str]:
    """``.agents/skills`` in cwd and its parents up to the git root (the user's own one excluded)."""
    user_dir = os.path.join(home, ".agents", "skills")
    stop = _git_root(cwd)
    dirs: list[str] = []
    current = cwd
    while True:
        candidate = os.path.join(current, ".agents", "skills")
        if candidate != user_dir:
            dirs.append(candidate)
        parent = os.path.dirname(current)
        if current == stop or parent == current:
            return dirs
        current = parent


def _resolve(path: str, cwd: str) -> str:
    return os.path.abspath(os.path.join(cwd, os.path.expanduser(path.strip())))


def load_skills(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str],
    extra_paths: Iterable[str] = (),
    *,
    project_settings_paths: Sequence[str] = (),
    user_settings_paths: Sequence[str] = (),
    include_defaults: bool = True,
    home: str | None = None,
    include_project: bool = True,
) -> tuple[list[Skill], list[str]]:
    """All skills for ``cwd`` with one-line diagnostics (``<path>: <problem>``).

    ``extra_paths`` are explicit ``--skill`` files or directories (relative to cwd, ``~`` allowed)
    and load even with ``include_defaults=False``. ``project_settings_paths`` and
    ``user_settings_paths`` are the ``skills`` entries of the project and global settings, already
    resolved by the caller against their own base (relative ones fall back to cwd); they are
    skipped with discovery off, as pi's ``--no-skills`` does. ``home`` overrides ``~`` for
    ``~/.agents/skills`` (tests). The same file reached twice (symlinks) is taken once.
    ``include_project=False`` (project trust declined) skips the project's settings entries,
    ``.pi/skills`` and the project ``.agents/skills`` directories.
    """
    cwd_abs = os.path.abspath(os.path.expanduser(os.fspath(cwd)))
    agent_abs = os.path.abspath(os.path.expanduser(os.fspath(agent_dir)))
    home_dir = home if home is not None else os.path.expanduser("~")
    diagnostics: list[str] = []
    collisions: list[str] = []
    by_name: dict[str, Skill] = {}
    real_paths: set[str] = set()

    def add(skills: Iterable[Skill]) -> None:
        for skill in skills:
            real = os.path.realpath(skill.file_path)
            if real in real_paths:
                continue
            winner = by_name.get(skill.name)
            if winner is not None:
                collisions.append(f'{skill.file_path}: skill name "{skill.name}" collision, keeping {winner.file_path}')
                continue
            by_name[skill.name] = skill
            real_paths.add(real)

    def add_path(raw: str, source: SkillSource) -> None:
        path = _resolve(raw, cwd_abs)
        if not os.path.exists(path):
            diagnostics.append(f"{path}: skill path does not exist")
        elif os.path.isdir(path):
            add(load_skills_from_dir(path, source, diagnostics))
        elif path.endswith(".md"):
            skill = _load_skill_file(path, source, diagnostics, explicit=True)
            if skill is not None:
                add([skill])
        else:
            diagnostics.append(f"{path}: skill path is not a markdown file")

    if include_defaults and include_project:
        for raw in project_settings_paths:
            add_path(raw, "project")
        add(load_skills_from_dir(os.path.join(cwd_abs, ".pi", "skills"), "project", diagnostics))
        for directory in _agents_skill_dirs(cwd_abs, home_dir):
            add(load_skills_from_dir(directory, "project", diagnostics, include_root_files=False))
    if include_defaults:
        for raw in user_settings_paths:
            add_path(raw, "user")
        add(load_skills_from_dir(os.path.join(agent_abs, "skills"), "user", diagnostics))
        user_agents = os.path.join(home_dir, ".agents", "skills")
        add(load_skills_from_dir(user_agents, "user", diagnostics, include_root_files=False))
    for raw in extra_paths:
        add_path(raw, "path")
    return list(by_name.values()), diagnostics + collisions


def _escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def format_skills_for_prompt(skills: Sequence[Skill]) -> str:
    """The system-prompt block listing model-invocable skills ("" when there are none).

    Starts with a blank line so it can be appended straight after the preceding section.
    """
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "\n\nThe skills below carry specialised instructions for particular kinds of task.",
        "When a task fits a skill's description, load that skill's file with the read tool before you start.",
        "Paths inside a skill file are relative to the skill's directory (the folder holding the file); "
        "turn them into absolute paths when you pass them to tools.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines.append("  <skill>")
        lines.append(f"    <name>{_escape_xml(skill.name)}</name>")
        lines.append(f"    <description>{_escape_xml(skill.description)}</description>")
        lines.append(f"    <location>{_escape_xml(skill.file_path)}</location>")
        lines.append("  </skill>")
    lines.append("</available_skills>")
    return "\n".join(lines)


def expand_skill_command(text: str, skills: Sequence[Skill], errors: list[str] | None = None) -> str:
    """Expand ``/skill:name [args]`` into pi's ``<skill …>`` block; anything else is returned as is.

    The block is ``<skill name="n" location="p">\\nReferences are relative to <dir>.\\n\\n<body>\\n
    </skill>`` with the body read fresh from disk (frontmatter removed), followed by ``\\n\\n<args>``
    when arguments were given. An unknown skill leaves the text unchanged; an unreadable file does
    too, with a one-line message appended to ``errors`` when given.
    """
    if not text.startswith(SKILL_COMMAND_PREFIX):
        return text
    rest = text[len(SKILL_COMMAND_PREFIX) :]
    parts = rest.split(maxsplit=1)
    if not parts:
        return text
    name = parts[0]
    args = parts[1].strip() if len(parts) > 1 else ""
    skill = next((candidate for candidate in skills if candidate.name == name), None)
    if skill is None:
        return text
    try:
        with open(skill.file_path, encoding="utf-8", errors="replace") as handle:
            body = strip_frontmatter(handle.read()).strip()
    except OSError as exc:
        if errors is not None:
            errors.append(f"Could not read skill {skill.name} at {skill.file_path}: {exc.strerror or exc}")
        return text
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block
