"""OpenDocument text (`summarizer.readers.opendocument`), RTF (`summarizer.readers.rtf`) and PowerPoint
(`summarizer.readers.pptx`): files built here as their programs write them, read for their
running text."""

from __future__ import annotations

import importlib.util
import io
import sys
import zipfile

import pytest
from test_documents import assert_one_line
from test_ebook_mail import _damaged

from summarizer.errors import InputError
from summarizer.readers import Document, format_of, read_document

pytest.importorskip("lxml")
needs_striprtf = pytest.mark.skipif(not importlib.util.find_spec("striprtf"), reason="needs striprtf (formats extra)")


def _zip(files: dict[str, str | bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_office_files_are_read_by_extension():
    assert [format_of(name) for name in ("Report.ODT", "flat.fodt", "memo.rtf", "talk.pptx")] == [
        "odt",
        "odt",
        "rtf",
        "pptx",
    ]


# OpenDocument text ---------------------------------------------------------------------------

ODF = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.3"'
)
STYLES = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles {ODF}><office:styles>
  <style:style style:name="Standard" style:family="paragraph" style:class="text"/>
  <style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard"/>
  <style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph"
    style:parent-style-name="Heading" style:default-outline-level="2"/>
  <style:style style:name="Text_20_body" style:display-name="Text body" style:family="paragraph"/>
  <style:style style:name="Quotations" style:family="paragraph" style:parent-style-name="Text_20_body"/>
  <style:style style:name="Title" style:family="paragraph" style:parent-style-name="Heading"/>
  <style:style style:name="Caption" style:family="paragraph" style:parent-style-name="Standard"/>
  <style:style style:name="Figure" style:family="paragraph" style:parent-style-name="Caption"/>
  <style:style style:name="Lead" style:family="paragraph" style:parent-style-name="Heading_20_2"/>
  <style:style style:name="Chapter" style:family="paragraph" style:default-outline-level="1"/>
</office:styles></office:document-styles>"""
# What LibreOffice writes for a report: a title, headings, a paragraph whose automatic style
# inherits a heading's, a caption, lists, a table, a text box, a footnote, a comment, tracked
# changes, a table of contents and an index.
BODY = """
  <text:tracked-changes><text:changed-region text:id="ct1"><text:deletion><office:change-info>
    <dc:creator>A</dc:creator></office:change-info><text:p>Deleted on Monday.</text:p></text:deletion>
    </text:changed-region>
    <text:changed-region text:id="ct2"><text:insertion><office:change-info><dc:creator>A</dc:creator>
    </office:change-info></text:insertion></text:changed-region></text:tracked-changes>
  <text:sequence-decls><text:sequence-decl text:display-outline-level="0" text:name="Figure"/></text:sequence-decls>
  <text:p text:style-name="Title">The Quarterly Report is out.</text:p>
  <text:table-of-content text:name="Contents"><text:index-body>
    <text:p text:style-name="Contents_20_1">Summary of the quarter.</text:p>
  </text:index-body></text:table-of-content>
  <text:h text:style-name="Heading_20_2" text:outline-level="2">What changed this quarter?</text:h>
  <text:p text:style-name="P1">A lead paragraph styled as a heading is not read.</text:p>
  <text:p text:style-name="Chapter">A style with an outline level is a heading's.</text:p>
  <text:p text:style-name="Text_20_body">Revenue grew by 12% in the <text:span>third</text:span> quarter,<text:s
    text:c="3"/>driven by <text:a xlink:href="http://example.org" xmlns:xlink="http://www.w3.org/1999/xlink">strong
    demand</text:a> in Europe.<text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1
    </text:note-citation><text:note-body><text:p>A footnote sentence is not read.</text:p></text:note-body>
    </text:note><text:line-break/>Costs
    stayed flat,<text:tab/>so the mar\u00adgin widened.<office:annotation><dc:creator>R</dc:creator><text:p>A comment
    sentence is not read.</text:p></office:annotation></text:p>
  <text:list text:style-name="L1"><text:list-item><text:p>New contracts were signed in Germany.</text:p>
    <text:list><text:list-item><text:p>A nested item is read too.</text:p></text:list-item></text:list>
    </text:list-item><text:list-item><text:p>A label with no sentence end</text:p></text:list-item></text:list>
  <table:table table:name="T1"><table:table-row><table:table-cell><text:p>A table cell sentence.</text:p>
    </table:table-cell></table:table-row></table:table>
  <text:p text:style-name="TableCaption">Table 1: an undefined caption style, as pandoc writes it.</text:p>
  <text:p text:style-name="Figure">Figure <text:sequence text:name="Figure">1</text:sequence>: revenue by
    region.</text:p>
  <text:section text:name="S1"><text:p text:style-name="Quotations">The meeting is on <text:change
    text:change-id="ct1"/><text:change-start text:change-id="ct2"/>Tuesday<text:change-end text:change-id="ct2"/> at
    noon.<draw:frame draw:name="Box"><draw:text-box><text:p>A text box sentence.</text:p></draw:text-box>
    </draw:frame></text:p>
  </text:section>
  <text:alphabetical-index text:name="Index"><text:index-body><text:p>An index entry sentence.</text:p>
  </text:index-body></text:alphabetical-index>
"""


def odt_files(body: str = BODY, **parts: str | bytes) -> dict[str, str | bytes]:
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODF}><office:automatic-styles>'
        '<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Lead"/>'
        f"</office:automatic-styles><office:body><office:text>{body}</office:text></office:body>"
        "</office:document-content>"
    )
    files = {
        "mimetype": "application/vnd.oasis.opendocument.text",
        "content.xml": content,
        "styles.xml": STYLES,
        "META-INF/manifest.xml": MANIFEST.format(encryption=""),
    }
    return {**files, **parts}


def odt_bytes(body: str = BODY, **parts: str | bytes) -> bytes:
    return _zip(odt_files(body, **parts))


MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{encryption}</manifest:file-entry>
</manifest:manifest>"""
ENCRYPTION = (
    '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x">'
    '<manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="x"/>'
    "</manifest:encryption-data>"
)
ODT_PARAGRAPHS = (
    "Revenue grew by 12% in the third quarter, driven by strong demand in Europe. Costs stayed flat, so the "
    "margin widened.",
    "New contracts were signed in Germany.",
    "A nested item is read too.",
    "The meeting is on Tuesday at noon.",
)


def test_an_opendocument_text_reads_as_its_body_s_running_text():
    assert Document.from_text(odt_bytes(), "odt").paragraphs == ODT_PARAGRAPHS


def test_an_odt_s_list_items_are_its_entries():
    # "New contracts were signed in Germany." and "A nested item is read too." are list items
    assert Document.from_text(odt_bytes(), "odt").entries == frozenset({1, 2})


def test_a_list_item_s_bold_term_run_into_its_sentence_is_set_apart():
    styles = (
        '<style:style style:name="T9" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>'
        '<style:style style:name="T2" style:family="text"><style:text-properties fo:font-style="italic"/></style:style>'
    )
    items = [
        '<text:span text:style-name="T9">Very Fast </text:span>This algorithm produces rough output.',
        '<text:span text:style-name="T9">Adaptive</text:span> It mixes two of the others.',
        '<text:span text:style-name="T9">Ordered</text:span>: a fixed pattern is used.',  # a mark: as it is
        '<text:span text:style-name="T9">Bold</text:span>face type is heavier.',  # one word
        '<text:span text:style-name="T9">Hybrid</text:span> blends them.',  # no capital after it
        '<text:span text:style-name="T2">Fast</text:span> Nothing bold here.',
        '<text:span text:style-name="T9">Tabbed<text:tab/></text:span>Here the sentence starts.',
    ]
    body = "".join(f"<text:list><text:list-item><text:p>{item}</text:p></text:list-item></text:list>" for item in items)
    body += '<text:p><text:span text:style-name="T9">Outside</text:span> A list, not changed.</text:p>'
    files = odt_files(body)
    fo = 'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
    files["content.xml"] = (
        str(files["content.xml"])
        .replace("</office:automatic-styles>", styles + "</office:automatic-styles>")
        .replace('office:version="1.3"', fo + 'office:version="1.3"')
    )
    assert Document.from_text(_zip(files), "odt").paragraphs == (
        "Very Fast. This algorithm produces rough output.",
        "Adaptive. It mixes two of the others.",
        "Ordered: a fixed pattern is used.",
        "Boldface type is heavier.",
        "Hybrid blends them.",
        "Fast Nothing bold here.",
        "Tabbed. Here the sentence starts.",
        "Outside A list, not changed.",
    )


def test_hidden_text_in_an_odt_is_left_out():
    styles = (
        '<style:style style:name="T1" style:family="text"><style:text-properties text:display="none"/></style:style>'
        '<style:style style:name="P9" style:family="paragraph"><style:text-properties text:display="none"/>'
        "</style:style>"
    )
    body = (
        '<text:p>Hidden <text:span text:style-name="T1">secret words </text:span>are gone.'
        '<text:hidden-text text:condition="x" text:string-value="A field." text:is-hidden="true">A field.'
        "</text:hidden-text></text:p>"
        '<text:p text:style-name="P9">A hidden paragraph.</text:p>'
        '<text:p><text:hidden-paragraph text:condition="x" text:is-hidden="true"/>Another hidden one.</text:p>'
    )
    files = odt_files(body)
    files["content.xml"] = str(files["content.xml"]).replace(
        "</office:automatic-styles>", styles + "</office:automatic-styles>"
    )
    assert Document.from_text(_zip(files), "odt").paragraphs == ("Hidden are gone.",)


def test_a_flat_opendocument_text_reads_as_the_packaged_one():
    styles = STYLES.split("<office:styles>")[1].split("</office:styles>")[0]
    flat = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document {ODF} '
        'office:mimetype="application/vnd.oasis.opendocument.text">'
        f"<office:styles>{styles}</office:styles><office:automatic-styles>"
        '<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Lead"/>'
        f"</office:automatic-styles><office:body><office:text>{BODY}</office:text></office:body></office:document>"
    )
    assert Document.from_text(flat.encode(), "odt").paragraphs == ODT_PARAGRAPHS


