"""Files as people have them: Markdown, HTML and PDF read for their running text only."""

from __future__ import annotations

import io
import re
import sys
import textwrap
from pathlib import Path

import pytest

from summarizer.errors import InputError
from summarizer.readers import Document, format_of, read_document

PARAGRAPHS = [
    "Extractive summarization picks the sentences of a document that carry the most of its meaning.",
    "The river flooded the old town on Tuesday night, and hundreds of residents were moved to the school gym.",
    "Officials said the water rose faster than expected, and volunteers brought blankets and hot food.",
]
README = f"""---
title: front matter is metadata
---
# sumtool

[![Build](https://img.shields.io/badge/build-passing-green.svg)](https://ci.example.org/sumtool)
[![Repo size](https://img.shields.io/github/repo-size/example/sumtool)](https://github.com/example/sumtool)

{textwrap.fill(PARAGRAPHS[0], 40)}

<p align="center"><img src="logo.png" alt="logo"></p>

## Install

```bash
pip install sumtool
```

| option | meaning |
|--------|---------|
| -k     | sentences per summary |

- {PARAGRAPHS[1].replace("Tuesday night", "[Tuesday night](https://example.org/news)")}
- Fast
- `--ratio`

> {PARAGRAPHS[2].replace("volunteers", "**volunteers**")}

    indented code block

![diagram](diagram.png)
"""
PAGE = f"""<!DOCTYPE html>
<html><head><title>News</title><style>body {{ color: red; }}</style>
<script>var tracking = "window.location";</script></head>
<body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li></ul></nav>
<header><h1>Town flooded</h1></header>
<article>
<h2>Town flooded</h2>
<p>{PARAGRAPHS[0]}</p>
<p>{PARAGRAPHS[1].replace("school gym", "<em>school gym</em>")}</p>
<pre><code>curl https://example.org/data.json</code></pre>
<p>{PARAGRAPHS[2].replace("&", "&amp;")} The mayor &amp; council met at 9&nbsp;a.m. on Wednesday.</p>
</article>
<footer><p>Copyright 2025 Example News. All rights reserved. Privacy policy. Cookie settings.</p></footer>
<script>document.write("not text");</script>
</body></html>
"""


def test_format_follows_the_extension():
    assert [format_of(name) for name in ("a.md", "B.MARKDOWN", "c.html", "d.htm", "e.pdf", "f.txt", "g", "h.rst")] == [
        "markdown", "markdown", "html", "html", "pdf", "text", "text", "rst",
    ]  # fmt: skip


def test_markdown_keeps_running_text_and_link_text_only():
    document = Document.from_text(README, "markdown")
    assert document.paragraphs == (PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[2])
    text = " ".join(document.paragraphs)
    for markup in (
        "sumtool",
        "Build",
        "Repo size",
        "http",
        "pip install",
        "option",
        "indented",
        "diagram",
        "logo",
        "**",
        "front matter",
    ):
        assert markup not in text


@pytest.mark.parametrize(
    ("text", "paragraphs"),
    [
        (  # as clippy's README writes one: a footnote whose list is indented under it
            f"{PARAGRAPHS[0][:-1]}[^why].\n\n[^why]: Some uses of it include:\n"
            "    - Strict coding styles for a team.\n    - Additional checks on a build server.\n\n"
            f"{PARAGRAPHS[1]}\n",
            (PARAGRAPHS[0], PARAGRAPHS[1]),
        ),
        (  # marks after a space, in a list item and in a quote; a note nobody refers to
            f"- {PARAGRAPHS[0][:-1]} [^1].\n\n> {PARAGRAPHS[1].replace(' and ', ' [^2] and ')}\n\n"
            "[^1]: The first note is left out.\n[^2]: So is the second.\n[^3]: And the third.\n",
            (PARAGRAPHS[0], PARAGRAPHS[1]),
        ),
        (  # struck-out words are taken back, as clippy's README takes back "annoy"
            "You can choose how much it is supposed to ~~annoy~~ help you by changing the level.\n",
            ("You can choose how much it is supposed to help you by changing the level.",),
        ),
        (  # no inline notes, which GitHub does not write: "^[...]" is text
            "A line that matches ^[a-z]+$ is one lower-case word.\n",
            ("A line that matches ^[a-z]+$ is one lower-case word.",),
        ),
    ],
    ids=["indented-list", "marks-everywhere", "struck-out", "caret-bracket-is-text"],
)
def test_markdown_leaves_out_footnotes_marks_and_struck_out_words(text, paragraphs):
    assert Document.from_text(text, "markdown").paragraphs == paragraphs


