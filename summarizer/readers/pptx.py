"""PowerPoint presentations (.pptx, Office Open XML): each slide's text, then its speaker notes.

Slides are read in the presentation's order (`ppt/presentation.xml`'s slide list), hidden ones
left out. A slide gives the paragraphs of its shapes' text (placeholders, text boxes, shapes in
groups), in the order the slide lists its shapes, each paragraph on one line; never its title or
subtitle, slide number, date or footer placeholders, tables, charts, diagrams or pictures, nor a
hidden shape. After a slide come its speaker notes (the notes page's body placeholder: not its
slide image or number), often the running text of a talk. A line break inside a paragraph is a
space. A raised note mark ("1", "*") is no text, and neither are the deck's last slides when
they list the notes those marks refer to ("1. A source.", as pandoc sets a deck's footnotes).
The talk's sentences are preferred to its bullets (`talk_text`): the notes, and the slides'
paragraphs that read as whole sentences; a deck of fragments alone reads as them. Text that
`REPEATED_SLIDES` slides or more show, not in a row (an agenda shown again before each
section), is the deck's furniture, not its text; text and notes that slides repeat (a build's
steps) are read once.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from summarizer.readers.base import Reader
from summarizer.readers.package import Package, open_package
from summarizer.text.layout import SENTENCE_END, SENTENCE_WORDS

KIND = "PowerPoint presentation"
# Placeholders that are not running text: titles, and what the master repeats on every slide.
NOT_RUNNING = frozenset({"title", "ctrTitle", "subTitle", "sldNum", "dt", "ftr", "hdr", "sldImg"})
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
NOTE_MARK = re.compile(r"[\d*†‡§¶,]+")  # what a raised note mark holds
_NOTE_ENTRY = re.compile(r"(\d+)[.)]\s")  # how a note begins on a slide of notes: its number, "1." or "1)"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_NOTES = "/notesSlide"  # how a slide's relationship type to its notes page ends
_FALSE = ("0", "false")
# A slide's paragraph with one of `SENTENCE_WORDS` (a subject's, a finite verb's) reads as a
# sentence, and so does one this long.
MIN_SENTENCE_WORDS = 9
REPEATED_SLIDES = 3
_INNER_END = re.compile(r"\w[.!?][\"'”’)]*\s+[\"'“‘(]*[A-Z]")  # a sentence ends inside the paragraph
_PUNCTUATION = ".,;:!?\"'“”‘’()[]"


def pptx_paragraphs(data: bytes) -> list[str]:
    """The text of each paragraph of the shown slides that is not a title, a table or a
    footer, each slide's followed by its notes', on one line (empty ones left out)."""
    package = open_package(
        data,
        KIND,
        "ppt/presentation.xml",
        "an old binary PowerPoint presentation (.ppt), not .pptx: save it as .pptx first",
    )
    presentation = package.xml("ppt/presentation.xml")
    slides = _relationships(package, "ppt/presentation.xml")
    shown: list[tuple[list[str], list[str]]] = []  # each slide's paragraphs, and its notes'
    marks: set[str] = set()
    for slide_id in presentation.iter(f"{_P}sldId"):
        _, path = slides.get(slide_id.get(f"{_R}id") or "", ("", ""))
        if path not in package:
            continue
        slide = package.xml(path)
        if slide.get("show") in _FALSE:
            continue
        text = _shape_paragraphs(slide, None, marks)
        notes = [target for kind, target in _relationships(package, path).values() if kind.endswith(_NOTES)]
        speaker = _shape_paragraphs(package.xml(notes[0]), {"body"}, marks) if notes and notes[0] in package else []
        shown.append((text, speaker))
    return without_note_lists(shown, marks)


def talk_text(slides: list[tuple[list[str], list[str]]]) -> list[str]:
    """The paragraphs of `slides` (each one's text, then its speaker notes') that read as the
    talk's sentences: the notes, and of the slides' own text the paragraphs that are whole
    sentences (`whole_sentence`), not a list's fragments ("Better defined projects."); all of
    them when none is. Text shown on `REPEATED_SLIDES` slides or more that are not one run in a
    row is the deck's furniture (an agenda shown again before each section) and is left out;
    other text, and notes, that slides repeat word for word (a build's steps, each a copy of the
    one before with its notes) are read once."""
    shown_on: dict[str, list[int]] = {}
    for index, (text, _) in enumerate(slides):
        for paragraph in dict.fromkeys(text):
            shown_on.setdefault(paragraph, []).append(index)
    read: set[str] = set()
    kept = []
    for text, notes in slides:
        fresh = [p for p in dict.fromkeys(text) if p not in read and not _furniture(shown_on[p])]
        fresh_notes = [p for p in dict.fromkeys(notes) if p not in read]
        read.update(fresh, fresh_notes)
        kept.append((fresh, fresh_notes))
    preferred = [
        paragraph
        for text, notes in kept
        for paragraph in [*(p for p in text if whole_sentence(p)), *(p for p in notes if SENTENCE_END.search(p))]
    ]
    return (
        preferred
        or [paragraph for text, notes in kept for paragraph in text + notes]
        or [paragraph for text, notes in slides for paragraph in text + notes]
    )


def _furniture(slides: list[int]) -> bool:
    """Whether text that these slides show (their indices) is the deck's furniture: on
    `REPEATED_SLIDES` slides or more, not one run of slides in a row (a build's steps)."""
    return len(slides) >= REPEATED_SLIDES and slides[-1] - slides[0] + 1 > len(slides)


def whole_sentence(paragraph: str) -> bool:
    """Whether a slide's paragraph reads as a whole sentence, not a bullet's fragment: it ends a
    sentence, and it has a subject's or a finite verb's word ("we", "is", "can"), more than one
    sentence, or `MIN_SENTENCE_WORDS` words or more."""
    if not SENTENCE_END.search(paragraph) or paragraph.rstrip().endswith((":", ";")):
        return False
    words = paragraph.split()
    return (
        len(words) >= MIN_SENTENCE_WORDS
        or _INNER_END.search(paragraph) is not None
        or any(word.strip(_PUNCTUATION).lower() in SENTENCE_WORDS for word in words)
    )


def without_note_lists(slides: list[tuple[list[str], list[str]]], marks: set[str]) -> list[str]:
    """The paragraphs of `slides` (each one's text, then its speaker notes') that read as the
    talk's sentences (`talk_text`), but for the text of the deck's last slides when it is the
    list of the notes its raised marks refer to: every paragraph a note ("1. ..." where "1" is
    in `marks`), numbered upwards across those slides."""
    kept = len(slides)
    following = None  # the first note number of the slides after this one
    while kept and slides[kept - 1][0]:
        found = [_note_number(paragraph, marks) for paragraph in slides[kept - 1][0]]
        numbers = [number for number in found if number is not None]
        if len(numbers) < len(found) or numbers != sorted(set(numbers)):
            break
        if following is not None and numbers[-1] >= following:
            break
        following = numbers[0]
        kept -= 1
    return talk_text([(text if index < kept else [], notes) for index, (text, notes) in enumerate(slides)])


def _note_number(paragraph: str, marks: set[str]) -> int | None:
    entry = _NOTE_ENTRY.match(paragraph)
    return int(entry[1]) if entry is not None and entry[1] in marks else None


def note_marks(mark: str) -> list[str]:
    """The notes a raised mark refers to: "1,2" is notes 1 and 2."""
    return [part for part in mark.strip().split(",") if part]


def _relationships(package: Package, part: str) -> dict[str, tuple[str, str]]:
    """A part's relationships to other parts: id -> (type, the archive path of the part)."""
    folder, name = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", f"{name}.rels")
    if rels not in package:
        return {}
    found = {}
    for relationship in package.xml(rels).iter(_RELATIONSHIP):
        target = relationship.get("Target") or ""
        if relationship.get("TargetMode") == "External" or not target:
            continue
        path = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
        found[relationship.get("Id") or ""] = (relationship.get("Type") or "", posixpath.normpath(path))
    return found


def _shape_paragraphs(root: Any, placeholders: set[str] | None, marks: set[str]) -> list[str]:
    """The paragraphs of a slide's (or notes page's) shapes, in the order its shape tree lists
    them; with `placeholders`, of those placeholders only (by type). The raised note marks left
    out are added to `marks`."""
    tree = root.find(f"{_P}cSld/{_P}spTree")
    return [] if tree is None else [p for shape in _shapes(tree) for p in _text_paragraphs(shape, placeholders, marks)]


def _shapes(group: Any) -> list[Any]:
    """The text shapes (`p:sp`) of a shape tree or group, those in groups too; of alternative
    content, the first choice (its fallback is a copy)."""
    found = []
    for child in group:
        if child.tag == f"{_P}sp":
            found.append(child)
        elif child.tag == f"{_P}grpSp" and not _hidden(child.find(f"{_P}nvGrpSpPr")):
            found.extend(_shapes(child))
        elif child.tag == f"{_MC}AlternateContent":
            chosen = child.find(f"{_MC}Choice")
            chosen = chosen if chosen is not None else child.find(f"{_MC}Fallback")
            found.extend(_shapes(chosen) if chosen is not None else [])
    return found


def _text_paragraphs(shape: Any, placeholders: set[str] | None, marks: set[str]) -> list[str]:
    properties = shape.find(f"{_P}nvSpPr")
    body = shape.find(f"{_P}txBody")
    if body is None or _hidden(properties):
        return []
    placeholder = properties.find(f"{_P}nvPr/{_P}ph") if properties is not None else None
    kind = None if placeholder is None else placeholder.get("type", "obj")  # no type: a content placeholder
    if kind in NOT_RUNNING or (placeholders is not None and kind not in placeholders):
        return []
    result = []
    for paragraph in body.iterchildren(f"{_A}p"):
        parts = []
        for element in paragraph.iter(f"{_A}t", f"{_A}br"):
            if element.tag != f"{_A}t":
                parts.append(" ")
            elif _footnote_mark(element):
                marks.update(note_marks(element.text or ""))
            else:
                parts.append(element.text or "")
        line = " ".join("".join(parts).replace("\xad", "").split())
        if line:
            result.append(line)
    return result


def _footnote_mark(text: Any) -> bool:
    """Whether a run's text is a raised note mark ("1", "*", "†"), which is no text of the sentence."""
    properties = text.getparent().find(f"{_A}rPr")
    baseline = (properties.get("baseline") if properties is not None else None) or "0"
    raised = baseline.isdigit() and int(baseline) > 0  # in thousandths of a percent; lowered ones are negative
    return raised and bool(NOTE_MARK.fullmatch((text.text or "").strip()))


def _hidden(properties: Any) -> bool:
    """Whether a shape's non-visual properties mark it hidden."""
    name = properties.find(f"{_P}cNvPr") if properties is not None else None
    return name is not None and name.get("hidden") in ("1", "true")


READER = Reader(
    "pptx",
    "a PowerPoint presentation",
    (".pptx",),
    pptx_paragraphs,
    binary=True,
    packaged=True,
    running_text=True,
    needs={"lxml": "lxml"},
    extra="formats",
)
