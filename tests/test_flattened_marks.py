"""PRM302 facts: a system prompt's blocks reduced to their text drop the breakpoints on them
(python/flattened_marks.py; fixtures/flattened_marks/bridge.py)."""
import ast
import textwrap
from pathlib import Path

from promptlint import api
from promptlint.python.flattened_marks import flattened_marks, might_flatten
from promptlint.python.module import load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "flattened_marks" / "bridge.py"


def _found(src: str) -> list[str]:
    module = load(Path("flat.py"), textwrap.dedent(src))
    return [ast.unparse(n) for n in flattened_marks(module)]


def test_the_text_of_a_system_prompts_blocks_taken_alone_is_found():
    assert _found("""
        MARK = {"cache_control": {"type": "ephemeral"}}

        def named(params):
            return "\\n".join(b["text"] for b in params.system if b["type"] == "text")

        def in_branch(messages):
            system_prompt = []
            for message in messages:
                if message.role == MessageRole.SYSTEM:
                    system_prompt.extend([block.text for block in message.blocks if isinstance(block, TextBlock)])
            return system_prompt
    """) == ["(b['text'] for b in params.system if b['type'] == 'text')",
             "[block.text for block in message.blocks if isinstance(block, TextBlock)]"]


def test_a_reply_a_carried_breakpoint_or_the_joined_text_marked_again_is_not():
    assert _found("""
        MARK = {"cache_control": {"type": "ephemeral"}}

        def reply(response):
            return "".join(b.text for b in response.content if b.type == "text")

        def carried(system):
            marks = [b.get("cache_control") for b in system]
            return "".join(b["text"] for b in system if b["type"] == "text"), marks

        def marked_again(messages):
            system_prompt = ""
            for message in messages:
                if message.role == "system":
                    system_prompt += "\\n".join([p["text"] for p in message.content if p["type"] == "text"])
            return [{"type": "text", "text": system_prompt, "cache_control": {"type": "ephemeral"}}]
    """) == []


def test_a_converter_into_geminis_request_types_drops_no_breakpoint_that_counts():
    # (main: PRM302 on khoj's Gemini converter, whose package marks blocks for Claude elsewhere;
    # Gemini's request format takes no breakpoint, so nothing a caller marked is lost there)
    src = """
        from google.genai import types as gtypes
        import anthropic
        MARK = {"cache_control": {"type": "ephemeral"}}

        def format_messages_for_gemini(messages, system_prompt=""):
            for message in messages:
                if message.role == "system":
                    system_prompt += "\\n".join([p["text"] for p in message.content if p["type"] == "text"])
            return [gtypes.Content(role=m.role, parts=m.content) for m in messages], system_prompt

        def format_messages_for_claude(messages, system_prompt=""):
            for message in messages:
                if message.role == "system":
                    system_prompt += "\\n".join([p["text"] for p in message.content if p["type"] == "text"])
            return anthropic.types.MessageParam(role="user", content=system_prompt)
    """
    assert _found(src) == ["[p['text'] for p in message.content if p['type'] == 'text']"]
    module = load(Path("flat.py"), textwrap.dedent(src))
    assert [n.lineno for n in flattened_marks(module)] == [15]  # in the Claude converter only


def test_the_rule_reports_it_at_info_where_the_blocks_are_flattened():
    report = api.check([FIXTURE], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics if d.code == "PRM302"]
    assert found == [("PRM302", "info", 9)]


def test_the_text_test_needs_a_breakpoint_key_named_as_a_string():
    assert might_flatten('k = "cache_control"\n"".join(b["text"] for b in system)')
    assert not might_flatten('"".join(b["text"] for b in system)')


def test_a_loop_that_keeps_the_text_of_a_system_prompts_text_blocks_is_found():
    assert [line.split(":")[0] for line in _found("""
        MARK = "cache_control"

        def anthropic_system_to_texts(value):
            if isinstance(value, str):
                return [value]
            texts = []
            for block in value:
                if not isinstance(block, dict) or block.get("type") != "text":
                    continue
                text = str(block.get("text", ""))
                if text:
                    texts.append(text)
            return texts

        def join_system(system_blocks):
            out = ""
            for b in system_blocks:
                if b["type"] == "text":
                    out += b["text"]
            return out
    """).__iter__()] == ["for block in value", "for b in system_blocks"]


def test_a_loop_over_a_reply_or_one_that_carries_the_breakpoint_is_not():
    assert _found("""
        MARK = "cache_control"

        def reply_texts(response):
            texts = []
            for block in response.content:
                if block.type == "text":
                    texts.append(block.text)
            return texts

        def system_blocks_kept(value):
            out = []
            for block in value:
                if block.get("type") != "text":
                    continue
                out.append({"type": "text", "text": block["text"], "cache_control": block.get("cache_control")})
            return out
    """) == []


def test_the_loop_form_is_read_where_the_package_reads_breakpoints(tmp_path):
    pkg = tmp_path / "bridge"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "convert.py").write_text(textwrap.dedent("""
        def system_to_texts(value):
            texts = []
            for block in value:
                if block.get("type") != "text":
                    continue
                texts.append(block["text"])
            return texts
    """))
    (pkg / "provider.py").write_text('def marked(block):\n    return block.get("cache_control")\n')
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([pkg], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM302", "info", 4)]
    (pkg / "provider.py").write_text('def marked(block):\n    return block.get("text")\n')
    assert [d.code for d in api.check([pkg], api.Settings(), jobs=1).diagnostics] == []


def test_the_blocks_of_the_system_messages_joined_to_their_text_are_found():
    assert _found("""
        def call(self, payload):
            sys_msg, other_msgs = self.split_system(payload.messages)
            system = "\\n".join(c["text"] for m in sys_msg for c in m.content)
            messages = [self.apply_cache_breakpoints(m) for m in other_msgs]
            params = {"system": system, "messages": messages}
            params["messages"][-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
            return params
    """) == ["(c['text'] for m in sys_msg for c in m.content)"]


def test_other_messages_joined_or_a_breakpoint_read_off_the_block_is_not():
    assert _found("""
        def history(self, turns):
            return "\\n".join(c["text"] for m in turns for c in m.content)

        def carried(self, sys_msg):
            blocks = [c for m in sys_msg for c in m.content if c.get("cache_control")]
            return "\\n".join(c["text"] for m in sys_msg for c in m.content), blocks

        def images(self, sys_msg):
            MARK = "cache_control"
            return "\\n".join(c["text"] for m in sys_msg for c in m.content if c["type"] == "image")
    """) == []
