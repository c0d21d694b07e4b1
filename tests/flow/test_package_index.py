"""The package index's text scans (`promptlint.python.packages`) find exactly what the plain
patterns find: the names assigned at the start of a line and the names called."""
import random
import re

from promptlint.python.packages import assigned_names, called_names

#: The patterns as first written (slower: tried at every character).
ASSIGNED = re.compile(r"^[ \t]*([^\W\d]\w*)[ \t]*(?::[^=\n]*)?=", re.M)
CALLED = re.compile(r"(?<![\w.])(?:[^\W\d]\w*\.)?([^\W\d]\w*)[ \t]*\(")


def _plain(pattern, text):
    return list(dict.fromkeys(m.group(1) for m in pattern.finditer(text)))


def test_examples():
    text = "x = 1\n  y: int = f(a)\nz.w = 2\nmod.g (b)\na.b.c(1)\n9h(2)\n_k(3)\néq(4)\nx.y == 2\n"
    assert assigned_names(text) == ["x", "y"] == _plain(ASSIGNED, text)
    assert called_names(text) == ["f", "g", "_k", "éq"] == _plain(CALLED, text)


def test_same_as_plain_patterns_on_random_text():
    rng = random.Random(13)
    alphabet = "ab9_.( \t\n=:é٣x\r"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert assigned_names(text) == _plain(ASSIGNED, text), text
        assert called_names(text) == _plain(CALLED, text), text
