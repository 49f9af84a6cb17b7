"""``settings.json``: pi's settings, global (``<agentDir>/settings.json``) merged with project
(``<cwd>/.pi/settings.json``; project wins, nested objects merged key by key).

Attributes are snake_case; the JSON keys are pi's camelCase names (each field's alias). At
runtime ``settings.defaultModel`` also reads (and assigning it sets) ``settings.default_model``.
Keys this model does not know are kept (``model_extra``) and written back untouched. The
objects are :class:`~pi_cli.config.record.Record`, not pydantic models (pydantic: cost a third of start-up).

Bad input never raises out of :func:`load_settings`: a file that is not valid JSON is ignored
(defaults for that file) and a field of the wrong type falls back to its default; each problem
becomes one line naming the file and the line/column or field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pi_cli.config import paths
from pi_cli.config.json_file import write_json_atomic
from pi_cli.config.record import Record, RecordError, factory

ThinkingLevelSetting = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]


class _Section(Record):
    """Base of every settings object: camelCase JSON keys, unknown keys kept, snake or camel input."""


class CompactionSettings(_Section):
    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000


class BranchSummarySettings(_Section):
    reserve_tokens: int = 16384
    skip_prompt: bool = False


class ProviderRetrySettings(_Section):
    timeout_ms: int | None = None
    max_retries: int | None = None
    max_retry_delay_ms: int = 60000


class RetrySettings(_Section):
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000  # backoff 2 s, 4 s, 8 s
    max_delay_ms: int = 60000  # longest server-requested delay honoured before giving up
    provider: ProviderRetrySettings = factory(ProviderRetrySettings)


class TerminalSettings(_Section):
    show_images: bool = True
    image_width_cells: int | None = None
    clear_on_shrink: bool = False
    show_terminal_progress: bool | None = None


class ImageSettings(_Section):
    auto_resize: bool = True
    block_images: bool = False


class ThinkingBudgets(_Section):
    minimal: int | None = None
    low: int | None = None
    medium: int | None = None
    high: int | None = None


class MarkdownSettings(_Section):
    code_block_indent: str = "  "


class PermissionSettings(_Section):
    """``"permissions"``: the approval mode and allow/deny/ask rule patterns (pi_cli's addition;
    see :mod:`pi_cli.permissions.rules` for the pattern syntax)."""

    mode: Literal["auto", "ask", "read-only"] = "auto"
    allow: list[str] = factory(list)
    deny: list[str] = factory(list)
    ask: list[str] = factory(list)


class AcpSettings(_Section):
    """``"acp"`` (pi_cli's addition): ``clientFs`` lets read/write/edit go through the editor's
    ``fs/*`` methods when the client offers them, so unsaved buffers are what the agent sees."""

    client_fs: bool = True


class SubagentSettings(_Section):
    """``"subagents"`` (pi_cli's addition): ``enabled`` adds the ``subagent`` tool to the default
    tools (``--tools …,subagent`` names it explicitly); ``maxConcurrency`` children run at once."""

    enabled: bool = False
    max_concurrency: int = 4


class Settings(_Section):
    """Every setting pi 0.73.1 documents, with pi's defaults (plus ``ui``, pi_cli's TUI choice)."""

    last_changelog_version: str | None = None
    default_provider: str | None = None
    default_model: str | None = None
    default_thinking_level: ThinkingLevelSetting | None = None  # None → "medium" (pi's default)
    # pi 1.6: per-model levels keyed "provider/modelId"; they win over the default on a model switch.
    model_thinking_levels: dict[str, ThinkingLevelSetting] | None = None
    transport: Literal["sse", "websocket", "auto"] = "sse"
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    theme: str = "dark"
    compaction: CompactionSettings = factory(CompactionSettings)
    branch_summary: BranchSummarySettings = factory(BranchSummarySettings)
    retry: RetrySettings = factory(RetrySettings)
    hide_thinking_block: bool = False
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    npm_command: list[str] | None = None
    quiet_startup: bool = False
    collapse_changelog: bool = False
    enable_install_telemetry: bool | None = None
    packages: list[str | dict[str, Any]] = factory(list)
    extensions: list[str] = factory(list)
    skills: list[str] = factory(list)
    prompts: list[str] = factory(list)
    themes: list[str] = factory(list)
    enable_skill_commands: bool = True
    terminal: TerminalSettings = factory(TerminalSettings)
    images: ImageSettings = factory(ImageSettings)
    enabled_models: list[str] | None = None
    double_escape_action: Literal["fork", "tree", "none"] = "tree"
    tree_filter_mode: Literal["default", "no-tools", "user-only", "labeled-only", "all"] = "default"
    thinking_budgets: ThinkingBudgets | None = None
    editor_padding_x: int = 0
    autocomplete_max_visible: int = 5
    show_hardware_cursor: bool = False
    markdown: MarkdownSettings = factory(MarkdownSettings)
    session_dir: str | None = None
    warnings: dict[str, Any] = factory(dict)
    ui: Literal["tui", "inline"] = "tui"
    default_project_trust: Literal["ask", "always", "never"] = "ask"  # user-level file only
    permissions: PermissionSettings = factory(PermissionSettings)
    acp: AcpSettings = factory(AcpSettings)
    subagents: SubagentSettings = factory(SubagentSettings)

    def to_json(self) -> dict[str, Any]:
        """The settings as pi's JSON object (camelCase keys, unknown keys included)."""
        return self.to_dict()


class SettingsError(ValueError):
    """A settings file could not be written; the message is one line naming the file."""


# --- reading --------------------------------------------------------------------------------


def _read_json_object(path: Path) -> tuple[dict[str, Any], str | None]:
    """The file's top-level object, or ``({}, error line)``; a missing or blank file is ``{}``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"Could not read {path}: {exc.__class__.__name__}: {exc}; using defaults for this file"
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return {}, None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, (
            f"Invalid JSON in {path}: line {exc.lineno}, column {exc.colno}: {exc.msg}; using defaults for this file"
        )
    except RecursionError:  # absurdly deep nesting; json raises this instead of a decode error
        return {}, f"Invalid JSON in {path}: nested too deeply; using defaults for this file"
    if not isinstance(data, dict):
        return {}, f"Invalid settings in {path}: expected a JSON object, got {type(data).__name__}; using defaults"
    return data, None


def read_settings_file(path: Path) -> tuple[dict[str, Any], str | None]:
    """One settings file's top-level object as written (no validation, nothing merged), or
    ``({}, error line)``; for parts that must tell the user file from the project file (the
    sandbox, where a project may only narrow the user's choice)."""
    return _read_json_object(path)


def _drop_path(data: dict[str, Any], loc: tuple[int | str, ...]) -> bool:
    """Remove the value at ``loc`` (stopping at the last key before a list index); True if removed."""
    keys: list[str] = []
    for part in loc:
        if not isinstance(part, str):
            break
        keys.append(part)
    node: Any = data
    for key in keys[:-1]:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    if keys and isinstance(node, dict) and keys[-1] in node:
        del node[keys[-1]]
        return True
    return False


def _field_name(loc: tuple[int | str, ...]) -> str:
    """``("packages", 0, "str")`` → ``packages[0]``: the path a user can find in the file."""
    name = ""
    for part in loc:
        if isinstance(part, int):
            return f"{name}[{part}]"
        name = f"{name}.{part}" if name else part
    return name or "(root)"


def _validated(data: dict[str, Any], path: Path, errors: list[str]) -> dict[str, Any]:
    """``data`` with every invalid field removed (one error line each), so the defaults apply."""
    cleaned: dict[str, Any] = json.loads(json.dumps(data))
    for _ in range(20):  # each pass removes at least one field; settings objects are small
        try:
            Settings.from_dict(cleaned)
            return cleaned
        except RecordError as exc:
            removed = False
            reported: set[str] = set()
            for loc, message in exc.errors:
                field = _field_name(loc)
                if field not in reported:
                    reported.add(field)
                    errors.append(f"Invalid setting in {path}: {field}: {message}; using the default")
                removed = _drop_path(cleaned, loc) or removed
            if not removed:
                break
    errors.append(f"Invalid settings in {path}; using defaults for this file")
    return {}


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``override`` on top of ``base``: nested objects merge key by key, anything else replaces."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


# Settings a project file may not set: trust must be decided by the user, not by the folder.
USER_ONLY_KEYS = ("defaultProjectTrust",)


def _project_part(raw: dict[str, Any], trusted: bool) -> dict[str, Any]:
    """What the project file contributes: all but the user-only keys when the folder is trusted;
    only ``sessionDir`` when it is not (pi reads it before trust is resolved)."""
    if not trusted:
        return {"sessionDir": raw["sessionDir"]} if "sessionDir" in raw else {}
    return {key: value for key, value in raw.items() if key not in USER_ONLY_KEYS}


def load_settings(
    cwd: str | Path, agent_dir: Path | None = None, *, project_trusted: bool = True
) -> tuple[Settings, list[str]]:
    """Global settings merged with the project's; the second item lists one-line problems found.

    ``project_trusted=False`` (project trust declined) ignores ``.pi/settings.json`` except its
    ``sessionDir``; a project file never sets ``defaultProjectTrust``.
    """
    global_path = (agent_dir / "settings.json") if agent_dir is not None else paths.settings_path()
    project_path = paths.project_settings_path(Path(cwd))
    errors: list[str] = []
    merged: dict[str, Any] = {}
    for path in (global_path, project_path):
        raw, error = _read_json_object(path)
        if error and (project_trusted or path != project_path):
            errors.append(error)
        if path == project_path:
            raw = _project_part(raw, project_trusted)
        if raw:
            merged = deep_merge(merged, _validated(raw, path, errors))
    try:
        return Settings.from_dict(merged), errors
    except RecordError:  # each file was valid alone; a merge cannot normally break that
        errors.append("Merged settings are invalid; using defaults")
        return Settings(), errors


# --- writing --------------------------------------------------------------------------------


def _set_path(data: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = data
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    if value is None:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value


def save_setting(path: Path, key: str, value: Any) -> None:
    """Set ``key`` (pi's camelCase name; dots for nesting, e.g. ``compaction.enabled``) in ``path``.

    ``None`` removes the key. Other keys, known or not, are preserved. A file that is not valid JSON
    is left untouched and :class:`SettingsError` is raised, so a typo never costs the user the file.
    """
    raw, error = _read_json_object(path)
    if error:
        raise SettingsError(f"Not saving {key}: {error.split('; using')[0]}")
    _set_path(raw, key, value)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, raw)
    except OSError as exc:
        raise SettingsError(f"Could not write {path}: {exc.strerror or exc}") from exc


def save_global_setting(key: str, value: Any) -> None:
    """Set ``key`` in the global ``settings.json`` (see :func:`save_setting`)."""
    save_setting(paths.settings_path(), key, value)


def save_project_setting(cwd: str | Path, key: str, value: Any) -> None:
    """Set ``key`` in ``<cwd>/.pi/settings.json`` (see :func:`save_setting`)."""
    save_setting(paths.project_settings_path(Path(cwd)), key, value)
