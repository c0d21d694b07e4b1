"""A class of the tree that subclasses `str` and adds methods only (`class TextPrompt(str)`): built
from one text, it is that text, so a prompt constant written `TextPrompt("...{task}...")` is a
template like the literal. A `__new__` or an `__init__` may change what the instance holds: such a
class stays an instance whose text is not known."""
from __future__ import annotations

from analysis_support import layouts, probe, segs

from promptlint.python.flow.values import Obj, Text

CLASSES = """
    class TextPrompt(str):
        def format(self, *args, **kwargs):
            return TextPrompt(super().format(*args, **kwargs))


    class NamedPrompt(TextPrompt):
        @property
        def name(self):
            return "named"


    class CodePrompt(TextPrompt):
        def __new__(cls, *args, **kwargs):
            instance = super().__new__(cls, *args)
            instance._code_type = kwargs.get("code_type")
            return instance
"""


def test_a_plain_str_subclass_built_from_a_text_is_that_text(tmp_path):
    found = probe(tmp_path, CLASSES + """
    probe(TextPrompt("Answer in French."))
    probe(NamedPrompt("Answer in " + "German."))
    """)
    assert isinstance(found.value, Text) and found.text == "Answer in French."
    assert probe(tmp_path, CLASSES + """
    probe(TextPrompt("Answer in French."))
    probe(NamedPrompt("Answer in " + "German."))
    """, index=1).text == "Answer in German."


def test_a_str_subclass_with_its_own_constructor_is_not_read_as_its_argument(tmp_path):
    found = probe(tmp_path, CLASSES + """
    probe(CodePrompt("print('hello')", code_type="python"))
    probe(CodePrompt("print('hello')"))
    """, index=1)
    assert isinstance(found.value, Obj)


RULES = ("You must help me to complete the task. I must instruct you based on your expertise and my "
         "needs. You must write a specific solution that appropriately solves the requested instruction "
         "and explain your solutions. ") * 3


def test_a_prompt_constant_wrapped_in_a_str_subclass_is_a_template(tmp_path):
    source = CLASSES + f'''
    ASSISTANT_PROMPT = TextPrompt("""Here is the task: {{task}}. Never forget our task!
    {RULES}""")
    OTHER_PROMPT = CodePrompt("""Here is the task: {{task}}. Never forget our task!
    {RULES}""")
    '''
    found = [lt for lt in layouts(tmp_path, source) if lt.source == "python-constant"]
    assert len(found) == 1  # the CodePrompt constant is not read: its `__new__` may change the text
    (part,) = found[0].parts
    assert segs(part.segments)[1][:3] == ("template-variable", "unknown", "{task}")