def test_html_keeps_the_main_text_without_tags_scripts_or_navigation():
    pytest.importorskip("trafilatura")
    document = Document.from_text(PAGE, "html")
    text = " ".join(document.paragraphs)
    assert document.paragraphs[:2] == (PARAGRAPHS[0], PARAGRAPHS[1])
    assert PARAGRAPHS[2] in text and "The mayor & council met at 9 a.m. on Wednesday." in text
    for noise in ("<", "&amp;", "&nbsp;", "tracking", "not text", "color", "Home", "World", "curl", "Cookie"):
        assert noise not in text


@pytest.mark.parametrize(
    "code",
    [
        '<pre class="programlisting">int BZ2_bzDecompress ( bz_stream *strm );</pre>',  # DocBook
        '<div class="listingblock"><div class="content"><pre>n = strlen(s) + 1;</pre></div></div>',  # Asciidoctor
        '<pre class="sourceCode c"><span>n = strlen(s) + 1;</span> <span>return n;</span></pre>',  # Pandoc
        '<pre class="example">n = strlen(s) + 1;\nreturn n;</pre>',  # Texinfo
    ],
    ids=["docbook", "asciidoctor", "pandoc", "texinfo"],
)
@pytest.mark.parametrize(
    "prose",
    ["<pre>{}</pre>", '<pre class="literallayout">{}</pre>', '<div class="job-listing"><div><pre>{}</pre></div></div>'],
    ids=["pre", "docbook-literallayout", "class-with-a-code-word"],
)
def test_html_leaves_out_preformatted_blocks_that_a_class_marks_as_code(code, prose):
    pytest.importorskip("trafilatura")
    letter = "Dear all, the meeting moves to Thursday.\nThe agenda is unchanged, and minutes follow."
    page = PAGE.replace("<pre><code>curl https://example.org/data.json</code></pre>", code + prose.format(letter))
    text = " ".join(Document.from_text(page, "html").paragraphs)
    assert PARAGRAPHS[1] in text and PARAGRAPHS[2] in text
    assert "strlen" not in text and "bz_stream" not in text
    assert "the meeting moves to Thursday." in text  # a <pre> of prose, as mailing-list archives show e-mails


def test_html_list_items_keep_their_words_around_the_blocks_they_hold():
    pytest.importorskip("trafilatura")
    items = (
        "<ul><li>Run the build first, then read its log. "
        '<pre class="programlisting">make all\nmake check</pre></li>'
        "<li>Options are set in the config file, as follows:<ul><li>The port is set to 80 by default.</li>"
        "<li>The host name is read from the environment.</li></ul></li></ul>"
    )
    page = PAGE.replace("<pre><code>curl https://example.org/data.json</code></pre>", items)
    paragraphs = Document.from_text(page, "html").paragraphs
    assert "Run the build first, then read its log." in paragraphs  # without the program it holds
    assert "Options are set in the config file, as follows:" in paragraphs  # without its inner list
    assert (
        "The port is set to 80 by default." in paragraphs
        and "The host name is read from the environment." in paragraphs
    )
    assert not any("make" in paragraph for paragraph in paragraphs)
    listed = {paragraphs[i] for i in Document.from_text(page, "html").entries}
    assert listed == {
        "Run the build first, then read its log.",
        "Options are set in the config file, as follows:",
        "The port is set to 80 by default.",
        "The host name is read from the environment.",
    }  # a list's entries, as a Word file's are: a phrase among them is chosen last


