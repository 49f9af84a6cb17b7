"""Shared hypothesis settings: bounded so each fuzz test takes seconds, never flaky on time."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
FUZZ_SMALL = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
