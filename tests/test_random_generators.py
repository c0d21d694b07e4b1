"""Random number generators kept on an object (`self.rand = random.Random()`): their methods give
a new value on every call, as the `random` module's functions do (PRM103); a generator made with a
seed repeats its sequence on every run and is not reported."""
from __future__ import annotations

from promptlint import api

from analysis_support import write

APPRENTICE = """
    import random
    from anthropic import Anthropic

    client = Anthropic()
    RULES = "You are a careful assistant. " * 200


    class Apprentice:
        def __init__(self):
            self.rand = {generator}

        def system(self):
            return "({{}})\\n\\n".format(self.rand.{method}) + RULES

        def ask(self, history):
            return client.messages.create(model="claude-sonnet-4-5", max_tokens=100,
                                          system=self.system(), messages=history)
"""


def _findings(tmp_path, generator: str, method: str = "randint(0, 1000000)"):
    write(tmp_path, {"app.py": APPRENTICE.format(generator=generator, method=method)})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.span.start.row) for d in report.diagnostics if d.code in ("PRM101", "PRM103")]


def test_a_generator_made_without_a_seed_gives_a_new_value_per_call(tmp_path):
    assert _findings(tmp_path, "random.Random()") == [("PRM103", 13)]
    assert _findings(tmp_path, "random.SystemRandom()", "choice(['a', 'b'])") == [("PRM103", 13)]


def test_a_seeded_generator_or_another_method_is_no_id(tmp_path):
    assert _findings(tmp_path, "random.Random(0)") == []
    assert _findings(tmp_path, "random.Random()", "getstate()") == []
