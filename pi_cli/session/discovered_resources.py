"""Skills and prompt templates that extensions contribute at start-up (``resources_discover``).

The paths come from the handlers' ``{skillPaths, promptPaths}`` answers (files or folders;
relative ones from the cwd). They load as ``--skill`` / ``--prompt-template`` paths do and join
the session's resources after the ones it started with: a name already taken keeps its first
owner and the newcomer is a diagnostic line. The caller rebuilds the system prompt afterwards
(skills are listed there), and ``/name`` expansion and ``get_commands`` see the templates at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.resources.loader import Resources


def add_resource_paths(resources: Resources, skill_paths: Sequence[str], prompt_paths: Sequence[str]) -> list[str]:
    """Load ``skill_paths`` and ``prompt_paths`` into ``resources``; returns problem lines."""
    diagnostics: list[str] = []
    if skill_paths:
        from pi_cli.resources.skills import load_skills

        skills, problems = load_skills(resources.cwd, resources.agent_dir, skill_paths, include_defaults=False)
        diagnostics += problems
        taken = {skill.name for skill in resources.skills}
        for skill in skills:
            if skill.name in taken:
                diagnostics.append(f'{skill.file_path}: skill name "{skill.name}" is taken, keeping the first one')
                continue
            resources.skills.append(skill)
            taken.add(skill.name)
    if prompt_paths:
        from pi_cli.resources.prompt_templates import load_prompt_templates

        templates = load_prompt_templates(
            resources.cwd, resources.agent_dir, prompt_paths, include_defaults=False, diagnostics=diagnostics
        )
        taken = {template.name for template in resources.templates}
        for template in templates:
            if template.name in taken:
                diagnostics.append(
                    f'{template.file_path}: prompt template "{template.name}" is taken, keeping the first one'
                )
                continue
            resources.templates.append(template)
            taken.add(template.name)
    return diagnostics
