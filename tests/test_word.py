"""Word documents (.docx): the body's running text (`summarizer.readers.docx`)."""

from __future__ import annotations

import io
import zipfile

import pytest
from test_documents import assert_one_line

from summarizer.errors import InputError
from summarizer.readers import Document, format_of

docx = pytest.importorskip("docx")


def report_bytes() -> bytes:
    """A report as Word writes one: a title, headings, runs, a line break, list items, a table
    and a caption."""
    from docx.enum.text import WD_BREAK

    document = docx.Document()
    document.add_heading("Quarterly Report", 0)
    document.add_paragraph("Prepared by the finance team", style="Subtitle")
    document.add_heading("Summary", 1)
    paragraph = document.add_paragraph("Revenue grew by 12% in the third quarter, driven by ")
    paragraph.add_run("strong demand").bold = True
    paragraph.add_run(" in Europe.")
    paragraph.add_run().add_break(WD_BREAK.LINE)
    paragraph.add_run("Costs stayed flat, so the margin widened.")
    document.add_paragraph("New contracts were signed in Germany and France.", style="List Bullet")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "A table cell is not running text."
    document.add_paragraph("Table 1: Revenue by region.", style="Caption")
    document.add_heading("Outlook", 1)
    document.add_paragraph("Growth will slow in the fourth quarter as energy prices rise.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_style_based_on_a_caption_style_is_no_running_text():
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    figure = document.styles.add_style("Figure", WD_STYLE_TYPE.PARAGRAPH)  # as LibreOffice saves its captions
    figure.base_style = document.styles["Caption"]
    document.styles.add_style("TableCaption", WD_STYLE_TYPE.PARAGRAPH)  # as pandoc names them
    document.add_paragraph("Figure 1: A caption sentence.", style="Figure")
    document.add_paragraph("A table caption sentence.", style="TableCaption")
    document.add_paragraph("The body sentence is read.")
    out = io.BytesIO()
    document.save(out)
    assert Document.from_text(out.getvalue(), "docx").paragraphs == ("The body sentence is read.",)


def test_docx_is_read_by_extension():
    assert format_of("Report.DOCX") == "docx"


def test_a_word_document_reads_as_its_body_s_running_text():
    assert Document.from_text(report_bytes(), "docx").paragraphs == (
        "Revenue grew by 12% in the third quarter, driven by strong demand in Europe. "
        "Costs stayed flat, so the margin widened.",
        "New contracts were signed in Germany and France.",
        "Growth will slow in the fourth quarter as energy prices rise.",
    )


def test_text_a_tracked_change_deleted_is_left_out_and_inserted_text_is_read():
    document = docx.Document()
    paragraph = document.add_paragraph("The meeting is on ")
    run = paragraph.add_run("Monday")
    paragraph.add_run(" at noon.")
    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    deleted = run._r.makeelement(f"{w}del", {f"{w}id": "1", f"{w}author": "A"})
    run._r.addprevious(deleted)
    deleted.append(run._r)
    run._r.find(f"{w}t").tag = f"{w}delText"
    inserted_run = paragraph.add_run("Tuesday")._r
    inserted = inserted_run.makeelement(f"{w}ins", {f"{w}id": "2", f"{w}author": "A"})
    deleted.addnext(inserted)
    inserted.append(inserted_run)
    out = io.BytesIO()
    document.save(out)
    assert Document.from_text(out.getvalue(), "docx").paragraphs == ("The meeting is on Tuesday at noon.",)


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"plain text, not a document", "not a Word .docx document (not a ZIP archive)"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "an old binary Word document (.doc), not .docx"),
        (_zip({"content.xml": b"<office/>"}), "no word/document.xml in the archive"),
        (_zip({"word/document.xml": b"<not-closed"}), "not a readable Word document: "),
        (
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64 + "EncryptedPackage".encode("utf-16-le"),
            "an encrypted (password-protected) Word .docx document: remove its password first",
        ),
    ],
    ids=["text", "doc", "odt-like", "damaged", "encrypted"],
)
def test_bad_word_files_are_one_line_naming_the_file(tmp_path, data, message):
    assert_one_line(tmp_path / "letter.docx", data, message)


def test_a_docx_given_as_text_is_refused():
    with pytest.raises(InputError, match="a Word document is read from its bytes"):
        Document.from_text("text", "docx")


