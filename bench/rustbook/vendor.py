#!/usr/bin/env python3
"""Vendors the Rust book into data/rust-book/book, once: the HTML pages of "The Rust Programming
Language" from Debian's `rust-doc` package (MIT or Apache-2.0), each page's `<main>` element copied
verbatim (the site's navigation, scripts and styles dropped), arranged one folder per chapter so
that `wink docs-to-prompt` groups them as the book does.

    python3 bench/rustbook/vendor.py [PATH/TO/rust-doc_1.63.0+dfsg1-2_all.deb]

Without an argument it runs `apt-get download rust-doc` in a temporary folder. The package is
checked against its SHA-256 below. Nothing else is needed: the output is stable, run it again only
to check it."""
import gzip
import hashlib
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

PACKAGE = "rust-doc_1.63.0+dfsg1-2_all.deb"
SHA256 = "96ef96fe6df87d939ca713bd7df3d15c2b778ccb892eca025c4ee504146f697b"
ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "data" / "rust-book"
HTML = "usr/share/doc/rust-doc/html"


def fetch(tmp):
    subprocess.run(["apt-get", "download", "rust-doc=1.63.0+dfsg1-2"], cwd=tmp, check=True)
    return tmp / PACKAGE


def main_element(page):
    text = page.read_text(encoding="utf-8")
    match = re.search(r"<main>(.*?)</main>", text, re.S)
    if not match:
        sys.exit(f"{page}: no <main> element")
    return "<main>" + match.group(1).strip() + "</main>\n"


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def layout(book):
    """(source page, destination relative to book/) in reading order."""
    pages = []
    pages.append((book / "foreword.html", "ch00-foreword.html"))
    pages.append((book / "ch00-00-introduction.html", "ch00-introduction.html"))
    chapters = {}
    for page in sorted(book.glob("ch[0-9][0-9]-[0-9][0-9]-*.html")):
        number, sub, rest = page.stem.split("-", 2)
        if number == "ch00":
            continue
        chapters.setdefault(number, []).append((sub, rest, page))
    for number, entries in sorted(chapters.items()):
        entries.sort()
        (_, title, first), *subs = entries
        if not subs:
            pages.append((first, f"{number}-{slug(title)}.html"))
            continue
        folder = f"{number}-{slug(title)}"
        pages.append((first, f"{folder}/index.html"))
        for sub, rest, page in subs:
            pages.append((page, f"{folder}/{sub}-{slug(rest)}.html"))
    appendix = sorted(book.glob("appendix-[0-9][0-9]-*.html")) + [book / "appendix-00.html"]
    for page in appendix:
        parts = page.stem.split("-", 2)
        if len(parts) == 2:
            pages.append((page, "ch21-appendix/index.html"))
        else:
            pages.append((page, f"ch21-appendix/{parts[1]}-{slug(parts[2])}.html"))
    return pages


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        deb = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else fetch(tmp)
        digest = hashlib.sha256(deb.read_bytes()).hexdigest()
        if digest != SHA256:
            sys.exit(f"{deb}: sha256 {digest}, expected {SHA256}")
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp / "x")], check=True)
        html = tmp / "x" / HTML
        if (OUT / "book").exists():
            shutil.rmtree(OUT / "book")
        chars = 0
        pages = layout(html / "book")
        for source, destination in pages:
            target = OUT / "book" / destination
            target.parent.mkdir(parents=True, exist_ok=True)
            content = main_element(source)
            chars += len(content)
            target.write_text(content, encoding="utf-8")
        (OUT / "LICENSE-MIT").write_bytes((html / "LICENSE-MIT.txt").read_bytes())
        with gzip.open(html / "LICENSE-APACHE.txt.gz") as apache:
            (OUT / "LICENSE-APACHE").write_bytes(apache.read())
        print(f"{len(pages)} pages, {chars} characters of HTML in {OUT / 'book'}")


main()
