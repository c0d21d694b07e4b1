"""Random number generators kept on an object (`self.rand = random.Random()`): their methods give
a new value on every call, as the `random` module's functions do (PRM103), with a seed as well (the
sequence repeats across runs, each call draws its next values); a generator seeded afresh in the
call that draws from it, or the process-wide one seeded there (`random.seed(0)`), repeats its
draw on every call and is not reported (flow/seeded_draws.py)."""
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


def test_a_generator_seeded_once_and_kept_still_draws_anew_on_every_call(tmp_path):
    assert _findings(tmp_path, "random.Random(0)") == [("PRM103", 13)]


def test_another_method_is_no_id(tmp_path):
    assert _findings(tmp_path, "random.Random()", "getstate()") == []


SEEDED = """
    import random
    from anthropic import Anthropic

    client = Anthropic()
    RULES = "You are a careful assistant. " * 200
    NAMES = ["Ada", "Grace", "Edsger"]


    def ask(history, questions):
    {body}
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=100,
                                      system=name + RULES, messages=history)
"""


def _seeded(tmp_path, body: str):
    write(tmp_path, {"app.py": SEEDED.format(body=body)})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value) for d in report.diagnostics if d.code in ("PRM101", "PRM103")]


def test_a_generator_seeded_in_the_call_repeats_its_draw(tmp_path):
    assert _seeded(tmp_path, "    rng = random.Random(42)\n        name = rng.choice(NAMES)") == []
    assert _seeded(tmp_path, "    name = random.Random(42).choice(NAMES)") == []
    assert _seeded(tmp_path, "    random.seed(0)\n        name = random.choice(NAMES)") == []


def test_each_draw_of_a_loop_after_the_seed_repeats_from_call_to_call(tmp_path):
    # (the passes draw different values, but each call the same ones: a pool built pass by pass)
    body = "    random.seed(0)\n        for q in questions:\n            name = random.choice(NAMES)"
    assert _seeded(tmp_path, body) == []
    body = "    rng = random.Random(42)\n        for q in questions:\n            name = rng.choice(NAMES)"
    assert _seeded(tmp_path, body) == []