def test_markdown_list_items_are_a_list_s_entries():
    text = "# Notes\n\nThe tool tracks satellites.\n\n- Multi-satellite management.\n- Flare predictions.\n\n"
    text += "It updates daily."
    document = Document.from_text(text, "markdown")
    assert document.paragraphs == (
        "The tool tracks satellites.",
        "Multi-satellite management.",
        "Flare predictions.",
        "It updates daily.",
    )
    assert document.entries == frozenset({1, 2})


def test_running_text_of_other_scripts_is_read_from_markdown_and_html():
    # rust-by-example/ja: sentences that end in a full-width mark, with no space after it
    sentences = ["バイナリファイルはコンパイラを用いて生成できます。", "次に、マクロをもう一行追加してみましょう。"]
    markdown = f"# はじめに\n\n{''.join(sentences)}\n\n| 表 |\n|---|\n| セル |\n"
    assert Document.from_text(markdown, "markdown").paragraphs == ("".join(sentences),)
    pytest.importorskip("trafilatura")
    page = f'<html lang="ja"><body><main><h1>はじめに</h1><p>{"".join(sentences)}</p></main></body></html>'
    assert Document.from_text(page, "html").paragraphs == ("".join(sentences),)


def test_html_is_decoded_by_its_own_charset():
    pytest.importorskip("trafilatura")
    page = PAGE.replace("<head>", '<head><meta charset="iso-8859-1">').replace("Officials", "Caf\xe9 officials")
    document = Document.from_text(page.encode("latin-1"), "html")
    assert any("Café officials" in paragraph for paragraph in document.paragraphs)


def pdf_bytes(pages: int = 3, encrypt: str | None = None, text: bool = True) -> bytes:
    """A PDF made here: paragraphs wrapped across pages, a running header and page numbers."""
    fpdf = pytest.importorskip("fpdf")

    class Report(fpdf.FPDF):
        def header(self):
            self.set_font("helvetica", size=9)
            self.cell(0, 8, "Quarterly Report of the River Authority", align="C")
            self.ln(12)

        def footer(self):
            self.set_y(-15)
            self.set_font("helvetica", size=9)
            self.cell(0, 10, f"Page {self.page_no()}", align="C")

    pdf = Report() if text else fpdf.FPDF()
    pdf.set_font("helvetica", size=11)
    for page in range(pages):
        pdf.add_page()
        if text:  # each page starts with another paragraph, as pages of a report do
            for paragraph in (PARAGRAPHS[page % 3 :] + PARAGRAPHS[: page % 3]) * 2:
                pdf.multi_cell(0, 6, f"{paragraph} {paragraph}")
                pdf.ln(3)
        else:
            pdf.rect(20, 20, 100, 100, style="F")  # a scan: marks, no text layer
    if encrypt is not None:
        pdf.set_encryption(owner_password="owner", user_password=encrypt)
    return bytes(pdf.output())


def test_pdf_paragraphs_are_whole_without_headers_or_page_numbers():
    document = Document.from_text(pdf_bytes(), "pdf")
    text = " ".join(document.paragraphs)
    assert "Quarterly Report" not in text and "Page " not in text
    assert f"{PARAGRAPHS[0]} {PARAGRAPHS[0]}" in document.paragraphs
    assert all(paragraph.endswith(".") for paragraph in document.paragraphs)


DEJAVU_MONO = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
PROGRAM = ["rc = asn1_create_element(definitions, name, &element);", "if (rc != ASN1_SUCCESS)", "    return rc;"]


