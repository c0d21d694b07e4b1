"""Text encoded to bytes and decoded back (`clean(text)` of a sanitising helper) keeps its pieces:
the names of what it holds stay readable and their kinds stay (flow/methods.py `str_method`)."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind

SANITISED = '''
import datetime

def clean(text):
    return text.encode("utf-8", errors="ignore").decode("utf-8")

def build(query, page):
    probe(clean(f"<query>{query}</query><page>{page}</page>"))
    probe(f"Now: {datetime.datetime.now()}".encode())
    probe(query.split(","))
'''


def test_encoded_and_decoded_text_keeps_its_pieces(tmp_path):
    p = probe(tmp_path, SANITISED, index=0)
    assert [s.text for s in p.segs if s.is_static] == ["<query>", "</query><page>", "</page>"]
    assert [s.expr for s in p.segs if not s.is_static] == ["query", "page"]


def test_encoding_keeps_a_timestamp_a_timestamp(tmp_path):
    p = probe(tmp_path, SANITISED, index=1)
    assert [s.kind for s in p.segs if not s.is_static] == [Kind.TIMESTAMP]


def test_a_split_is_still_derived_from_its_text(tmp_path):
    p = probe(tmp_path, SANITISED, index=2)
    assert [s.expr for s in p.segs if not s.is_static] == ['query.split(",")']
