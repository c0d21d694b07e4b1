"""A message list written as a record of a finished exchange (a fine-tuning row completed with the
assistant's answer from the data, then only kept) is no request: no candidate, no finding
(python/answered_records.py). The same list handed to a wrapper, or ending with a prefill the
code writes, stays a prompt."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

RECORD = """
    import json


    class ToolUseFormatter:
        def __init__(self, system_prompt: str = "You are a helpful assistant that can use tools. " * 60):
            self.system_prompt = system_prompt

        def convert(self, data: dict) -> dict:
            functions = data.get("functions", [])
            tools_text = json.dumps(functions, ensure_ascii=False, indent=2)
            output_messages = [
                {"role": "system", "content": f"{self.system_prompt}\\n\\nAvailable tools:\\n{tools_text}"},
                {"role": "user", "content": data.get("content", "")},
            ]
            for msg in data.get("messages", []):
                if msg.get("role") == "assistant":
                    output_messages.append({"role": "assistant", "content": msg.get("content", "")})
            data["output"] = {"messages": output_messages}
            return data
"""


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return sorted((d.code, d.span.start.row) for d in report.diagnostics), len(report.prompts)


def test_a_fine_tuning_record_completed_with_the_answer_is_no_prompt(tmp_path):
    assert _found(tmp_path, RECORD) == ([], 0)


def test_the_same_list_handed_to_a_wrapper_is_a_prompt(tmp_path):
    sent = RECORD.replace('data["output"] = {"messages": output_messages}', 'data["output"] = self.llm.chat(output_messages)')
    findings, prompts = _found(tmp_path, sent)
    assert ("PRM201", 10) in findings and prompts == 1


def test_a_list_that_ends_with_a_prefill_written_in_the_code_is_a_prompt(tmp_path):
    prefill = RECORD.replace('{"role": "assistant", "content": msg.get("content", "")}',
                             '{"role": "assistant", "content": "{" + msg.get("content", "")}')
    findings, prompts = _found(tmp_path, prefill)
    assert ("PRM201", 10) in findings and prompts == 2  # (the list, and its system message on its own, as before)


def test_a_record_written_to_a_dataset_file(tmp_path):
    source = """
        import json


        def dump(rows: list, path: str, instruction: str) -> None:
            with open(path, "w") as f:
                for row in rows:
                    messages = [
                        {"role": "system", "content": instruction},
                        {"role": "user", "content": row["input"]},
                        {"role": "assistant", "content": row["output"]},
                    ]
                    f.write(json.dumps({"messages": messages}) + "\\n")
    """
    assert _found(tmp_path, source) == ([], 0)
