"""A template filled by replacing its placeholders (`text.replace(old, new)`, `re.sub`): the
filled text keeps what the replacement brings, at the placeholder's place (flow/replaced.py;
docs/policies.md, Policy 1)."""
from __future__ import annotations

from analysis_support import pos, probe

from promptlint import api
from analysis_support import write

SOURCE = '''
import re
import uuid
from datetime import datetime

TEMPLATE = "You answer questions for the team. Today is {{CURRENT_DATE}}. Answer in short paragraphs."


def fill(template):
    now = datetime.now()
    template = template.replace("{{CURRENT_DATE}}", now.strftime("%Y-%m-%d"))
    template = template.replace("{{CURRENT_TIME}}", now.strftime("%H:%M:%S"))
    template = template.replace("{{USER_NAME}}", "Unknown")
    return template


def known():
    probe(fill(TEMPLATE))


def handed_in(template):
    probe(fill(template))


def by_pattern():
    probe(re.sub(r"\\{\\{CURRENT_DATE\\}\\}", datetime.now().strftime("%Y-%m-%d"), TEMPLATE))


def static_value():
    probe(TEMPLATE.replace("{{CURRENT_DATE}}", "2024-01-01"))


def restored(template, context):
    kept = []
    key = "{{QUERY" + str(uuid.uuid4()) + "}}"
    template = template.replace("[query]", key)
    kept.append((key, "[query]"))
    template = template.replace("[context]", context)
    for key, original in kept:
        template = template.replace(key, original)
    probe(template)
'''


def test_a_clock_reading_replacing_a_placeholder_of_known_text_enters_there(tmp_path):
    got = probe(tmp_path, SOURCE, index=0)
    assert got.described == [("text", "You answer questions for the team. Today is "),
                             ("timestamp", "per-request", 'now.strftime("%Y-%m-%d")'),
                             ("text", ". Answer in short paragraphs.")]
    date = got.segs[1]
    assert date.precision.value == "day"
    assert date.span.start == pos(SOURCE, "{{CURRENT_DATE}}")  # at the placeholder of the template
    assert date.origin.start == pos(SOURCE, 'now.strftime("%Y-%m-%d")')  # made here


def test_a_placeholder_of_a_template_handed_in_keeps_the_replacement_after_that_text(tmp_path):
    got = probe(tmp_path, SOURCE, index=1)
    # the template is not known: the clock readings can only be in it, the static name adds nothing
    assert got.described == [("unknown", "unknown", "template"),
                             ("timestamp", "per-request", 'now.strftime("%H:%M:%S")'),
                             ("timestamp", "per-request", 'now.strftime("%Y-%m-%d")')]


def test_re_sub_fills_a_placeholder_as_replace_does(tmp_path):
    got = probe(tmp_path, SOURCE, index=2)
    assert [d[:2] for d in got.described] == [("text", "You answer questions for the team. Today is "),
                                             ("timestamp", "per-request"), ("text", ". Answer in short paragraphs.")]


def test_a_static_replacement_is_static_text(tmp_path):
    got = probe(tmp_path, SOURCE, index=3)
    assert got.described == [("text", "You answer questions for the team. Today is "), ("text", "2024-01-01"),
                             ("text", ". Answer in short paragraphs.")]


def test_a_placeholder_made_with_an_id_and_put_back_leaves_no_id(tmp_path):
    got = probe(tmp_path, SOURCE, index=4)
    assert not any(s.kind.value == "unique-id" for s in got.segs if not s.is_static)


CHAT = '''
from datetime import datetime

from openai import OpenAI

client = OpenAI()
SYSTEM = """You are the assistant of a travel agency. Today is {{CURRENT_DATE}}, the time is {{CURRENT_TIME}}.
Answer with the agency's policies: refunds within 14 days, changes for a fee, no cash payments.
""" + "Always be polite and name the booking reference. " * 12


def answer(history, question):
    now = datetime.now()
    system = SYSTEM.replace("{{CURRENT_DATE}}", now.strftime("%Y-%m-%d"))
    system = system.replace("{{CURRENT_TIME}}", now.strftime("%H:%M"))
    messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]
    return client.chat.completions.create(model="gpt-4.1", messages=messages)


def answer_static(history, question):
    system = SYSTEM.replace("{{CURRENT_DATE}}", "today").replace("{{CURRENT_TIME}}", "now")
    messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]
    return client.chat.completions.create(model="gpt-4.1", messages=messages)
'''


def test_a_time_filled_into_a_system_prompt_template_is_reported_at_its_placeholder(tmp_path):
    write(tmp_path, {"chat.py": CHAT})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.severity.value, d.span.start) for d in report.diagnostics]
    # the time (sub-day) at its placeholder in the template; the static replacements add nothing
    assert got == [("PRM102", "warning", pos(CHAT, "{{CURRENT_TIME}}"))]
