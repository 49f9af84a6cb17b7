"""``pi.register_provider`` end to end: ``--model name/id`` at start-up, ``--list-models``, a bad
config reported in one line, and a provider with its own stream function."""

from __future__ import annotations

from pathlib import Path

from cli.pi_harness import PiEnv

PROVIDER = """
import os

def register(pi):
    pi.register_provider("corp", {
        "baseUrl": os.environ["CORP_URL"], "api": "openai-completions", "apiKey": "sk-corp",
        "headers": {"X-Corp": "yes"}, "models": [{"id": "corp-large", "name": "Corp Large"}],
    })
"""

OWN_STREAM = """
from pi_cli.ai.providers.faux import faux_assistant, faux_text, register_faux_provider

_faux = register_faux_provider(models=["x"])
_faux.set_responses([faux_assistant([faux_text("from my own stream")])])

def register(pi):
    pi.register_provider("mine", {"baseUrl": "http://127.0.0.1:9/", "apiKey": "k",
                                  "models": [{"id": "m1"}], "stream_simple": _faux.stream})
    pi.register_provider("broken", {"models": [{"id": "b"}]})
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_registered_provider_serves_model_flag_and_list(pi: PiEnv) -> None:
    assert pi.server is not None
    pi.env["CORP_URL"] = pi.server.openai_base_url
    ext = write(pi.root / "corp.py", PROVIDER)
    pi.server.add_turns([{"text": "corp answer"}])
    done = pi.run("-p", "-e", str(ext), "--model", "corp/corp-large", "hi", model=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "corp answer"
    request = pi.server.requests[-1]
    assert request["body"]["model"] == "corp-large"
    assert {k.lower(): v for k, v in request["headers"].items()}.get("x-corp") == "yes"
    listed = pi.run("-e", str(ext), "--list-models", "corp", model=False)
    assert listed.returncode == 0, listed.stderr
    assert "corp-large" in listed.stdout


def test_provider_with_its_own_stream_and_a_bad_config_line(pi: PiEnv) -> None:
    ext = write(pi.root / "mine.py", OWN_STREAM)
    done = pi.run("-p", "-e", str(ext), "--model", "mine/m1", "hi", model=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "from my own stream"
    broken = [line for line in done.stderr.splitlines() if "broken" in line]
    assert len(broken) == 1 and "baseUrl" in broken[0]
