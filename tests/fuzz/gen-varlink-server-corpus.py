#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Write the seed scripts of fuzz-varlink-server into varlink-server-corpus/
# next to this script (the operations are those of fuzz-varlink-server.c;
# keep the two in step). Each seed is a scene the server must get through:
# the findings of issue 28 among them. Inputs that libFuzzer found are
# added to the directory by hand and are left alone here.
#
#   tests/fuzz/gen-varlink-server-corpus.py
import os

(CONNECT, RAW, CALL, PIPELINE, HANGUP, SHUT, READ, LIMITS, ANSWER, STREAM,
 TURN) = range(11)
# CALL's table
GET, GET_BIG, DEFER, WATCH, WATCH_NO_MORE, FAIL, ONEWAY_GET, ONEWAY_DEFER, \
    GETINFO, MORE_ONEWAY, NO_DOT, NOT_OBJECT = range(12)
REPLY, ERROR, CONTINUES = 0, 1, 2
NO_TURN = 0x80  # (the loop does not run after the operation)


def raw(peer, data):
    out = b""
    while data:
        out += bytes([RAW, peer, len(data[:255])]) + data[:255]
        data = data[255:]
    return out


def ops(*seq):
    return b"".join(bytes(x) if isinstance(x, (list, tuple)) else x for x in seq)


SEEDS = {
    # calls answered in order, one at a time, read back
    "calls": ops([CONNECT, 0], [CALL, 0, GET], [CALL, 0, GET_BIG], [CALL, 0, FAIL],
                 [CALL, 0, GETINFO], [CALL, 0, ONEWAY_GET], [READ, 0, 0]),
    # one message in pieces, two in one write, NULs alone
    "framing": ops([CONNECT, 0], raw(0, b'{"meth'), raw(0, b'od":"f.Get"}\0{"method":"f.'),
                   raw(0, b'Get","parameters":{"n":3}}\0'), [READ, 0, 0], raw(0, b"\0\0"),
                   [READ, 0, 0]),
    # finding 4: a request under way when max_request is lowered below it
    # (buffer 2577 bytes; 2000 held, 2000 more)
    "max-request-lowered": ops([CONNECT, 0], [LIMITS, 40, 60, 4],
                               raw(0, b'{"method":"f.Get","parameters":{"x":"' + b"a" * 2000),
                               [LIMITS, 1, 60, 4], raw(0, b"a" * 2000), [READ, 0, 0]),
    # ... and one buffered behind a call in progress
    "max-request-buffered": ops([CONNECT, 0], [LIMITS, 255, 60, 4],
                                raw(0, b'{"method":"f.Defer"}\0{"method":"f.Get","x":"'
                                    + b"y" * 1500 + b'"}\0'),
                                [LIMITS, 2, 60, 4], [ANSWER, 0, REPLY], [READ, 0, 0]),
    # finding 5: calls pipelined, nothing read, then read; the queue lowered
    "unread-answers": ops([CONNECT, 1], [PIPELINE, 63, 0], [PIPELINE, 63, 0],
                          [LIMITS, 64, 2, 4], [PIPELINE, 63, 0], [READ, 0, 4], [TURN],
                          [READ, 0, 0]),
    # finding 7: a deferred answer to a peer that hung up before the loop
    # saw it, an error too
    "answer-after-hangup": ops([CONNECT, 0], [CALL, 0, DEFER], [HANGUP | NO_TURN, 0],
                               [ANSWER, 0, REPLY], [CONNECT, 0], [CALL, 0, DEFER],
                               [HANGUP | NO_TURN, 0], [ANSWER, 0, ERROR]),
    # finding 8: hang-ups while a call lasts; slots; a half-closed peer
    # gets its answer
    "hangup-busy": ops([LIMITS, 64, 64, 2], [CONNECT, 0], [CONNECT, 0], [CONNECT, 0],
                       [CALL, 0, WATCH], [CALL, 1, DEFER], [HANGUP, 0], [HANGUP, 1],
                       [CONNECT, 0], [CONNECT, 0], [CALL, 0, DEFER], [SHUT, 0],
                       [ANSWER, 0, REPLY], [READ, 0, 0]),
    # a subscriber: streamed, dropped when full, told, cut, ended
    "watch": ops([LIMITS, 64, 4, 4], [CONNECT, 1], [CALL, 0, WATCH], [STREAM, 31, 200],
                 [STREAM, 31, 200], [READ, 0, 0], [STREAM, 2, 1], [ANSWER, 0, CONTINUES],
                 [READ, 0, 0], [ANSWER, 0, REPLY], [CALL, 0, GET], [READ, 0, 0]),
    # protocol errors close the connection; calls behind them are not taken
    "bad-messages": ops([CONNECT, 0], [CALL, 0, NOT_OBJECT], [CONNECT, 0],
                        [CALL, 1, MORE_ONEWAY], [CONNECT, 0], [CALL, 2, NO_DOT],
                        [CALL, 2, GET], [CONNECT, 0], [CALL, 3, WATCH_NO_MORE],
                        [CALL, 3, ONEWAY_DEFER], [ANSWER, 0, REPLY], [READ, 0, 0],
                        [READ, 1, 0], [READ, 2, 0], [READ, 3, 0]),
}


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "varlink-server-corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
