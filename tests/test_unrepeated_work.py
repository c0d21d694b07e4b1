"""Work the analysis no longer repeats. Each test pins the work left out, and that
what is found stays the same."""
from __future__ import annotations

import ast
import random
import textwrap


def _reads_markers_by_scan(text: str) -> bool:
    """`packages.reads_markers` as it was: the pattern searched over the whole text."""
    from promptlint.python import packages
    for m in packages._MARKER_READ.finditer(text):
        name = (m.group(1) or m.group(2) or m.group(3) or "").lower()
        if "tool" not in name and "function" not in name and name not in ("kwargs", "params", "options"):
            return True
    return False


def test_a_breakpoint_read_is_found_as_the_scan_of_the_whole_text_finds_it():
    from promptlint.python.packages import reads_markers
    cases = {
        'if block.get("cache_control"):': True,
        "if block.get(\n        'cache_control'):": True,  # (the space before the key spans lines)
        'if "cache_control" in part:': True,
        'cc = block["cache_control"]': True,
        'if block["cache_control"] == cc:': True,
        'block["cache_control"] = cc': False,  # written, not read
        'if "cache_control" in tool:': False,
        'kwargs.get("cache_control")': False,
        'x = tool_def["cache_control"]': False,
        'cache_control = block.cache_control': False,  # no quoted key
        # a read off tools first, then one off a block: the second is found
        'tools.get("cache_control")\nx = block.get("cache_control")': True,
        # `tools.get("cache_control" in part)`: the scan takes the read off `tools` and goes on after
        # its key, so `in part` is no match of its own
        'tools.get("cache_control" in part)': False,
        'a_tool.get("cache_control" in part)\nb = "cache_control" in msg': True,
    }
    assert {t: reads_markers(t) for t in cases} == cases
    assert {t: _reads_markers_by_scan(t) for t in cases} == cases
    names = ["x", "tools", "kwargs", "block", "a_tool", "é", "function", "", "get"]
    leads = [".get(", ".get( ", ".get(\n\t", "[", "", " ", "(", ".", "\u00a0"]
    tails = ["", " in ", " in part", "\t in\nmsg", "]", "] = x", "] == x", "]=", "')", ")", "[", " ", "=="]
    quotes = ["'", '"', ""]
    rnd = random.Random(24)
    found = 0
    for _ in range(20000):
        text = ""
        for _ in range(rnd.randint(1, 4)):  # a few keys, each with what may come around it
            q = rnd.choice(quotes)
            text += rnd.choice(names) + rnd.choice(leads) + q + "cache_control" + rnd.choice(quotes) \
                + rnd.choice(tails) + rnd.choice(names) + rnd.choice(["", " ", "\n", q])
        assert reads_markers(text) is _reads_markers_by_scan(text), text
        found += reads_markers(text)
    assert 2000 < found < 18000  # (texts with a read and texts without one)


def test_a_breakpoint_read_is_looked_for_only_before_each_quoted_key(monkeypatch):
    from promptlint.python import packages
    tried = []

    class Counting:
        def __init__(self, pattern):
            self.pattern = pattern

        def finditer(self, text, pos=0):
            tried.append(len(text) - pos)  # (a scan tries the pattern at every position)
            return self.pattern.finditer(text, pos)

        def match(self, text, pos=0):
            tried.append(1)
            return self.pattern.match(text, pos)

    monkeypatch.setattr(packages, "_MARKER_READ", Counting(packages._MARKER_READ))
    text = "def handle(value):\n    return value.strip()\n" * 4000 + 'cc = part.get("cache_control")\n'
    assert packages.reads_markers(text) is True
    assert sum(tried) <= len("part.get(") + 1
    tried.clear()
    assert packages.reads_markers(text.replace("part", "tools")) is False
    assert sum(tried) <= len("tools.get(") + 1


def test_the_messages_a_class_sends_are_read_once_per_method(monkeypatch):
    from promptlint.python.flow import class_facts
    source = textwrap.dedent('''
        class Chat:
            def __init__(self):
                self.log = []

            def ask(self, text):
                self._remember(text)
                return {"role": "user", "content": text}

            def _remember(self, text):
                self.log.append(text)

            def note(self, line):
                self.log.append(line)

            def other(self, line):
                self.notes.append(line)
    ''')
    cls = ast.parse(source).body[0]
    walked = []
    real_walk, real_subtree = ast.walk, class_facts.subtree
    monkeypatch.setattr(ast, "walk", lambda node: walked.append(node) or real_walk(node))
    monkeypatch.setattr(class_facts, "subtree", lambda node: walked.append(node) or real_subtree(node))
    # `_remember(text)` is handed the user's text that `ask` sends as a message: a conversation
    assert class_facts.holds_conversation(cls, "log") is True
    methods = [s for s in cls.body if isinstance(s, ast.FunctionDef)]
    assert len(walked) <= len(methods)  # each method walked once at most
    assert len(walked) == len({id(n) for n in walked})
    walked.clear()
    assert class_facts.holds_conversation(cls, "log") is True
    assert walked == []  # read before: not walked again
    assert class_facts.holds_conversation(cls, "notes") is False  # its lines are no message the class sends
