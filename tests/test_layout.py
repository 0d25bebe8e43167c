"""Plain text as people write it: hard-wrapped paragraphs come out whole, one-paragraph-per-line
text (the benchmark corpora) splits exactly as it always did."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from summarizer.text import layout
from summarizer.text.layout import paragraphs
from summarizer.text.sentences import paragraph_sentences, reference_sentences, split_sentences

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
PROSE = [
    "The licenses for most software and other practical works are designed to take away your "
    "freedom to share and change the works. By contrast, this license is intended to guarantee "
    "your freedom to share and change all versions of a program, to make sure it remains free "
    "software for all its users.",
    "When we speak of free software, we are referring to freedom, not price. Our licenses are "
    "designed to make sure that you have the freedom to distribute copies of free software, and "
    "that you receive source code or can get it if you want it.",
]


def wrapped(width: int = 72, indent: str = "  ") -> str:
    """A license-like file: a centred title, paragraphs wrapped at `width`, a list."""
    body = "\n\n".join(textwrap.fill(p, width, initial_indent=indent, break_on_hyphens=False) for p in PROSE)
    items = "\n".join(textwrap.fill(f"- {item}", width, subsequent_indent="  ") for item in (
        "Keep the notices intact, including the ones that refer to this license and to the absence of any warranty.",
        "Give all recipients a copy of this license along with the program.",
    ))  # fmt: skip
    return f"                    FREE SOFTWARE LICENSE\n\n                          Preamble\n\n{body}\n\n{items}\n"


@pytest.mark.parametrize("width", [60, 72, 79])
def test_hard_wrapped_paragraphs_are_rejoined(width):
    found = paragraphs(wrapped(width))
    assert found[: len(PROSE)] == PROSE
    assert found[len(PROSE) :] == [  # list items without their bullets, as Markdown reads them
        "Keep the notices intact, including the ones that refer to this license and to the absence of any warranty.",
        "Give all recipients a copy of this license along with the program.",
    ]


def test_titles_of_a_wrapped_document_are_not_sentences():
    sentences = split_sentences(wrapped())
    assert "FREE SOFTWARE LICENSE" not in sentences and "Preamble" not in sentences
    assert sentences[0].startswith("The licenses for most software") and sentences[0].endswith("the works.")
    assert all(re.search(r"[.!?]$", s) for s in sentences), sentences


def test_a_short_line_that_ends_a_sentence_ends_its_paragraph():
    text = textwrap.fill(PROSE[0], 70) + "\nShort last line.\nA new paragraph starts here without a blank line.\n"
    assert paragraphs(text)[-2:] == ["Short last line.", "A new paragraph starts here without a blank line."]


def test_a_heading_that_a_full_line_ran_into_is_not_text():
    # A PDF page or a hard-wrapped file: a paragraph whose last line is full, then a section
    # heading on the next line without a blank line between them.
    text = f"{textwrap.fill(PROSE[0], 60)}\n2 Structure handling\n\n{textwrap.fill(PROSE[1], 60)}\n"
    assert textwrap.fill(PROSE[0], 60).splitlines()[-1].endswith(".")  # the case: a full line ends the paragraph
    assert paragraphs(text) == PROSE
    chapter = f"{textwrap.fill(PROSE[0], 60)}\nChapter 2: Structure Handling\n\n{textwrap.fill(PROSE[1], 60)}\n"
    assert paragraphs(chapter) == PROSE
    # A paragraph's last line that goes on with an open sentence stays, whatever it ends with.
    open_end = PROSE[0][: -len(".")] + " at https://example.org/licenses"
    assert paragraphs(f"{textwrap.fill(open_end, 60)}\n\n{textwrap.fill(PROSE[1], 60)}\n")[0] == open_end


def test_a_heading_in_capitals_ends_its_line_before_a_command_in_lower_case():
    # A manual page read from a PDF: its sections' headings at the margin, then text that starts
    # with the command's name, in lower case; no blank lines, no indentation left.
    description = "find searches the directory tree rooted at each starting-point by evaluating the given expression."
    text = f"NAME\nfind - search for files in a directory hierarchy\nDESCRIPTION\n{textwrap.fill(description, 72)}\n"
    text += f"SEE ALSO\n{textwrap.fill(PROSE[0], 72)}\n"
    assert paragraphs(text) == [description, PROSE[0]]
    # Words in capitals inside a sentence, on a line that a full line ran into (capitals are wide:
    # in a PDF such a line holds fewer characters than the width), go on with it.
    licensed = (
        "The work is licensed under the License and is distributed on an basis as provided\n"
        "AS IS, WITHOUT WARRANTIES OR CONDITIONS\n"
        "of any kind, either express or implied, and you may not use it except as allowed.\n"
    )
    assert paragraphs(f"{licensed}\n{textwrap.fill(PROSE[1], 82)}\n") == [" ".join(licensed.split()), PROSE[1]]
    # A script without case has no capitals: a line of it is no heading.
    assert paragraphs("其中最重要的是\niPhone 上运行的客户端。") == ["其中最重要的是 iPhone 上运行的客户端。"]


def test_a_numbered_section_heading_ends_its_line_before_a_name_in_lower_case():
    # A manual printed to PDF by a browser or an office suite: "3.1. Top-level structure" at the
    # margin, then a section that starts with the library's name, in lower case.
    intro = "libbzip2 is a flexible library for compressing and decompressing data in the bzip2 data format."
    more = "bzip2 is not research work, in the sense that it does not present any new ideas at all."
    text = f"{textwrap.fill(PROSE[0], 72)}\n3.1. Top-level structure\n{textwrap.fill(intro, 72)}\n"
    text += f"4.5 Further Reading\n{textwrap.fill(more, 72)}\n"
    assert paragraphs(text) == [PROSE[0], intro, more]
    # A numbered list item whose first line is full goes on in lower case on the next.
    item = "1. Download the archive from its download page"
    listed = f"{textwrap.fill(PROSE[0], 50)}\n{item}\nand check it with gpg, as the page explains.\n"
    assert paragraphs(listed)[-1] == f"{item} and check it with gpg, as the page explains."
    # A term above its indented definition (MPL-2.0) goes on with it, as before.
    term = '1.8. "License"'
    definition = "means this document, and any of its later versions as the steward publishes them."
    indented = textwrap.fill(definition, 66, initial_indent="    ", subsequent_indent="    ")
    mpl = f"{textwrap.fill(PROSE[0], 70)}\n\n{term}\n{indented}\n\n{textwrap.fill(PROSE[1], 70)}\n"
    assert paragraphs(mpl)[1] == f"{term} {definition}"


def test_labels_of_a_figure_in_a_wrapped_document_are_not_text():
    # A diagram's text in a PDF page: short lines, joined in lower case, that end no sentence.
    labels = "s1\nname value\nptr\nlen 5\ncapacity 5\nindex value\n0 h\n1 e\n"
    text = f"{textwrap.fill(PROSE[0], 80)}\n{labels}{textwrap.fill(PROSE[1], 80)}\n"
    assert paragraphs(text) == PROSE
    # Prose that runs over full lines keeps its last sentence even without a stop.
    open_end = PROSE[1][: -len(".")]
    assert paragraphs(f"{textwrap.fill(PROSE[0], 80)}\n\n{textwrap.fill(open_end, 80)}\n")[1] == open_end


def test_a_synopsis_in_a_wrapped_document_is_not_text():
    # A manual page's synopsis: short lines that end no sentence (an ellipsis in brackets is none).
    synopsis = "grep [OPTION. . .] PATTERNS [FILE. . .]\ngrep [OPTION...] -e PATTERNS ... [FILE...]\n"
    assert paragraphs(f"{textwrap.fill(PROSE[0], 80)}\n{synopsis}{textwrap.fill(PROSE[1], 80)}\n") == PROSE
    # Short lines that read as prose stay, and so do list items and sentences that begin with a
    # short line that is no section heading.
    for kept in (
        "thanks, looks good to me\nbut let's wait for Bob before we merge",
        " 1. Redistributions of source code must retain\n    the above copyright notice, this list of\n    conditions.",
        "Part of the reason is\nthat nobody maintains the old code any more.",
        "Section 3 of this License\napplies to every copy.",
        "2.5 million households were\nwithout power on Tuesday.",
    ):
        text = f"{textwrap.fill(PROSE[0], 80)}\n\n{kept}\n\n{textwrap.fill(PROSE[1], 80)}\n"
        assert paragraphs(text)[1] == " ".join(kept.split()), kept
    # Lines narrower than the page (an indented block) that hold a sentence stay, even where a
    # page's end cut the last one off.
    cut = "Turn on privileged mode. In this mode, the startup files are not read, and the"
    indented = textwrap.fill(cut, 50)
    assert paragraphs(f"{textwrap.fill(PROSE[0], 80)}\n\n{indented}\n\n{textwrap.fill(PROSE[1], 80)}\n") == [
        PROSE[0],
        cut,
        PROSE[1],
    ]


@pytest.mark.parametrize(
    "last",
    [
        "This agrees with earlier work [12]",
        "The effect was strongest in rural areas.3",
        "The data are at https://example.org/data",
        "Let me know when the next version is ready",
        "Great work on this one :-)",
    ],
)
def test_a_last_sentence_without_its_stop_is_not_a_heading(last):
    text = f"{textwrap.fill(PROSE[0], 60)}\n{last}\n\n{textwrap.fill(PROSE[1], 60)}\n"
    assert paragraphs(text) == [f"{PROSE[0]} {last}", PROSE[1]]


def test_hyphenation_at_a_wrap_is_rejoined_but_compounds_keep_their_hyphen():
    text = (
        "Extractive summarization picks the sentences of a document that say the most about it, and the summar-\n"
        "ization it gives is made of the document's own words; a state-of-the-\n"
        "art method is a well-known thing, and every well-\n"
        "known method was once new.\n"
    )
    (paragraph,) = paragraphs(text)
    assert "the summarization it gives" in paragraph
    assert "a state-of-the-art method" in paragraph  # a compound already
    assert "every well-known method" in paragraph  # written with its hyphen elsewhere
    narrow = "In a narrow column of a printed page, a state-of-\nthe-\nart method is described at length.\n" * 3
    assert paragraphs(narrow)[0].startswith("In a narrow column of a printed page, a state-of-the-art method")


def test_a_hyphen_at_a_line_end_of_a_document_that_does_not_hyphenate_words_is_its_own():
    readme = (
        "The guide is a book-length tutorial on shell scripting. It contains many heavily-\n"
        "commented examples, exercises for the reader and a long reference section, and it\n"
        "is free to copy and distribute as long as its license is kept with every copy.\n"
    )
    assert "many heavily-commented examples" in paragraphs(readme)[0]  # an editor does not hyphenate


def test_a_typesetter_s_hyphenation_is_undone_from_the_words_the_document_writes_whole():
    page = (
        "The shell reads its input from a file, from a string supplied as an argu-\n"
        "ment, or from the user's terminal. Each argument is expanded before it is\n"
        "passed on, and the expansion of an argument happens in a fixed order: ex-\n"
        "pansion of braces, then of tildes, then of parameters and of variables, and\n"
        "the result of each is split into words. Use --location to follow redirects.\n"
        "When the option --no-haproxy-protocol is given, or when --loca-\n"
        "tion is given, or when --no-\n"
        "haproxy-protocol is given, the defaults apply to every trans-\n"
        "fer that the tool makes, and the last option wins over the first one it read.\n"
    )
    (paragraph,) = paragraphs(page)
    assert "supplied as an argument, or" in paragraph and "order: expansion of braces" in paragraph
    assert "or when --location is given, or when --no-haproxy-protocol is given" in paragraph
    assert "every transfer that" in paragraph  # not written whole elsewhere: a typeset page hyphenates


def test_a_line_left_open_goes_on_in_lower_case_even_in_a_short_file():
    assert paragraphs("This is a short note that I wrapped\nby hand, as people do.") == [
        "This is a short note that I wrapped by hand, as people do."
    ]


def test_a_long_list_item_wrapped_in_a_short_file_goes_on_in_its_next_line():
    # Too few lines to measure a wrap width; the item's line ends no sentence, the next begins
    # with a name: one item, not a fragment and a sentence without its start.
    text = (
        "* Offer valid from 8 March to 8 April 2017, in all of the shops of\n"
        "Carlance, and not with any other offer.\n\n"
        "- apples\n- pears\nThese are fruit.\n\n"
        "* Read the notes on each of the options below before you start:\nThe first option.\n"
    )
    assert paragraphs(text) == [
        "Offer valid from 8 March to 8 April 2017, in all of the shops of Carlance, and not with any other offer.",
        "apples",
        "pears",
        "These are fruit.",
        "Read the notes on each of the options below before you start:",
        "The first option.",
    ]


def test_indented_code_and_list_items_are_not_joined_to_prose():
    text = (
        textwrap.fill(PROSE[0], 90)
        + "\n\n"
        + (
            "To install the program, run the following command in a terminal window and wait until it\n"
            "finishes:\n"
            "    $ make install\n"
            "Then read the manual, which explains the options one by one and gives examples of each:\n"
            "1. Options come first.\n"
            "2. Files come last.\n"
        )
    )
    found = paragraphs(text)
    assert found[0] == PROSE[0] and found[1].endswith(
        "wait until it finishes:"
    )  # the command is not glued on, nor kept:
    assert not any("make install" in paragraph for paragraph in found)  # in wrapped text it is layout
    assert found[2:] == [
        "Then read the manual, which explains the options one by one and gives examples of each:",
        "1. Options come first.",
        "2. Files come last.",
    ]


def test_a_table_of_contents_is_not_text():
    text = "1 Introduction . . . . . . . . . . . 1\n2 Usage . . . . . . . . . . . . . 4\nThe library parses files.\n"
    assert paragraphs(text) == ["The library parses files."]
    assert paragraphs(f"Appendix {'.' * 5000} 212\nThe library parses files.") == ["The library parses files."]


def test_one_paragraph_per_line_is_left_as_it_was():
    lines = ["A headline without a period", *PROSE, "a list item", "Last words"]
    assert paragraphs("\n".join(lines)) == lines
    assert paragraphs("\n\n".join(lines)) == lines
    bulleted = [*lines[:-2], "- a list item", lines[-1]]
    assert paragraphs("\n".join(bulleted)) == lines  # as Markdown reads a list item: its text, not its bullet


def test_references_keep_one_sentence_per_line_in_lower_case():
    highlights = 'judge says most are there as a result of " avoidable felonies "\nleifman says the system is unjust .'
    assert reference_sentences(highlights) == [
        'judge says most are there as a result of " avoidable felonies "',
        "leifman says the system is unjust .",
    ]
    assert len(split_sentences(highlights)) == 1  # as running text, the open line goes on


def _line_rule(text: str) -> list[str]:
    """The earlier rule: every line break ends a sentence (and a list item's bullet is not text)."""
    lines = [re.sub(r"^[-*+•‣◦▪]\s+(?=\S)", "", line) for line in re.split(r"\s*[\n\r\u2028\u2029]\s*", text.strip())]
    lines = [line for line in lines if line]
    return [sentence for paragraph in paragraph_sentences(lines) for sentence in paragraph]


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("file", "field"),
    [("bbc-news/validation.jsonl", "text"), ("bbc-news/train.jsonl", "text"), ("cnndm/validation.jsonl", "article")],
)
def test_benchmark_documents_split_exactly_as_before(file, field):
    path = SHARED / file
    if not path.exists():
        pytest.skip("../shared/data is absent")
    texts = [json.loads(line)[field] for line in path.open(encoding="utf-8")]
    assert [i for i, text in enumerate(texts) if split_sentences(text) != _line_rule(text)] == []


