"""Plain text to paragraphs: which line breaks are soft wraps and which end a paragraph.

A blank line always ends a paragraph. Inside a paragraph a line break is a soft wrap when the
next line goes on with a sentence the line left open (it starts in lower case), or when the
document is hard-wrapped and the line is full: the first word of the next line would not have
fitted within the document's wrap width, which is why the line was broken there. A line that is
not full (a title, a heading, the last line of a paragraph, an address line) before one that
starts a sentence, a heading in capitals before a line in lower case (a manual page's
"DESCRIPTION", then its command's name), a numbered section heading that is not full before
one (a manual's "3.1. Top-level structure", then "libbzip2 is..."), a next line that starts a
list item or is indented past the current line's text, and the line breaks of a document that
is not hard-wrapped (one paragraph or sentence per line, as in the benchmark corpora) end the
paragraph, as they always did. A word hyphenated at a soft wrap is rejoined, without its
hyphen when the document writes it whole elsewhere or hyphenates words to wrap its lines
(`_Hyphens`); a table of contents' lines (leader dots, a page number) are left out.
In a hard-wrapped document a line that stands alone and ends no sentence (a title, a heading,
a table row) is layout, not running text, and is left out too, as is a paragraph's last line
that begins after a sentence, ends none and reads as a heading (numbered, or in title case: one
that a full line ran into), and lines joined in lower case, none of them full, that end no
sentence and do not read as prose (a figure's labels, a table's cells, a command's synopsis; an
ellipsis in brackets after a word, "[FILE...]", ends no sentence). So are reStructuredText's (and
docstrings') code and markup: literal blocks, explicit markup, doctest blocks, underlined
headings and rules; a list item's bullet is not part of its text, as in Markdown.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

import regex

# \r alone (old Mac files) and the Unicode line and paragraph separators break lines too.
LINE_BREAK = re.compile(r"\r\n|[\n\r\u2028\u2029]")
# A document is hard-wrapped when its lines inside paragraphs stop at a common width within
# these bounds (editors, e-mail, RFCs and PDF text lines stay well below the upper one; a
# paragraph per line is far wider; lists, addresses and verse are narrower than the lower one),
# and fewer than half of them end a sentence.
MIN_WRAP_WIDTH = 30
MAX_WRAP_WIDTH = 160
MAX_SENTENCE_END_SHARE = 0.5
MIN_WRAPPED_LINES = 3  # fewer inner lines than this say nothing about wrapping
# The wrap width is this quantile of the inner lines' lengths: robust to a few over-long lines
# (a URL), and lower rather than higher, since a line wrongly taken as not full cuts a sentence.
WIDTH_QUANTILE = 0.9
# Lengths of lines set in a proportional font (PDF text) vary around the width: a line counts as
# full when the next word would have passed the width less this share of it.
SLACK = 0.1

# Closing quotes and brackets, Chinese's and Japanese's too (」 』 ）), as a character class holds them.
CLOSING_MARKS = "\"'”’»)\\]」』）】〉》〕"
# A sentence's end: a full stop, question or exclamation mark of any script (Unicode's
# Sentence_Terminal: also 。 । ؟ ։ ...), a colon or semicolon (ASCII or full-width) or an
# ellipsis, then perhaps closing marks; searched from the end (`(?r)`), where it is found at once.
SENTENCE_END = regex.compile(rf"(?r)[\p{{Sentence_Terminal}}:;…\uff1a\uff1b][{CLOSING_MARKS}]*$")
# Words of a subject or a finite verb (English, German, French, Spanish): a paragraph or
# sentence with one of them reads as a sentence, not a list's or a slide's fragment.
SENTENCE_WORDS = frozenset(
    "i we you he she it they there this that these those is are was were be been am has have had do does did "
    "can could will would shall should may might must cannot won't can't don't doesn't isn't aren't wasn't "
    "ich wir sie er es ist sind war waren hat haben wird werden kann können "
    "je nous vous il elle ils elles est sont était ont sera peut peuvent "
    "yo nosotros es están ha han será puede pueden".split()
)  # fmt: skip
# A synopsis's optional arguments ("[FILE...]", "[OPTION. . .]"): an ellipsis in brackets after a word.
_BRACKETED_ELLIPSIS = re.compile(r"\w(?:\.\.\.|\. \. \.|…)\]$")
# A list item: a bullet, or a number or parenthesized letter or roman numeral and a closing mark.
# A numbered section heading ("1.2 Scope", "3.1. Data") counts as one; so does a reference
# entry's number in brackets before a name after a sentence's end ("[12] Yang Liu"; not a
# citation that goes on with the sentence, "such as" / "[12] BERTSUM and...").
_LIST_ITEM = re.compile(
    r"(?:[-*+•‣◦▪–—]|\d{1,3}[.)]|\(?(?:[a-zA-Z]|[ivxlcdm]{1,5})\))\s+(?=\S)|\d{1,3}(?:\.\d{1,3})+\.?\s+(?=[A-Z])"
)
_ENTRY_ITEM = re.compile(r"\[\d{1,4}\]\s+(?=[A-Z])")
_HYPHENATED = re.compile(r"(?<=[^\W\d_])-$")  # a letter, then a hyphen, at the end of a line
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*(?:\d+|[ivxlcdm]+)\s*$")  # a table of contents' line: leader dots, a page
MAX_LEADER_TAIL = 200  # a line's last characters searched for leaders (a long run of dots is read once)
# reStructuredText (and docstring) markup: the indented block after a line ending in "::" is
# literal, explicit markup (".. code-block:: python", ".. image:: x.png", a comment) is not text
# save for an admonition's body, a doctest block starts with ">>>", and a line of one repeated
# punctuation mark underlines the heading above it (at most as long as the line) or is a rule.
_LITERAL_INTRO = re.compile(r"(?:^|(\s?))::\s*$")
_EXPLICIT_MARKUP = re.compile(r"\s*\.\.(?:\s+([\w-]+)::|\s|$)")
_ADMONITIONS = frozenset("admonition attention caution danger error hint important note tip warning seealso".split())
_DOCTEST = re.compile(r"\s*>>>(?:\s|$)")
_BULLET = re.compile(r"[-*+•‣◦▪]\s+(?=\S)")  # a list item's bullet, left out of its text
_UNDERLINE = re.compile(r"\s*([=\-~^\"'`#*+<>:._])\1{2,}\s*$")
# reStructuredText's inline markup, read as it renders: an inline literal ("``None``"), a role's
# interpreted text (":class:`~email.header.Header`" reads "Header", ":ref:`the guide <guide>`"
# "the guide", `default role` "default role"), a hyperlink reference ("`Python
# <https://python.org>`_", "`name`_") and a footnote or citation reference ("[1]_", "[#note]_",
# "[CIT2002]_"), which reads as nothing, as a PDF's footnote marks do. Each starts after white
# space, an opening mark or a line's start and ends before white space, punctuation or the
# line's end, as reStructuredText's own rules say; emphasis ("*cumsum*") is left as it is, as
# plain text writes it too.
# A name's "~" (its last part) and "!" (not linked) and a target in angle brackets after a space
# are read only where a role or a hyperlink's "_" says the text is markup: in plain backticks
# "`~/.bashrc`", "`!foo`" and "`Vec<T>`" stay as written.
_INLINE_LITERAL = re.compile(r"(?<![^\s\"'(\[{<‘“«/:-])``(?=\S)((?:(?!``).)+?)(?<=\S)``(?![^\s\"')\]}>’”».,:;!?/\\-])")
_INTERPRETED = re.compile(
    r"(?<![^\s\"'(\[{<‘“«/-])(?P<role>:[\w.+-]+(?::[\w.+-]+)?:)?`(?=[^\s`])(?P<text>[^`]*?[^\s`])`"
    r"(?P<after>:[\w.+-]+:|__?)?(?![^\s\"')\]}>’”».,:;!?/\\-])"
)
_TARGET = re.compile(r"^(.*?\S)\s+<[^<>]+>$", re.DOTALL)  # "the guide <guide>": its title
_FOOTNOTE_REFERENCE = re.compile(r"(?:^|\s)\[(?:#[\w-]*|\*|\d+|[^\W\d_][\w.-]*)\]_(?![\w`])")
# Two words joined by a hyphen (each pair of a longer compound); matched from where letters
# start, so that a long run of letters is read once.
_COMPOUND = re.compile(r"(?<![^\W\d_])([^\W\d_]+)-(?=([^\W\d_]+))")
_LETTERS = re.compile(r"(?<![^\W\d_])[^\W\d_]+")
# A document hyphenates words to wrap its lines (a typesetter's PDF) when at least this share of
# the words split at its lines' ends are written whole elsewhere in it; in one that does not (text
# typed in an editor, a browser's or an office suite's PDF), a hyphen at a line's end is its own.
HYPHENATING_SHARE = 0.25
MIN_HYPHEN_SPLITS = 5  # fewer say too little: a typeset page hyphenates, other text does not
MAX_WORD = 100  # the characters of a word read to rejoin it at a hyphen (a word of running text is shorter)
_FIRST_WORD = re.compile(r"\S+")
# A heading: a section number ("2", "3.1", "A.") or a chapter's name, then its title; or words
# each capitalized or a number, English's short function words aside (`title_case`).
MAX_HEADING_WORDS = 8
MAX_HEADLINE_WORDS = 24
MIN_HEADLINE_WORDS = 4
# A sentence's end inside a line, after a word ("...gmail.com>. Closes: #7"; not "3.1. Data").
_SENTENCE_INSIDE = re.compile(r"(?<![\s\d.])[.!?][\"'”’»)\]>]*\s+\S")
_NUMBERED = re.compile(r"(?:\d{1,3}(?:\.\d{1,3})*\.?|[A-Z]\.|(?i:chapter|section|part|appendix)\s+\w+[.:]?)\s+\S")
# A section number: "3.1." or "3.1" before a capital, "1." before at most three words, or a
# chapter's name and number ("Chapter 2:", "Appendix A.").
_SECTION_NUMBER = re.compile(
    r"(?:\d{1,3}(?:\.\d{1,3})+\.\s+\S|\d{1,3}(?:\.\d{1,3})+\s+[A-Z]|\d{1,3}\.\s+\S+(?:\s+\S+){0,2}$"
    r"|(?:Chapter|Section|Part|Appendix)\s+(?:\d{1,3}|[IVXLC]{1,6}|[A-Z])[.:]\s+\S)"
)
# A sentence that ends inside a line: a word (two letters or more: not a section number or an
# initial), a full stop, question or exclamation mark, then a word in capitals or a number.
_INNER_SENTENCE_END = re.compile(r"[^\W\d_]{2}[.!?][\"'”’»)\]]*\s+[\"'“‘(\[]*[A-Z0-9]")
MIN_PROSE_WORDS = 8
PROSE_SHARE = 0.8
# A list of references: its heading (numbered or not, perhaps in capitals), and its entries'
# labels ("[3]", "[Liu19]"; "12." before a year) and years, which follow the authors' names
# within this many characters. A run of entries numbered "[1]", "[2]", "[4]"... is one with or
# without a heading.
_REFERENCES = re.compile(
    r"(?:(?:\d{1,2}|[A-Z])\.?\s+)?(?i:references|bibliography|works cited|literature cited|cited literature):?"
)
_REFERENCE_TO = re.compile(r"\S+\s+\S+\.\s")  # "Figure 2. The first...": a sentence's words, no label
_NUMBERED_ENTRY = re.compile(r"\[(\d{1,4})\]\s")
MIN_NUMBERED_ENTRIES = 3
MAX_ENTRY_GAP = 2  # other paragraphs between two numbered entries (a footnote at a page's foot)
MAX_ENTRY_STEP = 3
_LABEL = re.compile(r"\[[^\]\s]{1,20}\]\s")
_NUMBER_LABEL = re.compile(r"\(?\d{1,3}[.)]\s")
_YEAR = re.compile(r"\b(?:1[6-9]|20)\d\d[a-z]?\b")
MAX_AUTHORS_CHARS = 300
_NAME_PARTICLES = frozenset("and & van der den von de del della da di du dos la le et al al. jr. sr.".split())
_PLAIN_WORD = re.compile(r"[\"'“‘(]*[^\W\d_]+(?:['’-][^\W\d_]+)*[\"'”’),;:]*")
_OPENING = "\"'“‘(["
# The scripts that write no space between words, and their full-width punctuation: a line
# wrapped between two of their characters joins the next without a space.
UNSPACED = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\u3000-\u303f\uff01-\uff60ー]")
_WIDE = regex.compile(r"[\p{East_Asian_Width=Wide}\p{East_Asian_Width=Fullwidth}]")  # two columns each
# A line that ends in one of English's articles, conjunctions or prepositions that end no
# sentence and no heading goes on in the next line, when that begins with a word (`_GOES_ON`:
# "a specific version of an" / "S3 object.").
_OPEN_ENDED = re.compile(r"\s(?:a|an|the|of|and|or|nor|to|with|from|into)$")
# What such a line goes on with: a word, perhaps after a quote, a bracket or markup ("`", ":role:").
_GOES_ON = re.compile(r"[\"'“‘(\[`:]{0,2}\w")
_SMALL_WORDS = frozenset("a an and as at by for from in into nor of on or the to vs with".split())


def paragraphs(
    text: str, wrapped_as: str | None = None, typeset: bool = False, notes: Callable[[str], bool] | None = None
) -> list[str]:
    """The paragraphs of plain `text`, each as one line without surrounding white space.

    `wrapped_as`: the document whose wrap width is measured instead, when `text` is that
    document less some of its lines (a PDF's less its verbatim blocks), so that leaving lines out
    does not change how the others are joined. `typeset`: the text of a typeset page (a PDF's),
    whose hyphens at a line's end break words unless the document shows otherwise (`_Hyphens`).
    `notes`: which lines begin a note (a caption, a footnote), a paragraph of its own that goes
    on only from a full line to one that begins in lower case."""
    lines = _lines(text)
    width = wrap_width(lines if wrapped_as is None else _lines(wrapped_as))
    hyphens: _Hyphens | None = None  # what the document says of its hyphens, found when first needed
    result: list[str] = []
    # The paragraph so far, as the pieces whose concatenation it is (its first line, then each
    # next line with the space that joins it, if any), so that joining a line costs its own length.
    pieces: list[str] = []
    size, joined, wrapped = 0, False, False  # wrapped: a full line of it went on in the next
    last: int | None = None  # where the paragraph's last line starts, if it began a sentence
    bibliography = _Bibliography()
    note = False  # the paragraph is a note

    def close() -> None:
        # In a hard-wrapped document a lone line that ends no sentence is a title, a heading,
        # a label or a table row: layout, not running text. So is a paragraph's last line that
        # begins after a sentence, ends none and reads as a heading: one that a full line ran into;
        # and lines joined in lower case, none of them full, that end no sentence and do not read
        # as prose (a figure's labels, a table's cells, a command's synopsis).
        # A paper's list of references is not its text either, nor, in a hard-wrapped document,
        # lines in title case that end no sentence (a title and its authors' names, wider than a
        # column and so taken as full).
        current = "".join(pieces)
        tail = current[last:] if width is not None and last is not None else ""
        heading = bool(tail) and (is_heading(tail) or _REFERENCES.fullmatch(tail) is not None)
        if heading:
            current = current[:last].rstrip()
        if not bibliography.holds(current, lone=not joined):
            ends = SENTENCE_END.search(current) is not None and not _BRACKETED_ELLIPSIS.search(current)
            titled = not ends and width is not None and not current.isupper()
            titled = titled and title_case(current.split(), symbols=True)
            prose = not titled and (width is None or wrapped or (joined and _reads_as_prose(current)))
            if current and (prose or ends or note):  # a note, for the caller to leave out
                text = rendered(current[bullet.end() :] if (bullet := _BULLET.match(current)) else current)
                if text:  # not a footnote reference alone
                    result.append(text)
        if heading:
            bibliography.heading(tail)

    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            close()
            pieces, size, joined, last, wrapped, note = [], 0, False, None, False, False
            continue
        # A note starts a paragraph, unless a sentence goes on into it ("depicted in" / "Figure 2.
        # The first..."; a caption's label with a colon starts one all the same), and goes on only
        # from a full line that ends no sentence to one in lower case (not into the text after it).
        full = bool(pieces) and _full(lines[i - 1], line, width)  # the line before, as this one follows it
        goes_on = full and not note and not SENTENCE_END.search(pieces[-1])
        starts_note = notes is not None and notes(stripped) and not (goes_on and _REFERENCE_TO.match(stripped))
        ends_note = note and not (stripped[:1].islower() and full and not SENTENCE_END.search(lines[i - 1]))
        if pieces and not starts_note and not ends_note and _soft(lines[i - 1], line, width, full, alone=not joined):
            last = size + 1 if SENTENCE_END.search(pieces[-1]) else None
            if _HYPHENATED.search(pieces[-1]) and stripped[:1].islower():
                hyphens = _Hyphens.of(text, lines, typeset) if hyphens is None else hyphens
                if not hyphens.keeps(_last_word(pieces)[:-1], stripped):
                    pieces[-1] = pieces[-1][:-1]
                    size -= 1
                pieces.append(stripped)
            elif unspaced(pieces[-1], stripped):
                pieces.append(stripped)  # Chinese and Japanese put no space between words
            else:
                pieces.append(f" {stripped}")
            size += len(pieces[-1])
            joined, wrapped = True, wrapped or full
        else:
            wrapped = wrapped or (starts_note and goes_on)  # a sentence a note cut goes on after it
            close()
            pieces, size, joined, last, wrapped = [stripped], len(stripped), False, None, False
            note = starts_note
    close()
    return _without_numbered_entries(result)


def is_heading(line: str) -> bool:
    """Whether `line` reads as a heading (`MAX_HEADING_WORDS`): it ends no sentence, and is
    numbered as a section or chapter or set in title case."""
    words = line.split()
    return (
        0 < len(words) <= MAX_HEADING_WORDS
        and not SENTENCE_END.search(line)
        and not _SENTENCE_INSIDE.search(line)
        and (_NUMBERED.match(line.strip()) is not None or title_case(words, code=True))
    )


def is_headline(paragraph: str, lowercase: int = 0) -> bool:
    """Whether `paragraph` reads as a headline though it may end as a sentence does (a
    newsletter's or an advertisement's "20,000 Real Airports With Live Weather!"): it is in title
    case, each word capitalized but English's short function words (`title_case`) and at most
    `lowercase` others, with at least `MIN_HEADLINE_WORDS` words of letters (and `lowercase`
    more) and at most `MAX_HEADLINE_WORDS`; or in capitals, two words or more. Prose capitalizes
    its first word and names, not each of its words (nor do German's nouns make it so)."""
    words = paragraph.split()
    lettered = [word for word in words if any(c.isalpha() for c in word)]
    if len(lettered) >= 2 and len(words) <= MAX_HEADLINE_WORDS and paragraph.isupper():
        return True  # in capitals: "NOW WHAT?"
    if not MIN_HEADLINE_WORDS + lowercase <= len(lettered) or len(words) > MAX_HEADLINE_WORDS:
        return False
    others = sum(
        not (_capitalized(word, False, False) or (i > 0 and word in _SMALL_WORDS)) for i, word in enumerate(lettered)
    )
    return others <= lowercase and _capitalized(lettered[0], False, False)


def title_case(words: list[str], code: bool = False, symbols: bool = False) -> bool:
    """Whether each of `words` begins with a capital or a digit (after an opening quote or
    bracket), short function words after the first aside; with `code`, an option, a placeholder,
    a variable or an address counts too ("--fail", "<file>", "${name}", "{jo,al}@example.edu";
    not a web address's piece, "//doi.org/..."); with `symbols`, also a token without letters or
    digits ("&"; an operator, "=", "|", "->", is no heading's word)."""
    return all(_capitalized(word, code, symbols) or (i > 0 and word in _SMALL_WORDS) for i, word in enumerate(words))


def _capitalized(word: str, code: bool, symbols: bool) -> bool:
    first = word.lstrip(_OPENING)[:1]
    if first.isupper() or first.isdigit():
        return True
    if first.isalpha() or not (code or symbols) or "//" in word:
        return False
    return symbols or any(c.isalnum() for c in word)


def rendered(paragraph: str) -> str:
    """`paragraph` with reStructuredText's inline markup read as it renders (`_INTERPRETED`)."""
    if "`" not in paragraph and "]_" not in paragraph:
        return paragraph
    paragraph = _INLINE_LITERAL.sub(lambda m: m.group(1), paragraph)
    return _FOOTNOTE_REFERENCE.sub("", _INTERPRETED.sub(_interpreted_text, paragraph)).strip()


def _interpreted_text(match: re.Match[str]) -> str:
    text, role = match.group("text"), match.group("role")
    if not role and not (match.group("after") or "").startswith("_"):
        return text  # the default role: the text as written
    titled = _TARGET.match(text)
    if titled:  # "the guide <guide>", "Python <https://python.org>"
        return titled.group(1)
    if text.startswith("<") and text.endswith(">"):  # "`<https://python.org>`_": the address
        return text[1:-1]
    if not role:  # a hyperlink reference: "`PEP 8`_"
        return text
    if text.startswith("~"):  # "~email.header.Header": the last name
        return text[1:].rsplit(".", 1)[-1]
    return text.removeprefix("!")  # "!Header": a name not linked


def unspaced(before: str, after: str) -> bool:
    """Whether `before` and `after` meet without a space: both Chinese or Japanese (`UNSPACED`)
    where they meet."""
    return UNSPACED.match(before[-1:]) is not None and UNSPACED.match(after[:1]) is not None


def _lines(text: str) -> list[str]:
    """The lines of `text` less table of contents lines and reStructuredText markup."""
    text = text.replace("\u2029", "\n\n")  # the paragraph separator
    return _without_markup(
        [
            line.rstrip()
            for line in LINE_BREAK.split(text)
            if not _LEADERS.search(line.rstrip(), max(0, len(line.rstrip()) - MAX_LEADER_TAIL))
        ]
    )


def _without_markup(lines: list[str]) -> list[str]:
    """`lines` without reStructuredText's literal blocks (their "::" reads ":", as rendered),
    explicit markup, doctest blocks, headings with their underlines, and rules; each leaves a
    blank line, so paragraphs stay apart."""
    result: list[str] = []
    skip_past: int | None = None  # skip blank lines and lines indented past this column
    body_past: int | None = None  # an admonition's body: lines indented past this column, unindented
    doctest = False  # skip up to the next blank line
    quoted = False  # a block found to be quoted e-mail, up to the next blank line: no doctest in it
    for i, line in enumerate(lines):
        indent = _columns(line[: len(line) - len(line.lstrip())])
        quoted = quoted and bool(line.strip())
        if doctest and line.strip():
            continue
        doctest = False
        if skip_past is not None:
            if not line.strip() or indent > skip_past:
                continue
            skip_past = None
            result.append("")  # the skipped block parts what is around it
        if body_past is not None:
            if not line.strip() or indent > body_past:
                result.append(line.strip())
                continue
            body_past = None
            result.append("")
        if _UNDERLINE.match(line):
            if _is_heading(result, line):
                result[-1] = ""
            result.append("")
            continue
        markup = _EXPLICIT_MARKUP.match(line)
        if markup:
            if (markup.group(1) or "").lower() in _ADMONITIONS:
                body_past = indent
                result.append(line[markup.end() :].strip())  # ".. note:: Text" keeps its text
            else:
                skip_past = indent
                result.append("")
            continue
        if _DOCTEST.match(line) and not quoted:
            if _is_doctest(lines, i):
                doctest = True
                result.append("")
                continue
            quoted = True  # each block is looked at once, however many ">>>" lines it holds
        intro = _LITERAL_INTRO.search(line)
        if intro:
            skip_past = indent
            before = line[: intro.start()].rstrip()
            line = before if intro.group(1) or not before else before + ":"  # "text ::" reads "text"
        result.append(line)
    return result


def _is_heading(above: list[str], underline: str) -> bool:
    """Whether the last line of `above` is a heading that `underline` marks: a line of its own
    (a blank line, an overline or nothing before it), no longer than the underline, not a
    sentence that ends with a full stop."""
    if not above or not above[-1].strip() or (len(above) > 1 and above[-2].strip()):
        return False
    heading = above[-1].strip()
    return len(heading) <= len(underline.strip()) and not heading.endswith(".")


def _is_doctest(lines: list[str], at: int) -> bool:
    """Whether the block of lines around `lines[at]` (">>> ...") is a doctest, not quoted e-mail:
    none of its lines, from the blank line before to the blank line after, starts with ">" but
    for ">>>"."""
    first = at
    while first > 0 and lines[first - 1].strip():
        first -= 1
    block = itertools.takewhile(str.strip, lines[first:])
    return not any(line.lstrip().startswith(">") and not _DOCTEST.match(line) for line in block)


def wrap_width(lines: list[str]) -> int | None:
    """The width the document's paragraphs were wrapped at, or None when they were not."""
    inner = [  # lines inside paragraphs, list items aside (a break next to one is never a wrap)
        line
        for line, after in zip(lines, lines[1:])
        if line.strip()
        and after.strip()
        and not _LIST_ITEM.match(line.lstrip())
        and not _LIST_ITEM.match(after.lstrip())
    ]
    if len(inner) < MIN_WRAPPED_LINES:
        return None
    ending = sum(1 for line in inner if SENTENCE_END.search(line))
    if ending >= MAX_SENTENCE_END_SHARE * len(inner):
        return None
    lengths = sorted(_columns(line) for line in inner)
    width = lengths[min(len(lengths) - 1, int(WIDTH_QUANTILE * len(lengths)))]
    return width if MIN_WRAP_WIDTH <= width <= MAX_WRAP_WIDTH else None


def _soft(line: str, following: str, width: int | None, full: bool, alone: bool = False) -> bool:
    """Whether the break between `line` and the `following` one is a soft wrap: the next line
    continues a sentence (it starts in lower case after a line that ends none), or the line is
    full in a hard-wrapped document; never before a list item or an indented line, nor after a
    heading that stands `alone` (no line before it joined): one in capitals, or in a
    hard-wrapped document a numbered section heading that is not full before a line that is not
    indented past it. `full`: whether `line` is full (`_full`)."""
    line, following = line.expandtabs(), following.expandtabs()
    body = following.lstrip()
    if _LIST_ITEM.match(body) or (_ENTRY_ITEM.match(body) and SENTENCE_END.search(line)):
        return False
    item = _LIST_ITEM.match(line.lstrip())
    text_column = len(line) - len(line.lstrip()) + (item.end() if item else 0)
    indented = len(following) - len(body) > text_column  # past this line's text
    numbered = width is not None and not full and not indented and is_section_heading(line)
    heading = alone and (_in_capitals(line) or numbered)
    if body[:1].islower() and not SENTENCE_END.search(line) and not heading:
        return True
    if not indented and not heading and _OPEN_ENDED.search(line) and _GOES_ON.match(body):
        return True  # "...a specific version of an" / "S3 object.": no sentence or heading ends so
    if item and not indented and _wrapped_item(line[item.end() :], body):
        return True  # "* Offer valid from March 8 in all our" / "Paris shops, not with other offers."
    return not indented and full


def _wrapped_item(item: str, following: str) -> bool:
    """Whether a list item's line (`item`, its bullet left out) goes on in the `following` line
    that begins in capitals, as a long item wrapped in a file too short to show its wrap width
    does: it holds at least `MIN_PROSE_WORDS` words and ends neither a sentence nor a clause
    (`SENTENCE_END`: a colon introduces what follows), and the following line is no heading in
    capitals. Lines come without trailing white space (`_lines`)."""
    return len(item.split()) >= MIN_PROSE_WORDS and SENTENCE_END.search(item) is None and not _in_capitals(following)


def _reads_as_prose(text: str) -> bool:
    """Whether lines joined in lower case, none of them full, read as prose: a sentence ends
    inside them, or most of their tokens are words (not a figure's labels, a table's cells or a
    synopsis's options)."""
    if _INNER_SENTENCE_END.search(text):
        return True
    tokens = text.split()
    words = sum(1 for token in tokens if _PLAIN_WORD.fullmatch(token))
    return len(tokens) >= MIN_PROSE_WORDS and words >= PROSE_SHARE * len(tokens)


def _full(line: str, following: str, width: int | None) -> bool:
    """Whether `line` is full in a document hard-wrapped at `width`: the `following` line's first
    word would have passed the width (less `SLACK`) on it."""
    if width is None:
        return False
    body = following.expandtabs().lstrip()
    if unspaced(line, body):  # a word of one character, no space before it
        return _columns(line) + _columns(body[0]) > width * (1 - SLACK)
    next_word = _FIRST_WORD.match(body)
    return _columns(line) + 1 + _columns(next_word.group() if next_word else "") > width * (1 - SLACK)


def _in_capitals(line: str) -> bool:
    """Whether `line` is a heading in capitals ("DESCRIPTION", "SEE ALSO"): at most
    `MAX_HEADING_WORDS` words, two letters or more, all capitals (a script without case has
    none). A manual page's sections begin with one, then a line in lower case (a command's name)
    that goes on with no sentence of the heading's."""
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters) and len(line.split()) <= MAX_HEADING_WORDS


def is_section_heading(line: str) -> bool:
    """Whether `line` is a numbered section heading ("3.1. Top-level structure", "1. Introduction",
    "Chapter 2: Usage"): a number of several levels (before a capital unless it ends in a dot),
    a number of one level before at most three words, or a chapter's name and number
    (`_SECTION_NUMBER`), at most `MAX_HEADING_WORDS` words in all that end no sentence. A section
    of a manual often begins with a command's or a function's name in lower case ("libbzip2 is a
    flexible library")."""
    return (
        _SECTION_NUMBER.match(line.strip()) is not None
        and len(line.split()) <= MAX_HEADING_WORDS
        and not SENTENCE_END.search(line)
    )


def _is_entry(paragraph: str) -> bool:
    """Whether `paragraph` reads as an entry of a list of references: it begins with a label in
    brackets, or a year follows a number or the authors' names ("Liu, Y. and Lapata, M. (2019)",
    "H. P. Edmundson. 1969.": two words or more, capitalized, name particles or short
    abbreviations, then a full stop, a comma or a bracket), not "In 2020 we added...")."""
    if _LABEL.match(paragraph):
        return True
    year = _YEAR.search(paragraph, 0, MAX_AUTHORS_CHARS)
    if year is None:
        return False
    if _NUMBER_LABEL.match(paragraph):
        return True
    before = paragraph[: year.start()].rstrip()
    authors = [word for word in before.rstrip("( ").split() if word.lower() not in _NAME_PARTICLES]
    abbreviations = [word for word in authors if len(word) <= 4 and word.endswith(".")]
    return (
        len(authors) >= 2
        and before.endswith((".", ",", "("))
        and title_case([word for word in authors if word not in abbreviations])
    )


def _without_numbered_entries(paragraphs: list[str]) -> list[str]:
    """`paragraphs` less each run of at least `MIN_NUMBERED_ENTRIES` that begin with numbers in
    brackets, each up to `MAX_ENTRY_STEP` past the one before, and hold a year ("[1]", "[2]",
    "[4]"...: a list of references, with or without its heading, some entries perhaps run
    together; not steps "[1] Download...", nor a README's links), at most `MAX_ENTRY_GAP` other
    paragraphs between two."""
    dropped: list[int] = []
    run: list[int] = []
    last, gap = 0, 0
    for i, paragraph in enumerate([*paragraphs, ""]):  # the empty one ends the last run
        label = _NUMBERED_ENTRY.match(paragraph)
        cited = label is not None and _YEAR.search(paragraph) is not None
        number = int(label.group(1)) if label and cited else None
        if run and number is not None and last < number <= last + MAX_ENTRY_STEP:
            run.append(i)
            last, gap = number, 0
        elif run and number is None and gap < MAX_ENTRY_GAP and i < len(paragraphs):
            gap += 1
        else:
            dropped.extend(run if len(run) >= MIN_NUMBERED_ENTRIES else [])
            run, last, gap = ([i], number, 0) if number is not None else ([], 0, 0)
    keep = set(range(len(paragraphs))).difference(dropped)
    return [paragraph for i, paragraph in enumerate(paragraphs) if i in keep]


class _Bibliography:
    """Follows a document's paragraphs in order to tell which are the entries of a list of
    references (`_is_entry`), after a heading of its own ("References", "7 Bibliography") up to
    the next heading."""

    def __init__(self) -> None:
        self.inside = False

    def holds(self, paragraph: str, lone: bool) -> bool:
        """Whether `paragraph` (`lone`: a line of its own) is the heading or an entry of a list
        of references."""
        entry = self.inside and _is_entry(paragraph)  # perhaps a line of its own that reads as a heading
        if lone and not entry and (_REFERENCES.fullmatch(paragraph) or is_heading(paragraph.removesuffix(":"))):
            return self.heading(paragraph)  # "License:" too
        return entry

    def heading(self, line: str) -> bool:
        """Takes the heading `line`: whether it begins a list of references (any other with a
        word in it ends one; not a number alone, a line's end cut from an entry)."""
        if _REFERENCES.fullmatch(line):
            self.inside = True
            return True
        self.inside = self.inside and not any(c.isalpha() for c in line)
        return False


@dataclass(frozen=True)
class _Hyphens:
    """What a document says of the hyphens at its lines' ends: the words it writes (in lower case),
    the pairs it writes joined by a hyphen, and whether it hyphenates words to wrap its lines."""

    words: frozenset[str]
    compounds: frozenset[str]
    hyphenates: bool

    @classmethod
    def of(cls, text: str, lines: list[str], typeset: bool) -> _Hyphens:
        """What `text` (its `lines`; `typeset`: from a typeset page) says: whether it hyphenates
        words by the share of its split words written whole elsewhere when it splits
        `MIN_HYPHEN_SPLITS` or more, else by where it comes from."""
        words = frozenset(word.lower() for word in _LETTERS.findall(text))
        compounds = frozenset(f"{left}-{right}".lower() for left, right in _COMPOUND.findall(text))
        splits = [
            _split(_last_word([line])[:-1], following.lstrip())
            for line, following in zip(lines, lines[1:])
            if _HYPHENATED.search(line) and following.lstrip()[:1].islower()
        ]
        whole = sum(1 for left, right in splits if f"{left}{right}" in words)
        if len(splits) < MIN_HYPHEN_SPLITS:
            return cls(words, compounds, typeset)
        return cls(words, compounds, whole >= HYPHENATING_SHARE * len(splits))

    def keeps(self, left: str, line: str) -> bool:
        """Whether the hyphen after `left` (the word that ends a line, less its hyphen) stays when
        the `line` that goes on with it is joined: it does when the document writes the two
        parts joined by a hyphen elsewhere, not when it writes them as one word; else when the
        word is a compound already ("state-of-the-", "--no-") or the document does not hyphenate
        words ("heavily-" / "commented" in a README)."""
        letters, right = _split(left, line)
        if f"{letters}-{right}" in self.compounds:
            return True
        if f"{letters}{right}" in self.words:
            return False
        return "-" in left or not self.hyphenates


def _split(left: str, line: str) -> tuple[str, str]:
    """The letters that end `left` and begin `line`, in lower case: the parts of a word split
    at a hyphen."""
    letters = re.search(r"[^\W\d_]*$", left)
    right = re.match(r"[^\W\d_]*", line)
    assert letters is not None and right is not None  # both match the empty string
    return letters.group().lower(), right.group().lower()


def _last_word(pieces: list[str]) -> str:
    """The last word of the text that `pieces` join into (at most its last `MAX_WORD`
    characters): pieces joined without a space (a word rejoined at its hyphen) may hold parts of
    it."""
    word = ""
    for piece in reversed(pieces):
        split = piece.rsplit(None, 1)
        word = (split[-1] if split else "") + word
        if len(split) != 1 or piece[:1].isspace() or len(word) >= MAX_WORD:
            return word[-MAX_WORD:]
    return word


def _columns(line: str) -> int:
    """The columns `line` takes on a terminal: its tabs expanded, a wide character (Chinese,
    Japanese, Korean, full-width forms) two."""
    return len(line.expandtabs()) + (0 if line.isascii() else len(_WIDE.findall(line)))


def rejoined(lines: list[str]) -> list[str]:
    """The paragraphs of a word processor's document (RTF, Word, OpenDocument) whose paragraphs
    may be the lines of hard-wrapped text (one paragraph a line, as a plain-text file pasted in
    or converted keeps them); "" in `lines` is a paragraph that ends one of the text's (an empty
    one, a heading or a table left out). When the lines are hard-wrapped (`wrap_width`), they
    are joined as plain text's are (`paragraphs`); otherwise each non-empty one is a paragraph,
    as it was."""
    if not hard_wrapped(lines):
        return [line for line in lines if line]
    return paragraphs("\n".join(lines))


def hard_wrapped(lines: list[str]) -> bool:
    """Whether a word processor's paragraphs are the lines of hard-wrapped text (`rejoined`)."""
    return wrap_width(_lines("\n".join(lines))) is not None