def test_an_odt_without_styles_reads_its_paragraphs_and_leaves_out_headings():
    body = '<text:h>Results</text:h><text:p text:style-name="Standard">The results are in.</text:p>'
    files = odt_files(body)
    del files["styles.xml"]
    assert Document.from_text(_zip(files), "odt").paragraphs == ("The results are in.",)


PRESENTATION_CONTENT = (
    f'<?xml version="1.0"?><office:document-content {ODF}><office:body><office:presentation/></office:body>'
    "</office:document-content>"
)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"plain text, not a document", "not an OpenDocument text document (not a ZIP archive)"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "an old binary document (such as Word's .doc), not .odt"),
        (_zip({"word/document.xml": b"<w:document/>"}), "not an OpenDocument text document (no content.xml in"),
        (odt_bytes(**{"content.xml": "<office:document-content"}), "not a readable OpenDocument text document: "),
        (
            odt_bytes(**{"META-INF/manifest.xml": MANIFEST.format(encryption=ENCRYPTION)}),
            "an encrypted (password-protected) OpenDocument text document: remove its password first",
        ),
        (
            odt_bytes(**{"content.xml": PRESENTATION_CONTENT}),
            "not an OpenDocument text document (its body is a presentation)",
        ),
        (b'<?xml version="1.0"?><html/>', "not an OpenDocument text document (an XML file, but no flat"),
    ],
    ids=["text", "doc", "docx-like", "damaged-xml", "encrypted", "presentation", "other-xml"],
)
def test_bad_odt_files_are_one_line_naming_the_file(tmp_path, data, message):
    assert_one_line(tmp_path / "report.odt", data, message)


