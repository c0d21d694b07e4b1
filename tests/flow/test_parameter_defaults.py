"""A parameter with a text default (`system_prompt: str = SYSTEM_PROMPT`) that no caller of the tree
is known to pass is what a caller gives or its default, one value per caller (as `x or DEFAULT`):
a template filled with data fetched for the request is judged as the default template; a call that
leaves the parameter out (and cannot pass it through `**kwargs`) gives the default."""
from __future__ import annotations

from analysis_support import one_call, parts, probe

TEMPLATE = '''
QUESTION_PROMPT = """
---Role---
You are a helpful assistant generating questions about data in the tables provided.
---Data tables---
{context_data}
---Goal---
Given a series of example questions provided by the user, generate a bulleted list of candidates.
"""
'''

ATTRIBUTE = TEMPLATE + '''
from openai import OpenAI


class QuestionGen:
    def __init__(self, client: OpenAI, system_prompt: str = QUESTION_PROMPT):
        self.client = client
        self.system_prompt = system_prompt

    def generate(self, question: str):
        context = self.retriever.search(question)
        system_prompt = self.system_prompt.format(context_data=context)
        return self.client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "system", "content": system_prompt}, {"role": "user", "content": question}],
        )
'''


def test_a_template_parameter_nobody_passes_is_filled_as_its_default(tmp_path):
    call = one_call(tmp_path, ATTRIBUTE)
    system = parts(call)[0]
    assert system[0] == "system"
    kinds = [d[:2] for d in system[1]]
    assert ("user-input", "per-request") in kinds  # the fetched context, in the default template
    assert any(d[0] == "text" and "Given a series of example questions" in d[1] for d in system[1])


OMITTED = TEMPLATE + '''
from openai import OpenAI

client = OpenAI()


def rate(question: str, description: str, template: str = QUESTION_PROMPT):
    probe(template)


def ask(question, report):
    return rate(question, report.summary)
'''


def test_a_call_that_leaves_the_parameter_out_gives_its_default(tmp_path):
    p = probe(tmp_path, OMITTED)
    assert p.text.startswith("\n---Role---\nYou are a helpful assistant")
    assert all(s.is_static or s.expr == "context_data" for s in p.segs)


SPREAD = TEMPLATE + '''
def rate(question: str, description: str, template: str = QUESTION_PROMPT):
    probe(template)


def ask(question, report, **options):
    return rate(question, report.summary, **options)
'''


def test_a_call_with_kwargs_may_pass_it_the_parameter_or_its_default(tmp_path):
    p = probe(tmp_path, SPREAD)
    # text of a value or its default: the unknown parameter (nothing volatile tells them apart)
    assert p.described == [("unknown", "unknown", "template")]


NO_DEFAULT = '''
def rate(question: str, template: str, sep: str | None = None, items: list = []):
    probe(template)
    probe(sep)
    probe(items)
'''


def test_a_parameter_with_no_text_default_stays_the_parameter(tmp_path):
    assert probe(tmp_path, NO_DEFAULT).described == [("unknown", "unknown", "template")]
    assert probe(tmp_path, NO_DEFAULT, index=1).described == [("unknown", "unknown", "sep")]
    assert probe(tmp_path, NO_DEFAULT, index=2).described == [("unknown", "unknown", "items")]


STATIC_DEFAULT = '''
def join(rows, sep: str = ", "):
    probe("Rows: " + sep.join(rows))
    probe("Rows" + sep)
'''


def test_a_short_static_default_does_not_make_the_parameter_static(tmp_path):
    assert probe(tmp_path, STATIC_DEFAULT, index=1).described == [("text", "Rows"), ("unknown", "unknown", "sep")]
