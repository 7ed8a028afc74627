#!/usr/bin/env python3
"""Lists the functions of src/ longer than a limit (default 80 lines).

A function is a brace block, outside any other function, whose head (the
text since the previous ';', '{' or '}') has a ')' and is not a namespace,
class, struct, enum or an initialiser ('='). Its length is counted from the
line of its name to its closing brace. Strings, characters and comments are
skipped. Usage: scripts/long_functions.py [ROOT] [--limit N]; prints
"LINES FILE:LINE NAME" longest first and a count; exits 0.
"""
import pathlib
import re
import sys


def strip(text):
    """Blanks comments, strings and char literals, keeping newlines."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1 : j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    text = strip(path.read_text(errors="replace"))
    found, head_start, depth, fn = [], 0, 0, None  # fn: (start offset, depth at open, name)
    for i, c in enumerate(text):
        if c in ";{}" and fn is None and c != "{":
            head_start = i + 1
        if c == "{":
            head = text[head_start:i]
            if fn is None and ")" in head and not re.search(r"\b(namespace|class|struct|enum|union)\b", head) \
                    and not re.search(r"=\s*$|\)\s*=", head) and "=" not in head.split("(")[0]:
                name = re.findall(r"([~\w:]+)\s*\(", head)
                start = head_start + len(head) - len(head.lstrip())
                fn = (start, depth, name[0] if name else "?")
            depth += 1
            if fn is None:
                head_start = i + 1
        elif c == "}":
            depth -= 1
            if fn is not None and depth == fn[1]:
                first = text.count("\n", 0, fn[0]) + 1
                last = text.count("\n", 0, i) + 1
                found.append((last - first + 1, first, fn[2]))
                fn = None
            if fn is None:
                head_start = i + 1
    return found


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 and not argv[1].startswith("--") else ".")
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 80
    rows = []
    for path in sorted((root / "src").rglob("*.[ch]pp")):
        for lines, line, name in functions(path):
            if lines > limit:
                rows.append((lines, f"{path.relative_to(root)}:{line}", name))
    for lines, where, name in sorted(rows, reverse=True):
        print(f"{lines:4d} {where} {name}")
    print(f"{len(rows)} functions over {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
