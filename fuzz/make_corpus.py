#!/usr/bin/env python3
"""Writes the seed corpora of the dataset fuzz targets (idx, movielens, text)
into fuzz/corpus/<target>/: small valid files and broken ones, each a case a
reader must handle. Deterministic; rerun after changing it and commit the
output. The JPEG seeds come from make_jpeg_seeds.cpp (needs TurboJPEG)."""
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def idx(magic, dims, payload):
    return struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims) + payload


def split(images, labels):  # the idx target's two-file input: 4-byte length, images, labels
    return struct.pack(">I", len(images)) + images + labels


def idx_seeds():
    img = idx(0x803, [2, 28, 28], bytes((i * 7) % 256 for i in range(2 * 784)))
    lab = idx(0x801, [2], bytes([3, 9]))
    write("idx", "images_valid", img)
    write("idx", "labels_valid", lab)
    write("idx", "split_valid", split(img, lab))
    write("idx", "split_label_10", split(img, idx(0x801, [2], bytes([3, 10]))))
    write("idx", "split_count_mismatch", split(img, idx(0x801, [3], bytes([1, 2, 3]))))
    write("idx", "split_not_28x28", split(idx(0x803, [1, 27, 29], bytes(27 * 29)), idx(0x801, [1], b"\0")))
    write("idx", "truncated_header", img[:10])
    write("idx", "truncated_payload", img[:-1])
    write("idx", "oversized_payload", img + b"\0")
    write("idx", "wrong_magic", idx(0x802, [1, 28, 28], bytes(784)))
    # dims whose product wraps a 64-bit size to the payload length (2^31 * 2^31 * 4 = 2^64 -> 0)
    write("idx", "product_overflow", idx(0x803, [1 << 31, 1 << 31, 4], b""))
    write("idx", "labels_product_max", idx(0x801, [0xFFFFFFFF], b"\0" * 8))
    write("idx", "zero_dims", idx(0x803, [0, 28, 28], b""))
    write("idx", "empty", b"")


def cache(users, items, records, pairs=None, version=1):
    if pairs is None:
        pairs = len(records)
    head = b"ML20MBIN" + struct.pack("<IIqqq", version, 0, users, items, pairs)
    return head + b"".join(struct.pack("<ii", u, i) for u, i in records)


def movielens_seeds():
    header = "userId,movieId,rating,timestamp\n"
    rows = ["1,%d,%.1f,%d" % (10 + k, 0.5 + (k % 10) / 2, 1112486027 - k) for k in range(22)]
    rows += ["7,3,4.0,5", "1,10,5.0,1112486100"]  # a short user (dropped) and a repeated pair
    write("movielens", "ratings_valid.csv", header + "\n".join(rows) + "\n")
    write("movielens", "ratings_crlf_blank.csv", header.replace("\n", "\r\n") + "\r\n\r\n".join(rows) + "\r\n")
    write("movielens", "ratings_too_few.csv", header + "\n".join(rows[:5]) + "\n")
    write("movielens", "bad_header.csv", "user,movie,rating,time\n1,2,3.5,1\n")
    write("movielens", "bad_rating.csv", header + "1,2,high,1\n")
    write("movielens", "rating_nan_inf.csv", header + "1,2,nan,1\n1,2,inf,1\n")
    write("movielens", "rating_out_of_range.csv", header + "1,2,5.5,1\n")
    write("movielens", "id_overflow.csv", header + "2147483648,2,3.5,1\n")
    write("movielens", "id_negative.csv", header + "1,-2,3.5,1\n")
    write("movielens", "huge_ids.csv", header + "\n".join("2147483647,2147483646,1,%d" % k for k in range(20)) + "\n")
    write("movielens", "five_fields.csv", header + "1,2,3.5,1,9\n")
    write("movielens", "control_bytes.csv", header + "1,2\x1b[31m,3.5,1\n")
    write("movielens", "header_only.csv", header)
    write("movielens", "empty", "")
    recs = [(0, 0), (0, 1), (1, 2), (2, 0)]
    write("movielens", "cache_valid.bin", cache(3, 3, recs))
    write("movielens", "cache_bad_version.bin", cache(3, 3, recs, version=2))
    write("movielens", "cache_truncated.bin", cache(3, 3, recs)[:-3])
    write("movielens", "cache_out_of_order.bin", cache(3, 3, [(1, 0), (0, 1), (2, 2)]))
    write("movielens", "cache_item_out_of_range.bin", cache(2, 2, [(0, 0), (1, 2)]))
    # pairs * 8 wraps 64 bits to the real record bytes: must not allocate 2^61 entries
    write("movielens", "cache_pairs_wrap.bin", cache(1, 1, [(0, 0)], pairs=(1 << 61) + 1))
    # users far beyond the records: must not allocate 2^31 user offsets
    write("movielens", "cache_users_huge.bin", cache(2**31 - 1, 1, [(0, 0)]))
    write("movielens", "cache_negative.bin", cache(-1, -5, [], pairs=-1))


def text_seeds():
    wiki = " \n = Valkyria Chronicles III = \n \n Senjō no Valkyria 3 : <unk> Chronicles ( Japanese : 戦場のヴァルキュリア3 ) .\n"
    write("text", "wikitext_valid", wiki)
    write("text", "wikitext_no_final_newline", "a b\tc\n\n = x = \nb a")
    write("text", "blanks_only", " \t\r\n\v\f\n\n")
    vocab = "the\n,\n.\nof\nK@@\nön\n  spaced  \n\nthe\n"
    write("text", "bpe_valid", vocab + "\0" + "the K@@ ön , of .\nunknown words here\n\n")
    write("text", "bpe_empty_vocab", "\0the of\n")
    write("text", "bpe_crlf_and_nul", "a\r\nb\r\n\0a b\r\n\0\0b a")
    write("text", "invalid_utf8", b"\xff\xfe\xc0\x80 \xed\xa0\x80\n\x00\xe2\x80\xa8\n")
    write("text", "empty", "")


if __name__ == "__main__":
    idx_seeds()
    movielens_seeds()
    text_seeds()
    sys.exit(0)
