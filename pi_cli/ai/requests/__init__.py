"""Request bodies for each provider wire format (pure functions, golden-tested), with the
compat flags of OpenAI-compatible servers and GitHub Copilot's request details.
"""
