import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summarizer.selection import (
    SelectionConfig,
    bare_entry,
    begins_lower,
    cased,
    code,
    is_title,
    labelled,
    option_entry,
    select_sentences,
    too_short,
    unended,
)

SENTENCES = [
    "The council approved the new budget on Monday.",  # 0
    "Critics said the plan ignores rural schools.",  # 1
    "The council approved the new budget after a long debate.",  # 2: shares trigrams with 0
    "Taxes will rise by two percent next year.",  # 3
    "The mayor welcomed the vote.",  # 4
]
ALL = list(range(len(SENTENCES)))


def select(scores, **options):
    return select_sentences(SENTENCES, ALL, scores, SelectionConfig(**options))


def test_highest_scores_win_and_come_back_in_document_order():
    assert select([0.1, 0.9, 0.2, 0.8, 0.3], k=2) == [1, 3]


def test_score_order_on_request():
    assert select([0.1, 0.9, 0.2, 0.8, 0.3], k=3, order="score") == [1, 3, 4]


def test_ties_go_to_the_earlier_sentence():
    assert select([0.5] * 5, k=2, trigram_blocking=False) == [0, 1]


def test_trigram_blocking_skips_a_repeating_sentence():
    scores = [0.9, 0.1, 0.8, 0.2, 0.3]
    assert select(scores, k=2) == [0, 4]
    assert select(scores, k=2, trigram_blocking=False) == [0, 2]


def test_trigram_blocking_fills_the_summary_with_blocked_sentences_last():
    # Four of five sentences share "the harbour closed": blocking takes the unblocked one
    # first, then the blocked ones by score, so that the summary has the length asked for.
    page = [
        "A storm came in and the harbour closed at noon.",
        "Police said the harbour closed for the night.",
        "Boats wait outside in the bay.",
        "The harbour closed twice this year.",
        "Fishermen say the harbour closed too early.",
    ]
    scores = [0.9, 0.8, 0.1, 0.7, 0.6]
    assert select_sentences(page, range(5), scores, SelectionConfig(k=2, trigram_blocking=True)) == [0, 2]
    assert select_sentences(page, range(5), scores, SelectionConfig(k=3, trigram_blocking=True)) == [0, 1, 2]
    assert select_sentences(page, range(5), scores, SelectionConfig(ratio=0.8, trigram_blocking=True)) == [0, 1, 2, 3]
    assert select_sentences(page, range(5), scores, SelectionConfig(k=3, trigram_blocking=False)) == [0, 1, 3]
    # In score order the indices come as they were chosen: the blocked sentence last.
    assert select_sentences(page, range(5), scores, SelectionConfig(k=3, order="score", trigram_blocking=True)) == [
        0,
        2,
        1,
    ]


def test_a_blocked_sentence_fills_the_words_left():
    page = [
        "The harbour closed at noon today.",
        "The harbour closed at noon again.",
        "Boats wait in the bay for hours now.",
    ]
    chosen = select_sentences(page, range(3), [0.9, 0.8, 0.1], SelectionConfig(max_words=12, trigram_blocking=True))
    assert chosen == [0, 1]  # the third (8 words) would pass 12; the blocked one (6) fits


def test_ratio_counts_the_documents_sentences():
    scores = [0.5, 0.4, 0.3, 0.2, 0.1]
    assert select(scores, ratio=0.4) == [0, 1]
    assert select(scores, ratio=0.3) == [0, 1]  # 1.5 sentences round to 2
    assert select(scores, ratio=0.25) == [0]  # 1.25 sentences round to 1
    assert select(scores, ratio=0.5, trigram_blocking=False) == [0, 1, 2]  # 2.5 sentences round up to 3
    assert select(scores, ratio=0.01) == [0]  # at least one sentence
    # Sentences that were not scored still count towards the document's length.
    assert select_sentences(SENTENCES, [1, 3], [0.2, 0.1], SelectionConfig(ratio=0.4)) == [1, 3]


def test_max_words_skips_sentences_that_do_not_fit():
    # 0 has 8 words and fits; 2 (10 words) would pass 16; 4 (5 words) still fits.
    scores = [0.9, 0.1, 0.8, 0.2, 0.3]
    chosen = select(scores, max_words=16, trigram_blocking=False)
    assert chosen == [0, 4]
    assert sum(len(SENTENCES[i].split()) for i in chosen) <= 16


def test_max_words_overrides_k():
    assert len(select([0.5, 0.4, 0.3, 0.2, 0.1], k=1, max_words=100, trigram_blocking=False)) == 5


