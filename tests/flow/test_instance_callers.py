"""promptlint/python/flow/instance_sites.py: the method of a package's wrapper class of the request
(`LLM.complete(self, system, history, user)`) takes the arguments of the calls made through an
instance of the class (`self.llm.complete(preamble, ...)` in a module that builds `LLM(...)`), so
a timestamp the caller puts before static text is judged where the caller writes it; a call whose
receiver is not known to be such an instance (a client handed in) gives nothing."""
from __future__ import annotations

from promptlint import api

from analysis_support import write

LLM = """
    from openai import OpenAI


    class LLM:
        def __init__(self, model="gpt-4o"):
            self.model = model
            self.client = OpenAI()

        def complete(self, system, history, user):
            messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": user}]
            resp = self.client.chat.completions.create(model=self.model, messages=messages)
            return resp.choices[0].message.content
"""

AGENT = """
    from datetime import datetime

    from pkg.llm import LLM

    RULES = "Follow these rules carefully. " * 300


    class Agent:
        def __init__(self, {param}):
            self.llm = {llm}
            self.history = []

        def ask(self, question):
            preamble = f"Current time: {{datetime.now()}}\\n\\n{{RULES}}"
            answer = self.llm.complete(preamble, self.history, question)
            self.history.append({{"role": "user", "content": question}})
            self.history.append({{"role": "assistant", "content": answer}})
            return answer
"""


def _findings(tmp_path, param: str, llm: str):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/llm.py": LLM,
                     "pkg/agent.py": AGENT.format(param=param, llm=llm)})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row) for d in report.diagnostics]


def test_a_timestamp_the_caller_puts_before_static_text_is_judged_at_the_caller(tmp_path):
    found = _findings(tmp_path, "model=\"gpt-4o\"", "LLM(model)")
    assert found == [("PRM102", "warning", "agent.py", 14)]


def test_a_default_instance_of_an_optional_client_is_one_of_its_values(tmp_path):
    # `llm or LLM()`: the caller's instance may be the package's own wrapper
    found = _findings(tmp_path, "llm=None", "llm or LLM()")
    assert found == [("PRM102", "warning", "agent.py", 14)]


def test_the_calls_through_instances_are_read_once_per_method_not_per_parameter(tmp_path, monkeypatch):
    from promptlint.python.flow import instance_sites
    read = []
    real = instance_sites._instance_sites
    monkeypatch.setattr(instance_sites, "_instance_sites",
                        lambda ev, module, func, *rest: read.append(func.name) or real(ev, module, func, *rest))
    found = _findings(tmp_path, "model=\"gpt-4o\"", "LLM(model)")
    assert found == [("PRM102", "warning", "agent.py", 14)]
    # `system`, `history` and `user` of `complete` are bound by the same calls: read once (per depth)
    assert read.count("complete") < 3 and read.count("complete") >= 1, read


def test_a_client_handed_in_is_not_taken_for_the_wrapper(tmp_path):
    # nothing says `llm` is an LLM: the package may call another class's `complete`
    found = _findings(tmp_path, "llm", "llm")
    assert found == []


SUMMARY_LLM = """
    from openai import OpenAI

    client = OpenAI()


    def ask(messages):
        return client.chat.completions.create(model="gpt-4o", messages=messages).choices[0].message.content
"""

SUMMARY_AGENT = """
    from pkg.llm import ask

    RULES = "Follow these rules carefully. " * 300


    def run(history, question):
        summary = {summary}
        messages = [{{"role": "system", "content": summary}}, {{"role": "system", "content": RULES}}, *history,
                    {{"role": "user", "content": question}}]
        return ask(messages)
"""


def _summary_findings(tmp_path, summary: str):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/llm.py": SUMMARY_LLM,
                     "pkg/agent.py": SUMMARY_AGENT.format(summary=summary)})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row,
             [r.span.filename.rsplit("/", 1)[-1] for r in d.related]) for d in report.diagnostics]


