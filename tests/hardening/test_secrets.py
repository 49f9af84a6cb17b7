"""Secrets: API keys from the environment, auth.json and models.json never leave their source.

One scenario drives pi_cli through print, json and rpc modes (success paths, server errors that
quote the key and the auth headers back, session export) with a distinct fake key in each source,
then scans every byte pi_cli wrote — stdout, stderr, session files, the export, anything else in
the test's directories — for any of the keys. Plus: auth.json is created 0600, and the redaction
helper hides ``authorization``/``x-api-key`` headers and ``key=`` query parameters.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import httpx
from cli.pi_harness import PiEnv, RpcClient

from pi_cli.ai.transport.http_client import error_text
from pi_cli.ai.transport.http_errors import format_http_error, redact
from pi_cli.config.auth import AuthStore

from .faults import FAST, FakeLLMServer, finish, make_env, run_prompt, server

__all__ = ["server"]

# Shapes no generic pattern would catch: only exact-value redaction can hide them.
ENV_KEY = "ENVSECRETgroq4c1e5b7d9f"
AUTH_KEY = "AUTHSECRETor2d8e4f6a0c"
MODELS_KEY = "MODELSSECRETfake9b1d3f5e"
KEYS = (ENV_KEY, AUTH_KEY, MODELS_KEY)
ROUTER_MODEL = "openrouter/anthropic/claude-sonnet-4.5"


def _echoing_error(status: int, key: str) -> dict[str, object]:
    """A server error that quotes the credentials back, as some proxies do."""
    message = f"Invalid credentials {key}. Request headers: authorization: Bearer {key}, x-api-key: {key}"
    return {"status": status, "body": {"error": {"message": message}}}


def _setup(tmp_path: Path, server: FakeLLMServer) -> PiEnv:
    env = make_env(tmp_path, server, FAST)
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["apiKey"] = MODELS_KEY
    models["providers"]["groq"] = {"baseUrl": server.openai_base_url}
    models["providers"]["openrouter"] = {"baseUrl": server.openai_base_url}
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    AuthStore(env.agent_dir / "auth.json").set_api_key("openrouter", AUTH_KEY)
    env.env["GROQ_API_KEY"] = ENV_KEY
    return env


def _scan(env: PiEnv, outputs: list[str]) -> None:
    written: dict[str, bytes] = {f"output {i}": text.encode() for i, text in enumerate(outputs)}
    for path in env.root.rglob("*"):
        if path.is_file() and path.name not in ("models.json", "auth.json"):  # the keys' own homes
            written[str(path)] = path.read_bytes()
    assert any("sessions" in name for name in written), "no session file was written"
    leaks = [(name, key) for name, data in written.items() for key in KEYS if key.encode() in data]
    assert leaks == []


def test_no_key_reaches_any_output_or_file(tmp_path: Path, server: FakeLLMServer) -> None:
    env = _setup(tmp_path, server)
    outputs: list[str] = []
    # print mode: success with the models.json key, then an error that echoes the auth.json key
    server.add_turns([{"text": "printed answer"}])
    result = env.run("-p", "hello")
    assert result.returncode == 0 and "printed answer" in result.stdout
    outputs += [result.stdout, result.stderr]
    server.add_turns([_echoing_error(401, AUTH_KEY)])
    result = env.run("--model", ROUTER_MODEL, "-p", "hello", model=False)
    assert result.returncode == 1 and '401: {"message":"Invalid credentials' in result.stderr
    outputs += [result.stdout, result.stderr]
    # json mode with the env key, and a 500 that echoes it
    server.add_turns([{"text": "json answer"}, _echoing_error(500, ENV_KEY)])
    result = env.run("--model", "groq/llama-3.3-70b-versatile", "--mode", "json", "one", "two", model=False)
    # json exits 1 when its last answer is an error (README, "Where pi_cli differs")
    assert result.returncode == 1 and "json answer" in result.stdout
    outputs += [result.stdout, result.stderr]
    # rpc: state, models, an echoing error, messages, stats, export
    server.add_turns([_echoing_error(400, MODELS_KEY), {"text": "rpc answer"}])
    client = RpcClient(env)
    try:
        for command in ({"type": "get_state"}, {"type": "get_available_models"}):
            assert client.request(command)["success"]
        run_prompt(client, "fails")
        run_prompt(client, "works")
        for command in (
            {"type": "get_messages"},
            {"type": "get_session_stats"},
            {"type": "export_html", "outputPath": str(env.root / "export.html")},
        ):
            assert client.request(command)["success"], command
    finally:
        code, stderr = finish(client)
    assert code == 0, stderr
    outputs += [b.decode(errors="replace") for b in client.raw] + [stderr]
    assert (env.root / "export.html").is_file()
    sent = {r["headers"].get("authorization") for r in server.requests}
    assert {f"Bearer {key}" for key in KEYS} <= sent  # each key really was in play
    _scan(env, outputs)


def test_auth_json_is_created_0600(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "auth.json"
    AuthStore(path).set_api_key("openai", "k-123456")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    AuthStore(path).set_api_key("anthropic", "k-654321")  # rewriting keeps it private
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_redaction_of_headers_and_query_keys() -> None:
    text = (
        "POST https://generativelanguage.googleapis.com/v1/models?alt=sse&key=AIzaQUERYSECRET123 failed; "
        'headers {"authorization": "Bearer tok-HEADERSECRET-1", "x-api-key": "xk-HEADERSECRET-2"} '
        "Authorization: Bearer tok-HEADERSECRET-3 X-Api-Key: xk-HEADERSECRET-4 api_key=QSECRET5"
    )
    cleaned = redact(text)
    for secret in ("QUERYSECRET", "HEADERSECRET-1", "HEADERSECRET-2", "HEADERSECRET-3", "HEADERSECRET-4", "QSECRET5"):
        assert secret not in cleaned, cleaned
    assert "alt=sse" in cleaned and "generativelanguage" in cleaned  # the rest stays readable
    body = json.dumps({"error": {"message": "bad key x-api-key: sk-abcdefghijklmnop1234 (authorization=foo)"}})
    message = format_http_error(403, body, "anthropic", style="anthropic", secrets=["unused"])
    assert "sk-abcdefghijklmnop1234" not in message and "foo" not in message and message.startswith("403 ")


def test_connection_error_text_redacts_the_url_key() -> None:
    request = httpx.Request("POST", "https://example.invalid/v1/x?key=URLSECRET42&alt=sse")
    exc = httpx.ConnectError("connection refused for https://example.invalid/v1/x?key=URLSECRET42", request=request)
    message = error_text(exc, "google", secrets=["URLSECRET42"])
    assert "URLSECRET42" not in message and message.startswith("Connection error.")


def test_oauth_tokens_never_reach_any_output_or_file(tmp_path: Path, server: FakeLLMServer) -> None:
    """A Claude login whose access token has expired: pi_cli refreshes it (a new access and refresh
    token), uses it, meets an error that quotes it back; none of the four tokens is written anywhere."""
    env = make_env(tmp_path, server, FAST)
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["anthropic"] = {"baseUrl": server.anthropic_base_url}
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    issued = server.oauth.issue_tokens()
    record = {"type": "oauth", "access": issued["access_token"], "refresh": issued["refresh_token"], "expires": 0}
    AuthStore(env.agent_dir / "auth.json").set_record("anthropic", record)
    env.env["PI_OAUTH_BASE_URL"] = server.base_url
    server.add_turns([{"text": "subscription answer"}])
    result = env.run("--model", "anthropic/claude-sonnet-4-5", "-p", "hello", model=False)
    assert result.returncode == 0, result.stderr
    fresh = json.loads((env.agent_dir / "auth.json").read_text())["anthropic"]
    tokens = {record["access"], record["refresh"], fresh["access"], fresh["refresh"]}
    assert len(tokens) == 4 and server.oauth.grants["refresh_token"] == 1
    assert server.requests[-1]["headers"]["authorization"] == f"Bearer {fresh['access']}"
    server.add_turns([_echoing_error(401, fresh["access"])])
    failed = env.run("--model", "anthropic/claude-sonnet-4-5", "-p", "again", model=False)
    assert failed.returncode == 1 and "401" in failed.stderr
    written = [result.stdout, result.stderr, failed.stdout, failed.stderr]
    for path in env.root.rglob("*"):
        if path.is_file() and path.name not in ("auth.json", "auth.json.lock"):
            written.append(path.read_bytes().decode(errors="replace"))
    assert [t for t in tokens for text in written if t in text] == []


GEMINI_KEY = "GEMINISECRET7a1c3e5f9b"
OPENAI_KEY = "OPENAISECRET2b4d6f8a0c"


def test_responses_and_gemini_keys_never_reach_any_output_or_file(tmp_path: Path, server: FakeLLMServer) -> None:
    """The built-in ``openai`` (Responses) and ``google`` (Gemini) providers, keys from the environment."""
    env = make_env(tmp_path, server, FAST)
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["openai"] = {"baseUrl": server.openai_base_url}
    models["providers"]["google"] = {"baseUrl": server.google_base_url}
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    env.env["GEMINI_API_KEY"] = GEMINI_KEY
    env.env["OPENAI_API_KEY"] = OPENAI_KEY
    outputs: list[str] = []
    for model, key in (("openai/gpt-5.4", OPENAI_KEY), ("google/gemini-2.5-pro", GEMINI_KEY)):
        server.add_turns([{"thinking": "hm", "text": f"answer from {model}"}, _echoing_error(400, key)])
        result = env.run("--model", model, "--thinking", "low", "--mode", "json", "one", "two", model=False)
        assert result.returncode == 1, result.stderr  # the last answer is the echoed error
        assert f"answer from {model}" in result.stdout and "Invalid credentials" in result.stdout
        outputs += [result.stdout, result.stderr]
    paths = [r["path"] for r in server.requests]
    assert paths[0] == "/v1/responses" and paths[2].startswith("/v1beta/models/gemini-2.5-pro:streamGenerateContent")
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {OPENAI_KEY}"
    assert server.requests[2]["headers"]["x-goog-api-key"] == GEMINI_KEY
    assert server.requests[0]["body"]["reasoning"] == {"effort": "low", "summary": "auto"}
    written = {f"output {i}": text.encode() for i, text in enumerate(outputs)}
    written.update({str(p): p.read_bytes() for p in env.root.rglob("*") if p.is_file() and p.name != "models.json"})
    assert any("sessions" in name for name in written)
    assert [
        (name, key) for name, data in written.items() for key in (GEMINI_KEY, OPENAI_KEY) if key.encode() in data
    ] == []
