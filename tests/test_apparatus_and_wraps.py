"""Files as people have them: reference lists left out in every format, hard-wrapped lines
rejoined inside RTF, Word and OpenDocument paragraphs, decks read as their sentences,
equations read as text, a book's front matter left out, an e-mail laid out in tables read, a
newsletter's headlines and footer left out, a LaTeX guide's own markup read as it prints."""

from __future__ import annotations

import pytest
from test_ebook_mail import book_files, chapter, epub_bytes, message_bytes
from test_office import _zip, deck_files, needs_striprtf, odp_files, odt_bytes, shape, slide
from test_word import _with_body

from summarizer.readers import Document
from summarizer.readers.pptx import talk_text

pytest.importorskip("lxml")

INTRO = "Equivalence tests show that an effect is too small to matter, which a test of a difference cannot show."
ENTRY = "Schuirmann, D. J. A comparison of the two one-sided tests procedure. Journal of Pharmacokinetics, 1987."
AFTER = "The appendix says how the data were gathered, and by whom."
# A licence saved with one paragraph per wrapped line, an empty paragraph between its paragraphs.
WRAPPED = [
    "Redistribution and use in source and binary forms, with or without",
    "modification, are permitted provided that the following conditions are",
    "met: redistributions of source code must retain the above copyright notice,",
    "this list of conditions, and the following disclaimer.",
    "",
    "Neither the name of the copyright holder nor the names of its contributors",
    "may be used to endorse or promote products derived from this software",
    "without specific prior written permission of the copyright holder.",
]
REJOINED = (
    "Redistribution and use in source and binary forms, with or without modification, are permitted provided "
    "that the following conditions are met: redistributions of source code must retain the above copyright "
    "notice, this list of conditions, and the following disclaimer.",
    "Neither the name of the copyright holder nor the names of its contributors may be used to endorse or "
    "promote products derived from this software without specific prior written permission of the copyright "
    "holder.",
)


def _word_paragraph(text: str, style: str | None = None) -> str:
    properties = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{properties}<w:r><w:t xml:space='preserve'>{text}</w:t></w:r></w:p>"


def _odt_paragraph(text: str) -> str:
    return f"<text:p>{text}</text:p>"


@pytest.mark.parametrize(
    "source",
    [
        rf"\section{{Introduction}} {INTRO} \section*{{References}} \bibitem{{s}} {ENTRY} \section{{Appendix}} {AFTER}",
        rf"{INTRO}" "\n\n" rf"\bibitem{{s}} {ENTRY}" "\n\n" rf"\section{{Appendix}} {AFTER}",
        rf"{INTRO} \begin{{CSLReferences}}{{1}}{{0}} \bibitem[\citeproctext]{{ref-s}} {ENTRY} \end{{CSLReferences}} "
        rf"\section{{Appendix}} {AFTER}",
    ],
    ids=["references-section", "bibitems-typed-in-the-body", "pandoc-csl-references"],
)
def test_a_latex_document_s_hand_typed_reference_list_is_no_running_text(source):
    document = rf"\documentclass{{article}}\begin{{document}}{source}\end{{document}}"
    assert Document.from_text(document, "latex").paragraphs == (INTRO, AFTER)


def test_a_references_section_of_a_word_document_is_no_running_text():
    body = "".join(
        [
            _word_paragraph("Introduction", "Heading1"),
            _word_paragraph(INTRO),
            _word_paragraph("References", "Heading1"),
            _word_paragraph(ENTRY),
            _word_paragraph("Appendix", "Heading1"),
            _word_paragraph(AFTER),
        ]
    )
    assert Document.from_text(_with_body(body), "docx").paragraphs == (INTRO, AFTER)
    # a "References" line no style marks as a heading opens the list all the same; a title does not
    unstyled = _word_paragraph(INTRO) + _word_paragraph("Bibliography") + _word_paragraph(ENTRY)
    assert Document.from_text(_with_body(unstyled), "docx").paragraphs == (INTRO,)
    titled = _word_paragraph("References", "Heading1") + _word_paragraph(INTRO)
    assert Document.from_text(_with_body(titled), "docx").paragraphs == (INTRO,)


