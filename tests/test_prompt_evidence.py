"""What makes code a prompt builder (docs/policies.md, Policy 9): a file whose only prompt code is a
template filled by `.format(...)`, text assigned over several lines, a function named for the
prompt it returns or a system message is analysed (the pre-filter);
a name that says both tools and prompt (`tool_selection_prompt`) builds prompt text when it returns
text; a method of a class named for prompts (`class PromptFamily`) builds a prompt whatever the
method is called."""
from __future__ import annotations

from analysis_support import layouts, parts, write

from promptlint import api
from promptlint.python.prefilter import might_hold_prompt

RULES = "Follow the selection criteria: relevance first, then coverage, then diversity of sources. " * 4


def _constants(found):
    return [lt for lt in found if lt.source == "python-constant"]


def test_the_prefilter_passes_a_prompt_filled_from_a_template_kept_elsewhere():
    assert might_hold_prompt("code_prompt = prompts.code_generation.format(query=q)\n")
    assert might_hold_prompt('answer_prompt = TEMPLATES["answer"].format_map(values)\n')
    assert might_hold_prompt('initial_prompt = (\n    f"You are a {dialect} expert. "\n)\n')
    assert might_hold_prompt('initial_prompt += f"{ddl}\\n\\n"\n')
    # a prompt-named value that is not text being built, and a system call, are not evidence
    assert not might_hold_prompt("prompt_count = compute(3)\nname = platform.system()\n")
    assert not might_hold_prompt("prompt = template.format\n")
    assert might_hold_prompt("class ResearchPrompts:\n    pass\n")
    assert might_hold_prompt("class PromptFamily(Base):\n    pass\n")
    assert not might_hold_prompt("class ReportWriter:\n    pass\n# the prompt\n")
    assert might_hold_prompt("def build_prompt(query):\n    return f'Answer {query}' + RULES\n")
    assert might_hold_prompt("def make_instructions(user):\n    return 'Hi ' + user.name + RULES\n")
    assert might_hold_prompt("def build(q):\n    return [{'role': 'system', 'content': f'Now {q}'}]\n")
    assert might_hold_prompt("m = Message(role=\"developer\", content=c)\n")
    assert not might_hold_prompt("def define(x):\n    role = 'admin'\n    return x\n")


def test_a_module_whose_only_prompt_is_a_builder_function_is_analysed(tmp_path):
    write(tmp_path, {"builders.py": f'''
        def build_prompt(question):
            return f"""Question: {{question}}
        {RULES * 5}"""
    '''})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.span.start.row) for d in report.diagnostics] == [("PRM101", 2)]


def test_a_builder_function_with_a_few_words_after_its_question_is_not_reported(tmp_path):
    # the same builder with one line (about 20 tokens) after the question: its send is not found,
    # so what the request adds is not known, and a line is not worth caching on its own
    write(tmp_path, {"builders.py": '''
        def build_prompt(question):
            return f"""Question: {question}
        Answer in one short paragraph, and cite the source of every claim you make."""
    '''})
    assert api.check([tmp_path], api.Settings(), jobs=1).diagnostics == []


def test_a_module_whose_only_prompt_is_a_formatted_template_is_analysed(tmp_path):
    write(tmp_path, {
        "templates.py": f'''
            CODE = """You write python programs that answer the user's question.
            Current time: {{current_time}}
            {RULES * 4}
            Question: {{query}}
            """
        ''',
        "run_code.py": """
            from datetime import datetime

            import templates
            from llm import send_somewhere


            def generate(q):
                now = datetime.now().strftime("%H:%M")
                code_prompt = templates.CODE.format(current_time=now, query=q)
                return send_somewhere(code_prompt)
        """,
    })
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.span.filename.rsplit("/", 1)[-1], d.span.start.row) for d in report.diagnostics]
    assert ("PRM102", "templates.py", 2) in got  # the `{current_time}` placeholder, before the rules


def test_a_function_named_for_tools_and_prompt_that_returns_text_is_a_prompt(tmp_path):
    source = f'''
        import json


        def tool_selection_prompt(query, tools):
            return f"""Research query: "{{query}}"
        Tools: {{json.dumps(tools, sort_keys=True)}}
        {RULES}"""


        def tools_prompt_list():
            return ["search", "fetch"]
    '''
    found = _constants(layouts(tmp_path, source))
    assert [lt.site.start.row for lt in found] == [5]
    (role, described), = parts(found[0])
    assert role == "prompt"
    assert described[0] == ("text", 'Research query: "')
    assert described[1] == ("user-input", "per-request", "query")


def test_a_tools_list_named_with_prompt_is_still_a_tools_list(tmp_path):
    source = """
        def prompt_tools(registry):
            return [{"name": n} for n in set(registry)]
    """
    found = _constants(layouts(tmp_path, source))
    assert [p.role for lt in found for p in lt.parts] == ["tools"]


METHODS = f'''
    class {{cls}}:
        @staticmethod
        def curate_sources(query, sources):
            return f"""Evaluate the sources for the research task: "{{{{query}}}}"
        {RULES * 4}
        Sources:
        {{{{sources}}}}"""

        def __repr__(self):
            return f"""{{{{type(self).__name__}}}}: {RULES}"""
'''


def test_a_method_of_a_class_named_for_prompts_is_a_prompt_builder(tmp_path):
    found = _constants(layouts(tmp_path, METHODS.format(cls="PromptFamily")))
    assert [lt.site.start.row for lt in found] == [4]  # curate_sources; never __repr__
    (role, described), = parts(found[0])
    assert role == "prompt" and described[1] == ("user-input", "per-request", "query")


def test_a_method_of_another_class_is_not(tmp_path):
    assert _constants(layouts(tmp_path, METHODS.format(cls="SourceCurator"))) == []
    assert _constants(layouts(tmp_path / "s", METHODS.format(cls="SystemMonitor"))) == []


def test_a_prompt_class_method_is_reported_where_the_query_enters(tmp_path):
    write(tmp_path, {"prompts.py": METHODS.format(cls="PromptFamily")})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.span.start.row, d.severity.value) for d in report.diagnostics]
    assert got == [("PRM101", 4, "info")]  # the query first: ~300 static tokens after it, below every minimum
