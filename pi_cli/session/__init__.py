"""The AgentSession runtime that every mode drives: its factory and options, events, queues,
retries, user bash runs, auto-compaction, model switching and session-file operations.
Files, models, resources and compaction live in their own packages below it.
"""
