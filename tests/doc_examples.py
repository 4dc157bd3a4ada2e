"""The console examples of the README and of every page of the manual (docs/), run as written.

A fenced ```console block holds commands (lines starting with ``$ ``) each
followed by the output it prints. In an expected output, a line that is just
``...`` stands for any number of lines (none included) and ``...`` inside a
line for any text: that is how figures that vary (timings, a rate) are
marked. Every block of a document runs in order in one scratch folder, so a
later example sees what an earlier one stored, as it would for a reader;
the folder links to the project's ``rules``, ``tests``, ``examples`` and
``docs`` so that paths in the examples work.

    .venv/bin/python tests/doc_examples.py README.md     # print each command's actual output
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zygote  # noqa: E402  (the suite's fork server, when one runs: tests/zygote.py)

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))
# every page at the top of docs/ shows examples; a guide or a results report below it runs those it has
DOCUMENTS = ["README.md", *(page for page in PAGES if "/" not in page.removeprefix("docs/")
                            or "```console" in (ROOT / page).read_text())]
LINKED = ["rules", "tests", "examples", "docs", "bench"]
BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
PYTHON = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@dataclass
class Example:
    """One command of a document and the output shown under it."""

    document: str
    line: int
    command: str
    expected: list[str]


def examples(document: str) -> list[Example]:
    """Every command of the document's console blocks, in order, with the line it is on."""
    text = (ROOT / document).read_text()
    found: list[Example] = []
    for block in BLOCK.finditer(text):
        first_line = text.count("\n", 0, block.start(1)) + 1
        current: Example | None = None
        for i, line in enumerate(block.group(1).splitlines()):
            if line.startswith("$ "):
                current = Example(document, first_line + i, line[2:], [])
                found.append(current)
            elif current is None:
                raise ValueError(f"{document}:{first_line + i}: a console block must start with a '$ ' command")
            else:
                current.expected.append(line)
    return found


def python_blocks(document: str) -> str:
    """The document's ```python blocks, in order, as one script (each block sees what the earlier
    ones defined, as a reader typing them into one session would)."""
    return "\n".join(PYTHON.findall((ROOT / document).read_text()))


def run_python(code: str, folder: Path) -> subprocess.CompletedProcess:
    """Run ``code`` with the project's Python in ``folder``."""
    env = {k: v for k, v in os.environ.items() if k not in ("EDUCABLE_DB", "EDUCABLE_GAMES")}
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)


def sandbox(folder: Path | None = None) -> Path:
    """A scratch folder (``folder``, or a new one) with links to the project folders the examples name."""
    folder = folder or Path(tempfile.mkdtemp(prefix="educable-docs-"))
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name)
    return folder


def run(example: Example, folder: Path) -> list[str]:
    """Run the command in bash in ``folder``; its stdout and stderr lines, as a terminal shows them."""
    bins = [folder for folder in (zygote.client_folder(), str(Path(sys.executable).parent)) if folder]
    env = {**os.environ, "PATH": os.pathsep.join([*bins, os.environ.get("PATH", "")]), "COLUMNS": "80"}
    for name in ("EDUCABLE_DB", "EDUCABLE_GAMES", "EDUCABLE_MAX_POSITIONS", "EDUCABLE_DEBUG"):
        env.pop(name, None)
    p = subprocess.run(["bash", "-c", example.command], cwd=folder, env=env, capture_output=True, text=True,
                       timeout=600)
    return (p.stdout + p.stderr).rstrip("\n").splitlines() if (p.stdout + p.stderr).strip() else []


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the actual lines fit the expected ones (``...`` lines and ``...`` inside lines match anything)."""
    pattern = "".join(r"(?:.*\n)*?" if line.strip() == "..." else
                      ".*".join(re.escape(part) for part in line.rstrip().split("...")) + r"[ \t]*\n"
                      for line in expected)
    return re.fullmatch(pattern, "".join(line.rstrip() + "\n" for line in actual)) is not None


def main(document: str) -> None:
    folder = sandbox()
    for ex in examples(document):
        t0 = time.perf_counter()
        actual = run(ex, folder)
        mark = "ok  " if matches(ex.expected, actual) else "DIFF"
        print(f"{mark} {time.perf_counter() - t0:5.1f} s {ex.document}:{ex.line}: $ {ex.command}")
        if mark == "DIFF":
            print("\n".join("     | " + line for line in actual))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "README.md")