def test_fewer_sentences_than_asked_returns_them_all():
    assert select_sentences(SENTENCES[:2], [0, 1], [0.2, 0.7], SelectionConfig(k=5)) == [0, 1]


def test_empty_document_gives_an_empty_summary():
    assert select_sentences([], [], [], SelectionConfig()) == []


def test_only_scored_sentences_are_candidates():
    assert select_sentences(SENTENCES, [1, 4], [0.1, 0.2], SelectionConfig(k=3)) == [1, 4]


@pytest.mark.parametrize("options", [{"k": 0}, {"ratio": 0.0}, {"ratio": 1.5}, {"max_words": 0}, {"order": "random"}])
def test_invalid_settings_are_rejected(options):
    with pytest.raises(ValueError):
        SelectionConfig(**options)


def test_scores_must_match_indices():
    with pytest.raises(ValueError, match="2 sentence indices but 1 scores"):
        select_sentences(SENTENCES, [0, 1], [0.5], SelectionConfig())


words = st.sampled_from(["a", "b", "c", "d", "e"])
sentence = st.lists(words, min_size=1, max_size=6).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(sentence, st.floats(0, 1)), max_size=12),
    st.integers(1, 5),
    st.booleans(),
)
def test_selection_invariants(document, k, blocking):
    sentences = [s for s, _ in document]
    scores = [score for _, score in document]
    chosen = select_sentences(sentences, range(len(sentences)), scores, SelectionConfig(k=k, trigram_blocking=blocking))
    assert chosen == sorted(set(chosen))
    keys = [tuple(s.split()) for s in sentences]
    best = {key: max(score for other, score in zip(keys, scores) if other == key) for key in keys}
    taken = {keys[i] for i in chosen}
    assert len(taken) == len(chosen) == min(k, len(best))  # the length asked for, each sentence's words once
    if not blocking:  # by score
        assert all(best[key] >= best[other] for key in taken for other in best.keys() - taken)
    else:  # two chosen sentences share a trigram only when every sentence left out shares one
        trigrams = {key: set(zip(key, key[1:], key[2:])) for key in best}
        shared = any(trigrams[x] & trigrams[y] for x in taken for y in taken if x != y)
        used = set().union(*(trigrams[key] for key in taken))
        assert not shared or all(trigrams[key] & used for key in best.keys() - taken)


@pytest.mark.parametrize("blocking", [True, False])
def test_a_sentence_repeated_word_for_word_is_taken_once(blocking):
    page = ["Storm closes the harbour.", "The harbour closed at noon.", "Storm closes the harbour!", "Boats wait."]
    chosen = select_sentences(page, range(4), [0.9, 0.5, 0.8, 0.4], SelectionConfig(k=2, trigram_blocking=blocking))
    assert chosen == [0, 1]  # not the headline again, in other punctuation
    verdict = ["Not guilty.", "Not guilty!", "The jury left."]  # too short for a trigram
    assert select_sentences(verdict, range(3), [0.9, 0.8, 0.1], SelectionConfig(k=2, trigram_blocking=blocking)) == [
        0,
        2,
    ]


@pytest.mark.parametrize("value", [0, 1, "no", "false"])
def test_trigram_blocking_is_true_false_or_the_models(value):
    with pytest.raises(ValueError, match="trigram_blocking must be true, false or null"):
        SelectionConfig(trigram_blocking=value)


def test_trigram_blocking_works_in_other_scripts():
    # The third sentence stands apart (under four words), and is still taken before a blocked one.
    sentences = ["Кошка сидит на окне.", "Кошка сидит на окне весь день.", "Собака спит."]
    assert select_sentences(sentences, [0, 1, 2], [0.9, 0.8, 0.1], SelectionConfig(k=2)) == [0, 2]


def test_a_sentence_introducing_a_list_is_taken_last():
    sentences = [
        "Lightning structures PyTorch code with these principles:",
        "Research code lives in the LightningModule.",
        "Engineering code is handled by the Trainer.",
        "Data comes from a LightningDataModule.",
    ]
    scores = [0.9, 0.5, 0.4, 0.3]
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=2)) == [1, 2]
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=2, order="score")) == [1, 2]
    # only when nothing else is left: a document of lead-ins still gets its summary
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=4)) == [0, 1, 2, 3]
    lead_ins = ["He said: ", "Then this：", "That was fine by me."]
    assert select_sentences(lead_ins, range(3), [0.9, 0.8, 0.1], SelectionConfig(k=2)) == [0, 2]


