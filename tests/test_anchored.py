"""anchored: patterns tried only at the places of their anchor words give the answers of a
whole-text search (the prefilter's and the fact finders' cheap text tests)."""
from __future__ import annotations

import re

import pytest

from promptlint.python import anchored, option_tools, prefilter, stored_cuts

_CUT_TEXTS = [
    "x = history[-10:]\n",
    "self.turns = self.turns[2:]\n",
    "del self.messages[0]\n",
    "model = load()\ndel cache\n",  # `del` without an item: no match; "model" holds "del" too
    "chat.messages.pop(0)\n",
    "xs = ys[a:b]\nzs = [1, 2]\n",
    "[" + "a" * 85 + ":]\n",  # too far from its `[`: no match
    "[" + "a" * 79 + ":]\n",
    "row = [x[:], y]\n",
    "text = 'no slice here'\n",
    "é = 1\nkept = msgs[-3:]  # ü\n",
]


@pytest.mark.parametrize("text", _CUT_TEXTS)
def test_stored_cut_text_as_whole_search(text):
    assert stored_cuts.holds_text(text) == (stored_cuts.TEXT.search(text) is not None)


def test_stored_cut_text_values():
    assert stored_cuts.holds_text("x = history[-10:]\n") is True
    assert stored_cuts.holds_text("del self.messages[0]\n") is True
    assert stored_cuts.holds_text("model = load()\ndel cache\n") is False
    assert stored_cuts.holds_text("[" + "a" * 85 + ":]\n") is False


def _rows(text, offsets):
    return sorted({text.count("\n", 0, at) + 1 for at in offsets})


def test_stored_cut_rows_are_those_of_finditer():
    text = "".join(_CUT_TEXTS)
    found = anchored.starts_of(stored_cuts.TEXT, text, **stored_cuts.TEXT_ANCHORS)
    expected = [m.start() for m in stored_cuts.TEXT.finditer(text)]
    assert _rows(text, found) == _rows(text, expected)
    assert _rows(text, found) == [1, 2, 3, 6, 10, 14]


@pytest.mark.parametrize("text, expected", [
    ("self.tools.append(search)\n", True),
    ("self.TOOLS.extend(more)\n", True),
    ("my_tool_list.append(x)\n", True),
    ("results.append(tool)\n", False),  # "tool" after the method, not in the name before it
    ('del kwargs["tools"]\n', True),
    ('opts.pop( "tools", None)\n', True),
    ("model_kwargs.pop('temperature')\ndel model\n", False),
    ("é = 'ü'\nself.tools.append(t)\n", True),  # not ASCII: the same answer
    ("İ = 1\nself.tools.append(t)\n", True),  # lower case of another length: searched whole
    ("é = 1\nx = 2\n", False),
])
def test_option_tools_text(text, expected):
    assert option_tools._holds_text(text) is expected
    assert (option_tools._TEXT.search(text) is not None) is expected


@pytest.mark.parametrize("text, expected", [
    ('SYSTEM_PROMPT = f"You are {name}"\n', True),
    ("ſyſtem_prompt = 'x'\n", True),  # (?i) pairs ſ with s: found at its `tem`
    ("ınstruction = \"do it\"\n", True),  # and ı with i: found at its `truct`
    ("prompt = (\n    f\"x\"\n", True),
    ("construct = build()\n", False),
    ("items = []\n", False),
])
def test_assigned_heads(text, expected):
    assert prefilter._assigned(text) is expected
    assert (prefilter._ASSIGNED_RE.search(text) is not None) is expected


@pytest.mark.parametrize("text, expected", [
    ("model = random.choice(self.models)\n", True),
    ("m = itertools.cycle(LLMS)\n", True),
    ("e = ENGINES[k % n]\n", True),
    ("x = random.sample(Model_Names, 1)\n", True),
    ("model = models.get(name)\n", False),
])
def test_model_pool_heads(text, expected):
    assert anchored.found(prefilter._MODEL_POOL, text, prefilter._MODEL_POOL_HEADS, fold=True) is expected
    assert (prefilter._MODEL_POOL.search(text) is not None) is expected


def test_template_object_heads():
    text = 'SYSTEM_PROMPT = Template(template="...", functions={"now": lambda d: d})\n'
    assert anchored.found(prefilter._TEMPLATE_OBJECT, text, prefilter._HEADS, fold=True) is True
    assert anchored.found(prefilter._TEMPLATE_OBJECT, "x = Template('a')\n", prefilter._HEADS, fold=True) is False


def test_case_insensitive_anchors_may_not_hold_paired_letters():
    with pytest.raises(ValueError):
        anchored.found(re.compile("(?i)system"), "SYSTEM", ("system",), fold=True)


def test_starts_with_characters_before_the_word():
    pattern = re.compile(r"(?i)instruction\s*=")
    assert anchored.starts_of(pattern, "a\nINSTRUCTION = 1\n", (("truct", 3),), fold=True) == [2]
    assert anchored.starts_of(pattern, "truct = 1\n", (("truct", 3),), fold=True) == []


def test_any_word_finds_a_word_exactly_where_one_is_in_the_text():
    words = ("messages", "message", "msg", ".render(", "role", "roles", "a|b", "x*")
    pattern = anchored.any_word(words)
    texts = ["no such thing", "the messages here", "a message", "msgs", "tmpl.render(x)", ".render", "a|b", "ab",
             "rol", "x*y", "xy", ""]
    assert [pattern.search(t) is not None for t in texts] == [
        False, True, True, True, True, False, True, False, False, True, False, False]
    for text in texts:
        assert (pattern.search(text) is not None) == any(w in text for w in words)
    assert pattern.pattern.count("roles") == 0  # (a word holding another is left out: "role" finds it)
    with pytest.raises(ValueError):
        anchored.any_word(("a", ""))


def test_prefilter_words_pattern_answers_as_the_words_do():
    for text in ("import anthropic\n", "x = 1\n", "SYSTEM = 'hi'\nsystem_prompt = SYSTEM\n", "tpl.render(\n"):
        assert (prefilter._WORDS_RE.search(text) is not None) == any(w in text for w in prefilter._WORDS)
    assert prefilter._WORDS_RE.search("x = 1\n") is None
    assert prefilter._WORDS_RE.search("out = tpl.render(name=n)\n") is not None


@pytest.mark.parametrize("text, expected", [
    ("    def get_messages(self, thread_id):\n", True),
    ("    async def _aload_chat_history(self):\n", True),
    ("    DEF Fetch_Conversation(x):\n", True),  # (?i): any case
    ("class ChatStore(Base):\n", True),
    ("claſs ConversationLog:\n", True),  # (?i) pairs ſ with s: found at its `cla`
    ("İ = 1\nclass MessageBuffer:\n", True),  # lower case of another length: searched whole
    ("def get_messages_count(self):\n    return 1\n", True),  # (`\\w{0,20}` after the word)
    ("def get_message_count(self):\n", False),  # "message": no word of a conversation
    ("def fetch(self):\n    pass\nclass Store:\n", False),
    ("def get_messages\n", False),  # no `(`
])
def test_reader_text_heads(text, expected):
    from promptlint.python import unordered_reads
    assert anchored.found(unordered_reads.READER_TEXT, text, unordered_reads.READER_HEADS, fold=True) is expected
    assert (unordered_reads.READER_TEXT.search(text) is not None) is expected