@pytest.mark.parametrize(
    ("format", "kind"),
    [
        ("odt", "an OpenDocument text document"),
        ("pptx", "a PowerPoint presentation"),
        ("odp", "an OpenDocument presentation"),
    ],
)
def test_odt_and_pptx_without_the_formats_extra_are_one_line_naming_it(monkeypatch, format, kind):
    monkeypatch.setitem(sys.modules, "lxml", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "lxml.etree", None)
    with pytest.raises(InputError, match=rf"^x.{format}: reading {kind} needs lxml: pip install 'bertsum\[formats\]'$"):
        read_document(b"PK\x03\x04", format, f"x.{format}")


def test_office_documents_given_as_text_are_refused():
    for format, kind in (
        ("odt", "an OpenDocument text"),
        ("rtf", "an RTF"),
        ("pptx", "a PowerPoint"),
        ("odp", "an OpenDocument"),
    ):
        with pytest.raises(InputError, match=f"{kind} .* is read from its bytes"):
            Document.from_text("{\\rtf1 text}", format)


# RTF ----------------------------------------------------------------------------------------

# As Word writes a memo: a style sheet (a heading, a style based on it, a caption), the
# information group, a header and footer, a footnote, a hyperlink field, a picture with binary
# data, a list item, a table, tracked changes, a comment and a text box.
MEMO_RTF = r"""{\rtf1\ansi\ansicpg1252\deff0\nouicompat\deflang1033{\fonttbl{\f0\fnil\fcharset0 Calibri;}
{\f1\fnil\fcharset2 Symbol;}}{\colortbl ;\red0\green0\blue255;}
{\stylesheet{\ql \li0\ri0\widctlpar\wrapdefault\faauto\rin0\lin0\itap0 \snext0 Normal;}
{\s1\ql \li0\ri0\sb240\keepn\widctlpar\outlinelevel0\rin0\lin0\itap0 \b\fs32 \sbasedon0 \snext0 \slink15 heading 1;}
{\s2\ql \li0\ri0\widctlpar \sbasedon1 \snext0 Memo Heading;}{\s3\ql \i\fs18 \sbasedon0 \snext0 caption;}
{\s4\qc \b\fs56 \sbasedon0 \snext0 Title;}
{\*\cs15 \additive \b\fs32 \sbasedon10 Heading 1 Char;}}
{\*\generator Riched20 10.0.19041}{\info{\title A title sentence is not read.}{\author Alex Smith}}
\viewkind4\uc1
{\header \pard\plain \ql A header sentence is not read.\par}{\footer \pard\plain \ql A footer sentence is not read.\par}
\pard\plain \s1\ql\outlinelevel0 \b\fs32 Where do we stand?\par
\pard\plain \s4\qc The Memo Is Here.\par
\pard\plain \s2\ql The memo heading is not read either.\par
\pard\plain \ql \f0\fs22 The caf\'e9 on Main Street re\-opens on Monday\emdash the owners say the na\u239\'efve
 \ldblquote smart\rdblquote  plan worked.{\super\chftn}{\footnote\pard\plain {\super\chftn} A footnote sentence
 is not read.\par}
 It took three months.\line Visit {\field{\*\fldinst{HYPERLINK "https://example.org/cafe"}}{\fldrslt{\ul\cf1 our
 website}}} for details.\par
{\pict\pngblip\picw10\pich10\bin8 }}{{\par}
{\listtext\pard\plain \f1 \'b7\tab}\pard\plain \fi-360\li720\ql The staff were trained in the spring.\par
{\pard \ql \li360 \fi-360 \bullet \tx360\tab Pandoc writes a bullet as text.\par}
\trowd\trgaph108\cellx4000\cellx8000\pard\plain \intbl\ql A table cell sentence.\cell
\pard\plain \intbl Another one.\par
\pard\plain \intbl A second paragraph in a cell.\cell\row
\pard\plain \ql The meeting is on {\deleted\revauthdel1 Monday}{\revised\revauth1 Tuesday} at noon.{\*\atnid R}
{\*\annotation\pard\plain A comment sentence is not read.\par}\par
\pard\plain \ql A label with no sentence end\par
{\shp{\*\shpinst{\sp{\sn shapeType}{\sv 202}}{\shptxt\pard\plain A text box sentence.\par}}}
\pard\plain \s3\ql Figure 1: a caption sentence.\par
\pard\plain \ql Prices rose by a third.\sect Demand fell.\page The end is near.\par
}"""
MEMO_PARAGRAPHS = (
    "The café on Main Street reopens on Monday—the owners say the naïve “smart” plan worked. It took three "
    "months. Visit our website for details.",
    "The staff were trained in the spring.",
    "Pandoc writes a bullet as text.",
    "The meeting is on Tuesday at noon.",
    "Prices rose by a third.",
    "Demand fell.",
    "The end is near.",
)


