"""Function bodies read once per process, not once per analysed file (flow/bodies.py): a reading
made from its function's code alone is given to the next file's analysis that uses the same parsed
module, and every file's report is the one a fresh process makes. Not kept: a reading that resolved
a name (newest_iters: the class a parameter is annotated with), the reading of a module body, the
readings of a module the project dropped, past the bound of bindings kept."""
from __future__ import annotations

import ast
import json
from pathlib import Path

from analysis_support import code, write

from promptlint.engine import Linter
from promptlint.python.flow import bodies as bodies_mod
from promptlint.python.flow.scopes import ScopesMixin
from promptlint.report.json import render

HELPERS = code("""
    def build(question, context):
        header = "You answer questions about the handbook."
        parts = [header, context]
        return "\\n".join(parts) + "\\n" + question
""")

APP = code("""
    import openai
    from helpers import build


    def ask_{n}(question, context):
        prompt = build(question, context)
        return openai.OpenAI().chat.completions.create(model="gpt-4.1", messages=[
            {{"role": "system", "content": "Rules {n}."}}, {{"role": "user", "content": prompt}}])
""")


def _tree(tmp_path: Path) -> list[Path]:
    write(tmp_path, {"helpers.py": HELPERS, "a.py": APP.format(n="a"), "b.py": APP.format(n="b")})
    return [tmp_path / "a.py", tmp_path / "b.py"]


def _reads(monkeypatch) -> list[str]:
    """The names of the functions whose bodies are read from now on (module bodies: "<module>")."""
    seen: list[str] = []
    original = ScopesMixin._read_body

    def counted(self, frame):
        seen.append(frame.func.name if frame.func is not None else "<module>")
        return original(self, frame)

    monkeypatch.setattr(ScopesMixin, "_read_body", counted)
    return seen


def _report(linter: Linter, path: Path) -> str:
    report = linter.lint_file(path, "python")
    return json.dumps(json.loads(render(report)), sort_keys=True)


def test_a_helper_read_for_one_file_is_not_read_again_for_the_next(tmp_path, monkeypatch):
    a, b = _tree(tmp_path)
    linter = Linter(roots=[tmp_path])
    seen = _reads(monkeypatch)
    _report(linter, a)
    assert seen.count("build") == 1
    _report(linter, b)
    assert seen.count("build") == 1  # b's analysis was given a's reading
    assert seen == ["ask_a", "build", "ask_b"]  # its own function read, the helper not again


def test_each_report_is_the_one_a_fresh_process_makes(tmp_path):
    a, b = _tree(tmp_path)
    linter = Linter(roots=[tmp_path])
    first, second = _report(linter, a), _report(linter, b)
    assert "helpers.py" in first and "helpers.py" in second  # the prompt read the helper
    assert second == _report(Linter(roots=[tmp_path]), b)
    assert first == _report(Linter(roots=[tmp_path]), a)


def test_a_dropped_module_is_read_again(tmp_path, monkeypatch):
    a, b = _tree(tmp_path)
    linter = Linter(roots=[tmp_path])
    seen = _reads(monkeypatch)
    _report(linter, a)
    linter.project.clear()  # every parsed module dropped: the next analysis parses helpers.py again
    _report(linter, b)
    assert seen.count("build") == 2
    assert all(linter.project.held(body.module) for body, _ in (linter.evaluator._bodies._kept[k]
                                                             for k in linter.evaluator._bodies))


def test_the_end_of_a_file_asks_which_modules_are_held_only_after_one_was_dropped(tmp_path, monkeypatch):
    a, b = _tree(tmp_path)
    linter = Linter(roots=[tmp_path])
    _report(linter, a)
    asked: list[str] = []
    held = linter.project.held
    monkeypatch.setattr(linter.project, "held", lambda module: asked.append(module.path.name) or held(module))
    _report(linter, b)
    assert asked == []  # no module dropped since a's end: each of them is held still
    kept = len(linter.evaluator._bodies._kept)
    linter.project.trim(0)  # every module dropped (none is pinned between files)
    _report(linter, a)
    assert "helpers.py" in asked and kept  # asked again, and the dropped modules' readings went
    assert all(linter.project.held(body.module) for body, _ in linter.evaluator._bodies._kept.values())


def test_past_the_bound_no_reading_is_kept(tmp_path, monkeypatch):
    a, b = _tree(tmp_path)
    monkeypatch.setattr(bodies_mod, "MAX_KEPT", 0)
    linter = Linter(roots=[tmp_path])
    seen = _reads(monkeypatch)
    _report(linter, a)
    assert list(linter.evaluator._bodies) == []
    _report(linter, b)
    assert seen.count("build") == 2


HISTORY = code("""
    class ChatHistory:
        def iter_pairs(self):
            \"\"\"The turns, newest first.\"\"\"
            yield from self._msgs
""")

WINDOW = code("""
    from history import ChatHistory


    def window(chat_history: ChatHistory):
        kept = []
        for question, answer in chat_history.iter_pairs():
            if len(kept) > 4:
                break
            kept.append(question)
        return kept


    def plain(items):
        out = []
        for item in items:
            out.append(item)
        return out
""")


def test_a_reading_that_resolved_a_name_is_kept_for_its_file_only(tmp_path):
    write(tmp_path, {"history.py": HISTORY, "app.py": WINDOW})
    linter = Linter(roots=[tmp_path])
    ev = linter.evaluator
    module = linter.project.load(tmp_path / "app.py")
    funcs = {f.name: f for f in ast.walk(module.tree) if isinstance(f, ast.FunctionDef)}
    for name in ("window", "plain"):
        ev.ensure(ev.unbound_frame(module, funcs[name], None))
    assert (id(funcs["window"]), id(None)) in ev._bodies and (id(funcs["plain"]), id(None)) in ev._bodies
    ev.forget()
    assert (id(funcs["window"]), id(None)) not in ev._bodies  # it read history.py through the project
    assert (id(funcs["plain"]), id(None)) in ev._bodies
    assert (id(module.tree), id(None)) not in ev._bodies  # a module body: read again per file
