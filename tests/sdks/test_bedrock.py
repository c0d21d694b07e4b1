"""promptlint/python/sdks/bedrock.py: the Bedrock Converse API (`converse` / `converse_stream` of a
`bedrock-runtime` client): tool specs, system blocks, messages, `cachePoint` blocks as cache
breakpoints; and `converse` calls that are not Bedrock's."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.python.prefilter import might_hold_prompt

CONVERSE = """
    import boto3

    client = boto3.client("bedrock-runtime")
    SYSTEM = "You are an insurance claims assistant."
    TOOLS = [{"toolSpec": {"name": "lookup_claim"}}, {"cachePoint": {"type": "default"}}]


    def ask(question, history):
        return client.converse(
            modelId="anthropic.claude-3-5-sonnet-20240620-v1:0",
            toolConfig={"tools": TOOLS},
            system=[{"text": SYSTEM}, {"cachePoint": {"type": "default"}}],
            messages=[*history, {"role": "user", "content": [{"text": question}]}],
        )


    def stream(question):
        request = {"modelId": "amazon.nova-pro-v1:0", "inferenceConfig": {"maxTokens": 512}}
        return client.converse_stream(**request, messages=[{"role": "user", "content": [{"text": question}]}])
"""


def test_converse_tools_system_blocks_and_cache_points(tmp_path):
    assert might_hold_prompt(code(CONVERSE))
    layout = sent(layouts(tmp_path, CONVERSE))[0]
    assert (layout.provider, layout.api, layout.model) == ("bedrock", "converse",
                                                           "anthropic.claude-3-5-sonnet-20240620-v1:0")
    assert parts(layout) == [
        ("tools", [("text", '[{"toolSpec": {"name": "lookup_claim"}}, {"cachePoint": {"type": "default"}}]')]),
        ("system", [("text", "You are an insurance claims assistant.")]),
        ("history", [("history", "unknown", "history")]),
        ("user", [("user-input", "per-request", "question")]),
    ]
    assert layout.newest_user == 3
    tools_bp, = layout.parts[0].breakpoints
    assert tools_bp.span.start == pos(CONVERSE, '"cachePoint"')
    system_bp, = layout.parts[1].breakpoints
    assert (system_bp.after, system_bp.span.start) == (0, pos(CONVERSE, '"cachePoint"', 1))
    assert layout.parts[0].segments[0].span.start == pos(CONVERSE, '"tools"')  # the key in toolConfig


def test_converse_stream_with_the_model_from_an_options_dict(tmp_path):
    layout = sent(layouts(tmp_path, CONVERSE))[1]
    assert (layout.provider, layout.api, layout.model) == ("bedrock", "converse_stream", "amazon.nova-pro-v1:0")
    assert parts(layout) == [("user", [("user-input", "per-request", "question")])]
    assert layout.newest_user == 0


def test_look_alikes_are_not_bedrock_prompts(tmp_path):
    found = layouts(tmp_path, """
        import boto3

        client = boto3.client("bedrock-runtime")


        class Tutor:
            def converse(self, messages):
                return messages


        def other(tutor: Tutor, question):
            tutor.converse(messages=[{"role": "user", "content": question}])  # no modelId: not the Converse API
            client.invoke_model(modelId="anthropic.claude-3-haiku", body="{}")
            client.converse  # not called
    """)
    assert sent(found) == []