@needs_striprtf
def test_an_rtf_document_reads_as_its_body_s_running_text():
    assert Document.from_text(MEMO_RTF.encode(), "rtf").paragraphs == MEMO_PARAGRAPHS


@needs_striprtf
def test_rtf_bytes_read_by_their_code_page_unicode_escapes_and_raw_bytes():
    cyrillic = (
        rb"{\rtf1\ansi\ansicpg1251{\fonttbl{\f0\fcharset204 Arial;}}\f0 \'cf\'f0\'e8\'e2\'e5\'f2 \'ec\'e8\'f0.\par}"
    )
    assert Document.from_text(cyrillic, "rtf").paragraphs == ("Привет мир.",)
    unicode = rb"{\rtf1\ansi\uc1 Caf\u233? na\u239? \u8212? \u8220?quoted\u8221? and \u-10179?\u-8704?.\par}"
    assert Document.from_text(unicode, "rtf").paragraphs == ("Café naï — “quoted” and \U0001f600.",)
    raw = b"{\\rtf1\\ansi\\ansicpg1252 The caf\xe9 said \x93yes\x94.\\par}"  # 8-bit bytes, as some writers leave them
    assert Document.from_text(raw, "rtf").paragraphs == ("The café said “yes”.",)
    # A Mac's code page, as TextEdit and GNUstep's readme files name it, or as `\mac` implies it.
    mac = rb"{\rtf1\ansi\ansicpg10000\cocoartf102 User time is spent on a user\'d5s programs.\par}"
    assert Document.from_text(mac, "rtf").paragraphs == ("User time is spent on a user’s programs.",)
    assert Document.from_text(rb"{\rtf1\mac Caf\'8e au lait.\par}", "rtf").paragraphs == ("Café au lait.",)


@needs_striprtf
def test_a_centred_rtf_paragraph_in_a_title_s_font_size_is_a_title():
    # As TextEdit saves a readme: no styles, the title centred and larger than the text.
    readme = (
        rb"{\rtf1\mac\ansicpg10000\cocoartf100{\fonttbl\f0\fswiss\fcharset77 Helvetica;}"
        b"\n\\pard\\qc\n\n\\f0\\fs36 \\cf0 README for Fortunate v3.0, a front-end to BSD fortune.\\\n"
        b"\\pard\\ql\\qnatural\n\n\\fs24 \\cf0 Fortunate shows a fortune each time a user logs in.\\\n"
        b"\\qc A centred line in the text's size is text.\\\n"
        b"\\ql\\fs40 A large line that is not centred is text as well.\\\n}"
    )
    assert rtf_read(readme) == (
        "Fortunate shows a fortune each time a user logs in.",
        "A centred line in the text's size is text.",
        "A large line that is not centred is text as well.",
    )


def rtf_read(data: bytes) -> tuple[str, ...]:
    return read_document(data, "rtf", "memo.rtf").paragraphs


@needs_striprtf
def test_an_rtf_group_or_binary_data_left_out_still_ends_the_control_word_before_it():
    bookmark = rb"{\rtf1\ansi First paragraph.\par{\*\bkmkstart a}Second paragraph here.\par}"
    assert rtf_read(bookmark) == ("First paragraph.", "Second paragraph here.")
    assert rtf_read(rb"{\rtf1\ansi \b{\*\bkmkstart a}Bold sentence here.\par}") == ("Bold sentence here.",)
    assert rtf_read(rb"{\rtf1\ansi First paragraph.\par\bin3 {}}Kept text.\par}") == ("First paragraph.", "Kept text.")
    inside_a_word = rb"{\rtf1\ansi The Sec{\*\bkmkstart a}ond word stays whole.\par}"
    assert rtf_read(inside_a_word) == ("The Second word stays whole.",)


@needs_striprtf
def test_rtf_table_and_heading_paragraphs_last_until_pard_or_the_end_of_their_group():
    table = (
        rb"{\rtf1\ansi\trowd\cellx4000\cellx8000\pard\plain\intbl First cell paragraph.\par Middle cell paragraph is "
        rb"here.\par Last.\cell Two.\cell\row\pard Body sentence.\par}"
    )
    assert rtf_read(table) == ("Body sentence.",)
    styles = rb"{\rtf1\ansi{\stylesheet{\s0 Normal;}{\s1 heading 1;}}"
    headings = styles + rb"\pard\s1 Heading one.\par Heading two.\par\pard Body sentence.\par}"
    assert rtf_read(headings) == ("Body sentence.",)
    levels = rb"{\rtf1\ansi\pard\outlinelevel0 Heading one.\par Heading two.\par\pard Body sentence.\par}"
    assert rtf_read(levels) == ("Body sentence.",)
    grouped = rb"{\rtf1\ansi{\pard\intbl A cell sentence.\par}The body sentence.\par}"  # the group's end ends it
    assert rtf_read(grouped) == ("The body sentence.",)