def test_a_references_section_of_an_odt_is_no_running_text():
    body = (
        f'<text:h text:outline-level="1">Introduction</text:h>{_odt_paragraph(INTRO)}'
        f'<text:h text:outline-level="1">2. Works Cited</text:h>{_odt_paragraph(ENTRY)}'
        f'<text:h text:outline-level="1">Appendix</text:h>{_odt_paragraph(AFTER)}'
    )
    assert Document.from_text(odt_bytes(body), "odt").paragraphs == (INTRO, AFTER)


def test_a_references_section_of_a_web_page_or_a_book_is_no_running_text():
    page = (
        f"<html><body><article><h1>Equivalence</h1><p>{INTRO}</p><h2>References</h2><ol><li>{ENTRY}</li></ol>"
        f"<h2>Appendix</h2><p>{AFTER}</p><div role='doc-bibliography'><p>{ENTRY}</p></div></article></body></html>"
    )
    assert Document.from_text(page, "html").paragraphs == (INTRO, AFTER)
    # a page whose title is "References" (a language's references) is read
    titled = f"<html><body><article><h1>References</h1><p>{INTRO}</p><p>{AFTER}</p></article></body></html>"
    assert Document.from_text(titled, "html").paragraphs == (INTRO, AFTER)
    files = book_files()
    files["OEBPS/text/chapter 2.xhtml"] = chapter("Bibliography", ENTRY, ENTRY.replace("1987", "1988"))
    assert not any("Schuirmann" in p for p in Document.from_text(epub_bytes(files), "epub").paragraphs)


def test_hard_wrapped_lines_set_as_paragraphs_are_rejoined_in_word_odt_and_rtf():
    word = "".join(_word_paragraph(line) for line in WRAPPED)
    assert Document.from_text(_with_body(word), "docx").paragraphs == REJOINED
    odt = "".join(_odt_paragraph(line) for line in WRAPPED)
    assert Document.from_text(odt_bytes(odt), "odt").paragraphs == REJOINED


@needs_striprtf
def test_hard_wrapped_lines_set_as_rtf_paragraphs_are_rejoined():
    rtf = "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times;}}" + "".join(f"\\pard {line}\\par\n" for line in WRAPPED) + "}"
    assert Document.from_text(rtf.encode(), "rtf").paragraphs == REJOINED
    # paragraphs that are no wrapped lines stay as they are
    whole = "{\\rtf1\\ansi " + f"\\pard {INTRO}\\par\\pard {AFTER}\\par" + "}"
    assert Document.from_text(whole.encode(), "rtf").paragraphs == (INTRO, AFTER)


def test_a_deck_reads_as_its_notes_and_whole_sentences_not_its_bullet_fragments():
    bullets = shape(
        "Need to provide a spring-board to development.",
        "Better defined bite sized projects.",
        "Newcomers who find a first task in their first week stay twice as long as the others.",
        placeholder='idx="1"',
    )
    files = {**deck_files(), "ppt/slides/slide2.xml": slide(bullets)}
    read = Document.from_text(_zip(files), "pptx").paragraphs
    assert "Newcomers who find a first task in their first week stay twice as long as the others." in read
    assert "Prices rose because storage was low after a cold autumn." in read  # the notes
    assert not any(p.startswith(("Need to", "Better defined")) for p in read)
    # a deck of fragments alone still reads as them
    fragments = slide(shape("Need to provide a spring-board.", "Better defined projects.", placeholder='idx="1"'))
    only = {**deck_files(), "ppt/slides/slide1.xml": fragments, "ppt/slides/slide2.xml": fragments}
    del only["ppt/notesSlides/notesSlide1.xml"]
    assert "Better defined projects." in Document.from_text(_zip(only), "pptx").paragraphs