def verbatim_pdf(body: str = "helvetica", code: str = "courier") -> bytes:
    """A PDF whose prose introduces a program set in a fixed-pitch font, and quotes code inside a
    wrapped sentence; `body` and `code` name the fonts (the embedded DejaVu fonts or core ones)."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    for name, path in (("body", DEJAVU_MONO.with_name("DejaVuSans.ttf")), ("mono", DEJAVU_MONO)):
        if name in (body, code):
            if not path.exists():
                pytest.skip(f"{path} is not on this machine")
            pdf.add_font(name, fname=str(path))
    pdf.add_page()
    pdf.set_font(body, size=11)
    pdf.multi_cell(0, 6, f"{PARAGRAPHS[0]} {PARAGRAPHS[1]} The element is created as follows:")
    pdf.ln(3)
    pdf.set_font(code, size=10)
    for line in PROGRAM:
        pdf.cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font(body, size=11)
    pdf.multi_cell(0, 6, f"{PARAGRAPHS[2]} The function returns the first error it meets, as in")
    pdf.set_font(code, size=10)
    pdf.cell(0, 5, "while (rc == 0) rc = next(element)", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(body, size=11)
    pdf.multi_cell(0, 6, "and so a caller checks the code it gets back before anything else.")
    return bytes(pdf.output())


@pytest.mark.parametrize("fonts", [("helvetica", "courier"), ("body", "mono")], ids=["core fonts", "embedded fonts"])
def test_pdf_programs_in_a_fixed_pitch_font_are_not_text(fonts):
    paragraphs = Document.from_text(verbatim_pdf(*fonts), "pdf").paragraphs
    text = " ".join(paragraphs)
    assert not any(line.strip() in text for line in PROGRAM)  # the program block is gone
    assert f"{PARAGRAPHS[0]} {PARAGRAPHS[1]} The element is created as follows:" in paragraphs
    # Code quoted inside an open sentence stays part of it.
    quoting = f"{PARAGRAPHS[2]} The function returns the first error it meets, as in while (rc == 0) rc = next(element)"
    assert any(p.startswith(quoting) and p.endswith("before anything else.") for p in paragraphs), paragraphs


@pytest.mark.parametrize(
    "widths, fixed",
    [([525] * 90, True), ([278, 306, 333, 500] * 20, False), ([272], False), (None, False), ([569.5] * 10, False)],
    ids=["one width (TeX's cmtt)", "many widths", "too few glyphs to tell", "no widths", "digits alone"],
)
def test_a_font_is_fixed_pitch_when_its_glyphs_are_all_as_wide(widths, fixed):
    from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, NumberObject

    from summarizer.readers.pdf import _is_fixed_pitch

    font = DictionaryObject({NameObject("/BaseFont"): NameObject("/AKEQKS+CMTT10")})  # no flag, no telling name
    if widths is not None:
        font[NameObject("/FirstChar")] = NumberObject(48)  # "0": the digits alone are the first ten
        font[NameObject("/Widths")] = ArrayObject(FloatObject(width) for width in widths)
    assert _is_fixed_pitch(font) is fixed


@pytest.mark.parametrize(
    ("name", "fixed"), [("/Courier", True), ("/ABCDEF+Consolas", True), ("/MonotypeCorsiva", False)]
)
def test_a_damaged_font_dictionary_is_told_by_its_name(name, fixed):
    from pypdf.generic import DictionaryObject, NameObject, NullObject

    from summarizer.readers.pdf import _is_fixed_pitch

    null = NullObject()
    font = DictionaryObject({NameObject("/BaseFont"): NameObject(name), NameObject("/Widths"): null})
    font[NameObject("/FontDescriptor")] = null
    assert _is_fixed_pitch(font) is fixed


@pytest.mark.parametrize(("fonts", "fixed"), [(("helvetica", "helvetica"), False), (("helvetica", "courier"), True)])
def test_only_pages_with_a_fixed_pitch_font_are_read_font_by_font(fonts, fixed):
    # pypdf's text visitor also reads a page's drawings (a figure of many paths: seconds)
    from pypdf import PdfReader

    from summarizer.readers.pdf import _uses_fixed_pitch

    assert _uses_fixed_pitch(PdfReader(io.BytesIO(verbatim_pdf(*fonts))).pages[0]) is fixed


def test_a_program_inside_an_open_sentence_stays_in_it():
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(0, 6, f"{PARAGRAPHS[0]} To build an element the caller passes the node and")
    pdf.set_font("courier", size=10)
    for line in PROGRAM[:2]:
        pdf.cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(0, 6, "then checks the result before it goes on.")
    paragraphs = Document.from_text(bytes(pdf.output()), "pdf").paragraphs
    text = " ".join(paragraphs)
    assert "the caller passes the node and rc = asn1_create_element(" in text  # not cut off before the code
    assert "if (rc != ASN1_SUCCESS) then checks the result" in text


def test_a_numbered_section_heading_and_the_declaration_below_it_are_not_text():
    # A library manual printed to PDF: a section heading, the function's declaration in a
    # fixed-pitch font, then the section's prose, which begins with a name in lower case.
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    first = " ".join(PARAGRAPHS)  # lines wrapped at the page's width: a hard-wrapped document
    pdf.multi_cell(0, 6, first)
    pdf.set_font("helvetica", style="B", size=13)
    pdf.cell(0, 8, "3.3.1. asn1_create_element", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("courier", size=10)
    for line in PROGRAM[:2]:
        pdf.cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", style="B", size=13)
    pdf.cell(0, 8, "3.3.2. Structure handling", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=11)
    prose = "libtasn1 keeps every structure in a tree of nodes, and " + first[0].lower() + first[1:]
    pdf.multi_cell(0, 6, prose)
    assert list(Document.from_text(bytes(pdf.output()), "pdf").paragraphs) == [first, prose]


def spaced_pdf(lines: list[list[tuple[str, float]]], word: float = 0.0) -> bytes:
    """Lines of pieces (text, character spacing) set as groff and Ghostscript set justified text:
    each piece its own string, placed by `Td` after the last, with `word` spacing (`Tw`) after
    each space and its character spacing (`Tc`) after each glyph (the last one's overridden by
    the next `Td`)."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF(unit="pt")
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.text(0, 0, " ")  # puts the font on the page as /F1
    operations = ["BT /F1 12 Tf"]
    for row, pieces in enumerate(lines):
        operations.append(f"1 0 0 1 72 {700 - 14 * row} Tm")
        for piece, character in pieces:
            operations.append(f"{word} Tw {character} Tc ({piece}) Tj")
            advance = pdf.get_string_width(piece) + word * piece.count(" ") + character * (len(piece) - 1)
            operations.append(f"{advance:.3f} 0 Td")
    pdf._out("\n".join([*operations, "ET"]))
    return bytes(pdf.output())


