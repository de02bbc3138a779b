#!/usr/bin/env python3
"""Holds the project's prose to its writing habits (CONTRIBUTING.md), for `make lint` and CI.

Checked in README.md, CONTRIBUTING.md, docs/**/*.md and clients/*/README.md:
- a sentence has at most 35 words; a paragraph (or list item) at most 120; a table cell at most 40;
- the README has at most 200 lines and its required headings;
- every relative link resolves to a file inside the repository.

A file `make bench` writes is checked for its links only.
Code blocks, inline code and link targets are not prose: a code span counts as one word, and a
link counts as its text. Prints `file:line: problem` for each finding and exits 1 if any.
Usage: python3 infra/check_docs.py [ROOT]
"""
import pathlib
import re
import sys

MAX_SENTENCE_WORDS = 35
MAX_PARAGRAPH_WORDS = 120
MAX_CELL_WORDS = 40
MAX_README_LINES = 200
README_HEADINGS = [
    "## Run it",
    "## Call it",
    "## The tenant's flow",
    "## Deploy",
    "## Change it",
    "## Documentation",
]

CODE_SPAN = re.compile(r"`[^`]*`")
LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# A sentence ends at . ! or ? followed by white space; "e.g." and "i.e." do not end one.
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)[.!?](?=\s)")


def words(text):
    return len(text.split())


def prose(text):
    """The text with code spans as one word and links as their text."""
    text = CODE_SPAN.sub("CODE", text)
    return LINK.sub(lambda m: m.group(1), text)


def sentences(text):
    return [s for s in SENTENCE_END.split(prose(text)) if s.strip()]


def blocks(lines):
    """(kind, first line number, text) for each paragraph, list item and table row outside code."""
    fence = None
    current, start = [], 0
    out = []

    def flush():
        nonlocal current
        if current:
            out.append(("paragraph", start, " ".join(current)))
        current = []

    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith("```") or stripped.startswith("~~~"):
            flush()
            fence = stripped[:3]
            continue
        if not stripped or stripped.startswith("#") or stripped.startswith("<!--"):
            flush()
            continue
        if stripped.startswith("|"):
            flush()
            out.append(("row", number, stripped))
            continue
        if LIST_ITEM.match(line):
            flush()
            start = number
        elif not current:
            start = number
        current.append(stripped)
    flush()
    return out


# A generated file (the benchmark's results) starts with this; only its links are checked.
GENERATED = "<!-- Written by `make bench`"


def check_file(root, path):
    problems = []
    lines = path.read_text(encoding="utf-8").splitlines()
    rel = path.relative_to(root)
    generated = bool(lines) and lines[0].startswith(GENERATED)
    for kind, number, text in [] if generated else blocks(lines):
        if kind == "row":
            if re.fullmatch(r"\|[\s:|-]+\|?", text):
                continue
            for cell in re.split(r"(?<!\\)\|", text.strip("|")):
                if words(prose(cell)) > MAX_CELL_WORDS:
                    problems.append(f"{rel}:{number}: table cell of {words(prose(cell))} words (at most {MAX_CELL_WORDS})")
            continue
        if words(prose(text)) > MAX_PARAGRAPH_WORDS:
            problems.append(f"{rel}:{number}: paragraph of {words(prose(text))} words (at most {MAX_PARAGRAPH_WORDS})")
        for sentence in sentences(text):
            if words(sentence) > MAX_SENTENCE_WORDS:
                problems.append(
                    f"{rel}:{number}: sentence of {words(sentence)} words (at most {MAX_SENTENCE_WORDS}): "
                    f"{' '.join(sentence.split()[:8])} ..."
                )
    for number, line in enumerate(lines, 1):
        for match in LINK.finditer(line):
            target = match.group(2).split("#")[0]
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            resolved = (path.parent / target).resolve()
            if root not in resolved.parents and resolved != root:
                problems.append(f"{rel}:{number}: link leaves the repository: {target}")
            elif not resolved.exists():
                problems.append(f"{rel}:{number}: link to a missing file: {target}")
    return problems


def check_readme(root):
    path = root / "README.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    problems = []
    if len(lines) > MAX_README_LINES:
        problems.append(f"README.md: {len(lines)} lines (at most {MAX_README_LINES})")
    for heading in README_HEADINGS:
        if heading not in lines:
            problems.append(f"README.md: missing the heading '{heading}'")
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
    files = [root / "README.md", root / "CONTRIBUTING.md"]
    files += sorted((root / "docs").rglob("*.md"))
    files += sorted(root.glob("clients/*/README.md"))
    problems = check_readme(root)
    for path in files:
        if path.exists():
            problems += check_file(root, path)
        else:
            problems.append(f"{path.relative_to(root)}: missing")
    for p in problems:
        print(p)
    if problems:
        print(f"check_docs: {len(problems)} problem(s); the habits are in CONTRIBUTING.md", file=sys.stderr)
        return 1
    print(f"check_docs: {len(files)} files hold to the writing habits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
