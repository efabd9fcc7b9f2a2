"""Shared fixtures of the Python tests: the repository's folders."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def examples() -> Path:
    """The repository's examples/ folder."""
    return REPO / "examples"