@pytest.mark.parametrize(
    "lines, word, expected",
    [
        (  # groff's justified lines: a word broken at a kerned pair under word spacing
            [
                [("It has come to my attention that you ha", 0), ("ve been lobbying the go", 0), ("vernment to", 0)],
                [("prohibit the use of open source softw", 0), ("are.", 0)],
            ],
            3.0,
            (
                "It has come to my attention that you have been lobbying the government to prohibit the use of open "
                "source software.",
            ),
        ),
        (  # Ghostscript's: the gap between two words as character spacing after the first one's last glyph
            [[("Therefore", 0), (",i", 3), ("n the inde", 0), ("xi", 3), ("sc", 3), ("orrect.", 0)]],
            0.0,
            ("Therefore, in the index is correct.",),
        ),
        (  # a heading set wide, then letters spaced a little: no gaps between words
            [[("CONTENTS", 2.0)], [("Letters set a little apart stay words.", 0.4)]],
            0.0,
            ("CONTENTS", "Letters set a little apart stay words."),
        ),
    ],
    ids=["word spacing", "character spacing", "letter spacing"],
)
def test_pdf_words_are_neither_cut_nor_run_together_by_their_spacing(lines, word, expected):
    assert Document.from_text(spaced_pdf(lines, word), "pdf").paragraphs == expected


