"""ACP agent mode (``pi --mode acp``): the Agent Client Protocol v1 over stdin/stdout.

Editors (Zed, JetBrains, toad, Neovim/Emacs clients) host pi_cli through it. Built on the
``agent-client-protocol`` SDK; each ACP session is one :class:`~pi_cli.session.AgentSession`.
"""