RST = """\
A guide to masked arrays
========================

Masked arrays hide the values a computation must skip. The division of x by y is then
computed as::

  d1 = x.filled(0) # d1 = array([0., 2., 3., 4.])
  result = (d1/d2).view(MaskedArray)

      result._mask = logical_or(m, dm)

Note that a division by zero takes place here, which the mask then hides from the user.

.. code-block:: python

   import numpy.ma as ma

.. note::

   The mask is kept when the array is sliced.

.. this comment is not text

>>> ma.array([1, 2], mask=[0, 1])
masked_array(data=[1, --])

A third way avoids filling the arrays at all ::

  d1 = x._data

Another section
---------------
* Filling is not needed for *cumsum*.
"""


def test_restructured_text_markup_and_code_are_not_text():
    assert paragraphs(RST) == [
        "Masked arrays hide the values a computation must skip. The division of x by y is then computed as:",
        "Note that a division by zero takes place here, which the mask then hides from the user.",
        "The mask is kept when the array is sliced.",  # an admonition's body is text
        "A third way avoids filling the arrays at all",  # " ::" reads as nothing
        "Filling is not needed for *cumsum*.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the last line of a wrapped paragraph above a rule is not a heading
        (
            "We met on Monday and talked about the\nbudget for next year, which is short.\n" + "=" * 40,
            ["We met on Monday and talked about the budget for next year, which is short."],
        ),
        ("Thanks.\n=======\nBye now.", ["Thanks.", "Bye now."]),  # a sentence, not a heading
        # quoted e-mail is text, not a doctest
        (
            "Hi Bob,\n\n>>> I think we should go.\n>> Agreed.\n> Sure.\n\nSee you.",
            ["Hi Bob,", ">>> I think we should go.", ">> Agreed.", "> Sure.", "See you."],
        ),
        ("Example::\n\n  x = 1\t# comment\n  y = 2\n\nAfter.", ["Example:", "After."]),  # a tab after the code
        (  # quoting deepens downward in e-mail: the block is quoted text too
            "Bob wrote:\n> Alice wrote:\n>> Carol wrote:\n>>> We meet on Monday.\n>>> It works for me.\n\nSure.",
            [
                "Bob wrote:",
                "> Alice wrote:",
                ">> Carol wrote:",
                ">>> We meet on Monday.",
                ">>> It works for me.",
                "Sure.",
            ],
        ),
        (  # an admonition's text goes on in its indented body
            ".. note:: Install it with pip before you run any\n   of the Python scripts that import it.\n\nEnd.",
            ["Install it with pip before you run any of the Python scripts that import it.", "End."],
        ),
        (
            "Run the build with::\n\n    make all\n\nResults\n=======\n\nThe results are good.",
            ["Run the build with:", "The results are good."],
        ),
        (
            ".. note:: The mask is kept.\n\n.. Note::\n\n   Also this.\n\nEnd.",
            ["The mask is kept.", "Also this.", "End."],
        ),
    ],
)
def test_markup_rules_leave_ordinary_text_alone(text, expected):
    assert paragraphs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # Python's email/architecture.rst: roles, the default role and inline literals
            "If the value contains any `surrogateescaped` binary data, return it as a\n"
            ":class:`~email.header.Header` object, using ``unknown-8bit``.",
            "If the value contains any surrogateescaped binary data, return it as a Header object, using unknown-8bit.",
        ),
        (  # hyperlink references, a target's title, a role's name without its link
            "Read `the tutorial <https://docs.python.org/3/tutorial/>`_, `PEP 8`_ and :ref:`the\n"
            "guide <guide>` before you call :func:`!print` or :py:meth:`os.path.join`.",
            "Read the tutorial, PEP 8 and the guide before you call print or os.path.join.",
        ),
        ("It was shown twice [1]_ and once more [#note]_ in [CIT2002]_.", "It was shown twice and once more in."),
        # what is not markup stays: TeX's quotes, backticks inside a word, emphasis, a list's index
        (
            "He said ``it works'' in x`y`z, *twice*, and then list[0]_x [1] `  spaced ` and array[1]_.",
            "He said ``it works'' in x`y`z, *twice*, and then list[0]_x [1] `  spaced ` and array[1]_.",
        ),
        # plain backticks keep a path's "~", an operator's "!" and a type's angle brackets
        (
            "Add it to `~/.bashrc`, prefer `!foo` to `!=`, and return `Vec<T>` from `git revert <FROM>`.",
            "Add it to ~/.bashrc, prefer !foo to !=, and return Vec<T> from git revert <FROM>.",
        ),
        ("Go to `<https://python.org>`_ now.", "Go to https://python.org now."),  # a bare address
    ],
)
def test_restructured_text_inline_markup_reads_as_it_renders(text, expected):
    assert paragraphs(text) == [expected]


