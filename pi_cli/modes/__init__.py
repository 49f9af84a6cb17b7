"""The ways pi_cli runs a session: print/json, RPC, ACP, the inline and the full-screen
(Textual) TUI. The only layer that may import a UI toolkit.
"""
