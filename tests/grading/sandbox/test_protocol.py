"""The framing both sides speak, the bootstrap's side of it, and the grader's validation."""

from __future__ import annotations

import importlib.util
import json
import os
import struct
from types import ModuleType

import pytest

from grading.sandbox import ProtocolViolation, StateArg
from grading.sandbox.harness import GameServer
from grading.sandbox.protocol import HEADER, MAX_FRAME_BYTES, FrameReader, encode_frame
from grading.sandbox.runner import BOOTSTRAP

from .conftest import ChanceGame, TreeGame


def load_bootstrap() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cutoff_bootstrap", BOOTSTRAP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_frames_round_trip_across_arbitrary_chunks() -> None:
    data = encode_frame({"op": "call", "args": [1, "é"]}) + encode_frame({"op": "hello"})
    reader = FrameReader()
    frames = []
    for byte in data:
        reader.feed(bytes([byte]))
        while (frame := reader.next_frame()) is not None:
            frames.append(frame)
    assert frames == [{"op": "call", "args": [1, "é"]}, {"op": "hello"}]
    assert reader.pending == 0


@pytest.mark.parametrize(("body", "match"), [
    (b"hello", "not valid JSON"),
    (b"\xff\xfe", "not valid JSON"),
    (b"[1, 2]", "JSON list, not an object"),
    (b'{"x": NaN}', "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
])
def test_malformed_frames_are_violations(body: bytes, match: str) -> None:
    reader = FrameReader()
    reader.feed(HEADER.pack(len(body)) + body)
    with pytest.raises(ProtocolViolation, match=match):
        reader.next_frame()


def test_oversized_frame_is_rejected_from_its_header_alone() -> None:
    reader = FrameReader()
    reader.feed(struct.pack(">I", MAX_FRAME_BYTES + 1))
    with pytest.raises(ProtocolViolation, match="exceeds"):
        reader.next_frame()


def test_bootstrap_speaks_the_same_framing() -> None:
    bootstrap = load_bootstrap()
    assert bootstrap.HEADER.format == HEADER.format
    assert bootstrap.MAX_FRAME_BYTES == MAX_FRAME_BYTES
    to_grader_r, to_grader_w = os.pipe()
    to_child_r, to_child_w = os.pipe()
    try:
        os.write(to_child_w, encode_frame({"value": [{"a": 1, "label": "l"}]}))
        channel = bootstrap.Channel(to_child_r, to_grader_w)
        state = bootstrap.State(1)
        actions = channel.call("actions", state)
        reader = FrameReader()
        reader.feed(os.read(to_grader_r, 65536))
        assert reader.next_frame() == {"op": "call", "method": "actions", "args": [{"s": 1}]}
        assert [action.label for action in actions] == ["l"]
        assert actions[0] == bootstrap.Action(1, "other label")
    finally:
        for fd in (to_grader_r, to_grader_w, to_child_r, to_child_w):
            os.close(fd)


def test_bootstrap_refuses_unserialisable_values() -> None:
    bootstrap = load_bootstrap()
    with pytest.raises(ValueError, match="NaN"):
        bootstrap.encode(float("nan"))
    with pytest.raises(TypeError, match="set"):
        bootstrap.encode({1})
    assert bootstrap.encode((bootstrap.Action(3, "x"), [None, 1.5])) == {
        "t": [{"a": 3}, [None, 1.5]]}


def call(method: str, *args: object) -> dict[str, object]:
    return {"op": "call", "method": method, "args": list(args)}


def test_game_server_issues_handles_and_records_calls() -> None:
    server = GameServer(TreeGame())
    assert server.start_args([StateArg("A"), 3, ["x"]]) == [{"s": 1}, 3, ["x"]]
    assert server.serve(call("actions", {"s": 1})) == {
        "value": [{"a": 1, "label": "l"}, {"a": 2, "label": "r"}]}
    assert server.serve(call("result", {"s": 1}, {"a": 2})) == {"value": {"s": 2}}
    assert server.serve(call("to_move", {"s": 2})) == {"value": "MIN"}
    assert server.serve(call("utility", {"s": 2}, "MAX")) == {
        "error": "the state is not terminal: only a terminal state has a utility"}
    assert server.serve(call("players")) == {"value": ["MAX", "MIN"]}
    assert [event.kind for event in server.calls] == ["actions", "result", "to_move", "utility",
                                                      "players"]
    assert server.calls[1].value == "C" and server.calls[1].child_handle == 2
    assert server.decode_return({"t": [{"a": 2}, {"f": [1, 3]}]})[0] == "r"


def test_game_server_encodes_chance_outcomes() -> None:
    server = GameServer(ChanceGame())
    server.start_args([StateArg("B")])
    assert server.serve(call("chance_outcomes", {"s": 1})) == {"value": [
        {"t": [{"a": 1, "label": "h"}, {"f": [1, 4]}]},
        {"t": [{"a": 2, "label": "t"}, {"f": [3, 4]}]}]}
    assert server.serve(call("evaluate", {"s": 1}, "MAX")) == {
        "error": "this exercise has no evaluation function"}


@pytest.mark.parametrize(("message", "match"), [
    (call("actions", {"s": 5}), "unknown state handle 5"),
    (call("actions", {"s": True}), "not an integer"),
    (call("actions", {"s": "1"}), "not an integer"),
    (call("actions", 1), "expected a state handle"),
    (call("actions", {"s": 1, "x": 2}), "expected a state handle"),
    (call("actions"), "takes 1 arguments"),
    (call("result", {"s": 1}, {"a": 9}), "unknown action handle 9"),
    (call("utility", {"s": 1}, 7), "player must be a string"),
    (call("__init__"), "malformed call frame"),
    ({"op": "call", "method": "actions", "args": [{"s": 1}], "extra": 1}, "malformed"),
    ({"op": "call", "method": "actions", "args": {"s": 1}}, "malformed"),
])
def test_game_server_rejects_forged_calls(message: dict[str, object], match: str) -> None:
    server = GameServer(TreeGame())
    server.start_args([StateArg("A")])
    with pytest.raises(ProtocolViolation, match=match):
        server.serve(message)
    assert server.calls == []


@pytest.mark.parametrize("payload", [{"a": 99}, {"s": 0}, {"f": [1, 0]}, {"f": [1.5, 2]},
                                     {"x": 1}, {"t": 5}])
def test_forged_return_values_are_violations(payload: object) -> None:
    server = GameServer(TreeGame())
    server.start_args([StateArg("A")])
    with pytest.raises(ProtocolViolation):
        server.decode_return(payload)


def test_encode_frame_refuses_nan() -> None:
    with pytest.raises(ValueError):
        encode_frame({"x": float("nan")})
    assert json.loads(encode_frame({"x": 1})[HEADER.size:]) == {"x": 1}


TRICKY = {"value": ["é", '"quoted"', "back\\slash", "\n\t\r\x00", "\u2028", "😀", "", 10 ** 30,
                    -5, 0, 0.1, -2.5e-07, True, False, None, [], {}, {"a": {"b": [1, {"c": []}]}}],
          "label": "<script>"}


def test_bootstrap_codec_agrees_with_json() -> None:
    bootstrap = load_bootstrap()
    assert bootstrap.loads(encode_frame(TRICKY)[HEADER.size:].decode()) == TRICKY
    assert json.loads(bootstrap.dumps(TRICKY)) == TRICKY
