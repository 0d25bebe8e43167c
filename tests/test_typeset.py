"""A typeset page's captions and footnotes are not running text."""

from __future__ import annotations

from summarizer.readers.pdf.typeset import running_paragraphs, with_bullets


def test_captions_and_footnotes_are_left_out_and_the_paragraph_they_cut_is_whole():
    page = [
        "We evaluate on three datasets. All models were trained on the same machine with two cores and no",
        "Table 1: ROUGE F1 scores on the news test set. Higher is better.",
        "1The machine has 24 gigabytes of memory, which was never the limiting factor.",
        "accelerator1. It correlates only moderately with human judgements of quality2, as is known.",
        "2See the meta-evaluation of Fabbri et al. (2021) for a recent study.",
        "Figure 3. The architecture of the model.",
        "Fig. 4: Sentence vectors are pooled from the encoder's output.",
        "GPT2 and MP3 players were used in 2 of the 3 runs, and the run in Table 1 used neither.",
    ]
    assert running_paragraphs(page) == [
        "We evaluate on three datasets. All models were trained on the same machine with two cores and no "
        "accelerator. It correlates only moderately with human judgements of quality, as is known.",
        "GPT2 and MP3 players were used in 2 of the 3 runs, and the run in Table 1 used neither.",
    ]


def test_without_footnotes_numbers_after_words_stay():
    assert running_paragraphs(["It scored 3D points on version2 of the test."]) == [
        "It scored 3D points on version2 of the test."
    ]


def test_a_paragraph_that_ends_a_sentence_is_not_joined_across_a_caption():
    page = ["The model is small.", "Figure 1: The model.", "three of its layers are frozen, as the text says."]
    assert running_paragraphs(page) == ["The model is small.", "three of its layers are frozen, as the text says."]


def test_a_bullet_that_the_font_maps_to_no_character_is_a_bullet():
    assert with_bullets("Directions:\n\x88 more articles;\n  \x88 distillation.\nA\x88B") == (
        "Directions:\n• more articles;\n  • distillation.\nA\x88B"
    )


def test_a_caption_or_footnote_is_a_paragraph_of_its_own_however_full_its_last_line():
    from summarizer.readers.pdf.typeset import is_note
    from summarizer.text.layout import paragraphs

    lines = [
        "The installer shows the collections it will install, and the options that go with",
        "them, so that each can be chosen before anything is copied onto the disk of the",
        "machine.",
        "Figure 3: The basic installer screen, with the collections and options to choose.",
        "If you want more control than the collection menus provide, you can use the manager",
        "after the installation, which lists every package that the distribution holds.",
    ]
    found = running_paragraphs(paragraphs("\n".join(lines), typeset=True, notes=is_note))
    assert found[-1].startswith("If you want more control") and not any("Figure" in p for p in found)


def test_a_number_against_a_word_is_a_footnote_only_with_its_mark_near():
    page = ["1Password keeps the passwords of a team in one vault.", "It runs on every system."]
    assert running_paragraphs(page) == page


def test_a_clause_cut_by_a_figure_goes_on_after_its_caption():
    from summarizer.readers.pdf.typeset import is_note
    from summarizer.text.layout import paragraphs

    lines = [
        "Every closed object, such as a box, a circle or an ellipse, also has eight compass points",
        "associated with it, and a center, which the language names in the same way as the rest;",
        "Figure 10-1: Compass points",
        "these are the locations where eight compass rays from the geometric center would meet",
        "the figure, and they are named after the points of the compass.",
    ]
    found = running_paragraphs(paragraphs("\n".join(lines), typeset=True, notes=is_note))
    assert found == [" ".join(lines[:2] + lines[3:])]


FILL = (
    "This paragraph is filler text that is wrapped at a fixed width so that the\n"
    "reader measures a wrap width for the whole document and treats it as hard\n"
    "wrapped text, which is what the rules under test need to see to apply.\n\n"
)


def typeset_paragraphs(body: str) -> list[str]:
    from summarizer.readers.pdf.typeset import is_note
    from summarizer.text.layout import paragraphs

    found = running_paragraphs(paragraphs(FILL + body + "\n\n" + FILL, typeset=True, notes=is_note))
    return [paragraph for paragraph in found if not paragraph.startswith("This paragraph is filler")]


def test_the_sentence_a_footnote_cuts_goes_on_after_it_and_a_figure_named_in_a_sentence_is_no_caption():
    cut = typeset_paragraphs(
        "Some systems limit how many files a program may keep open at a time1.\n\n"
        "The limit on the number of streams is set in the configuration file of\n"
        "1Except when processing the main batch file of the distribution, which takes\n"
        "special measures so that the program can learn the syntax of the directories.\n"
        "number of files a program can have open. This can be expressed to the program\n"
        "through a macro in the configuration file, as the next section of it explains."
    )
    assert cut[0] == "Some systems limit how many files a program may keep open at a time."
    assert cut[1].startswith("The limit on the number of streams is set in the configuration file of number of files")
    named = typeset_paragraphs(
        "The divisions of a document can be numbered in two ways, which is depicted in\n"
        "Figure 2. The first one is the one used by default; the user can specify an\n"
        "option to use the second one instead, which changes the labels of the lists."
    )
    assert named[0].startswith(
        "The divisions of a document can be numbered in two ways, which is depicted in Figure 2."
    )


def test_a_name_with_digits_that_recurs_keeps_them():
    page = ["The latin1 encoding is older than utf8; latin1 covers Western Europe.", "1Or ISO 8859-1."]
    assert running_paragraphs(page) == page
