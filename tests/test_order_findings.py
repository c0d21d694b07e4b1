"""End to end (issue 11): order and ids that vary per process or per instance, carried through
returns, attributes, typed fields and templates, are reported where they enter the prompt, with
the place they are made as the related location; the shapes that keep their order or never reach
prompt text stay clean. Severity follows docs/policies.md (a warning with a cached prefix after
it, info in a fragment with only a short tail)."""
from __future__ import annotations

from analysis_support import code, pos, write

from promptlint.api import check

RULES = '("You are a careful assistant. Follow every rule, cite sources and answer precisely. " * 80)'
HEAD = f"""
    from openai import OpenAI

    client = OpenAI()
    RULES = {RULES}
"""


def findings(root, monkeypatch, files: dict[str, str]) -> list[tuple]:
    """(code, file, row, column, severity, related rows) of every finding of the project."""
    write(root, files)
    monkeypatch.chdir(root)
    return [(d.code, d.span.filename, d.span.start.row, d.span.start.column, d.severity.value,
             [r.span.start.row for r in d.related]) for d in check(["."]).diagnostics]


def of(found, rule: str) -> list[tuple]:
    return [f for f in found if f[0] == rule]


DEDUPED = HEAD + """

    def unique_tags(items):
        return list(set(items))


    def build(items, history):
        tags = unique_tags(items)
        system = RULES + "Tags: " + ", ".join(tags[:10]) + RULES
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": system}, *history])
"""


def test_a_deduplicated_list_returned_and_cut_is_reported_where_it_is_joined(tmp_path, monkeypatch):
    found = of(findings(tmp_path, monkeypatch, {"app.py": DEDUPED}), "PRM202")
    at = pos(DEDUPED, "tags[:10]")
    assert found == [("PRM202", "app.py", at.row, at.column, "warning", [pos(DEDUPED, "set(items)").row])]


def test_sorted_dedupe_and_fromkeys_are_clean(tmp_path, monkeypatch):
    source = DEDUPED.replace("list(set(items))", "sorted(set(items))")
    assert of(findings(tmp_path, monkeypatch, {"app.py": source}), "PRM202") == []
    source = DEDUPED.replace("list(set(items))", "list(dict.fromkeys(items))")
    assert of(findings(tmp_path / "b", monkeypatch, {"app.py": source}), "PRM202") == []


FRAGMENT = """
    def tag_messages(items, question):
        found = set().union(items, ["extra"])
        system = "You tag documents. Known tags: " + ", ".join(list(found)[:5]) + "."
        return [{"role": "system", "content": system}, {"role": "user", "content": question}]
"""


def test_a_short_fragment_is_info(tmp_path, monkeypatch):
    # a system message built by a function whose send is not found: the conversation follows it
    # (a short tail is info); a few hundred tokens after it are a warning
    found = of(findings(tmp_path, monkeypatch, {"app.py": FRAGMENT}), "PRM202")
    assert [(f[2], f[4]) for f in found] == [(pos(FRAGMENT, "list(found)").row, "info")]
    user = FRAGMENT.replace('[{"role": "system", "content": system}, {"role": "user", "content": question}]',
                            '[{"role": "user", "content": system}]')
    # as the one message of its request, a few words after it are not worth caching on their own,
    # but the set's items are the same content in another order: still info
    found = of(findings(tmp_path / "u", monkeypatch, {"app.py": user}), "PRM202")
    assert [(f[2], f[4]) for f in found] == [(pos(user, "list(found)").row, "info")]
    long = FRAGMENT.replace('+ "."', '+ "." + ' + repr("Tag each document with one of the known tags only. " * 30))
    found = of(findings(tmp_path / "b", monkeypatch, {"app.py": long}), "PRM202")
    assert [(f[2], f[4]) for f in found] == [(pos(long, "list(found)").row, "warning")]


