"""The agent loop: an Agent holding model, tools and transcript, one run of
model call → tool calls → results, steering/follow-up queues and argument validation.
"""