def test_chinese_and_japanese_wrapped_at_a_terminal_width_join_without_spaces():
    # 20 characters are 40 columns; the wrap can fall before a full-width full stop
    text = "メソッドのライフタイムは関数に似ています。通常の関数と同様にライフタイムを明示します。" * 3
    wrapped = textwrap.fill(text, 20)
    assert "\n。" in wrapped
    assert paragraphs(f"{wrapped}\n\n見出し\n\n{wrapped}") == [text, text]  # the lone line is a heading
    # a short line is not full: the next character would have fitted, so a heading under it stands alone
    assert paragraphs(f"{wrapped}\n見出しです\n{wrapped}") == [text, text]
    assert split_sentences(wrapped)[:2] == [
        "メソッドのライフタイムは関数に似ています。",
        "通常の関数と同様にライフタイムを明示します。",
    ]


def test_a_footnote_reference_alone_is_no_paragraph_and_a_long_line_of_marks_reads_fast():
    assert paragraphs("Text here.\n\n[1]_\n\nMore text.\n\n[2]_ Its note.") == ["Text here.", "More text.", "Its note."]
    # each read in linear time (a quadratic search for the closing marks took a minute on the first)
    assert paragraphs("``a " * 50000) == ["``a " * 49999 + "``a"]
    assert paragraphs("He said ``it works'' again. " * 7000) == [("He said ``it works'' again. " * 7000).strip()]