def test_an_agenda_shown_again_and_notes_copied_onto_a_build_s_slides_are_read_once():
    # A talk's agenda slide, shown again before each section; the same notes on each step of a build.
    agenda = ["What is Cassandra?", "Who is using it?"]
    notes = "Each write goes to every replica that owns the row."
    slides = [
        (agenda, []),
        (["It is a database that scales across data centres."], [notes]),
        (agenda, [notes]),
        (agenda, [notes, "Reads ask one replica."]),
    ]
    assert talk_text(slides) == ["It is a database that scales across data centres.", notes, "Reads ask one replica."]
    # text on two slides is no furniture, and is read once
    assert talk_text(slides[:3]) == [*agenda, "It is a database that scales across data centres.", notes]
    # a build's steps, each slide a copy of the one before with one more point: every point read once
    first, second, third = "We cache every read.", "We shard the writes.", "We replicate each shard."
    build = [([first], []), ([first, second], []), ([first, second, third], [])]
    assert talk_text(build) == [first, second, third]
    # a deck whose only text is furniture still reads as it
    assert talk_text([(agenda, []), ([], []), (agenda, []), (agenda, [])]) == agenda * 3


def test_an_odp_s_bullet_fragments_give_way_to_its_sentences():
    fragments = (
        '<draw:page draw:name="Goals" draw:style-name="dp1"><draw:frame presentation:class="outline">'
        "<draw:text-box><text:p>Better defined bite sized projects.</text:p></draw:text-box></draw:frame></draw:page>"
    )
    files = odp_files()
    content = str(files["content.xml"]).replace("</office:presentation>", fragments + "</office:presentation>")
    read = Document.from_text(_zip({**files, "content.xml": content}), "odp").paragraphs
    assert "Better defined bite sized projects." not in read and "Welcome everyone to the briefing." in read


OMML = (
    '<w:p><w:r><w:t xml:space="preserve">The energy is </w:t></w:r><m:oMath><m:r><m:t>E=m</m:t></m:r>'
    "<m:sSup><m:e><m:r><m:t>c</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup></m:oMath>"
    '<w:r><w:t xml:space="preserve">, and half of it is </w:t></w:r><m:oMath><m:f><m:num><m:r><m:t>E</m:t>'
    "</m:r></m:num><m:den><m:r><m:t>2</m:t></m:r></m:den></m:f></m:oMath><w:r><w:t>.</w:t></w:r></w:p>"
)
MATHML = (
    '<math:math xmlns:math="http://www.w3.org/1998/Math/MathML"><math:semantics><math:mrow><math:mi>E</math:mi>'
    "<math:mo>=</math:mo><math:mi>m</math:mi><math:msup><math:mi>c</math:mi><math:mn>2</math:mn></math:msup>"
    '</math:mrow><math:annotation encoding="StarMath 5.0">E = m c^2</math:annotation></math:semantics></math:math>'
)


def test_word_and_odt_equations_read_as_their_text():
    word = _with_body(
        OMML.replace("<w:p>", '<w:p xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">')
    )
    assert Document.from_text(word, "docx").paragraphs == ("The energy is E = mc^2, and half of it is E/2.",)
    link = 'xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="./Object 1"'
    frame = f'<draw:frame draw:name="Object1"><draw:object {link}/></draw:frame>'
    body = f"<text:p>The energy is {frame}, as Einstein found.</text:p>"
    odt = odt_bytes(body, **{"Object 1/content.xml": f'<?xml version="1.0"?>{MATHML}'})
    assert Document.from_text(odt, "odt").paragraphs == ("The energy is E = mc^2, as Einstein found.",)


