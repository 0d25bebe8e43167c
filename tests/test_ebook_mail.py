"""EPUB books (`summarizer.readers.epub`) and e-mail messages (`summarizer.readers.email`)."""

from __future__ import annotations

import io
import zipfile
from email.message import EmailMessage

import pytest
from test_documents import assert_one_line

from summarizer.errors import InputError
from summarizer.readers import Document, format_of

CONTAINER = b"""<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
PACKAGE = b"""<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0">
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="c1" href="text/chapter1.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="nav" linear="no"/><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>"""


def chapter(title: str, *paragraphs: str) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f'<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}'
        f"</title></head><body><section><h1>{title}</h1>{body}</section></body></html>"
    ).encode()


def epub_bytes(files: dict[str, bytes] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
        for name, data in (files or book_files()).items():
            archive.writestr(name, data)
    return out.getvalue()


def book_files() -> dict[str, bytes]:
    first = ("The lighthouse keeper had watched the same stretch of sea for forty years, and he knew "
             "every rock that broke its surface at low tide.",
             "Each morning he climbed the iron stairs, polished the great lens and wrote the weather "
             "into a leather book that no one else ever read.")  # fmt: skip
    second = ("When the storm came in November, the ships that passed the headland were bigger than any "
              "he had seen before.", "He kept the light burning through three nights without sleep.")  # fmt: skip
    return {
        "META-INF/container.xml": CONTAINER,
        "OEBPS/content.opf": PACKAGE,
        "OEBPS/nav.xhtml": chapter("Contents", "Chapter one is about the keeper."),
        "OEBPS/text/chapter1.xhtml": chapter("Chapter One", *first),
        "OEBPS/text/chapter 2.xhtml": chapter("Chapter Two", *second),
    }


def test_ebooks_and_e_mails_are_read_by_extension():
    assert (format_of("novel.epub"), format_of("Re: plans.eml")) == ("epub", "email")


def test_an_epub_book_reads_as_its_chapters_in_reading_order():
    pytest.importorskip("trafilatura")
    paragraphs = Document.from_text(epub_bytes(), "epub").paragraphs
    assert [p[:30] for p in paragraphs] == [
        "The lighthouse keeper had watc",
        "Each morning he climbed the ir",
        "When the storm came in Novembe",
        "He kept the light burning thro",
    ]  # no table of contents, no chapter titles, spine order


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not a zip", "not an EPUB book (not a ZIP archive)"),
        (epub_bytes({"OEBPS/content.opf": PACKAGE}), "no META-INF/container.xml"),
        (epub_bytes({"META-INF/container.xml": b"<container"}), "not a readable EPUB book: "),
        (epub_bytes({"META-INF/container.xml": CONTAINER}), "its container names no package document"),
    ],
    ids=["not-zip", "no-container", "damaged", "no-package"],
)
def test_bad_epub_files_are_one_line_naming_the_file(tmp_path, data, message):
    assert_one_line(tmp_path / "novel.epub", data, message)


REPLY = """Hi Sam,

The quarterly numbers are in, and revenue grew by twelve percent over the summer. The board
meets on Thursday to approve the new budget for the engineering team.

I will send the slides tomorrow morning.

On Tue, 3 Mar 2026 at 10:02, Sam Lee <sam@example.org> wrote:
> Do we have the numbers yet? The board wants them before Thursday.
> Thanks.

--
Alex Smith | Finance
"""


def message_bytes(body: str, html: str | None = None, charset: str = "utf-8") -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "alex@example.org", "sam@example.org", "Re: numbers"
    message.set_content(body, charset=charset)
    if html is not None:
        message.add_alternative(html, subtype="html")
    message.add_attachment(b"%PDF-1.4 attachment text.", maintype="application", subtype="pdf", filename="a.pdf")
    return message.as_bytes()


def test_an_e_mail_reads_as_what_its_sender_wrote():
    assert Document.from_text(message_bytes(REPLY), "email").paragraphs == (
        "The quarterly numbers are in, and revenue grew by twelve percent over the summer. The board "
        "meets on Thursday to approve the new budget for the engineering team.",
        "I will send the slides tomorrow morning.",
    )  # no headers, quoted text, attribution line, signature or attachment; no greeting (it ends no sentence)


def test_an_e_mail_s_body_is_decoded_by_its_charset_and_an_html_only_one_read_as_a_page():
    latin = Document.from_text(message_bytes("Le café ouvre à huit heures.", charset="latin-1"), "email")
    assert latin.paragraphs == ("Le café ouvre à huit heures.",)
    pytest.importorskip("trafilatura")
    message = EmailMessage()
    message["From"], message["Subject"] = "news@example.org", "Weekly"
    message.set_content("<html><body><p>The new library opens on Monday in the old station.</p>"
                        "<ul><li>Reading rooms on two floors.</li><li>A cafe by the platform.</li></ul>"
                        "</body></html>", subtype="html")  # fmt: skip
    document = Document.from_text(message.as_bytes(), "email")
    assert document.paragraphs == (
        "The new library opens on Monday in the old station.",
        "Reading rooms on two floors.",
        "A cafe by the platform.",
    )
    assert document.entries == frozenset({1, 2})  # its list's items, as a page's are