def test_a_line_that_ends_in_an_article_or_a_preposition_goes_on():
    # boto3's examples/s3.rst: the sentence's last words begin with a capital
    text = (
        "Downloading a specific version of an S3 object\n"
        "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n"
        "This example shows how to download a specific version of an\nS3 object.\n"
    )
    assert paragraphs(text) == ["This example shows how to download a specific version of an S3 object."]
    # a line that ends otherwise still ends its paragraph before a capital
    assert paragraphs("Dear Ann\nThe meeting moved to Monday.") == ["Dear Ann", "The meeting moved to Monday."]
    assert paragraphs("Dear Ann and\nThe meeting moved to Monday.") == ["Dear Ann and The meeting moved to Monday."]
    # only into a word: not into quoted e-mail, nor into a Debian copyright file's blank-line dot
    assert paragraphs("I will forward this to\n> Alice wrote:\n> Send it.") == [
        "I will forward this to",
        "> Alice wrote:",
        "> Send it.",
    ]
    assert paragraphs("  under this License; or\n  .\n  d) to perform it.") == [
        "under this License; or",
        ".",
        "d) to perform it.",
    ]


def test_a_quoted_block_is_looked_at_once_however_many_of_its_lines_start_with_three_marks(monkeypatch):
    calls = []
    original = layout._is_doctest
    monkeypatch.setattr(layout, "_is_doctest", lambda lines, at: calls.append(at) or original(lines, at))
    text = "> She wrote:\n" + ">>> Fine.\n" * 500 + "\n>>> x = 1\n\nDone."
    assert paragraphs(text) == ["> She wrote:", *[">>> Fine."] * 500, "Done."]
    assert calls == [1, 502]  # the quoted block once, the doctest once


