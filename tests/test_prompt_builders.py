"""Prompt-builder objects (python/flow/builder_facts.py, python/flow/builders.py,
python/built_prompts.py): the sections a caller adds to a builder instance, in call order, are
the text its renderer builds, so the prefix rules judge that text where it is sent, or on its
own where the builder is handed on. The package is fixtures/prompt_builders/shop (its README
says what each module shows)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.flow.builder_facts import builder_of

from analysis_support import code, layouts, parts, pos, write

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "prompt_builders"
SHOP = FIXTURES / "shop"


def _found(*paths):
    report = api.check(list(paths), api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
             d.prompt and d.prompt.rsplit("/", 1)[-1]) for d in report.diagnostics]


def test_the_shop_package_reports_what_its_builders_are_given_in_what_order():
    assert _found(FIXTURES) == [
        # a message builder started with the user's name before the rules (unknown volatility: info)
        ("chat.py", "PRM101", "info", 11, "chat.py:13"),
        # a headed prompt whose first section is the time of the request
        ("headed.py", "PRM102", "warning", 15, "headed.py:19"),
        # a chained builder with the question first, built where it is sent
        ("quick.py", "PRM101", "warning", 12, "quick.py:13"),
        # a builder returned for an injected generator: the customer's name before the static task,
        # reported where it is added (the builder's template is its origin)
        ("replies.py", "PRM101", "info", 14, "replies.py:12"),
    ]


def test_the_returned_builder_is_a_prompt_of_its_sections_in_call_order():
    found = layouts(SHOP.parent, (SHOP / "replies.py").read_text(), name="shop/replies.py")
    (layout,) = [lt for lt in found if lt.source == "python-constant"]
    ((role, described),) = parts(layout)
    assert role == "prompt"
    kinds = [d[0] if d[0] != "text" else ("rules" if d[1].startswith("You are the support") else
                                          "task" if d[1].startswith("Read the conversation") else "text")
             for d in described]
    kinds = [k for k in kinds if k != "text"]
    assert kinds == ["rules", "unknown", "task", "unknown", "history"]
    customer = next(s for p in layout.parts for s in p.segments if not s.is_static)
    assert (customer.span.row, Path(customer.span.filename).name) == (14, "replies.py")
    assert (customer.origin.row, Path(customer.origin.filename).name) == (21, "replies.py")  # (where it is passed)
    history = [s for p in layout.parts for s in p.segments if s.kind is not None and s.kind.value == "history"]
    assert [s.evidence for s in history] == ["added by `add_history`, named for the conversation"]


def test_main_had_nothing_to_judge_in_the_negative_modules():
    # all-static sections, sections joined sorted, the question added last, a report builder
    for name in ("static_parts.py",):
        assert _found(SHOP.parent / "shop" / name) == []


def _cls(source: str) -> ast.ClassDef:
    return next(n for n in ast.parse(code(source)).body if isinstance(n, ast.ClassDef))


def test_builder_facts_name_containers_adders_and_loop_renderers():
    facts = builder_of(_cls('''
        class B:
            def __init__(self, system):
                self.parts = []
                self.out = ""
                self.parts.append(system)
            def add(self, text):
                self.parts.append(text)
                return self
            def add_rules(self, rules):
                if rules:
                    self.add(rules)
            def tail(self, text):
                self.out += text
            def render(self):
                lines = []
                for p in self.parts:
                    lines.append(p)
                return "\\n".join(lines)
    '''))
    assert facts.kinds == {"parts": "list", "out": "text"}
    assert sorted(facts.adders) == ["add", "add_rules", "tail"]
    assert [op[0] for op in facts.init] == ["add"]
    (name, render), = facts.renders.items()
    assert (name, render.attr, render.view, len(render.writes)) == ("render", "parts", "", 1)


def test_no_builder_when_sections_are_added_in_a_loop_sorted_or_replaced():
    looped = builder_of(_cls('''
        class B:
            def __init__(self):
                self.parts = []
            def add_all(self, texts):
                for t in texts:
                    self.parts.append(t)
    '''))
    sorted_ = builder_of(_cls('''
        class B:
            def __init__(self):
                self.parts = []
            def add(self, t):
                self.parts.append(t)
            def build(self):
                return "\\n".join(sorted(self.parts))
    '''))
    replaced = builder_of(_cls('''
        class B:
            def __init__(self):
                self.parts = []
            def set(self, t):
                self.parts = [t]
    '''))
    assert (looped, sorted_, replaced) == (None, None, None)


CALLER = '''
    from openai import OpenAI

    RULES = "Answer briefly and check the order status before you promise a refund. " * 200


    class Builder:
        def __init__(self):
            self.sections = {}
        def add(self, name, text):
            self.sections[name] = text
        def build(self):
            out = ""
            for name, text in self.sections.items():
                out += f"# {name}\\n{text}\\n"
            return out


    def ask(client: OpenAI, question, admin):
        b = Builder()
        if admin:
            b.add("role", "You may issue refunds.")
        b.add("rules", RULES)
        b.add("question", question)
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": b.build()}])
'''


def test_sections_added_in_branches_of_the_caller_and_the_question_last(tmp_path):
    (layout,) = [lt for lt in layouts(tmp_path, CALLER) if lt.source == "python-call"]
    ((role, described),) = parts(layout)
    texts = [d[1] for d in described if d[0] == "text"]
    assert texts[:4] == ["# ", "role", "\n", "You may issue refunds."]
    assert [d for d in described if d[0] != "text"] == [("user-input", "per-request", "question")]
    write(tmp_path, {"app.py": CALLER})
    assert api.check([tmp_path], api.Settings(), jobs=1).diagnostics == []


def test_the_question_added_first_is_reported_where_it_is_added(tmp_path):
    first = CALLER.replace('        b.add("question", question)\n', "").replace(
        '        b = Builder()\n', '        b = Builder()\n        b.add("question", question)\n')
    write(tmp_path, {"app.py": first})
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM101", "warning", pos(first, 'b.add("question", question)').row)]


ORDERED = '''
    RULES = "Answer briefly and check the order status before you promise a refund. " * 200
    TAIL = "Reply with one JSON object that names the chosen tags and nothing else. " * 40


    class PromptBuilder:
        def __init__(self):
            self.parts = []
        def add(self, text):
            self.parts.append(text)
            return self
        def add_conversation_history(self, events):
            self.parts.append("\\n".join(e.text for e in events))
            return self
        def build(self):
            return "\\n\\n".join(self.parts)


    def build_prompt(tags: set[str], events):
        builder = PromptBuilder()
        builder.add(RULES)
        builder.add_conversation_history(events)
        builder.add("Tags: " + ", ".join(tags))
        builder.add(TAIL)
        return builder
'''


def test_a_set_after_the_conversation_written_into_the_text_is_info(tmp_path):
    # after the history section the next turn's text differs anyway: only the same turn shares it
    write(tmp_path, {"app.py": ORDERED})
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM202", "info", pos(ORDERED, '", ".join(tags)').row)]


def test_the_same_set_before_the_conversation_is_a_warning(tmp_path):
    before = ORDERED.replace('        builder.add_conversation_history(events)\n', '').replace(
        '        builder.add(TAIL)\n', '        builder.add(TAIL)\n        builder.add_conversation_history(events)\n')
    write(tmp_path, {"app.py": before})
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM202", "warning", pos(before, '", ".join(tags)').row)]