def test_spacing_is_made_explicit_only_where_it_applies():
    from pypdf.generic import ArrayObject, ByteStringObject, FloatObject, NameObject, NumberObject

    from summarizer.readers.pdf.spacing import _explicit

    def shown(*items):
        return ArrayObject(ByteStringObject(item) if isinstance(item, bytes) else FloatObject(item) for item in items)

    def spaced(word, character, *items):
        operations = [([NameObject("/F1"), NumberObject(10)], b"Tf"), ([], b"BT")]
        operations += [([FloatObject(word)], b"Tw"), ([FloatObject(character)], b"Tc")]
        return operations + [([shown(*items)], b"TJ")]

    def shows(operations):  # what the rewritten operations show, and under which spacing
        state, found = {}, []
        for operands, operator in operations:
            if operator in (b"Tw", b"Tc"):
                state[operator] = float(operands[0])
            elif operator in (b"TJ", b"Tj"):
                found.append((list(operands[0]) if operator == b"TJ" else operands[0], state[b"Tw"], state[b"Tc"]))
        return found

    # q and Q save and restore the spacing: after Q there is none
    unchanged = [
        *spaced(0, 0, b"a b")[:2],
        ([], b"q"),
        ([NumberObject(2)], b"Tw"),
        ([], b"Q"),
        spaced(0, 0, b"a b")[-1],
    ]
    assert _explicit(unchanged, {"/F1"}) == (unchanged, False)
    # a font that is not simple (composite, Type 3, unknown, damaged): its strings are left whole
    assert _explicit(spaced(2, 0, b"a b"), set()) == (spaced(2, 0, b"a b"), False)
    # word spacing after each space; the spacing as it was after the string
    operations, changed = _explicit(spaced(2, 0, b"a b"), {"/F1"})
    assert changed and shows(operations) == [([b"a ", -200, b"b"], 0, 0)]
    assert operations[-2:] == [([FloatObject(2)], b"Tw"), ([FloatObject(0)], b"Tc")]
    # `"` sets both spacings and goes to the next line
    quoted = [spaced(0, 0)[0], ([NumberObject(1), NumberObject(0), ByteStringObject(b"c d")], b'"')]
    operations, _ = _explicit(quoted, {"/F1"})
    assert [operator for _, operator in operations] == [b"Tf", b"Tw", b"Tc", b"T*", b"Tw", b"Tc", b"TJ", b"Tw", b"Tc"]
    assert shows(operations) == [([b"c ", -100, b"d"], 0, 0)]
    # Ghostscript's gaps: character spacing between glyphs, taken back by the array's own offsets;
    # the last glyph keeps its spacing (it moves the pen to the next string, it parts no words)
    operations, _ = _explicit(spaced(0, 2.5, b"xi", 250, b"sc"), {"/F1"})
    assert shows(operations) == [([b"x", -250, b"is", -250], 0, 0), ([b"c"], 0, 2.5)]
    operations, _ = _explicit(spaced(0, 3, b"ab", 100), {"/F1"})  # and what follows it in the array
    assert shows(operations) == [([b"a", -300], 0, 0), ([b"b", 100], 0, 3)]
    # letters set wide, then the same spacing again in the text object, and spacing too small to
    # part words: left as they are
    wide = [*spaced(0, 2.5, b"NU MANU"), ([shown(b"AL")], b"TJ")]
    assert _explicit(wide, {"/F1"}) == (wide, False)
    # ... unless the spacing is set anew, as Ghostscript sets it before each gap
    operations, _ = _explicit([*wide, ([FloatObject(2.5)], b"Tc"), ([shown(b"ra")], b"TJ")], {"/F1"})
    assert shows(operations)[-2:] == [([b"r", -250], 0, 0), ([b"a"], 0, 2.5)]
    assert _explicit(spaced(0, 0.4, b"ab"), {"/F1"}) == (spaced(0, 0.4, b"ab"), False)
    operations, _ = _explicit(spaced(2, 0.4, b"a b"), {"/F1"})
    assert shows(operations) == [([b"a ", -200, b"b"], 0, 0.4)]  # character spacing left to pypdf


def test_a_damaged_font_entry_leaves_the_other_fonts_simple():
    from pypdf.generic import DictionaryObject, NameObject, NumberObject

    from summarizer.readers.pdf.spacing import _simple_fonts

    fonts = DictionaryObject({
        NameObject("/F1"): DictionaryObject({NameObject("/Subtype"): NameObject("/Type1")}),
        NameObject("/F2"): DictionaryObject({NameObject("/Subtype"): NameObject("/Type0")}),
        NameObject("/F3"): DictionaryObject({NameObject("/Subtype"): NameObject("/Type3")}),
        NameObject("/F9"): NumberObject(5),  # damaged
    })  # fmt: skip
    page = DictionaryObject({NameObject("/Resources"): DictionaryObject({NameObject("/Font"): fonts})})
    assert _simple_fonts(page) == {"/F1"}


