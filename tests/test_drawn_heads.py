"""Prompt text that opens with elements drawn at random before more of the prompt (python/drawn_heads.py):
a candidate of its own, judged by PRM103 (a pick, a sample) or PRM202 (a shuffle); info when the size of
what follows, or the request, is not known (impact: `Impact.drawn_only`). A draw made once (in
`__init__`, at import, with a fixed seed) is none."""
from __future__ import annotations

from promptlint import api

from analysis_support import write


def _findings(tmp_path, source: str):
    write(tmp_path, {"bench.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
            if d.code in ("PRM101", "PRM103", "PRM202")]


SAMPLED = """
    import random


    class Evaluator:
        def __init__(self, init_prompt):
            self.init_prompt = init_prompt

        def sample_prompt(self, shuffle_prompt=True, num_shot=4):
            prompt = {}
            if shuffle_prompt:
                examples = random.sample(self.init_prompt["cot_pool"], num_shot)
            else:
                examples = self.init_prompt["cot_pool"][:num_shot]
            prompt["cot"] = "".join(examples) + self.init_prompt["prefix"]
            return prompt
"""


def test_few_shot_examples_sampled_before_a_prefix_not_read_are_a_note(tmp_path):
    assert _findings(tmp_path, SAMPLED) == [("PRM103", "info", 14)]


ESCALATED = """
    import random

    LEVELS = ["Try harder.", "Be careful with the format."]


    def generate(model, prompt):
        for attempt in range(3):
            try:
                return model.generate(prompt=prompt)
            except ValueError:
                escalated_prompt = f"{random.choice(LEVELS)}\\n\\n{prompt}"
                prompt = escalated_prompt
"""


def test_a_random_pick_before_the_whole_prompt_is_a_note(tmp_path):
    assert _findings(tmp_path, ESCALATED) == [("PRM103", "info", 11)]


SHUFFLED = """
    import random

    EXAMPLES = ["Q: 1+1\\nA: 2", "Q: 2+2\\nA: 4", "Q: 3+3\\nA: 6"]


    def build(question, intro):
        shots = list(EXAMPLES)
        random.shuffle(shots)
        user_prompt = "\\n\\n".join(shots) + "\\n\\nQ: " + question + "\\nA:"
        return user_prompt
"""


def test_examples_shuffled_before_the_question_are_a_note(tmp_path):
    assert _findings(tmp_path, SHUFFLED) == [("PRM202", "info", 8)]


def test_a_draw_made_once_or_with_a_fixed_seed_is_none(tmp_path):
    once = """
        import random

        POOL = ["Q: 1+1\\nA: 2", "Q: 2+2\\nA: 4", "Q: 3+3\\nA: 6"]
        SHOTS = random.sample(POOL, 2)


        class Asker:
            def __init__(self, prefix):
                self.prefix = prefix
                self.shots = random.sample(POOL, 2)

            def prompts(self, question):
                prompt = "".join(self.shots) + self.prefix + question
                module_prompt = "".join(SHOTS) + self.prefix + question
                seeded_prompt = "".join(random.Random(0).sample(POOL, 2)) + self.prefix + question
                return [prompt, module_prompt, seeded_prompt]


        class Probe:
            def __init__(self, templates):
                self.templates = templates
                self.prompts = self._generate_prompts()

            def _generate_prompts(self):
                prompts = []
                for template in self.templates:
                    prompt = random.choice(POOL) + "\n" + template
                    prompts.append(prompt)
                return prompts
    """
    assert _findings(tmp_path, once) == []


def test_a_draw_at_the_end_or_in_text_not_named_for_prompts_is_none(tmp_path):
    source = """
        import random

        POOL = ["Q: 1+1\\nA: 2", "Q: 2+2\\nA: 4", "Q: 3+3\\nA: 6"]


        def build(prefix, name):
            prompt = prefix + "".join(random.sample(POOL, 2))
            banner = random.choice(POOL) + name
            return prompt, banner
    """
    assert _findings(tmp_path, source) == []


def test_a_draw_behind_another_value_or_before_a_few_static_tokens_is_none(tmp_path):
    # (the request's own text comes first: the draw costs nothing more; a tag closed after it: nothing to lose)
    source = """
        import random

        POOL = ["Q: 1+1\nA: 2", "Q: 2+2\nA: 4", "Q: 3+3\nA: 6"]


        def build(question, detections):
            judge_prompt = f"The user asked: {question}\nSampled: {random.sample(detections, 2)}\nJudge them."
            tag_prompt = "<id>" + "".join(random.choice("abcdef") for _ in range(6)) + "</id>"
            return judge_prompt, tag_prompt
    """
    assert _findings(tmp_path, source) == []
