"""Rewrite internal source names into the short citation form a reader can look up.

    .venv/bin/python scripts/cite.py grading/source          # notebooks under a folder
    .venv/bin/python scripts/cite.py book README.md --check  # list what would change, exit 1

The five source documents were once cited by workspace file names ("002_<16 hex>.txt") and
document numbers ("002 slide 42", "(000, Table 4.32)", "004's DL_POLY tables"). This rewrites
both into the short form of hybridlab.reference.sources ("Rabenseifner, slide 42",
"(Stathopoulos 2010, Table 4.32)", "Armstrong et al.'s DL_POLY tables"). In notebooks it
rewrites every cell's source (markdown text, and comments and strings in code) and leaves
outputs, metadata and reference keys such as REFERENCE["003-table-1"] alone. Idempotent: the
short forms contain nothing it rewrites. Files: .ipynb, .md, .py, .toml, .c, .h, .txt.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from hybridlab.reference.sources import SOURCES

# A workspace file name, with or without ".txt".
FILE_NAME = re.compile(r"\b00([0-4])_[0-9a-f]{16}(?:\.txt)?")
# A document number standing as a name: not part of a number ("200 000", "0.004", "1,000"), a
# key ("003-table-1"), a string ("\"003\"") or a colour ("#000").
_NUMBER = r"(?<![\w.,\-/\"'\[#=])(?<!\d )00([0-4])(?![\w\-\"'\]=])(?![.:]\d)"
# What follows a document number when text cites a place in it.
LOCATOR = (
    r"(?:[Ss]lides?|[Tt]ables?|[Ss]ections?|Appendix|A\.\d+|[Ff]igures?|Fig\.|DL_POLY|CASTEP|"
    r"GLOMAP|CASINO|CABARET|OpenMP [Tt]est|MPI [Tt]est|talks?|conclusions|[Pp]age|p\.)"
)
NUMBER_POSSESSIVE = re.compile(r"(?<![\w.,\-/\"'\[#=])(?<!\d )00([0-4])'s\b")  # "000's Jacobi"
NUMBER_CITED = re.compile(rf"{_NUMBER},? (?={LOCATOR})")  # "002 slide 42", "(000, Table 4.32)"
# "* **002** (Rabenseifner, slide 13 ...": a list of sources by number, the author repeated.
NUMBER_BOLD = re.compile(r"\*\*00([0-4])\*\*(?: \((?P<author>[A-Z][a-z]+(?: et al\.)?(?: \d{4})?[,:] )?)?")
NUMBER = re.compile(_NUMBER)  # "as in 003", "(003)"
APPENDIX_TABLE = re.compile(r"(Stathopoulos 2010, )(A\.\d)")
SEED_WORD = re.compile(r"\bseed (?=00[0-4]\b)")  # "after seed 003" -> "after Luecke et al."
SUFFIXES = {".ipynb", ".md", ".py", ".toml", ".c", ".h", ".txt"}


def _bold(m: re.Match) -> str:
    """"**002** (Rabenseifner, slide 13" -> "**Rabenseifner** (slide 13": the author once."""
    source = SOURCES[f"00{m[1]}"]
    text = m[0].replace(f"**00{m[1]}**", f"**{source.short}**")
    author = m["author"]
    if author and author.split()[0].rstrip(",:") == source.short.split()[0]:
        text = text[: -len(author)]
    return text


def convert(text: str) -> str:
    """The text with every file name and document number used as a name in short form."""
    text = FILE_NAME.sub(lambda m: f"00{m[1]}", text)
    text = SEED_WORD.sub("", text)
    text = NUMBER_POSSESSIVE.sub(lambda m: SOURCES[f"00{m[1]}"].possessive, text)
    text = NUMBER_CITED.sub(lambda m: f"{SOURCES[f'00{m[1]}'].short}, ", text)
    text = APPENDIX_TABLE.sub(r"\1Table \2", text)  # "000 A.23" -> "Stathopoulos 2010, Table A.23"
    text = NUMBER_BOLD.sub(_bold, text)
    text = NUMBER.sub(lambda m: SOURCES[f"00{m[1]}"].short, text)
    return text.replace("et al..", "et al.")  # "as in 003." ends the sentence once


def convert_notebook(text: str) -> str:
    """A notebook's JSON with every cell's source converted (nbformat's layout kept)."""
    nb = json.loads(text)
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        joined = "".join(source) if isinstance(source, list) else source
        new = convert(joined)
        if new != joined:
            cell["source"] = new.splitlines(keepends=True) if isinstance(source, list) else new
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def files(paths: list[Path]) -> list[Path]:
    out = []
    for path in paths:
        if path.is_dir():
            out += sorted(
                p for p in path.rglob("*")
                if p.suffix in SUFFIXES and p.is_file() and ".ipynb_checkpoints" not in p.parts
            )
        else:
            out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="files or folders")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any would")
    args = parser.parse_args(argv)
    changed = []
    for path in files(args.paths):
        text = path.read_text(encoding="utf-8")
        new = convert_notebook(text) if path.suffix == ".ipynb" else convert(text)
        if path.suffix == ".ipynb" and json.loads(new) == json.loads(text):
            continue
        if new != text:
            changed.append(path)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for path in changed:
        print(f"{'would rewrite' if args.check else 'rewrote'} {path}")
    print(f"{len(changed)} file(s) {'to rewrite' if args.check else 'rewritten'}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