@needs_striprtf
def test_escaped_backslashes_and_braces_in_rtf_are_text():
    pict = rb"{\rtf1\ansi The \\pict group and \\bin data are explained here.\par Second sentence.\par}"
    assert rtf_read(pict) == ("The \\pict group and \\bin data are explained here.", "Second sentence.")
    binary = rb"{\rtf1\ansi A \\pict has \\bin5 bytes of data.\par}"
    assert rtf_read(binary) == ("A \\pict has \\bin5 bytes of data.",)
    braces = rb"{\rtf1\ansi{\fonttbl{\f0\fcharset0 Arial;}}\f0 A set \{a, b\} and a path C:\\pict\\bin.\par}"
    assert rtf_read(braces) == ("A set {a, b} and a path C:\\pict\\bin.",)


@needs_striprtf
def test_hidden_rtf_text_is_left_out():
    assert rtf_read(rb"{\rtf1\ansi The shown {\v hidden words }text is read.\par}") == ("The shown text is read.",)
    libreoffice = rb"{\rtf1\ansi The shown {\loch\cs15\loch\v\loch secret words }text is read.\par}"
    assert rtf_read(libreoffice) == ("The shown text is read.",)
    ended = rb"{\rtf1\ansi The shown \v hidden \v0 text is read.\par \v Hidden.\par\plain Also read.\par}"
    assert rtf_read(ended) == ("The shown text is read.", "Also read.")


@needs_striprtf
def test_an_unended_rtf_font_table_entry_is_read_at_once_and_keeps_the_character_sets():
    cyrillic = rb"\f1 \'cf\'f0\'e8\'e2\'e5\'f2 \'ec\'e8\'f0.\par}"
    unended = rb"{\rtf1\ansi{\fonttbl{\f0\fcharset0 Arial}{\f1\fcharset204 Arial Cyr;}}" + cyrillic  # \f0: no ";"
    assert rtf_read(unended) == ("Привет мир.",)
    long_name = rb"{\rtf1\ansi{\fonttbl{\f1\fcharset204 Arial;}{\f0\fcharset0 " + b"x" * 200_000 + b"}}" + cyrillic
    assert rtf_read(long_name) == ("Привет мир.",)  # striprtf's scan of it was quadratic: minutes


@needs_striprtf
def test_a_destination_mark_not_opening_its_rtf_group_leaves_out_the_rest_of_the_group():
    link = rb'Visit {\field{ \*\fldinst{HYPERLINK "https://example.org"}}{\fldrslt{our website}}} today.\par'
    assert rtf_read(rb"{\rtf1\ansi " + link + b"}") == ("Visit our website today.",)
    many = b"{\\field{ \\*\\fldinst{x}}}" * 20_000  # striprtf's scan of them for a link was quadratic
    assert rtf_read(rb"{\rtf1\ansi " + many + rb"The body sentence.\par}") == ("The body sentence.",)


@needs_striprtf
def test_an_out_of_range_rtf_unicode_escape_is_a_replacement_character():
    assert rtf_read(rb"{\rtf1\ansi\uc1 The sign \u99999999? and \u233?t\u233?.\par}") == ("The sign \ufffd and été.",)


@needs_striprtf
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"plain text, not RTF", "not an RTF document (it does not start with {\\rtf)"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "an old binary Word document (.doc), not RTF"),
        (rb"{\rtf1\ansi\uc x}", "not a readable RTF document: "),
    ],
    ids=["text", "doc", "damaged"],
)
def test_bad_rtf_files_are_one_line_naming_the_file(tmp_path, data, message):
    assert_one_line(tmp_path / "memo.rtf", data, message)


def test_rtf_without_the_formats_extra_is_one_line_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "striprtf", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "striprtf.striprtf", None)
    with pytest.raises(
        InputError, match=r"^memo.rtf: reading an RTF document needs striprtf: pip install 'bertsum\[formats\]'$"
    ):
        read_document(MEMO_RTF.encode(), "rtf", "memo.rtf")


# PowerPoint ---------------------------------------------------------------------------------

PML = (
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
)
RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def shape(*paragraphs: str, placeholder: str | None = None, hidden: bool = False, box: bool = False) -> str:
    """A shape (`p:sp`) with text: each paragraph's runs split at "|", a line break at "^"."""
    ph = "" if placeholder is None else f"<p:ph {placeholder}/>"
    text = ""
    for paragraph in paragraphs:
        lines = [
            "".join(f"<a:r><a:rPr/><a:t>{run}</a:t></a:r>" for run in line.split("|")) for line in paragraph.split("^")
        ]
        text += f"<a:p>{'<a:br/>'.join(lines)}</a:p>"
    name = '<p:cNvPr id="2" name="Shape" hidden="1"/>' if hidden else '<p:cNvPr id="2" name="Shape"/>'
    kind = '<p:cNvSpPr txBox="1"/>' if box else "<p:cNvSpPr/>"
    return (
        f"<p:sp><p:nvSpPr>{name}{kind}<p:nvPr>{ph}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>"
        f"<a:lstStyle/>{text}</p:txBody></p:sp>"
    )


