"""Fixtures shared by the test suite."""

from __future__ import annotations

import pytest
from helpers import ENGINES  # tests/ is on sys.path (pytest's default rootdir-relative import)

from mortyenv import Ruleset


@pytest.fixture(scope="session")
def rules() -> Ruleset:
    return Ruleset.default()


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Run a rule test once on the reference Game and once on the BatchEngine."""
    return request.param
