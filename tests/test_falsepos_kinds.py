"""False findings of a new user's trial, by kind (fixtures/falsepos/): each kind has a case that
must stay silent and one that must still be reported."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "falsepos"


def _row(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def _found(folder: str):
    result = check([FIXTURES / folder], Settings(), jobs=1)
    return [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row) for d in result.diagnostics]


def test_json_schemas_made_by_code_keep_their_key_order():
    app = FIXTURES / "schemas" / "agent.py"
    assert _found("schemas") == [("PRM201", "info", "agent.py", _row(app, "json.dumps(profile)"))]