@pytest.mark.parametrize(
    "title",
    ["Grant of Patent License.", "Definitions.", "Tornadoes Fast Facts .", "ET Sunday, AMC .", "3.1 Related Work."],
)
def test_a_title_set_as_a_sentence_is_taken_last(title):
    # A license's run-in section title, a news article's inner heading, a paper's section.
    sentences = [title, "The licensor grants you a patent license.", "It ends if you sue.", "Notices stay intact."]
    scores = [0.9, 0.5, 0.4, 0.3]
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=2)) == [1, 2]
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=4)) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "sentence",
    ["The mayor welcomed the vote.", "It rained.", "Why Now?", "Die Regierung plant Steuern.", "über Alles."],
)
def test_sentences_that_say_something_are_not_titles(sentence):
    assert not is_title(sentence)


@pytest.mark.parametrize("fragment", ["For French-language articles.", "Subsubsection text here.", "See below."])
def test_a_sentence_of_fewer_than_four_words_is_taken_last(fragment):
    # An option's description opening with a phrase (a LaTeX class guide), a template's placeholder.
    sentences = [
        fragment,
        "The class prints its labels in French.",
        "It also loads the babel package.",
        "Fonts are chosen by the class.",
    ]
    scores = [0.9, 0.5, 0.4, 0.3]
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=3)) == [1, 2, 3]
    # only when nothing else is left: taken before a lower-scored fragment of the same kind
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=4, order="score")) == [1, 2, 3, 0]


@pytest.mark.parametrize(
    ("sentence", "short"),
    [
        ("It rained all day.", False),
        ("Die Regierung plant Steuern.", False),
        ("我们今天去了公园。", False),  # Chinese: no spaces between words, so not counted by them
        ("วันนี้ฝนตก", False),  # Thai
        ("Not guilty.", True),
        ("Le 3 mai.", True),
        ("Deathly silence.", True),  # a news article's inner heading
        ("Ten — thousand children .", True),  # a dash or a stop set apart is no word
        ("Pero was 55.", False),  # a subject's or a finite verb's word makes a sentence
        ("It's amazing.", False),
        ("Don't panic.", False),  # "don't" is a verb's word, though "don" is not
        ("(CNN)Ferguson is crumbling.", False),
    ],
)
def test_too_short_counts_words_between_spaces_and_knows_a_sentence_by_its_verb(sentence, short):
    assert too_short(sentence) is short


@pytest.mark.parametrize(
    ("sentence", "entry"),
    [
        ("Apple: over 75,000 nodes storing over 10 PB of data.", True),  # a talk's notes
        ("signed distances: not available for cloud-to-cloud distance.", True),  # an option's entry
        ("READ MORE: 5 key issues for next Israeli leader .", True),  # a news page's link
        ("Last known altitude: 11,400 feet .", True),  # a fact box
        ("Editor's note: This story was updated on Monday.", False),  # what follows says something
        ('It read: "On 10 March, the police served summonses on five men."', False),  # a lead-in, not a label
        ("The plan has three parts: taxes, schools and roads.", False),  # a long label is a sentence's start
        ("Il a dit : « non ».", False),  # French sets a space before its colon: no label
        ("Meeting at 10:30 in the hall.", False),  # a time's colon
        ("NEW DELHI: The government on Monday announced a nationwide ban.", False),  # a dateline's sentence
        ("Berlin: Die Regierung legt ihren Haushalt vor.", False),
        ("Q: What happened to the money after the election?", False),
        ("Un autre plaisante: \"c'est l'occasion d'arrêter\".", False),  # French elision: "est"
    ],
)
def test_a_label_and_a_colon_before_words_without_a_verb_are_an_entry(sentence, entry):
    assert labelled(sentence) is entry


