"""reversed_ids_npy.py PATH N: writes PATH, a 1-D int64 .npy (format 1.0) of
the sample ids N-1 ... 0, for dataset.sample_indices. Reversed ids are not in
rank order, so a run over them takes the sample sort's exchange
(lib/index/gather_write.h, WriteIndexFilesRankOrdered)."""
import array
import sys

path, n = sys.argv[1], int(sys.argv[2])
header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * ((-(10 + len(header) + 1)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    f.write(array.array("q", range(n - 1, -1, -1)).tobytes())
