"""Summarising old context away: the context budget (token estimates, when to compact), cut
points, the summariser request and its prompts, and branch summaries for /tree.
"""