TASKS = HEAD + """
    from jinja2 import Template
    from pydantic import BaseModel, Field

    PLAN = Template(\"\"\"You plan tasks. Follow the plan rules below and answer precisely.
    {% for t in task.depends_on %}- {{ t.title }}
    {% endfor %}
    Rules: be careful, be precise, never invent facts, cite every source you use.
    \"\"\")


    class Task(BaseModel):
        title: str
        depends_on: set["Task"] = Field(default_factory=set)


    def plan(task: Task, history):
        system = PLAN.render(task=task)
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": system}, *history])
"""


def test_a_template_loop_over_a_set_field_of_a_passed_object(tmp_path, monkeypatch):
    found = of(findings(tmp_path, monkeypatch, {"app.py": TASKS}), "PRM202")
    # (an inline template's tags are placed where its literal writes them in the file)
    at = pos(TASKS, "{% for t in")
    assert found == [("PRM202", "app.py", at.row, at.column, "warning", [pos(TASKS, 'set["Task"]').row])]


def test_a_list_field_or_a_sorted_loop_is_clean(tmp_path, monkeypatch):
    as_list = TASKS.replace('set["Task"] = Field(default_factory=set)', 'list["Task"] = Field(default_factory=list)')
    assert of(findings(tmp_path, monkeypatch, {"app.py": as_list}), "PRM202") == []
    ordered = TASKS.replace("in task.depends_on %}", "in task.depends_on | sort(attribute='title') %}")
    assert of(findings(tmp_path / "b", monkeypatch, {"app.py": ordered}), "PRM202") == []


LOADED = HEAD + """
    from dataclasses import dataclass, field
    from pathlib import Path

    from jinja2 import Environment, FileSystemLoader

    ENV = Environment(loader=FileSystemLoader(Path(__file__).parent / "prompts"))


    @dataclass
    class Memory:
        facts: set[str] = field(default_factory=set)


    def answer(memory: Memory, history):
        system = ENV.get_template("system.j2").render(memory=memory)
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": system}, *history])
"""
LOADED_TEMPLATE = """
    You answer questions about the user's notes. Be careful and precise.
    Known facts:
    {% for fact in memory.facts %}- {{ fact }}
    {% endfor %}
    Never invent facts. Cite the note each fact comes from.
"""


def test_a_template_file_reads_a_typed_field(tmp_path, monkeypatch):
    found = of(findings(tmp_path, monkeypatch, {"app.py": LOADED, "prompts/system.j2": LOADED_TEMPLATE}), "PRM202")
    at = pos(LOADED_TEMPLATE, "{% for fact")
    assert [f[:5] for f in found] == [("PRM202", "prompts/system.j2", at.row, at.column, "warning")]


def test_a_field_of_numbers_in_a_template_is_clean(tmp_path, monkeypatch):
    source = LOADED.replace("facts: set[str]", "facts: set[int]")
    assert of(findings(tmp_path, monkeypatch, {"app.py": source, "prompts/system.j2": LOADED_TEMPLATE}), "PRM202") == []


NAMED = HEAD + """
    import random
    from jinja2 import Template
    from pydantic import BaseModel, Field

    NAMES = ["Ada", "Grace", "Edsger"]
    INTRO = Template("Your name is {{ agent.name }}.\\n{{ rules }}")


    class Agent(BaseModel):
        name: str = Field(default_factory=lambda: random.choice(NAMES))

        def run(self, history):
            system = INTRO.render(agent=self, rules=RULES)
            return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "system", "content": system}, *history])
"""


def test_a_random_default_name_rendered_at_the_top(tmp_path, monkeypatch):
    found = of(findings(tmp_path, monkeypatch, {"app.py": NAMED}), "PRM103")
    at = pos(NAMED, "{{ agent.name }}")  # in the inline template's literal, escapes and all
    assert [f[:5] for f in found] == [("PRM103", "app.py", at.row, at.column, "warning")]
    assert found[0][5] == [pos(NAMED, "random.choice(NAMES)").row]


def test_a_fixed_default_name_is_clean(tmp_path, monkeypatch):
    source = NAMED.replace("Field(default_factory=lambda: random.choice(NAMES))", '"Ada"')
    assert of(findings(tmp_path, monkeypatch, {"app.py": source}), "PRM103") == []


