"""promptlint/python/sdks/dspy.py: a DSPy predictor made from a Signature class and called by the
name it was assigned, its inputs in the order the class declares them; a predictor of a string
signature, an object of another library and a call without keywords are no prompts."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.python.prefilter import might_hold_prompt

WRITER = """
    import dspy


    class AskQuestion(dspy.Signature):
        \"\"\"You are a Wikipedia writer. Ask one good question.\"\"\"

        topic = dspy.InputField(prefix="Topic you want to write: ", format=str)
        conv = dspy.InputField(prefix="Conversation history:\\n", format=str)
        question = dspy.OutputField(format=str)


    class Writer(dspy.Module):
        def __init__(self):
            super().__init__()
            self.ask = dspy.ChainOfThought(AskQuestion)

        def forward(self, topic, turns):
            return self.ask(conv="\\n".join(set(turns)), topic=topic).question
"""


def test_predictor_called_by_its_attribute_name(tmp_path):
    assert might_hold_prompt(code(WRITER))
    (layout,) = sent(layouts(tmp_path, WRITER))
    assert (layout.provider, layout.api, layout.newest_user) == (None, "dspy.ChainOfThought", 1)
    assert layout.sdk == "DSPy"  # the SDK whose shape was read, named by `explain`
    assert parts(layout) == [
        ("system", [("text", "You are a Wikipedia writer. Ask one good question."),
                    ("text", "\n\n---\n\nFollow the following format.\n\nTopic you want to write: ${topic}\n\n"
                             "Conversation history: ${conv}\n\nQuestion: ${question}\n\n---\n\n")]),
        # the class's order (topic, conv), not the keywords' order
        ("user", [("text", "Topic you want to write: "), ("unknown", "per-request", "topic"),
                  ("text", "\nConversation history:\n "), ("unordered-iteration", "per-process", "set(turns)"),
                  ("text", "\nQuestion:")]),
    ]
    assert layout.site.start == pos(WRITER, "self.ask(conv")
    assert layout.parts[0].segments[0].span.start == pos(WRITER, '"""You are')


def test_not_dspy_prompts(tmp_path):
    found = layouts(tmp_path, """
        import dspy
        from other import Predict


        class Sig(dspy.Signature):
            \"\"\"Answer.\"\"\"

            question = dspy.InputField()
            answer = dspy.OutputField()


        plain = dspy.Predict("question -> answer")
        foreign = Predict(Sig)
        made = dspy.Predict(Sig)


        def run(q):
            plain(question=q)
            foreign(question=q)
            made(q)
            made(other=q)
    """)
    assert sent(found) == []
