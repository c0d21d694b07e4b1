"""Decoding of Python source (`promptlint.source.decode_python`): the message of bytes invalid in
the file's encoding names it as the prompt files' message does ("UTF-8", not "utf-8")."""
import pytest

from promptlint.source import SourceError, decode_python


def test_invalid_utf8_names_the_encoding_as_prompt_files_do():
    with pytest.raises(SourceError) as err:
        decode_python(b'import os\n\nPROMPT = "caf\xe9"\n')
    assert str(err.value) == "not valid UTF-8 at line 3, column 14 (byte 0xe9)"  # (main: "(byte 24)")
    assert (err.value.row, err.value.column) == (3, 14)


def test_a_declared_encoding_is_named_as_declared():
    with pytest.raises(SourceError) as err:
        decode_python(b'# -*- coding: cp1252 -*-\nPROMPT = "\x81"\n')
    assert str(err.value) == "not valid cp1252 at line 2, column 11 (byte 0x81)"
    assert decode_python('# coding: latin-1\nPROMPT = "café"\n'.encode("latin-1")).endswith('"café"\n')


def test_the_column_counts_the_characters_before_the_byte():
    from promptlint.source import decode_text
    with pytest.raises(SourceError) as err:
        decode_text("# café\nx = ".encode() + b"\xff\n")
    assert (str(err.value), err.value.row, err.value.column) == ("not valid UTF-8 at line 2, column 5 (byte 0xff)", 2, 5)