@pytest.mark.parametrize(
    ("sentence", "is_code"),
    [
        ("new SavePrsm(prsmGraph) (save_prsm.js) savePrsmObj.main() redraws the graph.", True),
        ("Call xn::Context::Init() and then ctx.run() with max_retries set.", True),
        ("The flood lasts 40 days; Moses spends 40 days; Goliath spends 40 days.", False),  # prose semicolons
        ("YouTube, LinkedIn and PayPal reported results (see above).", False),  # camel-cased names are no code
        ("Use the read_file function to read a file.", False),  # one name of code in a sentence
        ("Petitioner's full name at birth was: {{ p.name.full(middle='full') }}.", True),  # a template's
        ("Patients (n=120) improved (p=0.01) more than controls (n=118; SD=7.2).", False),  # statistics
        ("Fe(II) is oxidised to Fe(III) by Mn(IV) oxides in the sediment.", False),  # chemistry
        ("Applicant(s) must submit the form(s) to the relevant office(s) by Friday.", False),
        ("In p53(-/-) mice, IL-6(+) cells expanded while TNF(-) cells did not.", False),
        ("Follow @jane_doe, @bob_smith and @news_desk or mail ann_lee@example.org for updates.", False),
        (
            "Using the standard LaTeX2e \\mbox{text} will give normal text, including a hyphen, but will not "
            "scale correctly in superscripts: $x_{\\mbox{e-p}}$ gives x_e-p.",
            False,
        ),  # a manual's sentence that shows its commands: a few words of many
    ],
)
def test_a_sentence_of_three_words_of_code_is_code(sentence, is_code):
    assert code(sentence) is is_code


@pytest.mark.parametrize(
    ("entry", "phrase"),
    [
        ("Multi-satellite management (calculation algorithms, display).", True),
        ("New algorithm for Iridium flares, TLE updating and the creation of personal TLE files.", True),
        ("The files are updated every day.", False),  # a sentence
        ("Il calcule les orbites des satellites.", False),
        ("C'est simple à installer.", False),  # French elision: "est"
        (  # a long entry: more likely a sentence whose verb the closed list lacks ("supports")
            "In case of the web service and the XML 1.3 file format, the software library supports "
            "the hash code data file mode for intermediary files.",
            False,
        ),
        ("一颗卫星的轨道。", False),
    ],
)
def test_a_list_s_entry_without_a_subject_or_verb_is_a_phrase(entry, phrase):
    assert bare_entry(entry) is phrase


@pytest.mark.parametrize(
    ("sentence", "entry"),
    [
        ("-M [matrixfile] the file containing the motif matrices to be used by Pscan_ChIP.", True),
        ("-s [size] the genomic regions size, default is 150bp.", True),
        ("--verbose, -v prints what each step does.", True),
        ("--output=<file> the file the summaries are written to.", True),
        ("-r the BED file with the regions to be analyzed.", True),
        ("The -v option prints what each step does.", False),  # an option named in a sentence
        ("-5 degrees is the coldest the town has been.", False),  # a negative number
        ("- A list item set with its dash.", False),
        ("e-mail reaches the office within a minute.", False),
        ("-He went home, and nobody asked why.", False),  # dialogue set without a space
        ("--The council said on Monday that it would appeal.", False),
        ("-Revenue grew 12% this quarter.", False),  # a bullet set without a space
        ("-based approaches read the whole text.", False),
    ],
)
def test_a_command_line_option_s_entry_is_no_sentence(sentence, entry):
    assert option_entry(sentence) is entry


def test_an_option_s_entry_is_taken_last():
    sentences = [
        "-M [matrixfile] the file containing the motif matrices to be used by the program.",
        "The program finds the motifs that are over-represented in the regions.",
        "It needs a genome in its own format.",
    ]
    assert select_sentences(sentences, range(3), [0.9, 0.5, 0.4], SelectionConfig(k=2)) == [1, 2]


def test_labelled_entries_and_code_are_taken_last():
    sentences = [
        "Apple: over 75,000 nodes storing over 10 PB of data.",
        "new SavePrsm(prsmGraph) (save_prsm.js) savePrsmObj.main() redraws the graph.",
        "Cassandra replicates each row to three nodes.",
        "A read asks the closest replica first.",
    ]
    scores = [0.9, 0.8, 0.5, 0.4]
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=2)) == [2, 3]
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=4)) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "fragment",
    ["Third institution, the second for Charlie Author", "Fast offline summaries", "Installation", "as shown in [3]"],
)
def test_a_sentence_without_an_end_mark_is_taken_last(fragment):
    # A paper's affiliation line, a README's list item, a heading, text cut short.
    sentences = [fragment, "The tool summarizes files offline.", "It reads PDFs too.", "Models are small."]
    scores = [0.9, 0.5, 0.4, 0.3]
    assert unended(fragment)
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=2)) == [1, 2]
    assert select_sentences(sentences, range(4), scores, SelectionConfig(k=4)) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "sentence",
    [
        "He left.",
        'He said "no."',
        "Really?!",
        "Wait…",
        "**Done.**",
        "他走了。」",
        "यह काम है।",
        "هل جاء؟",
        "It grew.[12]",
        "It grew in 2019.¹",
        'said Kaka, who will be 36 in 2018. "',
        "It grew fast.[citation needed]",
        "Er sagte: „Das ist gut.“",
        "Han sagde: »Vi sænker skatterne.«",
    ],
)
def test_end_marks_of_every_script_end_a_sentence(sentence):
    assert not unended(sentence)


