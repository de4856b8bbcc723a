#!/usr/bin/env python3
"""Page-cache residency of a file, for tests that prove a file was not read.

  page_cache.py drop FILE       flush FILE and evict its pages from the page cache
  page_cache.py resident FILE   print how many of FILE's pages are in the page cache

Eviction uses posix_fadvise(DONTNEED), which works on disk file systems (not on
tmpfs, where every page is always resident); callers check `resident` is 0
after `drop` and skip otherwise. Residency is read with mincore(2) on a fresh
read-only mapping, which itself reads no page.
"""
import ctypes
import mmap
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def resident(path):
    size = os.path.getsize(path)
    if size == 0:
        return 0
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap failed")
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = ctypes.create_string_buffer(pages)
        if libc.mincore(addr, size, vec) != 0:
            raise OSError(ctypes.get_errno(), "mincore failed")
        libc.munmap(addr, size)
        return sum(b & 1 for b in vec.raw)
    finally:
        os.close(fd)


def drop(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


if __name__ == "__main__":
    command, path = sys.argv[1], sys.argv[2]
    if command == "drop":
        drop(path)
    elif command == "resident":
        print(resident(path))
    else:
        sys.exit(f"page_cache.py: unknown command {command}")