def test_bulleted_and_numbered_paragraphs_are_a_list_s_entries_and_a_phrase_of_one_is_chosen_last(tmp_path):
    """By its own numbering or its style's ("List Bullet"); numbering taken away (`w:numId` 0) is
    none. A version history's phrases, read as entries, give way to the document's sentences."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    from summarizer.selection import SelectionConfig, select_sentences

    document = docx.Document()
    document.add_paragraph("PreviSat is free software to track satellites on a world map.")
    document.add_paragraph("Multi-satellite management (calculation algorithms, display).", style="List Bullet")
    document.add_paragraph("New algorithm for Iridium flares and personal TLE files.", style="List Number")
    own = document.add_paragraph("Predictions of Iridium flares (personal algorithm).")
    unnumbered = document.add_paragraph("The first tab updates the files that PreviSat uses.", style="List Bullet")
    for paragraph, number in ((own, "1"), (unnumbered, "0")):
        numbering = OxmlElement("w:numPr")
        for tag, value in (("w:ilvl", "0"), ("w:numId", number)):
            element = OxmlElement(tag)
            element.set(qn("w:val"), value)
            numbering.append(element)
        paragraph._p.get_or_add_pPr().append(numbering)
    out = io.BytesIO()
    document.save(out)
    read = Document.from_text(out.getvalue(), "docx")
    assert read.entries == frozenset({1, 2, 3})
    sentences = list(read.paragraphs)
    chosen = select_sentences(
        sentences, range(5), [0.5, 0.9, 0.8, 0.7, 0.4], SelectionConfig(k=2), entries=read.entries
    )
    assert chosen == [0, 4]


def test_a_word_document_s_pictures_do_not_count_against_the_input_limit_its_text_does(tmp_path):
    """A manual of screenshots over the limit is read (its file mapped, its pictures never read);
    one whose text passes the limit, and a file of another kind named .docx, are refused."""
    from summarizer.readers import TooLarge, read_file

    document = docx.Document()
    document.add_paragraph("The manual explains how the tool measures distances between clouds.")
    for number in range(100):
        document.add_paragraph(f"Step {number} of the guide is read as the others are.")
    out = io.BytesIO()
    document.save(out)
    pictures = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as source, zipfile.ZipFile(pictures, "w") as archive:
        for item in source.infolist():
            archive.writestr(item, source.read(item.filename))
        archive.writestr("word/media/image1.png", bytes(range(256)) * 8_000)  # 2 MB, stored
    (tmp_path / "manual.docx").write_bytes(pictures.getvalue())
    assert (tmp_path / "manual.docx").stat().st_size > 2_000_000
    read = read_file(tmp_path / "manual.docx", limit=1_000_000).paragraphs
    assert read[0] == "The manual explains how the tool measures distances between clouds." and len(read) == 101
    with pytest.raises(TooLarge, match=r"manual.docx: its text is larger than the input limit of 0.004 MB$"):
        read_file(tmp_path / "manual.docx", limit=4_000)
    (tmp_path / "old.docx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 2_000_000)
    with pytest.raises(TooLarge, match=r"old.docx: larger than the input limit of 1 MB$"):
        read_file(tmp_path / "old.docx", limit=1_000_000)
    with pytest.raises(TooLarge, match=r"document: larger than the input limit"):  # standard input is read whole
        read_file(io.BytesIO(pictures.getvalue()), "docx", limit=1_000_000)


def test_a_word_document_over_the_limit_that_is_cut_short_or_lists_too_many_parts_is_one_line(tmp_path, monkeypatch):
    """Read a part at a time from the open file: a file cut short (as one rewritten while it is
    read) and a directory past its bounds are errors of one line, not a crash or unbounded memory."""
    from summarizer.readers import package, read_file

    document = docx.Document()
    document.add_paragraph("The manual explains how the tool measures distances between clouds.")
    out = io.BytesIO()
    document.save(out)
    whole = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as source, zipfile.ZipFile(whole, "w") as archive:
        archive.writestr("word/media/image1.png", bytes(range(256)) * 4_000)  # 1 MB, stored, before the text
        for item in source.infolist():
            archive.writestr(item, source.read(item.filename))
    data = whole.getvalue()
    (tmp_path / "cut.docx").write_bytes(data[: len(data) - 2_000])  # the directory's end lost
    body = zipfile.ZipFile(whole).getinfo("word/document.xml").header_offset
    (tmp_path / "bad.docx").write_bytes(data[:body] + b"XXXX" + data[body + 4 :])  # its local header lost
    for name, message in (
        ("cut.docx", "cut.docx: not a ZIP archive (no end of its directory)"),
        ("bad.docx", "bad.docx: a damaged Word .docx document: no local header for word/document.xml"),
    ):
        with pytest.raises(InputError) as error:
            read_file(tmp_path / name, limit=100_000)
        assert str(error.value) == f"{tmp_path / name}: {message.partition(': ')[2]}"
    (tmp_path / "whole.docx").write_bytes(data)
    assert read_file(tmp_path / "whole.docx", limit=100_000).paragraphs
    monkeypatch.setattr(package, "MAX_PARTS", 5)
    with pytest.raises(InputError, match=r"whole.docx: a ZIP archive of more than 5 parts or a directory past"):
        read_file(tmp_path / "whole.docx", limit=100_000)


def _with_body(xml: str) -> bytes:
    """A .docx whose body is `xml` (python-docx's own package, its document part replaced)."""
    out = io.BytesIO()
    docx.Document().save(out)
    source = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    result = io.BytesIO()
    with zipfile.ZipFile(result, "w") as archive:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                start = data.index(b"<w:body>") + len(b"<w:body>")
                data = data[:start] + xml.encode() + data[start:]
            archive.writestr(item, data)
    return result.getvalue()


def test_text_boxes_and_tables_in_content_controls_are_not_the_body_s_text():
    box = (
        '<w:p><w:r><w:t xml:space="preserve">Body sentence is here. </w:t></w:r><w:r><mc:AlternateContent '
        'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:drawing>'
        "<w:txbxContent><w:p><w:r><w:t>Text box sentence.</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice>"
        "<mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Text box sentence.</w:t></w:r></w:p></w:txbxContent>"
        "</w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>"
    )
    control = (
        "<w:sdt><w:sdtContent><w:p><w:r><w:t>A controlled paragraph is read.</w:t></w:r></w:p>"
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>A table cell sentence.</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
        "</w:sdtContent></w:sdt>"
    )
    assert Document.from_text(_with_body(box + control), "docx").paragraphs == (
        "Body sentence is here.",
        "A controlled paragraph is read.",
    )


def test_a_damaged_body_in_a_whole_package_is_one_line(tmp_path):
    path = tmp_path / "memo.docx"
    path.write_bytes(_with_body("<w:p><w:r><w:t>Unclosed"))
    with pytest.raises(InputError, match=r"^\S*memo\.docx: not a readable Word document: ") as error:
        Document.from_file(path)
    assert "\n" not in str(error.value)


def test_hidden_text_is_left_out_as_word_prints_it():
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    secret = document.styles.add_style("Secret", WD_STYLE_TYPE.CHARACTER)
    secret.font.hidden = True
    notes = document.styles.add_style("Notes", WD_STYLE_TYPE.PARAGRAPH)
    notes.font.hidden = True
    derived = document.styles.add_style("Derived notes", WD_STYLE_TYPE.PARAGRAPH)
    derived.base_style = notes
    first, second = (document.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH) for name in ("Loop A", "Loop B"))
    first.base_style, second.base_style = second, first  # a loop of base styles is read once
    paragraph = document.add_paragraph("The plant opened in May ")
    paragraph.add_run("(check the date with legal) ").font.hidden = True
    paragraph.add_run("[internal note] ", style="Secret")
    paragraph.add_run("and employs forty people.")
    document.add_paragraph("An editor's note the author hid.", style="Notes")
    document.add_paragraph("Another one, in a style based on it.", style="Derived notes")
    shown = document.add_paragraph("A hidden style's paragraph ", style="Notes")
    shown.add_run("can show a run of its own.").font.hidden = False
    document.add_paragraph("It plans to double that by next year.", style="Loop A")
    out = io.BytesIO()
    document.save(out)
    assert Document.from_text(out.getvalue(), "docx").paragraphs == (
        "The plant opened in May and employs forty people.",
        "can show a run of its own.",
        "It plans to double that by next year.",
    )
