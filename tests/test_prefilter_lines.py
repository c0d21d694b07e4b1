"""The prefilter's line-anchored searches (python/prefilter.py `_on_lines`): a pattern of one line
is tried only on the lines holding one of its anchors, with the same answer as a search of the
whole text."""
from __future__ import annotations

import re

from promptlint.python.prefilter import _STORED_CUT, _TOOL_VARIANTS, _VARIANT_ANCHORS, _on_lines, might_hold_prompt


def test_a_pattern_is_tried_on_the_lines_of_its_anchors_only():
    pattern = re.compile(r"x = \d")
    text = "a = 1\nx = 2  # anchor\nx = 3\n"
    assert _on_lines(text, ("anchor",), pattern)
    assert not _on_lines("x = 3\nno anchor here: x\n", ("anchor",), pattern)
    assert not _on_lines("", ("anchor",), pattern)


def test_line_searches_answer_as_whole_text_searches():
    texts = ['payload["tools"] =\\\n    build()\n', "self.history = self.history[-10:]\n",
             "del chat.messages[:2]\n", "turns.pop(0)\n", "def reset_tool_settings(self):\n",
             "tools = sorted(TOOLS)\nitems[1:]\n", "x = 1\n"]
    for text in texts:
        assert _on_lines(text, _VARIANT_ANCHORS, _TOOL_VARIANTS) == (_TOOL_VARIANTS.search(text) is not None), text
        assert _on_lines(text, (":]", "pop(0)", "del "), _STORED_CUT) == (_STORED_CUT.search(text) is not None), text
    assert might_hold_prompt("class Chat:\n    def step(self):\n        self.dialog = self.dialog[-8:]\n")