def test_a_rule_under_a_sentence_leaves_the_sentence():
    text = "The meeting ended at noon after a long debate about the budget.\n-----\nVotes follow next week."
    assert paragraphs(text) == [
        "The meeting ended at noon after a long debate about the budget.",
        "Votes follow next week.",
    ]
    assert paragraphs("Some text::\nnot indented, so not a literal block.") == [
        "Some text:",
        "not indented, so not a literal block.",
    ]


def paper(entries: list[str], after: str = "") -> str:
    """A paper's text as a PDF's text layer gives it: a title wider than the column, its
    authors, a body wrapped at 52 columns, a list of references, perhaps more after it (its
    paragraphs apart, as the layout rules cannot tell a typeset paragraph's indent)."""
    body = "\n\n".join(textwrap.fill(paragraph, 52) for paragraph in PROSE * 2)
    title = "Learning to Select Sentences from Long Reports with Limited Compute"
    authors = "Maria Jensen and David Okafor\nDepartment of Computer Science, {mjensen,dokafor}@example.edu"
    references = "\n".join(textwrap.fill(entry, 52) for entry in entries)
    return f"{title}\n{authors}\nAbstract\n{body}\nReferences\n{references}\n{after}"


@pytest.mark.parametrize(
    "entries",
    [
        [
            "[1] Yang Liu and Mirella Lapata. 2019. Text summarization with pretrained encoders. In "
            "Proceedings of EMNLP-IJCNLP, pages 3730-3740.",
            "[2] Rada Mihalcea and Paul Tarau. TextRank: Bringing order into texts. In Proceedings of EMNLP.",
        ],
        [
            "Liu, Y. and Lapata, M. (2019). Text summarization with pretrained encoders. In Proceedings of "
            "EMNLP-IJCNLP, pages 3730-3740.",
            "Mihalcea, R. and Tarau, P. (2004). TextRank: Bringing order into texts. In Proceedings of EMNLP.",
        ],
    ],
)
def test_a_paper_s_title_authors_and_references_are_not_text(entries):
    appendix = "A Training Settings\n" + textwrap.fill(
        "All models were trained with the same optimizer and the same schedule, on the same machine.", 52
    )
    found = paragraphs(paper(entries, after=appendix))
    assert found[:4] == PROSE * 2 and found[4:] == [
        "All models were trained with the same optimizer and the same schedule, on the same machine."
    ]


