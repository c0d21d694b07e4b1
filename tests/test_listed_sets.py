"""PRM202: a set made a list by the code that calls a prompt helper (`ask(list(self.terms), ...)`)
and iterated into the prompt text by the helper is reported where the helper iterates it (where
the order enters the text, Policy 8), with the place the set is made and every caller's `list(...)`
as related locations (each is a place to sort it); one helper's loop that several prompts reach is
one finding naming each prompt's `list(...)`. Sorted lists and sets used for membership stay clean.
Fixtures under fixtures/listed_sets/."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import pos, write

from promptlint import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "listed_sets"
MADE_A_LIST = "made a list here in an unstable order, which the prompt text keeps: sort it here or where it is iterated"


def _found(root: Path, monkeypatch):
    monkeypatch.chdir(root)
    report = api.check([Path(".")], api.Settings(), jobs=1)
    return [(d.span.filename, d.code, d.severity.value, d.span.start.row, d.span.start.column,
             [(r.span.filename, r.span.start.row, r.span.start.column, r.message) for r in d.related])
            for d in report.diagnostics]


def test_each_caller_that_makes_the_set_a_list_is_named(tmp_path, monkeypatch):
    # (main: only the place the set is made was related; the callers' `list(...)` were not named)
    root = tmp_path / "project"
    shutil.copytree(FIXTURES, root)
    engine = (root / "app" / "engine.py").read_text()
    glossary = (root / "app" / "glossary.py").read_text()
    at = pos(glossary, "terms) +")
    made = pos(engine, "set()")
    calls = [(r + 1, line.index("list(self.terms)") + 1) for r, line in enumerate(engine.splitlines())
             if "list(self.terms)" in line]
    assert len(calls) == 2
    assert _found(root, monkeypatch) == [
        ("app/glossary.py", "PRM202", "warning", at.row, at.column,
         [("app/engine.py", made.row, made.column, "value produced here"),
          *[("app/engine.py", row, col, MADE_A_LIST) for row, col in calls]])]


def test_sorted_lists_are_clean(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(FIXTURES, root)
    engine = root / "app" / "engine.py"
    engine.write_text(engine.read_text().replace("list(self.terms)", "sorted(self.terms)"))
    assert _found(root, monkeypatch) == []


BUILDER = '''
    from openai import OpenAI

    client = OpenAI()
    RULES = "You are a careful assistant. Follow every rule, cite sources and answer precisely. " * 80


    class State:
        def __init__(self):
            self.terms: set[str] = set()


    def glossary(terms):
        return "Glossary:\\n" + "\\n".join(f"- {t}" for t in terms)


    def reply(state: State, history):
        system = RULES + glossary(list(state.terms)) + RULES
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": system}, *history])


    def review(state: State, question):
        system = RULES + glossary(list(state.terms))
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": system},
                                                                        {"role": "user", "content": question}])
'''


def test_one_loop_reached_by_several_prompts_names_each_prompts_list(tmp_path, monkeypatch):
    # two prompts reach the helper's loop, each with its own caller's `list(...)`: one finding there
    # that names both
    write(tmp_path, {"app.py": BUILDER})
    from analysis_support import code
    source = code(BUILDER)
    found = _found(tmp_path, monkeypatch)
    at = pos(source, "terms)\n")
    lists = [(r + 1, line.index("list(state.terms)") + 1) for r, line in enumerate(source.splitlines())
             if "list(state.terms)" in line]
    assert [(f[1], f[2], f[3], f[4]) for f in found] == [("PRM202", "warning", at.row, at.column)]
    assert [(r[1], r[2]) for r in found[0][5] if r[3] == MADE_A_LIST] == lists
