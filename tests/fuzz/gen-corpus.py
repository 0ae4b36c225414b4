#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Write the seed corpus of fuzz-decode into corpus/ next to this script:
# valid fanotify and inotify buffers laid out as the kernel does, and hostile
# ones. Little-endian, like the machines this runs on. Files that libFuzzer
# found (crash-*, regression inputs) are added to corpus/ by hand and are
# left alone here.
#
#   tests/fuzz/gen-corpus.py
import os
import struct

META_LEN = 24
VERSION = 3

FID, DFID_NAME, DFID, PIDFD, ERROR, RANGE, MNT = 1, 2, 3, 4, 5, 6, 7
OLD_DFID_NAME, NEW_DFID_NAME = 10, 12

FAN_ACCESS, FAN_MODIFY, FAN_CLOSE_WRITE, FAN_OPEN = 0x1, 0x2, 0x8, 0x20
FAN_CREATE, FAN_DELETE, FAN_FS_ERROR = 0x100, 0x200, 0x8000
FAN_PRE_ACCESS, FAN_MNT_ATTACH, FAN_RENAME = 0x100000, 0x1000000, 0x10000000
FAN_ONDIR, FAN_Q_OVERFLOW = 0x40000000, 0x4000
FAN_NOFD = -1

IN_MODIFY, IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE = 0x2, 0x40, 0x80, 0x100
IN_IGNORED, IN_ISDIR = 0x8000, 0x40000000


def event(mask, fd, pid, *records, event_len=None, vers=VERSION, metadata_len=META_LEN):
    body = b"".join(records)
    if event_len is None:
        event_len = META_LEN + len(body)
    return struct.pack("<IBBHQii", event_len, vers, 0, metadata_len, mask, fd, pid) + body


def info(info_type, payload, length=None):
    if length is None:
        length = 4 + len(payload)
    return struct.pack("<BBH", info_type, 0, length) + payload


def fid(info_type, handle, name=None, fsid=(0x1234, 0x5678), handle_type=1, handle_bytes=None):
    if handle_bytes is None:
        handle_bytes = len(handle)
    payload = struct.pack("<iiIi", fsid[0], fsid[1], handle_bytes, handle_type) + handle
    if name is not None:
        payload += name + b"\0"
    payload += b"\0" * (-(4 + len(payload)) % 4)
    return info(info_type, payload)


def inotify(wd, mask, cookie, name=b"", name_len=None):
    if name_len is None:
        name_len = (len(name) + 1 + 15) // 16 * 16 if name else 0
    padded = name + b"\0" * (name_len - len(name))
    return struct.pack("<iIII", wd, mask, cookie, name_len) + padded[:name_len]


H8 = bytes(range(1, 9))
H12 = bytes(range(0x40, 0x4c))

SEEDS = {
    # valid fanotify
    "fan-fd-open": event(FAN_OPEN | FAN_CLOSE_WRITE, 5, 1234),
    "fan-overflow": event(FAN_Q_OVERFLOW, FAN_NOFD, 0),
    "fan-dfid-name-fid": event(FAN_CREATE, FAN_NOFD, 42,
                               fid(DFID_NAME, H8, b"hello.txt"), fid(FID, H12)),
    "fan-dfid-dot": event(FAN_CREATE | FAN_ONDIR, FAN_NOFD, 42, fid(DFID_NAME, H8, b".")),
    "fan-rename": event(FAN_RENAME, FAN_NOFD, 7,
                        fid(OLD_DFID_NAME, H8, b"old"), fid(NEW_DFID_NAME, H12, b"new-name"),
                        fid(FID, H8)),
    "fan-pidfd-range-mnt": event(FAN_PRE_ACCESS, 6, 99, info(PIDFD, struct.pack("<i", 7)),
                                 info(RANGE, struct.pack("<IQQ", 0, 4096, 65536)))
    + event(FAN_MNT_ATTACH, FAN_NOFD, 0, info(MNT, struct.pack("<IQ", 0, 0x1000000002a))),
    "fan-fs-error": event(FAN_FS_ERROR, FAN_NOFD, 0, info(ERROR, struct.pack("<iI", 117, 3)),
                          fid(FID, b"", handle_type=0xff)),
    "fan-unknown-info": event(FAN_MODIFY, FAN_NOFD, 1, info(42, b"\xa5" * 8),
                              fid(DFID_NAME, H8, b"after")),
    # hostile fanotify
    "fan-bad-zero-info-len": event(FAN_OPEN, 3, 4, info(FID, b"\0" * 24, length=0)),
    "fan-bad-handle-overrun": event(FAN_OPEN, FAN_NOFD, 4, fid(FID, H8, handle_bytes=200)),
    "fan-bad-name-no-nul": event(FAN_CREATE, FAN_NOFD, 4,
                                 info(DFID_NAME, struct.pack("<iiIi", 1, 2, 8, 1) + H8 + b"abcd")),
    "fan-bad-event-len": event(FAN_OPEN, 3, 4, info(PIDFD, struct.pack("<i", 7)), event_len=200),
    # inotify
    "ino-events": inotify(1, IN_MOVED_FROM, 77, b"old") + inotify(2, IN_MOVED_TO, 77, b"new")
    + inotify(1, IN_MODIFY | IN_ISDIR, 0) + inotify(1, IN_CREATE, 0, b"a", name_len=64)
    + inotify(1, IN_IGNORED, 0),
    "ino-bad-name-no-nul": inotify(1, IN_CREATE, 0, b"0123456789abcdef", name_len=16),
    "ino-bad-len-overrun": inotify(1, IN_CREATE, 0, b"x", name_len=16)[:24],
}


def main():
    outdir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(outdir, exist_ok=True)
    for name, data in sorted(SEEDS.items()):
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