def test_a_references_heading_drops_only_what_reads_as_entries():
    note = "The list below gives the works that this note draws on."  # no label, no year: text
    text = paper(["[1] Yang Liu and Mirella Lapata. 2019. Text summarization with pretrained encoders.", note])
    assert paragraphs(text)[-1] == note
    per_line = ["References to the law were brief.", "[1] The court ruled in 2019 that the law was void."]
    assert paragraphs("\n".join(per_line)) == per_line  # no heading: a sentence that begins with the word


def test_an_option_s_name_after_a_full_line_that_ends_a_sentence_is_not_text():
    manual = (
        "Makes curl fail when the server answers with an error, so\n"
        "that scripts can tell a failed transfer from one that worked\n"
        "in every case, and it says so on its standard error output.\n"
        "--fail-with-body\n"
        "Fail fast with no output at all on server errors. This is\n"
        "useful to let scripts and users deal with failed attempts.\n"
    )
    assert [paragraph[-13:] for paragraph in paragraphs(manual)] == ["error output.", "led attempts."]


def test_references_numbered_in_brackets_are_not_text_without_a_heading():
    entries = [
        "[1] R. P. Feynman, Phys. Rev. 94, 262 (1954).",
        "[2] N. D. Birell and P. C. W. Davies, Quantum Fields in Curved Space (Cambridge University Press, 1982).",
        "[4] J. G. P. Berman and J. F. M. Izrailev, Physica D 88, 445 (1983).",  # [3] ran into another
    ]
    text = "\n".join([textwrap.fill(PROSE[0], 60), *entries])
    assert paragraphs(text) == [PROSE[0]]
    assert paragraphs("\n".join([textwrap.fill(PROSE[0], 60), *entries[:2]]))[1:] == entries[:2]  # two: a list


