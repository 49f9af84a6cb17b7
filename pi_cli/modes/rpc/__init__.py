"""``--mode rpc``: pi's JSONL protocol on stdin/stdout, its command handlers, dialogs for
extensions and the coalescing of streamed updates.
"""