@pytest.mark.parametrize(
    "item",  # clippy's README: list items that go on from the sentence that introduces them
    ["all lints using both the clippy and clippy::pedantic lint groups (#![deny(clippy::all)]).", "only some lints."],
)
def test_a_sentence_beginning_with_a_lower_case_stop_word_is_taken_last(item):
    sentences = ["You can add options to your code to deny Clippy lints.", item, "Warnings then fail the build."]
    assert select_sentences(sentences, range(3), [0.5, 0.9, 0.4], SelectionConfig(k=2)) == [0, 2]
    assert select_sentences(sentences, range(3), [0.5, 0.9, 0.4], SelectionConfig(k=3)) == [0, 1, 2]


@pytest.mark.parametrize(
    "rest",  # a quotation or an aside cut from its start: the stop word after its opening mark
    ['"the best day of my life," he said.', "(only the first two rounds count.)", "\u201cthe rest can wait.\u201d"],
)
def test_a_stop_word_after_an_opening_quote_or_bracket_is_taken_last(rest):
    sentences = ["The coach praised the team.", rest, "The club won the cup."]
    assert select_sentences(sentences, range(3), [0.5, 0.9, 0.4], SelectionConfig(k=2)) == [0, 2]


@pytest.mark.parametrize(
    ("sentence", "begins"),
    [
        ("« les meilleurs jours », dit-il.", True),  # French quotes, with their spaces
        ("\u2019s route to the final was easy.", True),  # a word cut from its start: "s"
        ("( only the first rounds count. )", True),
        ("pyenv lets you switch versions.", False),  # a name in lower case
        ("The rest can wait.", False),
        ("...", False),
        ("", False),
    ],
)
def test_begins_lower_reads_past_quotes_brackets_and_apostrophes(sentence, begins):
    assert begins_lower(sentence, {"les", "s", "only", "the"}) is begins


@pytest.mark.parametrize(
    ("sentences", "expected"),
    [
        ([], False),
        (["2019: 3.4%", "..."], False),  # no letter with case
        (["我们使用这个模型。", "效果很好。"], False),  # a script without case
        (["A start.", "b.", "c."], True),  # exactly a third
        (["A start.", "b.", "c.", "d."], False),
        (["2019 was good.", "it grew.", "it fell.", "It held."], False),  # the first letter with case counts
    ],
)
def test_cased_counts_the_first_letter_with_case_of_each_sentence(sentences, expected):
    assert cased(sentences) is expected


def test_a_document_is_cased_when_a_third_of_its_sentences_begin_with_a_capital():
    # written without capitals but for a name or two: not sentence case, nothing deferred
    notes = ["the council met on monday.", "it approved NASA's plan.", "the vote was close.", "Anna abstained."]
    assert select_sentences(notes, range(4), [0.9, 0.5, 0.1, 0.2], SelectionConfig(k=1)) == [0]
    # a paper whose formulas begin most lines in lower case is still written in sentence case
    paper = [
        "Language models predict words.",
        "p(w i |w i-1 )",
        "i |w i-1 ) is the model.",
        "where ρ is small.",
        "It ends.",
    ]
    assert select_sentences(paper, range(5), [0.1, 0.2, 0.9, 0.3, 0.05], SelectionConfig(k=1)) == [0]


def test_names_in_lower_case_and_lower_case_documents_stay_candidates():
    readme = ["pyenv lets you switch between versions of Python.", "It is simple.", "Install it with Git."]
    assert select_sentences(readme, range(3), [0.9, 0.1, 0.5], SelectionConfig(k=1)) == [0]
    # training text can be all lower case: there a stop word begins sentences like any word
    lowered = ["the council approved the budget .", "it funds two schools .", "work starts in may ."]
    assert select_sentences(lowered, range(3), [0.9, 0.5, 0.1], SelectionConfig(k=1)) == [0]
    # the stop words are the model's language's: a language without a stop list defers none
    items = ["Deny lints in your code.", "the whole set of lints (deny all).", "Warnings fail the build."]
    assert select_sentences(items, range(3), [0.5, 0.9, 0.1], SelectionConfig(k=1)) == [0]
    assert select_sentences(items, range(3), [0.5, 0.9, 0.1], SelectionConfig(k=1), language="malayalam") == [1]
