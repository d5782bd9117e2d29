"""The JSON codec: orjson and the stdlib fallback accept the same documents."""

from __future__ import annotations

import pytest

from agui_transcripts import _codec


@pytest.mark.parametrize("loads", [_codec.loads, _codec.stdlib_loads], ids=["active", "stdlib"])
def test_both_decoders_agree(loads: object) -> None:
    assert callable(loads)
    assert loads('{"a":"caf\u00e9","b":[1,2.5,null,true]}') == {
        "a": "caf\u00e9",
        "b": [1, 2.5, None, True],
    }
    assert loads(b'{"x":"\xe2\x98\x95"}') == {"x": "\u2615"}
    for bad in ("NaN", "[Infinity]", b'"\xff"', "{", ""):
        with pytest.raises(_codec.JSONDecodeError):
            loads(bad)


@pytest.mark.parametrize("dumps", [_codec.dumps, _codec._stdlib_dumps], ids=["active", "stdlib"])
def test_both_encoders_are_compact_and_keep_unicode(dumps: object) -> None:
    assert callable(dumps)
    assert dumps({"a": "caf\u00e9", "b": [1, None]}) == '{"a":"caf\u00e9","b":[1,null]}'
