"""What is sent to the provider (pi's ``provider-payload`` example).

``pi -e example:provider_payload``. Every request body of the conversation is appended as JSON to
``.pi/provider-payload.log`` in the working directory, just before it is sent
(``before_provider_request``), and the status of each answer follows it
(``after_provider_response``; headers are left out, they may carry account details). Set the
environment variable ``PI_PAYLOAD_TEMPERATURE`` (e.g. ``0``) and the example also replaces the
payload with one that asks for that temperature — a handler returning a dict replaces the body.
Works in every mode; requests an extension makes itself (``ctx.model_registry.complete``) are not
part of the conversation and are not logged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pi_cli.extensions import ExtensionAPI


def register(pi: ExtensionAPI) -> None:
    def log_file(ctx: Any) -> Path:
        path = Path(ctx.cwd) / ".pi" / "provider-payload.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def before(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        payload = event["payload"]
        with log_file(ctx).open("a", encoding="utf-8") as log:
            log.write(json.dumps(payload, indent=2) + "\n\n")
        temperature = os.environ.get("PI_PAYLOAD_TEMPERATURE")
        return None if temperature is None else {**payload, "temperature": float(temperature)}

    def after(event: dict[str, Any], ctx: Any) -> None:
        with log_file(ctx).open("a", encoding="utf-8") as log:
            log.write(f"# response status {event['status']}\n\n")

    pi.on("before_provider_request", before)
    pi.on("after_provider_response", after)