TOOL_IDS = HEAD + """
    import logging
    from uuid import uuid4

    log = logging.getLogger(__name__)


    class Worker:
        def __init__(self):
            self.key = str(uuid4())[:8]

        def tools(self):
            return [{"type": "function", "function": {"name": f"ask_{self.key}", "parameters": {}}}]

        def run(self, history):
            return client.chat.completions.create(model="gpt-4.1", tools=self.tools(),
                                                  messages=[{"role": "system", "content": RULES}, *history])
"""


def test_an_instance_id_in_a_tool_name(tmp_path, monkeypatch):
    found = of(findings(tmp_path, monkeypatch, {"app.py": TOOL_IDS}), "PRM103")
    assert [(f[2], f[4], f[5]) for f in found] == [
        (pos(TOOL_IDS, '[{"type"').row, "warning", [pos(TOOL_IDS, "str(uuid4())").row])]


REQUEST_IDS = HEAD + """
    import logging
    import uuid

    log = logging.getLogger(__name__)


    class Worker:
        def __init__(self, skills: set[str]):
            self.key = str(uuid.uuid4())[:8]
            self.skills = skills

        def run(self, history, items):
            request_id = str(uuid.uuid4())
            log.info("request %s", request_id)
            known = sum(1 for i in items if i in self.skills)
            system = RULES + f"You have {len(self.skills)} skills." + RULES
            return client.chat.completions.create(
                model="gpt-4.1", user=self.key, extra_headers={"X-Request-Id": request_id},
                metadata={"run": str(uuid.uuid4()), "known": str(known)},
                messages=[{"role": "system", "content": system}, *history])
"""


def test_ids_outside_the_prompt_and_sets_only_counted_are_clean(tmp_path, monkeypatch):
    found = findings(tmp_path, monkeypatch, {"app.py": REQUEST_IDS})
    assert of(found, "PRM103") == [] and of(found, "PRM202") == []


def test_sources_are_written_as_given():
    assert code(HEAD).startswith("from openai import OpenAI")


TOOL_OBJECTS = HEAD + """
    from uuid import uuid4

    from pydantic import BaseModel


    class Tool(BaseModel):
        name: str
        description: str = ""


    class Task(BaseModel):
        id: str | None = None

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            if self.id is None:
                self.id = str(uuid4())[:8]

        def get_tools(self) -> list[Tool]:
            tools = []
            tools.append(Tool(name=f"mark_task_{self.id}_done", description="Mark the task as done."))
            return tools
"""


def test_an_instance_id_in_a_tool_object_of_a_list_found_by_its_name(tmp_path, monkeypatch):
    # no call sends the list: only the function's name says it is a tool list (info)
    found = of(findings(tmp_path, monkeypatch, {"app.py": TOOL_OBJECTS}), "PRM103")
    at = pos(TOOL_OBJECTS, "{self.id}")
    assert found == [("PRM103", "app.py", at.row, at.column, "info", [pos(TOOL_OBJECTS, "uuid4()").row])]


def test_a_tool_object_with_an_instance_id_sent_as_tools(tmp_path, monkeypatch):
    source = TOOL_OBJECTS + """
        def run(task: Task, history):
            return client.responses.create(model="gpt-4.1", tools=task.get_tools(), instructions=RULES, input=history)
    """
    found = of(findings(tmp_path, monkeypatch, {"app.py": source}), "PRM103")
    assert [(f[2], f[4]) for f in found] == [(pos(source, "{self.id}").row, "warning")]


def test_a_tool_list_found_by_its_name_with_fixed_names_is_clean(tmp_path, monkeypatch):
    source = TOOL_OBJECTS.replace('f"mark_task_{self.id}_done"', '"mark_task_done"')
    assert findings(tmp_path, monkeypatch, {"app.py": source}) == []


def test_the_prefilter_admits_tools_next_to_an_id_or_a_clock():
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt("from uuid import uuid4\n\ndef get_tools(self):\n    return [Tool(name=f'x_{uuid4()}')]\n")
    assert not might_hold_prompt("from uuid import uuid4\n\ndef make_key():\n    return str(uuid4())\n")


