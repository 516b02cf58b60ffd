#!/usr/bin/env python3
"""Writes the seed scripts of fuzz_net (tests/fuzz/fuzz_net.c) into
corpus/fuzz_net/: each one a sequence of the target's steps that reaches
a state a random start rarely finds (alternate 1, frames both ways, a
well-formed NTB, the NCM requests). Run it again after changing the
target's script encoding; the files are committed."""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_net")

CLASS_OUT, CLASS_IN = 0, 1  # step_control selectors (interface 0)
GET_NTB_PARAMETERS, GET_NTB_INPUT_SIZE, SET_NTB_INPUT_SIZE = 0x80, 0x85, 0x86
GET_NTB_FORMAT, SET_NTB_FORMAT, SET_ETHERNET_PACKET_FILTER = 0x83, 0x84, 0x43


def mode(ncm, speed, qmult=0):
    return bytes([(1 if ncm else 0) | speed << 1 | qmult << 3])


def alt(n):
    return bytes([1, n])


def control(sel, req, value, length, data=b""):
    return bytes([0, sel, req]) + struct.pack("<HH", value, length) + data


def out_frame(payload):  # step 2, selector 7: a length then the bytes
    return bytes([2, 7]) + struct.pack("<H", len(payload)) + payload


def read_in(sel=0):
    return bytes([3, sel])


def send(length):  # step 4, selector 0: a frame of @length bytes
    return bytes([4, 0]) + struct.pack("<H", length)


def burst(count, base):
    return bytes([5, count, base])


def frame(n, fill):
    return bytes([0xff] * 6 + [2, 0, 0, 0, 0, 1, 8, 0]) + bytes([fill]) * (n - 14)


def ntb16(datagrams):
    """An NTB16 as the host's cdc_ncm builds it: NTH16, datagrams, NDP16."""
    off, body, entries = 12, b"", []
    for d in datagrams:
        entries.append((off + len(body), len(d)))
        body += d
        body += b"\0" * (-len(body) % 4)
    ndp = 12 + len(body)
    ndp_len = 8 + 4 * (len(entries) + 1)
    total = ndp + ndp_len
    nth = b"NCMH" + struct.pack("<HHHH", 12, 1, total, ndp)
    table = b"NCM0" + struct.pack("<HH", ndp_len, 0)
    for o, n in entries:
        table += struct.pack("<HH", o, n)
    return nth + body + table + b"\0\0\0\0"


SEEDS = {
    "ecm-frames-both-ways":
        mode(False, 1) + alt(1) + send(60) + read_in() + out_frame(frame(98, 0x5a))
        + burst(6, 3) + read_in() + read_in() + read_in(),
    "ecm-filter-and-reset":
        mode(False, 0) + control(CLASS_OUT, SET_ETHERNET_PACKET_FILTER, 0x0f, 0)
        + alt(1) + out_frame(frame(1514, 1)) + bytes([7]) + alt(1) + send(1514) + read_in(),
    "ncm-ntb-both-ways":
        mode(True, 1) + control(CLASS_IN, GET_NTB_PARAMETERS, 0, 28) + alt(1)
        + out_frame(ntb16([frame(60, 7), frame(590, 9)])) + burst(12, 40)
        + read_in() + read_in(),
    "ncm-ntb32-input-size":
        mode(True, 2) + control(CLASS_OUT, SET_NTB_FORMAT, 1, 0)
        + control(CLASS_OUT, SET_NTB_INPUT_SIZE, 0, 4, struct.pack("<I", 2048))
        + control(CLASS_IN, GET_NTB_INPUT_SIZE, 0, 4) + control(CLASS_IN, GET_NTB_FORMAT, 0, 2)
        + alt(1) + burst(30, 1) + read_in() + read_in() + read_in(),
}

os.makedirs(HERE, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
