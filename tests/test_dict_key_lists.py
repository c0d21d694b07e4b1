"""`json.dumps` of a list of a mapping's keys (`[k for k in d.keys() if ...]`, `list(d.keys())`):
keys are hashable, never dicts, so `sort_keys` changes nothing and PRM201 has nothing to say; the
mapping itself dumped without sorted keys is still reported (flow/serial_orders.dict_keys_only)."""
from __future__ import annotations

from promptlint import api

from analysis_support import code, write

SOURCE = """
    import json

    from openai import OpenAI

    client = OpenAI()
    RULES = "Answer with the fields below, in JSON, nothing else. " * 80


    def ask(properties: dict, question: str):
        system = RULES + json.dumps([key for key in properties.keys() if key != "$defs"])
        system += json.dumps(list(properties.keys()))
        system += json.dumps(properties, indent=2) + RULES
        return client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, {"role": "user", "content": question}])
"""


def test_a_list_of_keys_has_no_keys_to_sort_but_the_mapping_does(tmp_path):
    write(tmp_path, {"app.py": code(SOURCE)})
    found = [(d.code, d.span.start.row) for d in api.check([str(tmp_path)]).diagnostics if d.code == "PRM201"]
    assert found == [("PRM201", 12)]