WRAPPED = {
    "app/__init__.py": "",
    "app/jinja.py": """
        from jinja2 import Environment, PackageLoader

        prompt_env = Environment(loader=PackageLoader("app.orchestration", "prompt_templates"))
    """,
    "app/orchestration/__init__.py": "",
    "app/orchestration/prompt_templates.py": """
        from typing import Optional

        from pydantic import BaseModel

        from app.jinja import prompt_env


        class Template(BaseModel):
            template: Optional[str] = None
            template_path: Optional[str] = None

            def render(self, **kwargs) -> str:
                render_kwargs = dict(self)
                del render_kwargs["template"]
                if self.template is not None:
                    template = prompt_env.from_string(self.template)
                else:
                    template = prompt_env.get_template(self.template_path)
                return template.render(**render_kwargs | kwargs)


        class AgentTemplate(Template):
            template_path: str = "agent.jinja"
            agent: object


        class MemoryTemplate(Template):
            template_path: str = "memories.jinja"
            memories: list

            def render(self, **kwargs) -> str:
                return super().render(heading="Memories", **kwargs)
    """,
    "app/orchestration/prompt_templates/agent.jinja": """
        # Agent

        Your name is {{ agent.name }}. You work in a team of agents on tasks a person gives you. Follow every
        instruction, cite the source of each fact you use, never invent facts, and end each turn with a tool call.
    """,
    "app/orchestration/prompt_templates/memories.jinja": """
        # {{ heading }}

        {% for memory in memories %}- {{ memory.key }}
        {% endfor %}
        Read a memory before you answer from it; write new facts to the memory they belong to.
    """,
    "app/agent.py": """
        import random
        from typing import Optional

        from pydantic import BaseModel, Field

        NAMES = ["Ada", "Grace", "Edsger"]


        class Agent(BaseModel):
            name: str = Field(default_factory=lambda: random.choice(NAMES))
            prompt: Optional[str] = None
            memories: list = []

            def get_prompt(self) -> str:
                from app.orchestration import prompt_templates
                return prompt_templates.AgentTemplate(template=self.prompt, agent=self).render()
    """,
    "app/orchestrator.py": """
        from typing import Optional

        from pydantic import BaseModel

        from app.agent import Agent


        class Orchestrator(BaseModel):
            agent: Optional[Agent] = None

            def next_turn(self, strategy):
                self.agent = strategy.next_agent()

            def get_memories(self):
                memories = set()
                memories.update(self.agent.memories)
                return memories

            def compile_prompt(self) -> str:
                from app.orchestration.prompt_templates import MemoryTemplate
                prompts = [self.agent.get_prompt(), MemoryTemplate(memories=self.get_memories()).render()]
                return "\\n\\n".join([p for p in prompts if p])
    """,
}


def test_templates_rendered_by_template_classes_through_a_base_class(tmp_path, monkeypatch):
    # the order of a set and an instance's random default name reach the prompt through template
    # objects (a file name as a class attribute, the instance's fields as the template's values)
    # (rendered in Python with no send found: a tail worth caching follows each value)
    wrapped = {k: v.replace("{{ heading }}", "Memories") + TEAM_RULES if k.endswith(".jinja") else v
               for k, v in WRAPPED.items()}
    found = findings(tmp_path, monkeypatch, wrapped)
    assert [f[:3] + (f[4], f[5]) for f in found] == [
        ("PRM103", "app/orchestration/prompt_templates/agent.jinja", 3, "info", [10]),
        ("PRM202", "app/orchestration/prompt_templates/memories.jinja", 3, "warning", [15])]
    # (a fixed name: the agent, of unknown volatility, before the rules is a note of its own)
    assert [f[:3] for f in findings(tmp_path / "b", monkeypatch, {
        **wrapped, "app/agent.py": WRAPPED["app/agent.py"].replace(
            "Field(default_factory=lambda: random.choice(NAMES))", '"Ada"')})] == [
        ("PRM101", "app/orchestration/prompt_templates/agent.jinja", 3),
        ("PRM202", "app/orchestration/prompt_templates/memories.jinja", 3)]
    # a few dozen static tokens after them, in a prompt whose send is not found: the random name is
    # not worth a finding; the set's order is info (its items are the same content in another order)
    assert [f[:3] + (f[4], f[5]) for f in findings(tmp_path / "c", monkeypatch, WRAPPED)] == [
        ("PRM202", "app/orchestration/prompt_templates/memories.jinja", 3, "info", [15])]


