"""CITATION.cff: valid Citation File Format 1.2.0 (checked against the schema in
tests/project/data/, written from the CFF specification), naming the package's version."""

from __future__ import annotations

import datetime
import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import mortyenv

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((Path(__file__).parent / "data" / "cff-1.2.0.schema.json").read_text())


def as_text(value: Any) -> Any:
    """YAML's dates as the strings CFF's schema expects (as cffconvert reads them)."""
    if isinstance(value, dict):
        return {k: as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_text(v) for v in value]
    return value.isoformat() if isinstance(value, datetime.date) else value


def citation() -> dict[str, Any]:
    return as_text(yaml.safe_load((ROOT / "CITATION.cff").read_text()))


def test_the_citation_file_is_valid_cff_1_2_0() -> None:
    jsonschema.Draft7Validator(SCHEMA).validate(citation())


def test_it_names_the_package_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert citation()["version"] == project["version"] == mortyenv.__version__


@pytest.mark.parametrize(
    "change",
    [
        {"title": None},  # a required key missing
        {"cff-version": "1.1.0"},
        {"authors": [{"given": "A"}]},  # neither a person's nor an entity's keys
        {"date-released": "12 May 2026"},
        {"citation": "x"},  # not a CFF key
    ],
)
def test_the_schema_refuses_what_cff_refuses(change: dict[str, Any]) -> None:
    data = citation() | change
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(SCHEMA).validate(data)
