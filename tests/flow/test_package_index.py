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


def test_the_index_finds_names_of_one_file_and_of_several(tmp_path):
    """A name of one file is kept as that file's number, a name of several as a list: `matching`
    gives the files in order either way, and one name string is shared by the three indexes."""
    from promptlint.python.packages import CALLS, PARAMS, Package
    (tmp_path / "a.py").write_text("PROMPT = 'a'\ndef run(prompt):\n    ask(prompt)\n")
    (tmp_path / "b.py").write_text("PROMPT = 'b'\nOTHER = ask(1)\n")
    (tmp_path / "c.py").write_text("def prompt(x):\n    return x\n")
    package = Package.scan(tmp_path)
    names = lambda key: [p.name for p in package.matching(key)]
    assert names("PROMPT") == ["a.py", "b.py"] and names("OTHER") == ["b.py"] and names("missing") == []
    assert names(CALLS + "ask") == ["a.py", "b.py"] and names(CALLS + "run") == ["a.py"]  # (a def reads as a call)
    assert names(PARAMS + "prompt") == ["a.py"] and names(PARAMS + "x") == ["c.py"]
    assert package.names["OTHER"] == 1 and package.names["PROMPT"] == [0, 1]
    shared = [k for index in (package.names, package.calls, package.params) for k in index if k == "prompt"]
    assert len(shared) == 2 and shared[0] is shared[1]  # `prompt(x)` of c.py, the parameter of a.py


def test_the_index_finds_the_files_that_extend_a_class_by_the_names_of_its_bases(tmp_path):
    """`base:NAME` matches the files with a class statement that names NAME among its bases (a
    pre-filter: `Generic` and `T` of `Generic[T]` too); a call or an assignment of NAME is none."""
    from promptlint.python.packages import BASES, Package, base_names
    assert base_names("class A(pkg.Base, Generic[T]):\n    pass\nclass B:\n    x = Base(1)\n") == [
        "pkg", "Base", "Generic", "T"]
    (tmp_path / "a.py").write_text("from .base import Agent\n\n\nclass Duck(Agent):\n    pass\n")
    (tmp_path / "b.py").write_text("from .base import Agent\n\nagent = Agent(name='b')\n")
    (tmp_path / "c.py").write_text("import base\n\n\nclass Tutor(\n    base.Agent, metaclass=Meta\n):\n    pass\n")
    package = Package.scan(tmp_path)
    assert [p.name for p in package.matching(BASES + "Agent")] == ["a.py", "c.py"]
    assert package.matching(BASES + "Duck") == []