def slide(*shapes: str, root: str = "p:sld", show: str = "") -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><{root} {PML}{show}><p:cSld><p:spTree>'
        '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
        f"{''.join(shapes)}</p:spTree></p:cSld></{root}>"
    )


TABLE = (
    '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Table"/><p:cNvGraphicFramePr/><p:nvPr/>'
    '</p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table">'
    "<a:tbl><a:tr><a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>A table cell sentence.</a:t></a:r></a:p></a:txBody>"
    "</a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>"
)


def rels(*targets: tuple[str, str, str]) -> str:
    items = "".join(
        f'<Relationship Id="{i}" Type="{RELATIONSHIPS}/{t}" Target="{target}"/>' for i, t, target in targets
    )
    return f'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{items}</Relationships>'


def deck_files() -> dict[str, str | bytes]:
    """A deck of three slides, as PowerPoint writes one: slide2.xml shows first (the slide list's
    order, not the file names'), slide1.xml second, slide3.xml is hidden."""
    first = slide(
        shape("Prices rose by a third.", placeholder='type="title"'),
        shape("Gas prices rose by a third over the |winter.^Storage fell.", "Storage levels", placeholder='idx="1"'),
        shape("A text box sentence is read.", box=True),
        '<p:grpSp><p:nvGrpSpPr><p:cNvPr id="5" name="Group"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
        + shape("A grouped shape's sentence is read.")
        + "</p:grpSp>",
        TABLE,
        '<mc:AlternateContent><mc:Choice Requires="p14">'
        + shape("An alternative shape is read once.")
        + "</mc:Choice><mc:Fallback>"
        + shape("An alternative shape is read once.")
        + "</mc:Fallback></mc:AlternateContent>",
        shape("A hidden shape's sentence.", hidden=True),
        shape("Slide 3.", placeholder='type="sldNum" idx="12"'),
        shape("1 March 2026.", placeholder='type="dt" idx="10"'),
        shape("A footer sentence.", placeholder='type="ftr" idx="11"'),
    )
    notes = slide(
        shape("", placeholder='type="sldImg"'),
        shape(
            "Prices rose because storage was low after a cold autumn.",
            "We expect them to fall.",
            placeholder='type="body" idx="1"',
        ),
        shape("3.", placeholder='type="sldNum" idx="5"'),
        shape("A text box on the notes page is not read.", box=True),
        root="p:notes",
    )
    second = slide(
        shape("The Energy Outlook is here.", placeholder='type="ctrTitle"'),
        shape("A subtitle sentence.", placeholder='type="subTitle" idx="1"'),
        shape("Demand will slow as factories cut output."),
    )
    hidden = slide(shape("A hidden slide's sentence."), show=' show="0"')
    presentation = (
        f'<?xml version="1.0"?><p:presentation {PML}><p:sldIdLst><p:sldId id="256" r:id="rId3"/>'
        '<p:sldId id="257" r:id="rId2"/><p:sldId id="258" r:id="rId4"/></p:sldIdLst></p:presentation>'
    )
    return {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
        "ppt/presentation.xml": presentation,
        "ppt/_rels/presentation.xml.rels": rels(
            ("rId1", "slideMaster", "slideMasters/slideMaster1.xml"),
            ("rId2", "slide", "slides/slide1.xml"),
            ("rId3", "slide", "/ppt/slides/slide2.xml"),
            ("rId4", "slide", "slides/slide3.xml"),
        ),
        "ppt/slides/slide1.xml": second,
        "ppt/slides/slide2.xml": first,
        "ppt/slides/slide3.xml": hidden,
        "ppt/slides/_rels/slide2.xml.rels": rels(
            ("rId1", "slideLayout", "../slideLayouts/slideLayout2.xml"),
            ("rId2", "notesSlide", "../notesSlides/notesSlide1.xml"),
        ),
        "ppt/slides/_rels/slide3.xml.rels": rels(("rId2", "notesSlide", "../notesSlides/notesSlide2.xml")),
        "ppt/notesSlides/notesSlide1.xml": notes,
        "ppt/notesSlides/notesSlide2.xml": slide(
            shape("Notes of a hidden slide.", placeholder='type="body"'), root="p:notes"
        ),
    }


def pptx_bytes(**parts: str | bytes) -> bytes:
    return _zip({**deck_files(), **parts})


def test_a_presentation_reads_as_its_slides_text_each_followed_by_its_notes():
    assert Document.from_text(pptx_bytes(), "pptx").paragraphs == (
        "Gas prices rose by a third over the winter. Storage fell.",
        "A text box sentence is read.",
        "A grouped shape's sentence is read.",
        "An alternative shape is read once.",
        "Prices rose because storage was low after a cold autumn.",  # the first slide's notes
        "We expect them to fall.",
        "Demand will slow as factories cut output.",
    )  # no titles, subtitles, bullets without a sentence, tables, hidden shapes or slides, footers


def test_a_raised_note_mark_on_a_slide_is_no_text():
    mark = (
        '<a:p><a:r><a:rPr/><a:t>We saw prices fall.</a:t></a:r><a:r><a:rPr baseline="30000"/><a:t>1</a:t></a:r></a:p>'
    )
    lowered = '<a:p><a:r><a:rPr baseline="-25000"/><a:t>H</a:t></a:r><a:r><a:rPr/><a:t>O is water.</a:t></a:r></a:p>'
    body = shape("x", placeholder='idx="1"').replace("<a:p><a:r><a:rPr/><a:t>x</a:t></a:r></a:p>", mark + lowered)
    files = {**deck_files(), "ppt/slides/slide2.xml": slide(body)}
    assert Document.from_text(_zip(files), "pptx").paragraphs[:2] == ("We saw prices fall.", "HO is water.")