TEAM_RULES = "".join(f"        Rule {i}: keep the team's notes short, cite each source and never invent facts.\n"
                     for i in range(1, 25))


def test_a_tool_call_made_with_a_new_id_is_not_a_tool_definition(tmp_path, monkeypatch):
    source = HEAD + """
    import uuid


    class ToolCall:
        def __init__(self, id, type, function):
            self.id, self.type, self.function = id, type, function


    def parse_tool_call(name, arguments):
        return ToolCall(id=str(uuid.uuid4()), type="function", function={"name": name, "arguments": arguments})


    def generate_tool_call_id():
        return f"call_{uuid.uuid4().hex}"
    """
    assert findings(tmp_path, monkeypatch, {"app.py": source}) == []


def test_the_text_a_tool_returns_is_not_a_tool_list(tmp_path, monkeypatch):
    source = HEAD + """
    from concurrent.futures import ThreadPoolExecutor, as_completed


    def handoff_task(handoffs, registry):
        results = []
        with ThreadPoolExecutor() as executor:
            future_to_handoff = {}
            for handoff in handoffs:
                future_to_handoff[executor.submit(registry[handoff].run)] = handoff
            for future in as_completed(future_to_handoff):
                results.append(f"Agent: {future_to_handoff[future]}\\n{future.result()}")
        return "\\n".join(results)


    class Manager:
        def handoff_task_tool(self, handoffs):
            return handoff_task(handoffs, self.registry)
    """
    assert findings(tmp_path, monkeypatch, {"app.py": source}) == []


PICKED = HEAD + """

    def review(exts, diff, history):
        lang = max(set(exts), key=exts.count)
        system = f"Main language: {lang}\\n" + RULES
        return client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "system", "content": system}, *history, {"role": "user", "content": diff}])
"""


def test_the_most_common_item_of_a_set_on_a_tie_is_reported_where_it_is_picked(tmp_path, monkeypatch):
    found = of(findings(tmp_path, monkeypatch, {"app.py": PICKED}), "PRM202")
    at = pos(PICKED, "max(set(exts)")
    assert found == [("PRM202", "app.py", at.row, at.column, "warning", [])]  # `set(exts)` lies in the finding's span
    fixed = PICKED.replace("max(set(exts), key=exts.count)", "max(sorted(set(exts)), key=exts.count)")
    assert of(findings(tmp_path / "b", monkeypatch, {"app.py": fixed}), "PRM202") == []


def test_a_named_record_returned_by_a_function_named_for_tools_is_not_a_tool_definition(tmp_path, monkeypatch):
    source = HEAD + """
    import uuid
    from dataclasses import dataclass, field


    @dataclass
    class CheckResult:
        eval_id: str = ""
        name: str = ""
        tool_results: list = field(default_factory=list)


    class Checker:
        def __init__(self, name=None):
            self.eval_id = str(uuid.uuid4())[:8]
            self.name = name or f"eval_{self.eval_id}"

        def evaluate_tools(self, actual_tools):
            result = CheckResult(eval_id=self.eval_id, name=self.name)
            for tool in actual_tools:
                result.tool_results.append(tool)
            return result
    """
    assert of(findings(tmp_path, monkeypatch, {"app.py": source}), "PRM103") == []
    # the same record with a description is a tool: its name is a definition field
    described = source.replace('name: str = ""', 'name: str = ""\n        description: str = ""').replace(
        "name=self.name)", 'name=self.name, description="Checks the calls.")')
    assert [f[4] for f in of(findings(tmp_path, monkeypatch, {"app.py": described}), "PRM103")] == ["info"]
    # a function named for the tools' calls returns what they did, not tool definitions
    called = described.replace("def evaluate_tools(", "def evaluate_tool_calls(")
    assert of(findings(tmp_path, monkeypatch, {"app.py": called}), "PRM103") == []
