"""Settings, auth.json, keybindings and the agent-dir paths: files on disk read into plain
values. Imports nothing else of pi_cli, so every layer may use it.
"""
