"""The instructions sent to the model when it summarises a conversation for compaction.

Kept apart from :mod:`pi_cli.compaction.compactor` because they are prose, not logic: the first
summary, the update of an earlier summary, and the summary of a split turn's first part.
"""

from __future__ import annotations

SUMMARIZATION_SYSTEM_PROMPT = (
    "You summarise conversations between a user and an AI coding assistant. Read the conversation "
    "and write a structured summary in exactly the requested format.\n\n"
    "Do not continue the conversation and do not answer any question in it. Output only the summary."
)

_SECTIONS = """## Goal
[{goal}]

## Constraints & Preferences
- [{constraints}]

## Progress
### Done
- [x] [{done}]

### In Progress
- [ ] [{in_progress}]

### Blocked
- [{blocked}]

## Key Decisions
- **[Decision]**: [{decisions}]

## Next Steps
1. [{next_steps}]

## Critical Context
- [{critical}]

Keep every section short. Keep file paths, function names and error messages exactly as written."""

# Each placeholder of _SECTIONS: what to write there in a first summary, and in an update.
_HINTS: dict[str, tuple[str, str]] = {
    "goal": (
        "What the user wants to achieve; list several goals if the session covered several tasks",
        "Keep the existing goals; add new ones if the task grew",
    ),
    "constraints": (
        'Constraints, preferences or requirements the user stated, or "(none)"',
        "Keep the existing ones; add newly found ones",
    ),
    "done": ("Finished tasks and changes", "Earlier finished items plus the newly finished ones"),
    "in_progress": ("Work under way", "Current work, updated"),
    "blocked": ("Anything preventing progress", "Current blockers; remove resolved ones"),
    "decisions": ("Short reason", "Short reason (keep earlier decisions, add new ones)"),
    "next_steps": ("What should happen next, in order", "Updated for the current state"),
    "critical": (
        'Data, examples or references needed to continue, or "(none)"',
        "Keep what matters, add what is new",
    ),
}

SUMMARIZATION_PROMPT = (
    "The messages above are the conversation to summarise. Write a structured checkpoint summary "
    "that another model can use to carry on the work.\n\nUse exactly this format:\n\n"
    + _SECTIONS.format(**{key: first for key, (first, _update) in _HINTS.items()})
)

UPDATE_SUMMARIZATION_PROMPT = (
    "The messages above are NEW messages to fold into the existing summary given in <previous-summary> "
    "tags.\n\nUpdate that summary. Rules:\n"
    "- KEEP everything still relevant from the previous summary\n"
    "- ADD the new progress, decisions and context\n"
    '- MOVE items from "In Progress" to "Done" once they are finished\n'
    '- REVISE "Next Steps" to match what was done\n'
    "- KEEP file paths, function names and error messages exactly\n"
    "- DROP what no longer matters\n\nUse exactly this format:\n\n"
    + _SECTIONS.format(**{key: update for key, (_first, update) in _HINTS.items()})
)

TURN_PREFIX_SUMMARIZATION_PROMPT = """This is the FIRST PART of a turn too large to keep whole.
The later part (the recent work) is kept.

Summarise this first part so the kept part makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Important decisions and work in this part]

## Context for Suffix
- [What is needed to understand the kept recent work]

Be brief; focus on what the kept part needs."""
