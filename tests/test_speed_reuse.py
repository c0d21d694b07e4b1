"""Work the analysis does once or not at all (s18-speed2): a node's source text kept on it, a
syntax check spared for a text an earlier analysis parsed, fact finders that read a function's
names only when a statement needs them. Each test pins the work left out, and what is found."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from analysis_support import code

from promptlint.engine import Linter
from promptlint.python import module as module_mod, parsing
from promptlint.python import class_toolsets, toolsets
from promptlint.python.flow import rewrites
from promptlint.python.module import load
from promptlint.python.parsing import ParseError
from promptlint.python.tree import Project


def test_a_nodes_source_text_is_cut_once(monkeypatch):
    module = load(Path("app.py"), code("""
        PROMPT = f"Answer {question!r} briefly"
        OTHER = 1
    """))
    value = module.tree.body[0].value
    assert module.code(value) == 'f"Answer {question!r} briefly"'
    monkeypatch.setattr(module_mod.Module, "offsets", lambda self, node: pytest.fail("cut again"))
    assert module.code(value) == 'f"Answer {question!r} briefly"'
    # the same node read with another module's text is cut from that text
    other = load(Path("other.py"), code("""
        PROMPT = f"Reply {question!r} kindly!"
    """))
    monkeypatch.undo()
    assert other.code(value) == 'f"Reply {question!r} kindly!"'
    assert module.code(value) == 'f"Answer {question!r} briefly"'


def test_the_project_holds_a_module_parsed_from_exactly_this_text(tmp_path):
    (tmp_path / "helpers.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (tmp_path / "broken.py").write_text("def broken(:\n    pass\n", encoding="utf-8")
    project = Project([tmp_path])
    project.start()
    text = (tmp_path / "helpers.py").read_text(encoding="utf-8")
    assert not project.holds(tmp_path / "helpers.py", text)  # not loaded yet
    project.load(tmp_path / "helpers.py")
    assert project.holds(tmp_path / "helpers.py", text)
    assert not project.holds(tmp_path / "helpers.py", text + "\nx = 1\n")  # another text
    with pytest.raises(ParseError):
        project.load(tmp_path / "broken.py")
    assert not project.holds(tmp_path / "broken.py", "def broken(:\n    pass\n")  # a failure is no parse


def test_a_file_without_a_prompt_that_an_earlier_analysis_parsed_is_not_compiled_again(tmp_path, monkeypatch):
    (tmp_path / "chat.py").write_text(code("""
        import openai
        from helpers import PREFIX

        client = openai.OpenAI()


        def ask(question):
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": PREFIX + question}])
    """), encoding="utf-8")
    (tmp_path / "helpers.py").write_text('PREFIX = "You answer questions about the weather. "\n', encoding="utf-8")
    (tmp_path / "other.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (tmp_path / "zbroken.py").write_text("def broken(:\n    pass\n", encoding="utf-8")
    checked = []
    real = parsing.syntax_error
    monkeypatch.setattr(parsing, "syntax_error", lambda source, filename="": checked.append(Path(filename).name)
                        or real(source, filename))
    engine = Linter(roots=[tmp_path])
    reports = {name: engine.analyse(tmp_path / name, "python").report
               for name in ("chat.py", "helpers.py", "other.py", "zbroken.py")}
    assert checked == ["other.py", "zbroken.py"]  # helpers.py: parsed by chat.py's analysis
    assert [d.code for d in reports["helpers.py"].diagnostics] == []
    assert [d.code for d in reports["other.py"].diagnostics] == []
    assert [d.code for d in reports["zbroken.py"].diagnostics] == ["PRM001"]


def test_a_function_that_names_no_tool_set_never_reads_its_names(monkeypatch):
    module = load(Path("app.py"), code("""
        TOOLS = []


        def handle(request):
            result = compute(request)  # says "tool", changes no tool set
            out = {"value": result}
            return out


        def load_server(name):
            TOOLS.extend(connect(name))
            return f"Loaded {name}"
    """))
    read = []
    real = toolsets._locals
    monkeypatch.setattr(toolsets, "_locals", lambda func, nodes: read.append(func.name) or real(func, nodes))
    found = [(c.node.lineno, c.target, c.function, c.shape) for c in toolsets.find_tool_changes(module)]
    assert found == [(11, "TOOLS", "load_server", "tool-result")]
    assert read == ["load_server"]  # `handle` names no tool set: its locals are not read


def test_a_class_that_removes_no_tool_never_reads_its_additions(monkeypatch):
    module = load(Path("app.py"), code("""
        class Session:
            def setup(self, registry):
                registry.tools.append(self.tool)

            def run(self, registry):
                return registry.call(self.tool)
    """))
    monkeypatch.setattr(class_toolsets, "tool_set_changes", lambda *a, **k: pytest.fail("additions read"))
    assert class_toolsets._temporary(module.tree.body[0], module, {}) is None


def test_a_loop_that_counts_no_place_never_reads_its_flows(monkeypatch):
    loop = ast.parse(code("""
        for m in messages:
            view = m.short() if m.old else m.full()
            out.append({"content": view})
    """)).body[0]
    monkeypatch.setattr(rewrites, "_flows", lambda nodes, name: pytest.fail("flows read"))
    assert rewrites.older_apart(loop, "out", lambda name: None) is None


def test_a_loop_that_renders_older_items_apart_is_still_found():
    loop = ast.parse(code("""
        for i, m in enumerate(messages):
            view = m.short() if i < len(messages) - 3 else m.full()
            out.append({"content": view})
    """)).body[0]
    found = rewrites.older_apart(loop, "out", lambda name: None)
    assert found is not None and ast.unparse(found[0]) == "i < len(messages) - 3" and found[1] == "messages"


def test_a_module_without_an_assignment_expression_never_looks_for_one(tmp_path, monkeypatch):
    from analysis_support import probe
    from promptlint.python.flow import scopes
    real = scopes.walrus_targets
    monkeypatch.setattr(scopes, "walrus_targets", lambda test: pytest.fail("looked for `:=`"))
    probed = probe(tmp_path, """
        def build(user, flag):
            if flag:
                text = "You are terse. " + user
            else:
                text = "You are kind. " + user
            probe(text)
    """)
    assert probed.value is not None
    monkeypatch.setattr(scopes, "walrus_targets", real)
    probed = probe(tmp_path, """
        def build(user, override):
            if system := (override or "You are a careful assistant who answers briefly."):
                probe(system)
    """)
    assert "You are a careful assistant who answers briefly." in repr(probed.value)  # the walrus binds it


def test_a_tool_switch_in_a_method_of_a_class_in_a_block_is_found():
    from promptlint.python.tool_switches import find_tool_switches
    found, = find_tool_switches(load(Path("m.py"), code("""
        try:
            import langchain
        except ImportError:
            class Opt:
                def __init__(self, model):
                    self.a = create(model, tools=[think, critique])
                    self.b = create(model, tools=[recommend])

                def run(self, messages, n):
                    for ix in range(n):
                        chain = self.b if ix == n - 1 else self.a
                        messages.append(chain.invoke(messages))
    """)))
    assert ast.unparse(found.node) == "chain.invoke(messages)" and found.function == "run"
    assert set(found.lists) == {("recommend",), ("think", "critique")}
