"""One fast pass over a huge session file: validate each message line, keep a few facts of it.

Decoding every line of a 57 MB session with :mod:`json` builds millions of Python objects just to
throw most of them away. pydantic-core (already a dependency, through pydantic) parses JSON in Rust
and builds only the fields a schema names: :func:`message_facts` checks that a message line is
well-formed JSON (all of it, so a damaged line is still reported when the file is opened) and
returns the *stub* the session keeps in memory instead of the message:

* ``role``; ``provider``/``model`` of assistant replies (the context restores the model from the
  last one); ``stopReason``; ``toolCallId`` of tool results (the TUI pairs them with their calls);
* ``usage``: the reply's token counts and ``cost.total`` (for session statistics);
* :data:`TOOL_CALLS`: how many ``toolCall`` blocks the reply has;
* :data:`CHILD_USAGE`: for a ``subagent`` tool result, its children's tokens and cost
  (:func:`pi_cli.store.stats.child_usage`), so statistics roll them up without the message;
* :data:`SPAN`: where the message's own JSON text is in the file (offset, length), so it can be
  read back, or copied out verbatim (``get_messages``), without the entry around it.

Keys starting with ``\\x00`` never reach the disk or a client: stubs are not messages.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

from pi_cli.store.stats import SUBAGENT_TOOL, child_usage

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator

SPAN = "\x00span"  # (offset, length) of the message's JSON text in the file
TOOL_CALLS = "\x00toolCalls"  # number of toolCall blocks in an assistant reply
CHILD_USAGE = "\x00childUsage"  # (tokens, cost) of a subagent result's children

# pi writes message entries as {"type","id","parentId","timestamp","message"} in that order.
_NO_ESCAPE = rb'"([^"\\\x00-\x1f]*)"'
MESSAGE_HEAD = re.compile(
    rb'\{\s*"type"\s*:\s*"message"\s*,\s*"id"\s*:\s*'
    + _NO_ESCAPE
    + rb'\s*,\s*"parentId"\s*:\s*(null|'
    + _NO_ESCAPE
    + rb')\s*,\s*"timestamp"\s*:\s*'
    + _NO_ESCAPE
    + rb'\s*,\s*"message"\s*:\s*'
)


@cache
def _validators() -> tuple[SchemaValidator, SchemaValidator]:
    """(message facts, any JSON object): built on first use, so that opening a small session (and
    start-up) never imports pydantic-core."""
    from pydantic_core import SchemaValidator
    from pydantic_core import core_schema as cs

    def optional(schema: cs.CoreSchema) -> cs.TypedDictField:
        return cs.typed_dict_field(schema, required=False)

    anything = cs.any_schema()
    usage = cs.typed_dict_schema(
        {
            **{key: optional(anything) for key in ("input", "output", "cacheRead", "cacheWrite")},
            "cost": optional(cs.nullable_schema(cs.typed_dict_schema({"total": optional(anything)}))),
        }
    )
    block = cs.typed_dict_schema({"type": optional(anything)})
    # Only a subagent result's ``details.results[].usage`` is built; other details are skipped.
    child = cs.typed_dict_schema({"usage": optional(anything)})
    details = cs.typed_dict_schema(
        {"results": optional(cs.union_schema([cs.list_schema(child), cs.none_schema()], mode="left_to_right"))}
    )
    message = cs.typed_dict_schema(
        {
            "role": cs.typed_dict_field(cs.str_schema(strict=True)),
            **{key: optional(anything) for key in ("provider", "model", "stopReason", "toolCallId", "toolName")},
            "details": optional(cs.union_schema([details, cs.none_schema(), anything], mode="left_to_right")),
            "usage": optional(cs.nullable_schema(usage)),
            # A string content (user messages may have one) fails the list and is skipped here.
            "content": optional(cs.union_schema([cs.list_schema(block), anything], mode="left_to_right")),
        }
    )
    return SchemaValidator(message), SchemaValidator(cs.typed_dict_schema({}))


def message_facts(text: bytes, offset: int) -> dict[str, Any] | None:
    """The stub for a message whose JSON text is ``text`` (at ``offset`` in the file); None when
    the text is not one well-formed JSON object with a string ``role`` (the caller then parses the
    line the careful way, which reports what is wrong with it)."""
    try:
        facts: dict[str, Any] = _validators()[0].validate_json(text)
    except ValueError:  # pydantic-core's ValidationError is a ValueError
        return None
    # The validator's dict is the stub: it holds only the fields named above that the message has.
    content = facts.pop("content", None)
    details = facts.pop("details", None)
    if facts["role"] == "assistant" and isinstance(content, list):
        facts[TOOL_CALLS] = [block.get("type") for block in content].count("toolCall")
    elif facts["role"] == "toolResult":
        name = facts.pop("toolName", None)
        children = child_usage(details) if name == SUBAGENT_TOOL else None
        if children is not None:
            facts[CHILD_USAGE] = children
    facts[SPAN] = (offset, len(text))
    return facts


def is_json_object(text: bytes) -> bool:
    """True when ``text`` is one well-formed JSON object (checked without building it)."""
    try:
        _validators()[1].validate_json(text)
    except ValueError:
        return False
    return True
