"""Decoding of Python source (`promptlint.source.decode_python`): the message of bytes invalid in
the file's encoding names it as the prompt files' message does ("UTF-8", not "utf-8")."""
import pytest

from promptlint.source import SourceError, decode_python


def test_invalid_utf8_names_the_encoding_as_prompt_files_do():
    with pytest.raises(SourceError) as err:
        decode_python(b'import os\n\nPROMPT = "caf\xe9"\n')
    assert str(err.value) == "not valid UTF-8 (byte 24)"


def test_a_declared_encoding_is_named_as_declared():
    with pytest.raises(SourceError) as err:
        decode_python(b'# -*- coding: cp1252 -*-\nPROMPT = "\x81"\n')
    assert str(err.value) == "not valid cp1252 (byte 35)"
    assert decode_python('# coding: latin-1\nPROMPT = "café"\n'.encode("latin-1")).endswith('"café"\n')
