"""Running shell commands for the ``bash`` tool and the user's ``!cmd``: the tool itself,
the process runner (process groups, abort, timeout) and bounded output collection.
"""