def test_text_that_is_no_e_mail_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "note.eml"
    path.write_bytes(b"\n\njust a line without headers\n")
    with pytest.raises(InputError, match=r"^\S*note\.eml: not an e-mail message \(no headers\)$"):
        Document.from_file(path)


def _damaged(data: bytes, name: str) -> bytes:
    """`data` (a ZIP archive) with one byte of `name`'s compressed data changed."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    info = archive.getinfo(name)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    return data[:start] + bytes([data[start] ^ 0xFF]) + data[start + 1 :]


def test_a_damaged_or_encrypted_epub_is_one_line_and_the_other_files_are_read(tmp_path):
    files = book_files()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    with pytest.raises(InputError, match="a damaged EPUB book: "):
        Document.from_text(_damaged(out.getvalue(), "OEBPS/text/chapter1.xhtml"), "epub")
    encryption = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod '
        b'Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference '
        b'URI="OEBPS/text/chapter1.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>'
    )
    with pytest.raises(InputError, match=r"its chapters are encrypted \(DRM\)"):
        Document.from_text(epub_bytes({**files, "META-INF/encryption.xml": encryption}), "epub")
    fonts = encryption.replace(b"http://www.w3.org/2001/04/xmlenc#aes128-cbc", b"http://www.idpf.org/2008/embedding")
    pytest.importorskip("trafilatura")
    assert len(Document.from_text(epub_bytes({**files, "META-INF/encryption.xml": fonts}), "epub").paragraphs) == 4


def test_an_epub_s_container_that_would_unpack_too_far_is_one_line(monkeypatch):
    monkeypatch.setattr("summarizer.readers.package.MAX_TEXT_BYTES", 1_000)
    container = CONTAINER.replace(b"<rootfiles>", b"<!--" + b" " * 2_000 + b"--><rootfiles>")
    with pytest.raises(InputError, match="META-INF/container.xml unpacks to more than"):
        Document.from_text(epub_bytes({**book_files(), "META-INF/container.xml": container}), "epub")


def test_replies_quoted_as_outlook_and_gmail_write_them_are_not_the_sender_s_text():
    outlook = (
        "Thanks, the figures look right to me and I will present them on Thursday.\n\n"
        "________________________________\nFrom: Sam Lee <sam@example.org>\nSent: Tuesday, 3 March 2026 10:02\n"
        "Subject: numbers\n\nDo we have the numbers yet?\n"
    )
    assert Document.from_text(message_bytes(outlook), "email").paragraphs == (
        "Thanks, the figures look right to me and I will present them on Thursday.",
    )
    pytest.importorskip("trafilatura")
    html = (
        "<html><body><p>The venue is booked for the whole of Friday afternoon.</p>"
        '<div class="gmail_signature">Alex Smith, Finance and Planning Department.</div>'
        '<div class="gmail_quote"><div>On Tue, Sam wrote:</div><blockquote class="gmail_quote">'
        "<p>Can you book the venue for the team meeting?</p></blockquote></div></body></html>"
    )
    message = EmailMessage()
    message["From"], message["Subject"] = "alex@example.org", "Re: venue"
    message.set_content("This message is in HTML format.")  # a stub: the HTML part is the body
    message.add_alternative(html, subtype="html")
    assert Document.from_text(message.as_bytes(), "email").paragraphs == (
        "The venue is booked for the whole of Friday afternoon.",
    )


def test_an_mbox_is_read_as_its_first_message_and_an_unknown_charset_as_utf_8():
    first = message_bytes("The first message of the archive is read.")
    second = message_bytes("The second one is not.")
    mbox = b"From alex@example.org Tue Mar  3 10:02:00 2026\n" + first + b"\n\nFrom sam@example.org Tue\n" + second
    assert Document.from_text(mbox, "email").paragraphs == ("The first message of the archive is read.",)
    unknown = message_bytes("Caf\u00e9 menus change on Monday.").replace(b'charset="utf-8"', b'charset="unknown-8bit"')
    assert Document.from_text(unknown, "email").paragraphs == ("Café menus change on Monday.",)


def test_a_signature_is_a_short_last_block_after_its_dashes():
    body = "The plan is ready.\n--\nSection two starts here and goes on.\n" + "More of section two.\n" * 12
    assert "Section two starts here and goes on." in " ".join(
        Document.from_text(message_bytes(body), "email").paragraphs
    )
