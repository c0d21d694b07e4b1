"""promptlint/python/sdks/google.py: google-genai `models.generate_content[_stream]` (system
instruction and tools in `config`, `contents` a string, a message list or the conversation) and
google-generativeai `GenerativeModel(system_instruction=...)`; calls that are not these."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.python.prefilter import might_hold_prompt

GENAI = """
    from google import genai
    from google.genai import types

    client = genai.Client()
    PERSONA = "You are a travel planner."


    def plan(request_text, history):
        one = client.models.generate_content(
            model="gemini-2.5-flash",
            config=types.GenerateContentConfig(system_instruction=PERSONA, tools=[lookup_tool]),
            contents=f"Plan a trip: {request_text}",
        )
        two = client.models.generate_content_stream(
            model="gemini-2.5-pro",
            config={"system_instruction": PERSONA},
            contents=history,
        )
        three = client.aio.models.generate_content(
            model="gemini-2.0-flash",
            contents=[{"role": "user", "parts": [{"text": request_text}]}],
        )
        return one, two, three
"""


def test_generate_content_with_a_config_object_and_a_string_input(tmp_path):
    assert might_hold_prompt(code(GENAI))
    one = sent(layouts(tmp_path, GENAI))[0]
    assert (one.provider, one.api, one.model) == ("google", "models.generate_content", "gemini-2.5-flash")
    # Gemini's cache order: system instruction, tools, contents
    assert parts(one) == [
        ("system", [("text", "You are a travel planner.")]),
        ("tools", [("unknown", "unknown", "lookup_tool")]),
        ("user", [("text", "Plan a trip: "), ("unknown", "per-request", "request_text")]),
    ]
    assert one.newest_user == 2  # a string `contents` is the newest user message
    assert one.parts[2].segments[1].span.start == pos(GENAI, "{request_text}")
    assert one.site.start == pos(GENAI, "client.models.generate_content(")


def test_stream_with_a_dict_config_and_the_conversation_as_contents(tmp_path):
    two = sent(layouts(tmp_path, GENAI))[1]
    assert (two.provider, two.model) == ("google", "gemini-2.5-pro")
    assert parts(two) == [("system", [("text", "You are a travel planner.")]),
                          ("history", [("history", "unknown", "history")])]
    assert two.newest_user is None
    assert two.parts[1].segments[0].span.start == pos(GENAI, "history,")


def test_async_client_with_a_message_list_of_parts(tmp_path):
    three = sent(layouts(tmp_path, GENAI))[2]
    assert (three.provider, three.model) == ("google", "gemini-2.0-flash")
    assert parts(three) == [("user", [("unknown", "per-request", "request_text")])]
    assert three.newest_user == 0


LEGACY = """
    import google.generativeai as genai

    PERSONA = "You are a travel planner."
    model = genai.GenerativeModel("gemini-1.5-pro", system_instruction=PERSONA)
    plain = genai.GenerativeModel(model_name="gemini-1.5-flash")
"""


def test_generative_model_with_a_system_instruction(tmp_path):
    found = sent(layouts(tmp_path, LEGACY))
    assert len(found) == 1  # the model without a system instruction sends no prompt of its own
    layout, = found
    assert (layout.provider, layout.api, layout.model) == ("google", "GenerativeModel", "gemini-1.5-pro")
    assert parts(layout) == [("system", [("text", "You are a travel planner.")])]
    assert layout.site.start == pos(LEGACY, "genai.GenerativeModel(")


def test_look_alikes_are_not_gemini_prompts(tmp_path):
    found = layouts(tmp_path, """
        from google import genai
        from vertexai.preview import GenerativeModel as VertexModel

        client = genai.Client()


        def other(text, store):
            client.models.list()
            client.models.count_tokens(model="gemini-2.5-flash", contents=text)
            client.models.embed_content(model="text-embedding-004", contents=text)
            store.generate_content(contents=text)  # not a models endpoint
            VertexModel("gemini-1.5-pro")
    """)
    assert sent(found) == []


def test_contents_of_strings_and_parts_of_data_are_one_user_message_in_their_order(tmp_path):
    """google-genai joins the strings and `types.Part`s of a `contents` list into one user
    message: an image part made per request is content where it is written (before the prompt
    here); a list spread in that is not known to hold parts (it may be the conversation) keeps
    the list read as messages."""
    source = """
        from google import genai
        from google.genai import types

        client = genai.Client()


        def image_parts(images):
            return [types.Part.from_bytes(data=to_bytes(img), mime_type="image/webp") for img in images]


        def extract(prompt, images, history):
            client.models.generate_content(model="gemini-2.5-flash", contents=image_parts(images) + [prompt])
            client.models.generate_content(model="gemini-2.5-flash", contents=[
                "Describe the logo.", types.Part.from_uri(file_uri="gs://bucket/logo.png", mime_type="image/png")])
            client.models.generate_content(model="gemini-2.5-flash", contents=history + [prompt])
    """
    found = sent(layouts(tmp_path, source))
    assert parts(found[0]) == [("user", [("unknown", "per-request", 'types.Part.from_bytes(data=to_bytes(img), mime_type="image/webp")'),
                                         ("unknown", "per-request", "prompt")])]
    image = found[0].parts[0].segments[0]
    assert image.is_attachment and found[0].newest_user == 0
    # where the order is written (the contents), made in the helper
    assert image.span.start == pos(source, "image_parts(images) + [prompt]")
    assert image.origin.start == pos(source, "types.Part.from_bytes")
    # a part the analysis cannot read is content too (after the text here: it costs nothing)
    assert [seg[0] for seg in parts(found[1])[0][1]] == ["text", "unknown"]
    assert [p.role for p in found[2].parts] == ["history", "history"]


def test_a_part_dict_of_inline_data_is_content_where_it_is_written(tmp_path):
    source = """
        from google import genai

        client = genai.Client()


        def read(page_bytes, prompt):
            return client.models.generate_content(model="gemini-2.5-flash", contents=[{"role": "user", "parts": [
                {"inline_data": {"mime_type": "image/png", "data": page_bytes}},
                {"text": "Transcribe the page."},
                {"text": prompt},
            ]}])
    """
    found = sent(layouts(tmp_path, source))
    assert parts(found[0]) == [("user", [("unknown", "per-request", "page_bytes"), ("text", "Transcribe the page."),
                                         ("unknown", "per-request", "prompt")])]
    assert found[0].parts[0].segments[0].evidence == "an attachment, an `inline_data` block"


PREPENDED = """
    from google import genai

    client = genai.Client()
    INTRO = {"role": "user", "parts": [{"text": "You are a travel planner. Keep answers short."}]}


    def ask(history, question, intro):
        contents = list(history)
        contents.append({"role": "user", "parts": [{"text": question}]})
        if intro:
            contents = [INTRO] + contents
        return client.models.generate_content(model="gemini-2.5-flash", contents=contents)


    def plain(question, formal):
        contents = [question] if formal else [question, "Answer briefly."]
        return client.models.generate_content(model="gemini-2.5-flash", contents=contents)
"""


def test_contents_chosen_by_a_condition_are_messages_in_their_order(tmp_path):
    one, two = sent(layouts(tmp_path, PREPENDED))
    # one of two message lists (an intro put first under an `if`): the intro's place, then the
    # conversation, then the question as the newest user message (not all of it one user message)
    assert [role for role, _ in parts(one)] == ["history", "history", "user"]
    assert parts(one)[2] == ("user", [("user-input", "per-request", "question")])
    assert one.newest_user == 2
    # one of two lists of strings (no message of their own): one user turn, as before
    assert [role for role, _ in parts(two)] == ["user"]
