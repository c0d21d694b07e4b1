"""`check - --stdin-filename NAME`: the report's excerpts come from the text that was analysed
(stdin), not from the file saved on disk under NAME (which may differ: an editor's unsaved buffer)."""
from __future__ import annotations

import json

import pytest

from ci_support import CHAT_PY, TIMESTAMP_ROW, cli
from promptlint import source

SHIFT = "# unsaved comment one\n# unsaved comment two\n# unsaved comment three\n"
EDITED = SHIFT + CHAT_PY  # the same prompt three rows lower


@pytest.fixture
def app(tmp_path, monkeypatch):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "chat.py").write_text(CHAT_PY, encoding="utf-8")  # the saved file
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _excerpt_row(output: str, row: int) -> str:
    """The excerpt line numbered `row` in a text report (`  15 |   code`), without the gutter."""
    return next(line.split("|", 1)[1] for line in output.splitlines() if line.strip().startswith(f"{row} |"))


def test_stdin_report_shows_the_lines_of_the_text_read_from_stdin(app):
    piped = cli("check", "-", "--stdin-filename", "app/chat.py", "--no-cache", "--color", "never", input=EDITED)
    row = TIMESTAMP_ROW + 3
    assert piped.exit_code == 1
    assert f"app/chat.py:{row}:" in piped.stdout
    assert "datetime.now()" in _excerpt_row(piped.stdout, row)  # stdin's row 18, not the saved file's
    assert not source.OVERLAY  # the overlay ends with the command


def test_saved_file_report_shows_the_saved_lines(app):
    """Negative: without stdin the saved file's rows are shown (the timestamp at row 15)."""
    saved = cli("check", "app/chat.py", "--no-cache", "--color", "never")
    assert f"app/chat.py:{TIMESTAMP_ROW}:" in saved.stdout
    assert "datetime.now()" in _excerpt_row(saved.stdout, TIMESTAMP_ROW)
    assert "unsaved" not in saved.stdout


def test_stdin_gitlab_fingerprints_use_the_analysed_text(app):
    """The Code Quality fingerprints hash the finding's line: stdin's, so they equal those of the
    file once saved with the same text, at the lines of stdin's text, not of the stale saved file."""
    piped = json.loads(cli("check", "-", "--stdin-filename", "app/chat.py", "--no-cache", "--output-format",
                           "gitlab", input=EDITED).stdout)
    stale = json.loads(cli("check", "app/chat.py", "--no-cache", "--output-format", "gitlab").stdout)
    (app / "app" / "chat.py").write_text(EDITED, encoding="utf-8")
    saved = json.loads(cli("check", "app/chat.py", "--no-cache", "--output-format", "gitlab").stdout)
    assert len(piped) == 2
    assert [f["fingerprint"] for f in piped] == [f["fingerprint"] for f in saved]
    assert [f["location"]["lines"]["begin"] for f in stale] == [TIMESTAMP_ROW, TIMESTAMP_ROW + 1]
    assert [f["location"]["lines"]["begin"] for f in piped] == [TIMESTAMP_ROW + 3, TIMESTAMP_ROW + 4]


def test_overlaid_restores_an_outer_overlay(tmp_path):
    path = tmp_path / "a.py"
    with source.overlaid({path: "outer"}):
        with source.overlaid({path: "inner"}):
            assert source.overlay_text(path) == "inner"
        assert source.overlay_text(path) == "outer"
    assert source.overlay_text(path) is None
