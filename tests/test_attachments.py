"""promptlint/python/attachments.py: images, documents and files in a message's list of blocks
are part of the request's prefix where they are written; and PRM101's info at an attachment put
before the prompt text an adapter takes from its callers."""
from __future__ import annotations

from analysis_support import layouts, one_call, parts, pos, write

from promptlint import api

IMAGES = """
    import openai

    client = openai.OpenAI()


    def image_blocks(images):
        return [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(img)}} for img in images]


    def describe(prompt, images):
        messages = [{"role": "user", "content": [*image_blocks(images), {"type": "text", "text": prompt}]}]
        return client.chat.completions.create(model="gpt-4o", messages=messages)
"""


def test_an_image_block_is_a_segment_where_it_is_written(tmp_path):
    layout = one_call(tmp_path, """
        import anthropic

        client = anthropic.Anthropic()


        def read(page_png, question):
            return client.messages.create(model="claude-sonnet-4-5", max_tokens=512, messages=[
                {"role": "user", "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": page_png}},
                    {"type": "text", "text": "Read the page."},
                    {"type": "text", "text": question},
                ]}])
    """)
    assert parts(layout) == [("user", [("unknown", "per-request", "page_png"), ("text", "Read the page."),
                                       ("user-input", "per-request", "question")])]
    image = layout.parts[0].segments[0]
    assert image.is_attachment and image.evidence == "an attachment, an `image` block"
    assert not layout.parts[0].segments[2].is_attachment


def test_blocks_spread_from_a_helper_enter_at_the_spread(tmp_path):
    layout = one_call(tmp_path, IMAGES)
    assert parts(layout) == [("user", [("unknown", "per-request", "image_blocks(images)"),
                                       ("unknown", "per-request", "prompt")])]
    image = layout.parts[0].segments[0]
    assert image.is_attachment and image.span.start.row == pos(IMAGES, "*image_blocks").row
    assert image.origin is not None and image.origin.start == pos(IMAGES, '{"type": "image_url"')
    assert layout.passes_prompt  # the text is the callers' prompt, sent whole


def test_a_fixed_image_adds_nothing_and_blocks_not_known_stay_one_value(tmp_path):
    found = layouts(tmp_path, """
        import openai

        client = openai.OpenAI()
        LOGO = {"type": "image_url", "image_url": {"url": "https://example.com/logo.png"}}


        def ask(question, extra_blocks):
            client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "user", "content": [LOGO, {"type": "text", "text": question}]}])
            client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "user", "content": [*extra_blocks, {"type": "text", "text": question}]}])
    """)
    assert parts(found[0]) == [("user", [("user-input", "per-request", "question")])]
    assert [s.is_attachment for s in found[1].parts[0].segments] == [False, False]
    # (a parameter before the request's known input keeps its unknown volatility: Policy 7)
    assert parts(found[1]) == [("user", [("unknown", "unknown", "extra_blocks"),
                                         ("user-input", "per-request", "question")])]


def _found(tmp_path, source: str) -> list[tuple]:
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


def test_an_image_before_the_prompt_an_adapter_passes_is_an_info(tmp_path):
    found = _found(tmp_path, IMAGES)
    assert found == [("PRM101", "info", pos(IMAGES, "*image_blocks").row)]


def test_an_image_after_the_prompt_or_with_a_prompt_built_here_is_not_that_info(tmp_path):
    after = IMAGES.replace('[*image_blocks(images), {"type": "text", "text": prompt}]',
                           '[{"type": "text", "text": prompt}, *image_blocks(images)]')
    assert _found(tmp_path, after) == []
    # a short question written here after the image: nothing the callers share, nothing cacheable
    own = IMAGES.replace('"text": prompt}', '"text": "What is shown? " + prompt}')
    assert _found(tmp_path, own) == []
    # the user's own question (by its name), not a prompt of the application
    asked = IMAGES.replace("prompt", "question")
    assert _found(tmp_path, asked) == []


def test_static_instructions_after_a_per_request_image_are_judged_by_their_size(tmp_path):
    source = """
        import anthropic

        client = anthropic.Anthropic()
        RULES = "Return every table of the page as HTML, one <table> per table, headers in <th>. " * 60


        def tables(page_png):
            return client.messages.create(model="claude-sonnet-4-5", max_tokens=2048, messages=[
                {"role": "user", "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": page_png}},
                    {"type": "text", "text": RULES, "cache_control": {"type": "ephemeral"}},
                ]}])
    """
    assert _found(tmp_path, source) == [("PRM101", "warning", pos(source, '{"type": "image"').row)]
    first = source.replace('''{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": page_png}},
                    {"type": "text", "text": RULES, "cache_control": {"type": "ephemeral"}},''',
                           '''{"type": "text", "text": RULES, "cache_control": {"type": "ephemeral"}},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": page_png}},''')
    assert first != source
    assert _found(tmp_path, first) == []


def test_an_image_in_the_newest_message_of_a_conversation_costs_nothing(tmp_path):
    """The newest user message of a conversation is re-sent next turn as history (Policy 3): the
    text after its image is cached then."""
    source = """
        import anthropic

        client = anthropic.Anthropic()
        RULES = "Return every table of the page as HTML, one <table> per table, headers in <th>. " * 60


        def tables(page_png, history):
            return client.messages.create(model="claude-sonnet-4-5", max_tokens=2048, messages=[*history,
                {"role": "user", "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": page_png}},
                    {"type": "text", "text": RULES},
                ]}])
    """
    assert _found(tmp_path, source) == []
