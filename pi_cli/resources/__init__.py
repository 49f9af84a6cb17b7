"""What a session reads from disk to prompt the model: context files (AGENTS.md), skills,
prompt templates with their front matter and ignore rules, and the system prompt.
"""