def test_a_reply_a_wrapper_returns_is_reported_where_it_enters_the_callers_prompt(tmp_path):
    # the summary of the conversation, fetched by the package's wrapper, opens the system prompt:
    # reported at the call in agent.py, the wrapper's send related (not in llm.py, shared by all)
    found = _summary_findings(tmp_path, 'ask([{"role": "user", "content": "Summarize: " + str(history)}])')
    assert found == [("PRM101", "warning", "agent.py", 7, ["llm.py"])]


def test_a_fixed_reply_is_no_per_request_content(tmp_path):
    # the wrapper asked a fixed question: its reply is not data fetched with the conversation
    found = _summary_findings(tmp_path, 'ask([{"role": "user", "content": "Name a colour."}])')
    assert [f for f in found if f[2] == "agent.py" and f[1] == "warning"] == []


OPERATOR = """
    from openai import OpenAI

    client = OpenAI()
    RULES = "Follow these rules carefully. " * 300


    class Operator:
        def __init__(self, query):
            self.summarize_prompt = f"Answer the target query: {query}. " + RULES
            self.messages = []

        def summarize(self, state, summarize_prompt=None):
            summarize_prompt = summarize_prompt or self.summarize_prompt
            self.messages.append({"role": "user", "content": summarize_prompt})
            return client.responses.create(model="gpt-4.1", instructions=summarize_prompt, input=self.messages)


    def operate(query, state):
        operator = Operator(query)
        return operator.summarize(state)
"""


def test_a_parameter_the_instance_call_leaves_out_takes_its_default(tmp_path):
    # `operator.summarize(state)` leaves `summarize_prompt` None: `summarize_prompt or
    # self.summarize_prompt` is the instructions built with the user's query, not the text "None"
    write(tmp_path, {"pkg/__init__.py": "", "pkg/operator.py": OPERATOR})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, d.prompt.rsplit(":", 1)[-1]) for d in report.diagnostics]
    assert found == [("PRM101", "warning", 9, "15")]


INDEXED = '''
import llm as client


def top():
    return client.complete("a").strip()


class Agent:
    def run(self):
        self.complete("own call, left out")
        cls.complete("left out too")
        self.llm.complete("b")
        make().complete("c"); self.llm.complete("d")

        def inner():
            return other.llm.complete("e")
        return inner


class Other:
    class Nested:
        def go(self):
            return x.complete("f")
'''


def _walked(module, name):
    """The calls `_attribute_calls` gave before its index: one walk of the module for `name`."""
    import ast
    out, todo = [], [(module.tree, None, None)]
    while todo:
        node, fn, cls = todo.pop()
        f = node.func if isinstance(node, ast.Call) else None
        if isinstance(f, ast.Attribute) and f.attr == name and not (isinstance(f.value, ast.Name) and f.value.id in ("self", "cls")):
            out.append((node, fn, cls))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                todo.append((child, child, cls))
            elif isinstance(child, ast.ClassDef):
                todo.append((child, None, child))
            else:
                todo.append((child, fn, cls))
    out.sort(key=lambda entry: (entry[0].lineno, entry[0].col_offset))
    return out


def test_attribute_calls_read_from_one_index_equal_a_walk_per_name(tmp_path):
    """One index of the module's attribute calls gives, for each name, the calls (with their
    function and class) that a walk of the module for that name finds, in source order; a name
    the text does not hold gives none, and the index is made once."""
    from promptlint.python.flow.instance_sites import _attribute_calls
    from promptlint.python.module import load
    path = tmp_path / "agent.py"
    path.write_text(INDEXED)
    module = load(path, INDEXED)
    got = _attribute_calls(module, "complete")
    assert got == _walked(module, "complete")
    assert [call.args[0].value for call, _, _ in got] == ["a", "b", "c", "d", "e", "f"]
    assert [(fn.name if fn else None, cls.name if cls else None) for _, fn, cls in got] == [
        ("top", None), ("run", "Agent"), ("run", "Agent"), ("run", "Agent"), ("inner", "Agent"), ("go", "Nested")]
    assert _attribute_calls(module, "strip") == _walked(module, "strip") != []
    assert _attribute_calls(module, "missing") == []
    index = module._pieces["attribute calls"][1]
    assert _attribute_calls(module, "complete") is index["complete"]
