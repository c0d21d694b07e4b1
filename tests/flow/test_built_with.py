"""What an instance is built with (flow/configured.py `built_with`): a required parameter of
`__init__` kept on the instance is the same on every call of a method that takes input of its own
(`classify(self, request)`): stable across the requests made through one instance, while the
method's parameter is what each call brings. A record class whose methods take nothing, a value
the tree's constructor calls pass, a name that says it changes keep their reading. A counter
stepped by a number (`self.iteration += 1`) is no conversation history."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility

CLASSIFIER = """
    TEMPLATE = '''Below are the intents you classify into:
    {context}
    Classify this request: {request}
    Answer in JSON.'''


    class Intent:
        name: str
        description: str


    class Classifier:
        def __init__(self, llm: "LLM", intents: list[Intent], session_id: int):
            self.llm = llm
            self.intents = {intent.name: intent for intent in intents}
            self.session_id = session_id

        def _context(self):
            parts = []
            for intent in self.intents.values():
                parts.append(f"- {intent.name}: {intent.description}")
            return "\\n".join(parts)

        def classify(self, request, top_k=1):
            probe(TEMPLATE.format(context=self._context(), request=request))
            probe(f"Session {self.session_id}. Answer briefly.")
"""


def dynamic(value):
    return [s for s in value.segs if not s.is_static]


def test_what_a_serving_instance_is_built_with_is_stable_and_the_call_input_is_not(tmp_path):
    context, request = dynamic(probe(tmp_path, CLASSIFIER).value)
    assert (context.kind, context.volatility) == (Kind.UNKNOWN, Volatility.STABLE), context
    assert "`intents`" in context.evidence
    assert (request.expr, request.volatility) == ("request", Volatility.UNKNOWN)


def test_a_required_parameter_named_as_an_id_keeps_its_name(tmp_path):
    s, = dynamic(probe(tmp_path, CLASSIFIER, index=1).value)
    assert s.kind is Kind.UNIQUE_ID and s.volatility is not Volatility.STABLE


RECORD = """
    class Prompt:
        def __init__(self, style: Style, docs: list[Doc]):
            self.style = style
            self.docs = docs

        def text(self):
            probe(f"Context: {self.docs} Answer from the context only, in this style: {self.style}")
"""


def test_a_record_whose_methods_take_no_input_keeps_what_it_is_built_with_unknown(tmp_path):
    got = dynamic(probe(tmp_path, RECORD).value)
    assert [s.volatility for s in got] == [Volatility.UNKNOWN, Volatility.UNKNOWN]


BUILT = """
    class Answerer:
        def __init__(self, docs: list[Doc]):
            self.docs = docs

        def answer(self, question):
            probe(f"Context: {self.docs} Answer from the context only. Question: {question}")


    def handle(question, store):
        return Answerer(docs=store.search(question)).answer(question)
"""


def test_what_the_constructor_calls_of_the_tree_pass_is_read_there(tmp_path):
    docs = dynamic(probe(tmp_path, BUILT).value)[0]
    assert docs.volatility is not Volatility.STABLE  # retrieved with the question, per request


SUBCLASS = """
    class Base:
        def __init__(self, agents: list[Agent]):
            self.catalog = "\\n".join(f"- {agent.name}: {agent.instruction}" for agent in agents)


    class Planner(Base):
        def plan(self, objective):
            probe(f"Plan for the objective: {objective}\\nAgents you can use:\\n{self.catalog}\\nAnswer in JSON.")
"""


def test_what_a_base_class_is_built_with_is_stable_for_a_subclass_that_serves_calls(tmp_path):
    objective, catalog = dynamic(probe(tmp_path, SUBCLASS).value)
    assert objective.volatility is Volatility.UNKNOWN
    assert catalog.volatility is Volatility.STABLE, catalog


COUNTER = """
    class Orchestrator:
        def __init__(self, plan):
            self.iteration: int = 0
            self.notes = []
            self.plan = plan

        def step(self, task):
            self.iteration += 1
            self.notes += [task]
            probe(f"Iteration {self.iteration}. Answer briefly.")
            probe(f"Notes {self.notes}. Answer briefly.")
"""


def test_a_counter_stepped_by_a_number_is_unknown_not_history(tmp_path):
    s, = dynamic(probe(tmp_path, COUNTER).value)
    assert (s.kind, s.volatility) == (Kind.UNKNOWN, Volatility.UNKNOWN), s
    assert "counter" in s.evidence


def test_a_list_grown_by_plus_equals_is_still_grown(tmp_path):
    s, = dynamic(probe(tmp_path, COUNTER, index=1).value)
    assert s.kind is Kind.HISTORY


TEXT = """
    class Navigator:
        BASE = "You navigate phone menus to reach this goal: {goal}. " + "Press the key the menu names. " * 40

        def __init__(self, llm: LLM, goal: str, persona):
            self._prompt = self.BASE.format(goal=goal)
            self.persona = persona

        def step(self, frame):
            probe(self._prompt)
            probe(f"You are {self.persona}. Answer briefly.")
"""


def test_a_text_or_unannotated_constructor_parameter_keeps_its_reading(tmp_path):
    # the caller's own prompt text for this instance (a navigator built per phone call with its goal)
    for index in (0, 1):
        got = dynamic(probe(tmp_path, TEXT, index=index).value)
        assert [s.volatility for s in got] == [Volatility.UNKNOWN], (index, got)


COUNTED = """
    from typing import Set


    class Queue:
        def __init__(self):
            self.done: Set[str] = set()

        def finish(self, name):
            self.done.add(name)

        def report(self):
            probe(f"{len(self.done)} tasks done. Answer briefly.")
            probe(f"Done: {', '.join(self.done)}. Answer briefly.")
"""


def test_the_count_of_a_set_has_no_order(tmp_path):
    s, = dynamic(probe(tmp_path, COUNTED).value)
    assert s.kind is Kind.UNKNOWN and s.volatility is Volatility.UNKNOWN, s
    joined, = dynamic(probe(tmp_path, COUNTED, index=1).value)
    assert joined.kind is Kind.UNORDERED_ITERATION  # its text, not its count, depends on the hash seed
