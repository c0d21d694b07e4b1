"""A constructor's settings assigned in one statement (`self._prompt, self._rules = prompt, rules`)
are read as assigned one by one (python/flow/class_facts.py): a placeholder named like the user's
message (`{user_prompt}`) that the code fills with such a setting holds that setting, the same on
every request, not the user's message (PRM107 judges the template where it is filled)."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

CLASSIFIER = """
    prompt_classifier_template = '''
    ## role: Intent Classifier
    You are an intent classification engine responsible for analyzing user input text based on dialogue information and determining a unique intent category.{user_prompt}

    ## Constrains:
    You only need to reply with the name of the intent. Do not output any additional fields and do not translate it.{user_constrains}

    ## Text Format
    The input text is in JSON format, where 'human_input' contains the user's raw input and 'intent_list' contains a list of all intent names.

    ## Conversation History
    The chat history between the human and the assistant is stored within the <histories></histories> XML tags below.
    <histories>
    {history_info}
    </histories>

    Input text is as follows:
    '''


    class IntentClassifier:
        def __init__(self, llm, *, prompt: str = '', constrain: str = ''):
            self._llm = llm
            self._prompt, self._constrain = prompt, constrain

        def start(self):
            prompt = prompt_classifier_template.replace('{user_prompt}', f' {self._prompt}').replace(
                '{user_constrains}', f' {self._constrain}')
            self._llm = self._llm.share(prompt=dict(system=prompt, user='${input}'))
"""


def _found(tmp_path, source):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/ic.py": source})
    report = api.check([tmp_path / "pkg"], api.Settings(), jobs=1)
    return sorted((d.code, d.span.start.row) for d in report.diagnostics)


def test_a_setting_assigned_in_parallel_fills_the_placeholder_named_for_the_user(tmp_path):
    assert _found(tmp_path, CLASSIFIER) == []


def test_assigned_one_by_one_it_is_the_same(tmp_path):
    source = CLASSIFIER.replace("self._prompt, self._constrain = prompt, constrain",
                                "self._prompt = prompt\n        self._constrain = constrain")
    assert _found(tmp_path, source) == []


def test_values_of_a_call_unpacked_are_not_paired(tmp_path):
    # (`pair()` is not read element by element: the template is judged alone, by the names)
    source = CLASSIFIER.replace("self._prompt, self._constrain = prompt, constrain",
                                "self._prompt, self._constrain = pair(prompt, constrain)")
    assert _found(tmp_path, source) == [("PRM107", 3)]
