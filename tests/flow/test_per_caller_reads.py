"""A method called on a value that is one per caller (`Alt.per_caller`: what each subclass's
override of an abstract method returns), or an attribute read from it, is read on each option
apart (flow/per_option.py): the strategy that picks an agent at random makes its own option
per-request content, not every strategy's agent prompt one random value (controlflow's
`self.agent = self.turn_strategy.get_next_agent(...)`, then `self.agent.get_prompt()`)."""
from __future__ import annotations

from analysis_support import code, probe, write

from promptlint import api
from promptlint.python.flow.values import Alt

STRATEGIES = """
    import random
    from abc import ABC, abstractmethod

    from openai import OpenAI

    client = OpenAI()
    NAMES = ["Ada", "Grace", "Edsger"]
    RULES = "Answer only questions about the orders of the shop; never promise refunds. " * 80


    class Agent:
        def __init__(self, name: str | None = None):
            self.name = name or random.choice(NAMES)

        def get_prompt(self):
            return f"You are {self.name}, an agent of the support team.\\n\\n{RULES}"


    class Strategy(ABC):
        @abstractmethod
        def next_agent(self, agents: list):
            raise NotImplementedError


    class Fixed(Strategy):
        def __init__(self, agent: Agent):
            self.agent = agent

        def next_agent(self, agents: list):
            return self.agent


    class Pick(Strategy):
        def next_agent(self, agents: list):
            return random.choice(agents)


    class Orchestrator:
        def __init__(self, strategy: Strategy, agents: list):
            self.strategy = strategy
            self.agents = agents

        def turn(self, history: list):
            agent = self.strategy.next_agent(self.agents)
            probe(agent.get_prompt())
            probe(agent.name)
            return client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "system", "content": agent.get_prompt()}, *history])
"""


def _options(found) -> list[list[tuple]]:
    value = found.value
    assert isinstance(value, Alt) and value.per_caller
    return [[(s.kind.value, s.volatility.value) if not s.is_static else ("text", s.text[:12])
             for s in found.ev.text_of(o, found.frame)] for o in value.options]


def test_a_method_of_one_value_per_caller_is_called_on_each(tmp_path):
    # (one unique id new on every request before: the random pick of one strategy, for all)
    found = probe(tmp_path, STRATEGIES, index=0)
    assert _options(found) == [[("text", "You are "), ("unique-id", "per-conversation"), ("text", ", an agent o"),
                                ("text", "Answer only ")],
                               [("unknown", "per-request")]]


def test_an_attribute_of_one_value_per_caller_is_read_on_each(tmp_path):
    found = probe(tmp_path, STRATEGIES, index=1)
    assert _options(found) == [[("unique-id", "per-conversation")], [("unknown", "per-request")]]


def test_the_agent_prompt_is_drawn_with_its_own_random_name_first(tmp_path):
    source = code(STRATEGIES).replace("        probe(agent.get_prompt())\n", "").replace("        probe(agent.name)\n", "")
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    # the name drawn when an agent is made, before 1,129 static tokens and the history: one
    # finding there (a PRM103 warning "new on every request" at `agent.get_prompt()` before)
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column, d.prompt.split("/")[-1])
            for d in report.diagnostics] == [("PRM103", "warning", 16, 26, "app.py:45")]


KEPT = code(STRATEGIES).replace('''    def turn(self, history: list):''', '''    def start(self):
        self.agent = self.strategy.next_agent(self.agents)

    def step(self):
        self.agent = self.strategy.next_agent(self.agents)

    def prompt(self):
        probe(self.agent.name)
        probe(self.agent.get_prompt())

    def turn(self, history: list):''')


def test_one_of_several_values_per_caller_is_read_on_each(tmp_path):
    # `self.agent` assigned in two methods: one of two values, each one per strategy
    assert KEPT != STRATEGIES
    for index, drawn in ((0, [("unique-id", "per-conversation", "random.choice(NAMES)")]),
                         (1, [("text", "You are "), ("unique-id", "per-conversation", "random.choice(NAMES)")])):
        found = probe(tmp_path, KEPT, index=index)
        assert isinstance(found.value, Alt) and all(isinstance(o, Alt) and o.per_caller for o in found.value.options)
        assert found.described[:len(drawn)] == drawn
