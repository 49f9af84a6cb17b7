"""History transform for replay (spec §2.1) and outgoing sanitising."""

from __future__ import annotations

from typing import Any

from pi_cli.ai.sanitize import encode_body, strip_surrogates
from pi_cli.ai.transform import IMAGE_PLACEHOLDER, NO_RESULT_TEXT, transform_messages
from pi_cli.ai.transport.provider_common import safe_tool_id

MODEL: Any = {"id": "m1", "provider": "p1", "api": "openai-completions", "input": ["text"]}
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}


def _assistant(content: list[Any], model: str = "m1", stop: str = "toolUse") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "p1",
        "model": model,
        "usage": {},
        "stopReason": stop,
        "timestamp": 0,
    }


def test_images_become_one_placeholder_for_text_models() -> None:
    user = {"role": "user", "content": [{"type": "text", "text": "see"}, IMAGE, IMAGE], "timestamp": 0}
    out = transform_messages([user], MODEL)  # type: ignore[list-item]
    assert out[0]["content"] == [{"type": "text", "text": "see"}, {"type": "text", "text": IMAGE_PLACEHOLDER}]
    assert user["content"][1] is IMAGE  # input untouched


def test_foreign_thinking_becomes_text_and_ids_normalised() -> None:
    call = {"type": "toolCall", "id": "call|item/1", "name": "ls", "arguments": {}, "thoughtSignature": "s"}
    foreign = _assistant(
        [
            {"type": "thinking", "thinking": "deep", "thinkingSignature": "x"},
            {"type": "thinking", "thinking": "[Reasoning redacted]", "redacted": True},
            call,
        ],
        model="other",
    )
    result = {
        "role": "toolResult",
        "toolCallId": "call|item/1",
        "toolName": "ls",
        "content": [],
        "isError": False,
        "timestamp": 0,
    }
    out = transform_messages([foreign, result], MODEL, lambda i: safe_tool_id(i, 40))  # type: ignore[list-item]
    assert out[0]["content"] == [
        {"type": "text", "text": "deep"},
        {"type": "toolCall", "id": "call", "name": "ls", "arguments": {}},
    ]
    assert out[1]["toolCallId"] == "call"


def test_same_model_keeps_signed_thinking() -> None:
    own = _assistant([{"type": "thinking", "thinking": "", "thinkingSignature": "sig"}], stop="stop")
    assert transform_messages([own], MODEL)[0] is own  # type: ignore[list-item]


def test_errored_turns_dropped_and_missing_results_synthesised() -> None:
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}
    broken = _assistant([{"type": "toolCall", "id": "c9", "name": "x", "arguments": {}}], stop="error")
    orphan = {"role": "toolResult", "toolCallId": "c9", "toolName": "x", "content": [], "isError": True, "timestamp": 0}
    messages = [_assistant([call]), {"role": "user", "content": "next", "timestamp": 0}, broken, orphan]
    out = transform_messages(messages, MODEL)  # type: ignore[arg-type]
    assert [m["role"] for m in out] == ["assistant", "toolResult", "user"]
    assert out[1]["toolCallId"] == "c1" and out[1]["isError"] is True
    assert out[1]["content"] == [{"type": "text", "text": NO_RESULT_TEXT}]
    trailing = transform_messages([_assistant([call])], MODEL)  # type: ignore[list-item]
    assert trailing[-1]["role"] == "toolResult"


def test_surrogates_removed_emoji_kept() -> None:
    assert strip_surrogates("a\ud800b\udfffc 😀") == "abc 😀"
    assert encode_body({"t": "x\ud83d y 😀"}) == '{"t":"x y 😀"}'.encode()


def test_tool_id_sanitising() -> None:
    assert safe_tool_id("toolu_01ABC", 64) == "toolu_01ABC"
    assert safe_tool_id("fc_1|resp item", 40) == "fc_1"
    assert safe_tool_id("a.b:c" * 20, 40) == ("a_b_c" * 8)
