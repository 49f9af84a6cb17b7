"""The login flows pi_cli offers (the flows themselves import :mod:`pi_cli.oauth.flow`)."""

from __future__ import annotations

from pi_cli.oauth.flow import OAuthFlow


def list_flows() -> list[OAuthFlow]:
    """Every flow, in the order the login picker lists them."""
    from pi_cli.oauth.anthropic import AnthropicFlow
    from pi_cli.oauth.github_copilot import CopilotFlow
    from pi_cli.oauth.openai_codex import CodexFlow

    return [AnthropicFlow(), CodexFlow(), CopilotFlow()]


def get_flow(provider: str) -> OAuthFlow | None:
    """The flow that logs in to ``provider``, or None."""
    return next((flow for flow in list_flows() if flow.provider == provider), None)