def test_a_book_s_title_page_copyright_page_and_contents_are_left_out():
    files = book_files()
    package = files["OEBPS/content.opf"].replace(
        b'<item id="c1"',
        b'<item id="tp" href="text/titlepage.xhtml" media-type="application/xhtml+xml"/>'
        b'<item id="cr" href="text/front2.xhtml" media-type="application/xhtml+xml"/>'
        b'<item id="ty" href="text/front3.xhtml" media-type="application/xhtml+xml"/><item id="c1"',
    )
    files["OEBPS/content.opf"] = package.replace(
        b'<itemref idref="c1"/>',
        b'<itemref idref="tp"/><itemref idref="cr"/><itemref idref="ty"/><itemref idref="c1"/>',
    )
    files["OEBPS/text/titlepage.xhtml"] = chapter("The Keeper", "A novel by Ann Example, first published in 2001.")
    files["OEBPS/text/front2.xhtml"] = chapter("Rights", "Copyright 2001 Ann Example. All rights reserved.")
    files["OEBPS/text/front3.xhtml"] = chapter("Contents", "Chapter One is where it begins.").replace(
        b"<section>", b'<section epub:type="toc">'
    )
    read = Document.from_text(epub_bytes(files), "epub").paragraphs
    assert read[0].startswith("The lighthouse keeper") and len(read) == 4


def test_an_html_only_e_mail_laid_out_in_tables_is_read():
    from email.message import EmailMessage

    sentences = (
        "Our spring sale starts on Monday and runs for two weeks.",
        "Orders placed before noon leave our warehouse the same day.",
        "The new garden range arrives in stores this week.",
        "Members get early access to the sale from Saturday.",
    )
    html = (
        f"<html><body><table><tr><td><img src='logo.png'></td></tr><tr><td><p>{sentences[0]}</p>"
        f"<p>{sentences[1]}</p></td></tr><tr><td><table><tr><td>{sentences[2]}</td><td>{sentences[3]}</td>"
        "</tr></table></td></tr></table></body></html>"
    )
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "shop@example.org", "sam@example.org", "Spring"
    message.set_content(html, subtype="html")
    assert Document.from_text(message.as_bytes(), "email").paragraphs == sentences


def test_tex_logos_read_as_their_words_and_index_entries_are_no_text():
    source = r"\def\LaTeX{\La\kern-.15em\TeX} Prepare it with \LaTeX, run \BibTeX\ first\index{BibTeX}, see \latex."
    assert Document.from_text(source, "latex").paragraphs == ("Prepare it with LaTeX, run BibTeX first, see LaTeX.",)


def test_a_newsletter_s_headlines_links_and_footer_are_not_its_text():
    body = (
        "Upcoming Webinar: So, You Have A Disaster... Now What?\n"
        "View this email in your browser (https://example.org/view)\n\n"
        "Register Today for This Free Essential Webinar!\n\n"
        "NOW WHAT?\n\n"
        "As continuity professionals, we wait for a disaster. So, You Have a Disaster... Now What? "
        "(https://example.org/register) will take into account the hours you spent on planning.\n\n"
        "https://example.org/register/1883657325335219970The webinar walks you through a real disaster that "
        "closed a large business for nine days.\n\n"
        "Click here\n\nhttps://example.org/register\n\n"
        "Attendees will learn how the company's campus recovered and what it would now do otherwise.\n\n"
        f"{'=' * 60}\nCopyright 2018 CIMC, All rights reserved.\n"
        "You are receiving this email as a subscriber to the Continuity Newsletter.\n"
        "Want to change how you receive these emails?\n"
    )
    assert Document.from_text(message_bytes(body), "email").paragraphs == (
        "As continuity professionals, we wait for a disaster. So, You Have a Disaster... Now What? will take into "
        "account the hours you spent on planning.",
        "The webinar walks you through a real disaster that closed a large business for nine days.",
        "Attendees will learn how the company's campus recovered and what it would now do otherwise.",
    )


def test_a_long_last_part_after_a_rule_and_sentences_with_names_are_an_e_mail_s_text():
    sentences = [f"Point {n} of the minutes says what the board decided about the budget." for n in range(25)]
    body = "The minutes of Monday's meeting follow.\n\n" + "-" * 40 + "\n\n" + "\n\n".join(sentences)
    assert len(Document.from_text(message_bytes(body), "email").paragraphs) == 26
    named = "The US Federal Reserve Bank of New York said on Monday."
    assert Document.from_text(message_bytes(named), "email").paragraphs == (named,)
    digest = f"Fed Holds Rates Steady Again\n\n{named}\n\n{sentences[0]}"  # beside one headline
    assert Document.from_text(message_bytes(digest), "email").paragraphs == (named, sentences[0])


