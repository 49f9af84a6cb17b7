"""Settings, auth.json, keybindings and the agent-dir paths: files on disk read into plain
values, and the path-glob dialect of permission rules and ignore files. Imports nothing else of
pi_cli, so every layer may use it.
"""
