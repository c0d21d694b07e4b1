"""The help line of a finding fits where the value is: a timestamp already in the newest user
message is not told to move to the newest user message."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

APP = '''
    from datetime import datetime

    from openai import OpenAI

    client = OpenAI()
    RULES = "Follow the house style in every answer you give. " * 300


    def ask(question):
        prompt = f"Today is {datetime.now():%Y-%m-%d %H:%M}.\\n{RULES}\\nQuestion: {question}"
        return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": prompt}])


    def ask_system(question):
        return client.chat.completions.create(model="gpt-4.1", messages=[
            {"role": "system", "content": f"Today is {datetime.now():%H:%M}.\\n{RULES}"},
            {"role": "user", "content": question}])
'''


def test_a_timestamp_in_the_newest_user_message_is_told_to_move_within_it(tmp_path):
    write(tmp_path, {"app.py": APP})
    found = sorted((d.span.start.row, d.code, d.advice) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics)
    assert found == [
        (10, "PRM102", "Move the time after the static text of the message (to its end), or coarsen it to a date"),
        (16, "PRM102", "Move the time to the newest user message, or coarsen it to a date"),
    ]



def test_a_value_that_is_already_a_date_is_not_told_to_become_one(tmp_path):
    source = APP.replace("%Y-%m-%d %H:%M", "%Y-%m-%d").replace("%H:%M}", "%A}")
    write(tmp_path, {"app.py": source})
    found = sorted((d.span.start.row, d.code, d.advice) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics)
    assert found == [
        (10, "PRM102", "Move the date after the static text of the message (to its end)"),
        (16, "PRM102", "Move the date to the newest user message, after the static text"),
    ]

def test_a_value_drawn_at_random_is_not_called_an_id(tmp_path):
    source = """
        import random
        import uuid

        from openai import OpenAI

        client = OpenAI()
        RULES = "Follow the house style in every answer you give. " * 300


        def ask(question):
            system = f"{random.choice(['Hi!', 'Hello!'])}\\n{RULES}"
            return client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "system", "content": system}, {"role": "user", "content": question}])


        def ask_again(question):
            system = f"{uuid.uuid4()}\\n{RULES}"
            return client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "system", "content": system}, {"role": "user", "content": question}])
    """
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [d.message.split(" `")[0] for d in report.diagnostics if d.code == "PRM103"] == ["Random pick", "Unique id"]


def test_a_value_derived_from_a_random_draw_says_what_it_is(tmp_path):
    source = """
        import random

        from openai import OpenAI

        client = OpenAI()
        RULES = "Follow the house style in every answer you give. " * 300


        def pick_fields(rows):
            sample = random.sample(rows, 3)
            fields = list(sample[0].keys())
            system = f"Fields: {fields}\\n{RULES}"
            return client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "system", "content": system}, {"role": "user", "content": "go"}])


        def roll(question):
            system = f"Seed {random.randint(1, 6)}\\n{RULES}"
            return client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "system", "content": system}, {"role": "user", "content": question}])


        def excerpt():
            words = random.sample(RULES.split(), 5)
            system = f"Words: {' '.join(words)}\\n{RULES}"
            return client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "system", "content": system}, {"role": "user", "content": "go"}])
    """
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = sorted((d.span.start.row, d.message.split(" at token")[0], d.advice)
                   for d in report.diagnostics if d.code == "PRM103")
    advice = "Move the randomly drawn content after the static content, or draw it once (a fixed seed or a stored sample)"
    assert found == [
        (12, "Content derived from a random draw `sample[0].keys()` (from `random.sample()`, which picks "
             "elements at random)", advice),
        (18, "Random value `random.randint(1, 6)`", advice),
        (25, "Content derived from a random draw `' '.join(words)` (from `random.sample()`, which picks elements "
             "at random)", advice),
    ]


QUESTION_FIRST = '''
    from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

    RULES = "Answer from the context only and cite the source of every claim. " * 200


    def chain(llm):
        prompt = ChatPromptTemplate.from_messages([
            ("system", RULES),
            ("user", "{question}"),
            MessagesPlaceholder(variable_name="chat_history"),
        ])
        return prompt | llm
'''


def test_a_question_before_the_history_is_told_to_let_the_history_come_first(tmp_path):
    """The user's message before the replayed conversation: the history is what moves (a new
    user's trial: "Move the dynamic content after the static content (e.g. into the newest user
    message)" for what already is the newest user message)."""
    write(tmp_path, {"app.py": QUESTION_FIRST})
    found = [(d.span.start.row, d.code, d.advice) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [(9, "PRM101", "Put the conversation history before this message: the newest user message goes last")]


AGENT = '''
from openai import OpenAI

client = OpenAI()
RULES = "Follow these rules carefully. " * 300


class Agent:
    def __init__(self, system_prompt: str):
        self.system_prompt = system_prompt
        self.history = []

    def ask(self, question: str) -> str:
        self.history.append({"role": "user", "content": question})
        messages = [{"role": "system", "content": OPENING + RULES}, *self.history]
        return client.chat.completions.create(model="gpt-4o", messages=messages)
'''


def test_a_value_of_unknown_volatility_opening_the_system_prompt_is_not_told_to_move_to_the_user_message(tmp_path):
    write(tmp_path, {"app.py": AGENT.replace("OPENING", "self.system_prompt")})
    found = [(d.code, d.advice) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM101", "If this value changes between requests, move it after the static content; a "
                                "system prompt set once for the application is cached as it is")]
    # after static text of its own, the rule's own help line
    write(tmp_path, {"app.py": AGENT.replace("OPENING", '"You are an agent. " + self.system_prompt')})
    found = [(d.code, d.advice) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM101", "Move the dynamic content after the static content (e.g. into the newest user message)")]
