"""PRM103: a new id given to a field of a record class of the package is not prompt text unless a
request here sends the records; an id in a provider-format dict or a library's type stays a finding
(fixtures/record_ids, python/converted_ids.record_field)."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint import api

FIXTURES = Path(__file__).parent.parent / "fixtures" / "record_ids"


def _prm103(tmp_path: Path) -> list[tuple]:
    shutil.copytree(FIXTURES / "pkg", tmp_path / "pkg")
    report = api.check([tmp_path / "pkg"], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.span.start.row, d.severity.value, d.message.split(" is made here")[0])
            for d in report.diagnostics if d.code == "PRM103"]


def test_ids_of_records_of_the_package_are_no_finding_and_payload_ids_stay(tmp_path):
    assert _prm103(tmp_path) == [
        ("mirror.py", 38, "info", "A new id `uuid.uuid4()`"),     # a dict in the provider's format
        ("mirror.py", 45, "info", "A new id `uuid.uuid4()`"),     # a library's type
        ("mirror.py", 50, "warning", "A new id `uuid4()`"),       # records a request here sends
    ]   # not 27 (`Turn` of pkg.records) nor 32 (`pkg.Turn`, re-exported): the package's records