def test_a_slide_of_the_notes_raised_marks_refer_to_is_no_running_text():
    marked = '<a:p><a:r><a:t>We saw prices fall.</a:t></a:r><a:r><a:rPr baseline="30000"/><a:t>1,2</a:t></a:r></a:p>'
    body = shape("x", placeholder='idx="1"').replace("<a:p><a:r><a:rPr/><a:t>x</a:t></a:r></a:p>", marked)
    notes = shape("1. The figures are from the grid operator.", "2. The forecast is the bank’s.", placeholder='idx="1"')
    files = {
        **deck_files(),
        "ppt/slides/slide2.xml": slide(body),
        "ppt/slides/slide1.xml": slide(shape("Notes", placeholder='type="title"'), notes),  # as pandoc sets them
    }
    read = Document.from_text(_zip(files), "pptx").paragraphs
    assert read[0] == "We saw prices fall." and not any("figures" in paragraph for paragraph in read)
    # the same list before the last slide, or a slide of numbers that are no notes, is text
    steps = slide(shape("1. We cleaned the data by hand.", "2. We fitted the model to it.", placeholder='idx="1"'))
    files["ppt/slides/slide2.xml"] = steps
    files["ppt/slides/slide1.xml"] = slide(body)
    assert Document.from_text(_zip(files), "pptx").paragraphs[:2] == (
        "1. We cleaned the data by hand.",
        "2. We fitted the model to it.",
    )
    files["ppt/slides/slide2.xml"] = slide(body.replace(">1,2<", ">3<"))
    files["ppt/slides/slide1.xml"] = slide(shape("3 of every 4 customers have renewed.", placeholder='idx="1"'))
    assert Document.from_text(_zip(files), "pptx").paragraphs[-1] == "3 of every 4 customers have renewed."
    # a numbered list no raised mark refers to is the slide's text
    files["ppt/slides/slide2.xml"] = slide(shape("We saw prices fall.", placeholder='idx="1"'))
    files["ppt/slides/slide1.xml"] = slide(shape("Notes", placeholder='type="title"'), notes)
    assert Document.from_text(_zip(files), "pptx").paragraphs[-2:] == (
        "1. The figures are from the grid operator.",
        "2. The forecast is the bank’s.",
    )


def test_a_deck_of_bullets_reads_as_its_notes_or_has_no_running_text():
    bullets = slide(shape("Prices", "Storage levels", "Outlook for 2027", placeholder='idx="1"'))
    files = {**deck_files(), "ppt/slides/slide1.xml": bullets, "ppt/slides/slide2.xml": bullets}
    assert Document.from_text(_zip(files), "pptx").paragraphs == (
        "Prices rose because storage was low after a cold autumn.",
        "We expect them to fall.",
    )
    del files["ppt/notesSlides/notesSlide1.xml"]  # the slide's relationship names a part that is not there
    assert Document.from_text(_zip(files), "pptx").paragraphs == ()


ENCRYPTED_OOXML = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64 + "EncryptedPackage".encode("utf-16-le")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"plain text, not a presentation", "not a PowerPoint presentation (not a ZIP archive)"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "an old binary PowerPoint presentation (.ppt), not .pptx"),
        (ENCRYPTED_OOXML, "an encrypted (password-protected) PowerPoint presentation: remove its password first"),
        (_zip({"word/document.xml": b"<w:document/>"}), "not a PowerPoint presentation (no ppt/presentation.xml in"),
        (
            pptx_bytes(**{"ppt/slides/slide2.xml": "<p:sld"}),
            "not a readable PowerPoint presentation: ppt/slides/slide2",
        ),
    ],
    ids=["text", "ppt", "encrypted", "docx-like", "damaged-xml"],
)
def test_bad_pptx_files_are_one_line_naming_the_file(tmp_path, data, message):
    assert_one_line(tmp_path / "talk.pptx", data, message)


@pytest.mark.parametrize(
    ("name", "files", "part", "kind", "bound"),
    [
        ("report.odt", odt_files, "content.xml", "OpenDocument text document", 2_000),
        ("talk.pptx", deck_files, "ppt/slides/slide1.xml", "PowerPoint presentation", 5_000),
    ],
    ids=["odt", "pptx"],
)
def test_a_damaged_or_too_large_archive_is_one_line(tmp_path, monkeypatch, name, files, part, kind, bound):
    deflated = _zip(files(), zipfile.ZIP_DEFLATED)
    assert_one_line(tmp_path / name, _damaged(deflated, part), f"a damaged {kind}: ")
    monkeypatch.setattr("summarizer.readers.package.MAX_TEXT_BYTES", bound)  # the parts read add up past it
    assert_one_line(tmp_path / name, deflated, f"unpacks to more than {bound / 1e6:g} MB of text")


# OpenDocument presentations ---------------------------------------------------------------

PRESENTATION_NS = (
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"'
)


def frame(*paragraphs: str, kind: str | None = None) -> str:
    """A frame as Impress writes one: a placeholder of `kind` (title, outline, notes...), or a text box."""
    shown = f' presentation:class="{kind}"' if kind else ""
    body = "".join(f"<text:p>{paragraph}</text:p>" for paragraph in paragraphs)
    return f'<draw:frame draw:name="Shape"{shown}><draw:text-box>{body}</draw:text-box></draw:frame>'


