"""The texts of queued steering and follow-up messages, as the UIs and RPC show them.

The Agent holds the queued messages themselves; this tracker keeps their texts so that
``queue_update{steering, followUp}`` events can list them, and drops a text when the agent
actually delivers it (a user ``message_start`` whose text matches, steering checked first).
"""

from __future__ import annotations

from typing import Any

from pi_cli.ai.types import ImageContent, now_ms
from pi_cli.store.entry_messages import user_text


class QueueTracker:
    """Texts of the queued steering and follow-up messages, oldest first."""

    __slots__ = ("follow_up", "steering")

    def __init__(self) -> None:
        self.steering: list[str] = []
        self.follow_up: list[str] = []

    def event(self) -> dict[str, Any]:
        return {"type": "queue_update", "steering": list(self.steering), "followUp": list(self.follow_up)}

    def enqueue(self, agent: Any, kind: str, text: str, images: list[ImageContent] | None) -> None:
        """Queue on ``agent`` (``kind`` is ``"steer"`` or ``"followUp"``) and remember the text."""
        content: list[Any] = [{"type": "text", "text": text}, *(images or [])]
        message = {"role": "user", "content": content, "timestamp": now_ms()}
        if kind == "steer":
            self.steering.append(text)
            agent.steer(message)
        else:
            self.follow_up.append(text)
            agent.follow_up(message)

    def clear(self, agent: Any) -> tuple[list[str], list[str]]:
        steering, follow_up = self.steering, self.follow_up
        self.steering, self.follow_up = [], []
        agent.clear_all_queues()
        return steering, follow_up

    def delivered(self, message: dict[str, Any]) -> bool:
        """Forget the text of a delivered user message; True when a queue changed."""
        if not (self.steering or self.follow_up) or message.get("role") != "user":
            return False
        text = user_text(message)
        for queue in (self.steering, self.follow_up):
            if text in queue:
                queue.remove(text)
                return True
        return False
