"""One module per wire format (Anthropic, OpenAI completions/responses/Codex, Gemini), plus the
scripted faux provider and the offline demo model.
"""