def test_a_pdf_set_in_a_fixed_pitch_font_throughout_is_all_text():
    paragraphs = Document.from_text(verbatim_pdf("courier", "courier"), "pdf").paragraphs
    assert any(PROGRAM[0] in paragraph for paragraph in paragraphs)
    assert any(paragraph.startswith(PARAGRAPHS[0]) for paragraph in paragraphs)


def test_pdf_encrypted_with_an_empty_password_is_read():
    assert Document.from_text(pdf_bytes(1, encrypt=""), "pdf").paragraphs


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<html>not a pdf</html>", "doc.pdf: not a PDF file"),
        (b"%PDF-1.7\n1 0 obj <<>> garbage", "doc.pdf: not a readable PDF"),
        ("text", "doc.pdf: a PDF is read from its bytes"),
    ],
)
def test_bad_pdfs_are_one_line_naming_the_file(data, message):
    with pytest.raises(InputError, match=message) as caught:
        read_document(data, "pdf", "doc.pdf")
    assert "\n" not in str(caught.value)


def test_a_pdf_that_needs_a_password_or_has_no_text_says_so():
    with pytest.raises(InputError, match=r"doc.pdf: encrypted PDF"):
        read_document(pdf_bytes(1, encrypt="secret"), "pdf", "doc.pdf")
    with pytest.raises(InputError, match=r"doc.pdf: the PDF has no text layer.*OCR"):
        read_document(pdf_bytes(1, text=False), "pdf", "doc.pdf")


@pytest.mark.parametrize("format", ["text", "markdown", "html"])
def test_binary_bytes_are_refused_in_text_formats(format):
    with pytest.raises(InputError, match="x: binary file, not text"):
        read_document(b"\x89PNG\r\n\x1a\n\x00\x00", format, "x")


def test_unknown_format_is_a_value_error():
    formats = "docx, email, epub, html, latex, markdown, notebook, odp, odt, pdf, pptx, rst, rtf, subtitles, text"
    with pytest.raises(ValueError, match=f"format must be one of {formats}, got 'xlsx'"):
        read_document("x", "xlsx", "x")


def test_html_without_the_formats_extra_is_one_line_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # as if not installed
    with pytest.raises(
        InputError, match=r"^page.html: reading an HTML page needs trafilatura: pip install 'bertsum\[formats\]'$"
    ):
        read_document(PAGE, "html", "page.html")


def test_a_paragraph_that_ends_in_an_omission_is_running_text():
    quote = "The committee's report concluded that the measures taken were adequate [...]"
    assert list(Document.from_text(f"{quote}\n", "markdown").paragraphs) == [quote]


@pytest.mark.parametrize(("producer", "word"), [("Skia/PDF m150", "well-known"), (None, "wellknown")])
def test_a_pdf_s_maker_says_whether_a_hyphen_at_a_line_s_end_breaks_a_word(producer, word):
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    if producer:
        pdf.set_producer(producer)
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    lines = [
        "The tool reads files of every kind that people keep, and it is a well-",
        "known one among those who summarize the documents that they are sent,",
        "as it keeps to the sentences that the documents hold and adds nothing.",
    ]
    for line in lines:
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    (paragraph,) = Document.from_text(bytes(pdf.output()), "pdf").paragraphs
    assert f"it is a {word} one among" in paragraph  # a browser does not hyphenate; a typesetter does


