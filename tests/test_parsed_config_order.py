"""PRM201: a part of data parsed from text (`config["output"]["schema"]` of `yaml.safe_load(f)`,
`spec["schema"]` of `json.load(f)`, a field set from a parse in `__init__`) keeps the text's key
order, as the whole parsed dict does: the same file serialises to the same bytes (not reported).
A dict handed in as a parameter, whose source is not seen, is still info."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "parsed_config"


def _rows(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_only_the_dict_whose_source_is_not_seen_is_reported():
    source = (FIXTURE / "app.py").read_text()
    found = [(d.code, d.severity.value, d.span.start.row) for d in check([FIXTURE], Settings(), jobs=1).diagnostics]
    assert found == [("PRM201", "info", _rows(source, "json.dumps(settings['schema']"))]
