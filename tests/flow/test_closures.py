"""A nested function reads the names it does not bind from the function around it (a closure):
the enclosing function's binding as seen at the nested `def` (or, bound only after it, at the end
of the enclosing body); a name the nested function binds itself anywhere is its own; a name
neither binds is the module's."""
from __future__ import annotations

from analysis_support import layouts, probe

from promptlint.python.flow.closures import local_names

CLOSURE = '''
PROMPTS = {"report": "You are an analyst. Write a report about the community below.\\n{input_text}\\nBe brief."}
RULES = "module rules"


async def generate(graph, query: str):
    template = PROMPTS["report"]
    rules = "outer rules"
    later_rules = None

    async def one(community):
        prompt = template.format(input_text=query)
        probe(prompt)
        probe(rules)
        probe(RULES)
        probe(later_rules)

        def deeper():
            probe(template)

    def shadowed():
        probe(rules)
        rules = "own rules"

    late = "bound after the def"
    return [await one(c) for c in graph]
'''


def test_a_nested_function_reads_the_enclosing_functions_names(tmp_path):
    p = probe(tmp_path, CLOSURE)
    assert p.text.startswith("You are an analyst. Write a report about the community below.")
    assert [d[:2] for d in p.described if d[0] != "text"] == [("user-input", "per-request")]
    assert probe(tmp_path, CLOSURE, index=1).text == "outer rules"


def test_a_module_name_and_a_name_bound_later_in_the_outer_body(tmp_path):
    assert probe(tmp_path, CLOSURE, index=2).text == "module rules"
    assert probe(tmp_path, CLOSURE, index=3).text == "None"


def test_two_levels_of_nesting(tmp_path):
    assert probe(tmp_path, CLOSURE, index=4).text.startswith("You are an analyst.")


def test_a_name_the_nested_function_binds_is_its_own(tmp_path):
    assert probe(tmp_path, CLOSURE, index=5).text != "outer rules"


def test_local_names_are_parameters_targets_and_definitions_not_nonlocals():
    import ast
    tree = ast.parse(
        "def f(a, *b, c=1, **d):\n"
        "    x = 1\n"
        "    for y in z: pass\n"
        "    import os.path\n"
        "    nonlocal w\n"
        "    w = 2\n"
        "    def g(): pass\n"
        "    [k for k in z]\n"
        "    print(q)\n")

    class M:
        _pieces: dict = {}
    assert local_names(M(), tree.body[0]) == {"a", "b", "c", "d", "x", "y", "os", "g"}


SENT = '''
from openai import AsyncOpenAI

client = AsyncOpenAI()
TEMPLATE = """You are an AI assistant that helps a human analyst to perform general information discovery about a community of entities in a network.
Text:
{input_text}
The report should include a title, a summary, an impact rating, a rating explanation and five to ten detailed findings about the community."""


async def reports(store, question: str):
    template = TEMPLATE

    async def one(doc_id):
        found = await store.search(question)
        prompt = template.format(input_text=found)
        return await client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])

    return [await one(i) for i in range(3)]
'''


def test_a_prompt_built_in_a_nested_function_from_an_outer_template_is_found(tmp_path):
    found = [lt for lt in layouts(tmp_path, SENT) if lt.source == "python-call"]
    assert len(found) == 1
    user = found[0].parts[0].segments
    assert user[0].is_static and user[0].text.startswith("You are an AI assistant")
    assert any(s.expr == "await store.search(question)" or "store.search" in (s.expr or "") for s in user)