def test_a_readme_s_references_section_keeps_its_prose_and_steps():
    readme = [
        "References",
        "The method follows Liu and Lapata (2019), who fine-tune BERT for extractive summarization.",
        "In 2020 we added support for PDF files, using pypdf to read their text layer.",
        "The 2021 release made reading linear in the length of the input.",
        "License:",
        "[1] Download the archive from the release page.",
        "[2] Unpack it into a directory of your choice.",
        "[3] Run the installer and follow its instructions.",
    ]
    assert paragraphs("\n\n".join(readme)) == readme[1:]


def test_code_after_a_sentence_s_colon_stays_and_a_citation_goes_on_with_its_sentence():
    text = (
        textwrap.fill(PROSE[0], 62) + "\n\n"
        "To install the tool somewhere else than its default location,\n"
        "change the install prefix in the file config.mk, for example:\n"
        "PREFIX = /opt/tool\n\n"
        "Extractive summarizers have a long history, and most of the\n"
        "recent ones are neural versions of the older ones, such as\n"
        "[12] BERTSUM and its successors, which mostly change how the\n"
        "sentences of a document are encoded before they are scored.\n"
    )
    *code, prose = text.split("\n\n")
    assert paragraphs("\n\n".join(code))[1].endswith("for example: PREFIX = /opt/tool")
    assert "such as [12] BERTSUM and its successors, which mostly change how the sentences" in paragraphs(prose)[0]


def test_a_line_with_a_sentence_inside_is_no_heading():
    assert not layout.is_heading("Reported by Jacek Wielemborek <d33tah@gmail.com>. Closes: #798324")
    assert layout.is_heading("3.1. Top-level structure") and layout.is_heading("--dump-po-strings")
