"""Widgets of the interactive mode (each module holds one concept)."""
