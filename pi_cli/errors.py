"""The exception tree of pi_cli.

Every error a user can cause (bad flag, unknown model, missing key, unreadable file, bad RPC
input) is a :class:`PiError` whose ``str()`` is one line that names what went wrong and, where
possible, how to fix it. The CLI prints that line to stderr and exits with ``exit_code``; it never
shows a traceback for a ``PiError``. Anything else escaping to the top is a bug.

Imports nothing, so every layer (and the ``--version`` fast path) may use it.
"""

from __future__ import annotations


class PiError(Exception):
    """Base of every expected error. ``exit_code`` is what the CLI exits with."""

    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message} {hint}")


class UsageError(PiError):
    """A bad command line: unknown option, missing value, conflicting flags."""


class ConfigError(PiError):
    """An unreadable or invalid config file (settings.json, models.json, auth.json)."""


class ModelError(PiError):
    """Model selection failed: unknown provider or model, nothing configured."""


class MissingApiKeyError(ModelError):
    """No credential for the chosen model's provider. ``env_var`` names the variable to set."""

    def __init__(self, provider: str, env_var: str | None = None) -> None:
        fix = f"Set {env_var}, " if env_var else "Set the provider's API key environment variable, "
        super().__init__(
            f"No API key found for {provider}.",
            hint=fix + "pass --api-key, or add the key to auth.json.",
        )
        self.provider = provider
        self.env_var = env_var


class InputFileError(PiError):
    """An ``@file`` argument that does not exist or cannot be read."""


class SessionError(PiError):
    """Session lookup or storage failed (no match for --session, fork conflicts, ...)."""


class FeatureUnavailableError(PiError):
    """A feature whose implementation is not part of this build (e.g. extensions)."""


class AgentBusyError(PiError):
    """A prompt arrived while a run is active and no queueing behaviour was given."""

    def __init__(self) -> None:
        super().__init__(
            "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
        )


class BashBusyError(PiError):
    def __init__(self) -> None:
        super().__init__("A bash command is already running. Press Esc to cancel it first.")


class SandboxUnavailableError(PiError):
    """A sandbox was asked for (``--sandbox``, settings ``sandbox.mode``, ``/sandbox``) but this system
    cannot provide it (not Linux, no Landlock, or a Landlock too old for a requested feature). pi_cli
    never falls back to running tools unconfined; the message names what is missing."""
