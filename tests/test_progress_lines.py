"""The progress of a long run off a terminal (cli_output.ProgressBar): plain lines on the stream
every EVERY seconds, none for a short run, none for a small tree, none with --quiet."""
from __future__ import annotations

import io

from promptlint.cli_output import ProgressBar


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_long_run_off_a_terminal_writes_a_line_every_interval():
    clock, out = _Clock(), io.StringIO()
    advance = ProgressBar(clock=clock, stream=out)(250)
    for seconds in (5, 20, 31, 45, 62, 70):  # files done at these times (seconds after the start)
        clock.now = 100.0 + seconds
        advance(10)
    assert out.getvalue().splitlines() == ["promptlint: checked 30 of 250 files (31 s)",
                                           "promptlint: checked 50 of 250 files (62 s)"]


def test_short_small_or_quiet_runs_write_nothing():
    clock, out = _Clock(), io.StringIO()
    advance = ProgressBar(clock=clock, stream=out)(250)
    for _ in range(25):
        clock.now += 1
        advance(10)  # 25 s: done before the first line is due
    assert out.getvalue() == ""
    assert ProgressBar(clock=clock, stream=out)(ProgressBar.MIN_FILES - 1) is None
    assert ProgressBar(enabled=False, clock=clock, stream=out)(250) is None
