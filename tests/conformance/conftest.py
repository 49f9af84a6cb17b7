from __future__ import annotations

from collections.abc import Iterator

import pytest

from pi_cli.ai.providers.faux import FauxProvider, register_faux_provider


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider()
    yield provider
    provider.unregister()
