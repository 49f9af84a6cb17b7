"""One call that gathers everything the system prompt and the input expansion need.

``load_resources`` discovers context files, skills and prompt templates, resolves the base
replacement (``--system-prompt`` text or file, else ``.pi/SYSTEM.md``, else ``<agentDir>/SYSTEM.md``)
and the appended text (``--append-system-prompt`` values, text or files, else one
``APPEND_SYSTEM.md``: the project's if present, otherwise the global one). The returned
:class:`Resources` then builds the prompt, expands ``/skill:name`` and ``/template`` input, and
lists the commands for RPC ``get_commands``. Problems never raise: they become one-line
``diagnostics`` for the caller to show.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from pi_cli.config.paths import agent_dir as default_agent_dir
from pi_cli.resources.context_files import ContextFile, load_context_files
from pi_cli.resources.prompt_templates import PromptTemplate, expand_prompt_template, load_prompt_templates
from pi_cli.resources.skills import Skill, expand_skill_command, load_skills
from pi_cli.resources.system_prompt import build_system_prompt

__all__ = ["Resources", "load_resources", "resolve_prompt_input"]

SYSTEM_FILE = "SYSTEM.md"
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"


@dataclass(slots=True)
class Resources:
    """Loaded prompt resources. ``system_md`` is the base replacement text (None → our default);
    ``append_system_md`` the texts appended after it; ``*_path`` say which file supplied them."""

    cwd: str
    agent_dir: str
    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    templates: list[PromptTemplate] = field(default_factory=list)
    system_md: str | None = None
    append_system_md: list[str] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    enable_skill_commands: bool = True
    system_md_path: str | None = None
    append_system_md_path: str | None = None
    # root folder of an installed pi package → (its source, its scope), for ``sourceInfo``
    package_origins: dict[str, tuple[str, str]] = field(default_factory=dict)

    def build_system_prompt(
        self,
        tools: Sequence[str],
        now: datetime | date | None = None,
        *,
        tool_snippets: Mapping[str, str] | None = None,
        tool_guidelines: Mapping[str, Sequence[str]] | None = None,
    ) -> str:
        """The full system prompt for the active ``tools`` (see :func:`build_system_prompt`)."""
        return build_system_prompt(
            self.cwd,
            tools,
            custom_prompt=self.system_md,
            append=self.append_system_md,
            context_files=self.context_files,
            skills=self.skills,
            now=now,
            tool_snippets=tool_snippets,
            tool_guidelines=tool_guidelines,
        )

    def expand_input(self, text: str, errors: list[str] | None = None) -> str:
        """Expand user input as pi does before sending: ``/skill:name args`` (when skill commands
        are enabled), then ``/template args``. Other text is returned unchanged."""
        if self.enable_skill_commands:
            expanded = expand_skill_command(text, self.skills, errors)
            if expanded is not text:
                return expanded
        return expand_prompt_template(text, self.templates)

    def commands(self) -> list[dict[str, Any]]:
        """Templates and skill commands in RPC ``get_commands`` shape (pi 0.73.1's ``sourceInfo``)."""
        out: list[dict[str, Any]] = []
        for template in self.templates:
            entry: dict[str, Any] = {
                "name": template.name,
                "source": "prompt",
                "sourceInfo": self._source_info(template.file_path, template.source, template.base_dir),
            }
            if template.description:
                entry["description"] = template.description
            out.append(entry)
        if self.enable_skill_commands:
            for skill in self.skills:
                out.append(
                    {
                        "name": f"skill:{skill.name}",
                        "description": skill.description,
                        "source": "skill",
                        "sourceInfo": self._source_info(skill.file_path, skill.source, skill.base_dir),
                    }
                )
        return out

    def _source_info(self, path: str, source: str, base_dir: str) -> dict[str, str]:
        """pi's ``sourceInfo``; a package's resources name the package (``origin: "package"``)."""
        for root, (package, scope) in self.package_origins.items():
            if path.startswith(root.rstrip(os.sep) + os.sep):
                return {"path": path, "source": package, "scope": scope, "origin": "package", "baseDir": root}
        return _source_info(path, source, base_dir)


def _source_info(path: str, source: str, base_dir: str) -> dict[str, str]:
    scope = {"user": "user", "project": "project"}.get(source, "temporary")
    return {"path": path, "source": "local", "scope": scope, "origin": "top-level", "baseDir": base_dir}


def resolve_prompt_input(value: str, cwd: str, what: str, diagnostics: list[str]) -> str:
    """``value`` itself, or the content of the file it names (relative to ``cwd``, ``~`` allowed).

    An existing but unreadable file leaves a warning and falls back to the text, as pi does.
    """
    try:
        candidate = os.path.join(cwd, os.path.expanduser(value))
        is_file = os.path.isfile(candidate)
    except (OSError, ValueError):  # NUL bytes or an over-long "path" are plainly text
        return value
    if not is_file:
        return value
    try:
        with open(candidate, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError as exc:
        diagnostics.append(f"Could not read {what} file {candidate}: {exc.strerror or exc}")
        return value


def _first_existing(*paths: str) -> str | None:
    return next((path for path in paths if os.path.isfile(path)), None)


def _setting(settings_like: Any, *names: str) -> Any:
    """Read a setting from a mapping or an object (pydantic model), trying each spelling."""
    if settings_like is None:
        return None
    for name in names:
        if isinstance(settings_like, Mapping):
            if name in settings_like:
                return settings_like[name]
        elif hasattr(settings_like, name):
            return getattr(settings_like, name)
    return None


def _string_list(value: Any, label: str, diagnostics: list[str]) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return list(value)
    diagnostics.append(f"settings: {label} must be a list of paths; ignored")
    return []


def _resolve_against(raw: str, base: str) -> str:
    return os.path.abspath(os.path.join(base, os.path.expanduser(raw.strip())))


def _file_setting_paths(settings_file: str, key: str) -> list[str] | None:
    """The ``key`` path list of one settings file, each entry resolved against the file's folder.

    pi resolves a settings entry against the scope it came from: ``<agentDir>`` for the global
    file, ``<cwd>/.pi`` for the project file, which is the folder holding each file. Returns None
    when the file or key is absent; an unreadable or invalid file counts as absent (the settings
    loader reports it).
    """
    try:
        with open(settings_file, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, list):
        return None
    base = os.path.dirname(settings_file)
    return [_resolve_against(item, base) for item in value if isinstance(item, str) and item.strip()]


def _settings_paths(
    key: str, cwd: str, agent_dir: str, settings_like: Any, diagnostics: list[str]
) -> tuple[list[str], list[str]]:
    """(project, user) entries for ``key``; in-memory settings count as project-level when the
    settings files contribute nothing (an SDK caller or a test handing settings over directly)."""
    project = _file_setting_paths(os.path.join(cwd, ".pi", "settings.json"), key)
    user = _file_setting_paths(os.path.join(agent_dir, "settings.json"), key)
    if project is None and user is None:
        fallback = _string_list(_setting(settings_like, key), key, diagnostics)
        return [_resolve_against(item, cwd) for item in fallback], []
    return project or [], user or []


def load_resources(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str] | None = None,
    settings_like: Any = None,
    no_context_files: bool = False,
    *,
    no_skills: bool = False,
    no_prompt_templates: bool = False,
    skill_paths: Sequence[str] = (),
    prompt_template_paths: Sequence[str] = (),
    system_prompt: str | None = None,
    append_system_prompt: Sequence[str] = (),
    home: str | None = None,
    project_trusted: bool = True,
    package_paths: Mapping[str, Sequence[str]] | None = None,
    package_origins: Mapping[str, tuple[str, str]] | None = None,
) -> Resources:
    """Discover and resolve every prompt resource for ``cwd``.

    ``agent_dir`` defaults to :func:`pi_cli.config.paths.agent_dir`. ``settings_like`` is the
    merged settings (a mapping or the pydantic ``Settings``); ``enableSkillCommands: false`` turns
    ``/skill:`` expansion off. The ``skills`` and ``prompts`` path lists are read from each
    settings file on its own (project entries relative to ``<cwd>/.pi``, global ones to the agent
    dir, as pi resolves them); only when neither file has them are ``settings_like``'s lists used.
    ``no_*`` switch discovery off (``-nc``, ``--no-skills``, ``--no-prompt-templates``); explicit
    ``skill_paths`` and ``prompt_template_paths`` still load. ``system_prompt`` /
    ``append_system_prompt`` are the CLI values, each text or a file path.
    ``project_trusted=False`` (project trust declined, :mod:`pi_cli.permissions.trust`) skips the
    protected project resources: ``.pi/SYSTEM.md``, ``.pi/APPEND_SYSTEM.md``, project skills
    (``.pi/skills``, ``.agents/skills``) and prompts, and the project settings' path lists.
    AGENTS.md / CLAUDE.md still load (as pi).
    ``package_paths`` are the skill and prompt paths of installed pi packages, keyed
    ``"<scope>_<kind>"`` (``user_skills``, ``project_prompts``, …); they load after the settings
    entries of their scope and, like them, not with discovery off. ``package_origins`` maps each
    package's root folder to its (source, scope) for ``sourceInfo``.
    """
    if agent_dir is None:
        agent_dir = default_agent_dir()
    cwd_abs = os.path.abspath(os.path.expanduser(os.fspath(cwd)))
    agent_abs = os.path.abspath(os.path.expanduser(os.fspath(agent_dir)))
    diagnostics: list[str] = []

    context = [] if no_context_files else load_context_files(cwd_abs, agent_abs, diagnostics=diagnostics)

    packaged = package_paths or {}
    project_skills, user_skills = _settings_paths("skills", cwd_abs, agent_abs, settings_like, diagnostics)
    project_skills = [*project_skills, *packaged.get("project_skills", ())]
    user_skills = [*user_skills, *packaged.get("user_skills", ())]
    skills, skill_problems = load_skills(
        cwd_abs,
        agent_abs,
        skill_paths,
        project_settings_paths=project_skills,
        user_settings_paths=user_skills,
        include_defaults=not no_skills,
        home=home,
        include_project=project_trusted,
    )
    diagnostics.extend(skill_problems)

    project_prompts, user_prompts = _settings_paths("prompts", cwd_abs, agent_abs, settings_like, diagnostics)
    project_prompts = [*project_prompts, *packaged.get("project_prompts", ())]
    user_prompts = [*user_prompts, *packaged.get("user_prompts", ())]
    templates = load_prompt_templates(
        cwd_abs,
        agent_abs,
        prompt_template_paths,
        project_settings_paths=project_prompts,
        user_settings_paths=user_prompts,
        include_defaults=not no_prompt_templates,
        diagnostics=diagnostics,
        include_project=project_trusted,
    )

    project_pi = os.path.join(cwd_abs, ".pi")
    system_md: str | None = None
    system_path: str | None = None
    if system_prompt:
        system_md = resolve_prompt_input(system_prompt, cwd_abs, "system prompt", diagnostics)
    else:
        project_system = [os.path.join(project_pi, SYSTEM_FILE)] if project_trusted else []
        system_path = _first_existing(*project_system, os.path.join(agent_abs, SYSTEM_FILE))
        if system_path is not None:
            system_md = resolve_prompt_input(system_path, cwd_abs, "system prompt", diagnostics)

    append_texts: list[str] = []
    append_path: str | None = None
    cli_appends = [value for value in append_system_prompt if value]
    if cli_appends:
        append_texts = [
            resolve_prompt_input(value, cwd_abs, "append system prompt", diagnostics) for value in cli_appends
        ]
    else:
        project_append = [os.path.join(project_pi, APPEND_SYSTEM_FILE)] if project_trusted else []
        append_path = _first_existing(*project_append, os.path.join(agent_abs, APPEND_SYSTEM_FILE))
        if append_path is not None:
            append_texts = [resolve_prompt_input(append_path, cwd_abs, "append system prompt", diagnostics)]

    enable = _setting(settings_like, "enableSkillCommands", "enable_skill_commands")
    return Resources(
        cwd=cwd_abs,
        agent_dir=agent_abs,
        context_files=context,
        skills=skills,
        templates=templates,
        system_md=system_md,
        append_system_md=append_texts,
        diagnostics=diagnostics,
        enable_skill_commands=enable is not False,
        system_md_path=system_path,
        append_system_md_path=append_path,
        package_origins=dict(package_origins or {}),
    )