def test_an_advertisement_s_list_of_features_and_its_last_line_s_opt_out_are_no_text():
    features = (
        "With 120+ Aircraft to Master, From the 1903 Wright Flyer to the Latest Military Fighter Jets.",
        "20,000+ Real Airports With changeable Weather and NASA Flight Models.",
        "Realistic Worldwide Terrain Based On US Defense Mapping Agency + Lifetime FREE updates/upgrades.",
        "Used On Television Episodes & Professional Flight Schools - The Most Realistic Flight Sim To Date...",
    )
    prose = "Meet up online with other pilots to fly in formation, put on an air show or just have fun."
    opt_out = "If you do not want to receive any further mail click here."
    body = "\n\n".join([*features, prose, opt_out])
    assert Document.from_text(message_bytes(body), "email").paragraphs == (prose,)
    # Only at the message's end is such a line its footer.
    body = "\n\n".join([opt_out.replace("click here", "tell us"), prose, prose, prose])
    assert len(Document.from_text(message_bytes(body), "email").paragraphs) == 4


def test_a_latex_guide_s_own_verbatim_title_running_heads_keywords_and_biographies_are_no_text():
    source = (
        r"\documentclass{article}\begin{document}"
        r"\markboth{Journal of \LaTeX\ Class Files, Vol.~14, No.~8}{Shell}"
        r"\title[Guide to \texttt{cje}]{Guide to the class file (v. 1.06, 2018)}\authors{A. One and A. Two.}"
        "This guide says how to prepare a paper with the class.\n\n"
        r"\begin{smallverbatim}"
        "\n"
        r"\title[Short title]{A long title (v. 1.06, 2018)}"
        "\n"
        r"\end{smallverbatim}"
        "\n\n"
        r"\begin{IEEEkeywords}Computer Society, IEEE, journal, paper.\end{IEEEkeywords}"
        r"\begin{keyword}Elsevier, template, class.\end{keyword}"
        r"Using the standard \cmd\mbox\marg{text} gives normal text, as \cs{textrm} or \meta{name} does."
        r"\begin{IEEEbiography}{Michael Shell} Biography text here.\end{IEEEbiography}"
        r"\end{document}"
    )
    assert Document.from_text(source, "latex").paragraphs == (
        "This guide says how to prepare a paper with the class.",
        r"Using the standard \mbox{text} gives normal text, as \textrm or ⟨name⟩ does.",
    )


def test_a_latex_sentence_with_a_word_its_class_prints_and_the_source_does_not_define_is_left_out():
    source = (
        r"\newcommand{\app}{{\small\optionlogo}}"
        r"This paper describes the AGU package, with an extension called \app{}. "
        r"The extension adds citations. Version \revtex~4.2 requires it. "
        r"It is {\em only} one way, {\bf really}, and \sloppy\relax it works."
    )
    assert Document.from_text(source, "latex").paragraphs == (
        "The extension adds citations. It is only one way, really, and it works.",
    )


def test_an_html_newsletter_s_copyright_block_is_its_footer():
    from email.message import EmailMessage

    kept = "The new route opens on Monday and cuts the journey to the airport by twenty minutes."
    html = (
        f"<html><body><div><p>{kept}</p></div><div><p>Example.ru is the leading network for finding staff.</p>"
        "<p>Don't want these notices? You can <a href='https://example.org/x'>turn them off</a>.</p>"
        "<p>© 2008-2017, Example.ru, All rights reserved</p></div></body></html>"
    )
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "news@example.org", "sam@example.org", "Route"
    message.set_content(html, subtype="html")
    assert Document.from_text(message.as_bytes(), "email").paragraphs == (kept,)