# What Impress writes for a talk: a title slide, slides with titles, outlines, a text box, a
# shape and a group, a table, a hidden slide, a hidden shape, speaker notes with a page number,
# a sentence with a raised note mark, and a last slide of the note it refers to.
SLIDES = f"""
  <draw:page draw:name="Title" draw:style-name="dp1">
    {frame("Energy Outlook for the year.", kind="title")}{frame("A briefing for the board.", kind="subtitle")}
    <presentation:notes>{frame("Welcome everyone to the briefing.", kind="notes")}</presentation:notes>
  </draw:page>
  <draw:page draw:name="Prices" draw:style-name="dp1">
    {frame("Prices", kind="title")}
    <draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item>
      <text:p>Gas prices rose by a third over the winter.</text:p></text:list-item><text:list-item>
      <text:p>Storage low</text:p></text:list-item></text:list></draw:text-box></draw:frame>
    <draw:custom-shape><text:p>A shape's sentence is read too.</text:p></draw:custom-shape>
    <draw:g>{frame("A grouped box's sentence is read.")}</draw:g>
    <draw:frame draw:display="none"><draw:text-box><text:p>A hidden shape's sentence.</text:p></draw:text-box>
    </draw:frame>
    <draw:frame><table:table><table:table-row><table:table-cell><text:p>A table cell sentence.</text:p>
      </table:table-cell></table:table-row></table:table></draw:frame>
    {frame("<text:page-number>2</text:page-number>", kind="page-number")}{frame("Company confidential.", kind="footer")}
    <presentation:notes><draw:page-thumbnail presentation:class="page"/>
      {frame("Prices rose because storage was low.<text:span text:style-name='T1'>1</text:span> We expect a fall.")}
      {frame("Prices rose because storage was low after a cold autumn.", kind="notes")}
      {frame("<text:page-number>2</text:page-number>", kind="page-number")}</presentation:notes>
  </draw:page>
  <draw:page draw:name="Backup" draw:style-name="dp2">{frame("A hidden slide's sentence.")}</draw:page>
  <draw:page draw:name="Outlook" draw:style-name="dp1">
    {frame("Demand will slow as factories cut output.<text:span text:style-name='T1'>2</text:span>")}
    <draw:frame><draw:text-box><text:p text:style-name="P9">A paragraph its style hides.</text:p></draw:text-box>
    </draw:frame>
  </draw:page>
  <draw:page draw:name="Notes" draw:style-name="dp1">
    {frame("Notes", kind="title")}{frame("2. The central bank's forecast, in March.", kind="outline")}
  </draw:page>
"""
SLIDE_STYLES = """<office:automatic-styles>
  <style:style style:name="dp1" style:family="drawing-page"><style:drawing-page-properties/></style:style>
  <style:style style:name="dp2" style:family="drawing-page">
    <style:drawing-page-properties presentation:visibility="hidden"/></style:style>
  <style:style style:name="T1" style:family="text"><style:text-properties style:text-position="33% 58%"/></style:style>
  <style:style style:name="P9" style:family="paragraph"><style:text-properties text:display="none"/></style:style>
</office:automatic-styles>"""


def odp_files(slides: str = SLIDES) -> dict[str, str | bytes]:
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODF} {PRESENTATION_NS}>{SLIDE_STYLES}'
        f"<office:body><office:presentation>{slides}</office:presentation></office:body></office:document-content>"
    )
    return {
        "mimetype": "application/vnd.oasis.opendocument.presentation",
        "content.xml": content,
        "styles.xml": STYLES,
        "META-INF/manifest.xml": MANIFEST.format(encryption=""),
    }


ODP_PARAGRAPHS = (
    "Welcome everyone to the briefing.",
    "Gas prices rose by a third over the winter.",
    "A shape's sentence is read too.",
    "A grouped box's sentence is read.",
    "Prices rose because storage was low after a cold autumn.",
    "Demand will slow as factories cut output.",
)


def test_an_opendocument_presentation_reads_as_its_slides_text_each_followed_by_its_notes(tmp_path):
    assert format_of("talk.odp") == format_of("flat.FODP") == "odp"
    assert Document.from_text(_zip(odp_files()), "odp").paragraphs == ODP_PARAGRAPHS
    # a flat .fodp holds the same content in one XML file
    flat = odp_files()["content.xml"].replace("office:document-content", "office:document")
    assert Document.from_text(flat.encode(), "odp").paragraphs == ODP_PARAGRAPHS


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "an old binary presentation (such as PowerPoint's .ppt)"),
        (odt_bytes(), "not an OpenDocument presentation (its body is a text)"),
        (
            _zip({**odp_files(), "META-INF/manifest.xml": MANIFEST.format(encryption=ENCRYPTION)}),
            "an encrypted (password-protected) OpenDocument presentation: remove its password first",
        ),
        (_zip({**odp_files(), "content.xml": "<office:document-content"}), "not a readable OpenDocument presentation"),
    ],
    ids=["ppt", "odt", "encrypted", "damaged-xml"],
)
def test_bad_odp_files_are_one_line_naming_the_file(tmp_path, data, message):
    assert_one_line(tmp_path / "talk.odp", data, message)
