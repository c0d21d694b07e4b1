"""PRM201 on replayed turns (fixtures/stored_replays): a warning only where the data dumped is read
back from a store on each request (`Segment.stored`), with the read as a related location; data
the code keeps in memory gives the same bytes on every turn, so its dump is info."""
from __future__ import annotations

from pathlib import Path

from analysis_support import fixture_findings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "stored_replays"
READ_BACK = "replayed turns are serialised again on every request from data read back from a store"
IN_MEMORY = "nothing here shows it read from a store"


def found(name: str, tmp_path: Path) -> list[tuple]:
    """(row, severity, message's evidence, related rows and messages) of the PRM201 findings."""
    out = []
    for d in fixture_findings(FIXTURES, name, tmp_path):
        if d.code != "PRM201":
            continue
        said = READ_BACK if READ_BACK in d.message else IN_MEMORY if IN_MEMORY in d.message else d.message
        out.append((d.span.start.row, d.severity.value, said,
                    [(r.span.start.row, r.message) for r in d.related]))
    return sorted(out)


def test_a_tool_output_kept_in_memory_and_dumped_on_each_turn_is_info(tmp_path):
    assert found("kept_in_memory.py", tmp_path) == [(20, "info", IN_MEMORY, [])]


def test_steps_read_back_from_a_database_on_each_request_are_warnings_at_the_read(tmp_path):
    read = "read back from the store here on each request"
    assert found("read_back.py", tmp_path) == [
        (27, "warning", READ_BACK, [(16, read)]),  # asyncpg's `conn.fetch("SELECT ...")`, copied by `dict(row)`
        (29, "warning", READ_BACK, [(16, read)]),
        (43, "warning", READ_BACK, [(42, read)]),  # a Django manager's `ToolResult.objects.filter(...)`
    ]