def assert_one_line(path, data, message):
    """Reading `data` written to `path` fails with one line that names the file and holds `message`."""
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    with pytest.raises(InputError, match=rf"^\S*{re.escape(path.name)}: ") as error:
        Document.from_file(path)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_journal_article_cited_in_a_paragraph_of_its_own_is_no_text():
    # A README's "please cite us", as its Word file has it: the reference's paragraphs go, the
    # authors' line stays (a line of names is not chosen: it says nothing).
    cited = [
        "PscanChIP finds the transcription factors whose binding motifs are over-represented in a set of regions.",
        "If you find PscanChIP useful for your research please cite us:",
        "Zambelli F, Pesole G, Pavesi G.",
        "PscanChIP: Finding over-represented transcription factor-binding site motifs and their correlations in "
        "sequences from ChIP-Seq experiments. Nucleic Acids Res. 2013 Jul;41(Web Server issue):W535-43.",
        "Epub 2013 Jun 7. PubMed PMID: 23748563; PubMed Central PMCID: PMC3692095.",
        "Lakens, D. Equivalence tests: A practical primer. Social Psychological and Personality Science, 8(4), "
        "355-362.",
    ]
    assert Document.from_text("\n\n".join(cited)).paragraphs == tuple(cited[:3])
    # A text that is nothing but a citation is read as it is, not refused as empty.
    assert Document.from_text(cited[3]).paragraphs == (cited[3],)
    # Running text that cites in passing, or reads like a locator (a tennis score, a provision of
    # a law, a date and a time), is text.
    for paragraph in (
        "The tool follows the method of Zambelli et al. (Nucleic Acids Res. 2013;41:W535-43) on long regions.",
        "It is described elsewhere [Nucleic Acids Res. 2013;41:W535-43.] and works on long regions.",
        "The study, published in JAMA 1998;280(5):1-7, found that the drug halved deaths.",
        "The trial was registered with PMID 12345678 and reported in May.",
        "Serena Williams beat Maria Sharapova 7-6 (4), 6-3 on Tuesday to reach the quarterfinals.",
        "Section 5(2), 10-12 of the Act applies to every tenant.",
        "Doors open on Saturday 3 June 2023; 7:30pm at the Town Hall.",
        # a long paragraph is running text, whatever it cites
        "The tool was first described in a paper of the group that wrote it, Nucleic Acids Res. "
        "2013;41:W535-43. Since then it has been extended to long regions, to mouse and human genomes "
        "alike, to background files computed once and read by every later run, and to matrices of any "
        "collection, Jaspar's or Transfac's, in the format the manual describes in its section on matrix "
        "files, with an example, and it is one of many such tools.",
        "The tool follows that method (Zambelli et al., 2013, Nucleic Acids Research, 41(2), 535-543) on long "
        "regions, on mouse and human genomes alike, with background files computed once and read by every "
        "later run, and with matrices of any collection, Jaspar's or Transfac's, in the format the manual "
        "describes in its section on matrix files, with an example; it is one of many such tools.",
        "In 2013, 41 (of 50) regions scored above 0.5, against 12 in 2012.",
        "The vote was 41(2), a result the committee called final.",
    ):
        assert Document.from_text(f"{cited[0]}\n\n{paragraph}").paragraphs == (cited[0], paragraph)


def test_a_news_pages_byline_time_stamps_and_video_pointer_are_no_text():
    # As a Daily Mail article reads when its page is copied: its lines, or run together.
    body = [
        "A teenager who was hit by a bus has made a remarkable recovery, his family said today.",
        "Tom Barker, 17, suffered serious head injuries when he was struck in Leeds in August.",
    ]
    copied = "\n\n".join(
        [
            "By Daily Mail Reporter",
            "PUBLISHED: 12:32 EST, 24 November 2013 | UPDATED: 12:47 EST, 24 November 2013",
            body[0],
            "Scroll down for video",
            body[1],
        ]
    )
    assert Document.from_text(copied).paragraphs == tuple(body)
    assert Document.from_text("By Sam Webb for MailOnline\n\n" + body[0]).paragraphs == (body[0],)
    run_together = (
        "By . Daily Mail Reporter . PUBLISHED: . 12:32 EST, 24 November 2013 . | . UPDATED: . 12:47 EST, "
        f"24 November 2013 . {body[0]}"
    )
    assert Document.from_text(run_together).paragraphs == (body[0],)
    stamped = f"Last updated at 5:23 PM on 15th October 2011 . {body[1]}"
    assert Document.from_text(stamped).paragraphs == (body[1],)
    # Sentences that begin as the apparatus does are text.
    for sentence in (
        "By the end of the day, the rescue was over.",
        "Updated figures for 2013 show a fall in crime.",
        "UPDATED: 2013 was the best year the firm had.",
        "By Christmas, Tom Barker was walking again.",
    ):
        assert Document.from_text(sentence).paragraphs == (sentence,)
