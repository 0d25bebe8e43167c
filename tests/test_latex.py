"""LaTeX sources read as their typeset text reads (`summarizer.readers.latex`)."""

from __future__ import annotations

import pytest

from summarizer.errors import InputError
from summarizer.readers import Document, format_of
from summarizer.readers.latex.citations import bib_references
from summarizer.readers.latex.render import MAX_EXPANSION_DEPTH

PAPER = r"""\documentclass{article}
\usepackage{amsmath}
\usepackage{natbib}
\let\oldemph\emph
\newcommand{\ours}{\textsc{GraphPrior}\xspace}
\newcommand{\eg}{e.g.\xspace}
\newcommand{\note}[1]{\textbf{Note:} #1}
\newcommand{\scope}[1][The method]{#1 of this paper}
\DeclareMathOperator{\tw}{tw}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}[theorem]{Lemma}
\newif\ifdraft
\draftfalse
\title{When Does a Laplacian Prior Help?}
\author{Ada Author \\ University of Somewhere}
\begin{document}
\maketitle
\begin{abstract}
Latent world models often regularize their latent space with priors that ignore structure.
We compare three priors in one fixed model \cite{ha2018,hafner2020}.
\end{abstract}

\input sections/intro

\section{Method}\label{sec:method}
We describe \ours in detail, \eg its loss in Eq.~\eqref{eq:loss}. As \citet{bardes2022vicreg} show,
a covariance penalty prevents collapse.\footnote{Collapse means that every input maps to one point.}
% A line of comment inside the paragraph.
\scope{} is simple; \scope[The prior] is cheap. \note{The weight is fixed.}
The loss is
\begin{equation}\label{eq:loss}
\mathcal{L} = \| z - f(z) \|^2 + \lambda z^\top L z,
\end{equation}
where $\lambda \ne 0$ weighs the prior against the prediction error, as detailed in \cite{hockney1988}.
Smith et al.~\cite{smith2020} agree (\cite{ha2018}).\todo{Cite the newer survey.}

\subsection{Setup}\label{sec:setup}
Figure~\ref{fig:main} and \autoref{tab:main} show the results,
which \cref{fig:main,tab:main} sum up; \cref{fig:b} is the second panel.
\begin{figure}[t]
\centering
\begin{subfigure}{0.4\textwidth}\includegraphics{a.pdf}\caption{First.}\label{fig:a}\end{subfigure}
\begin{subfigure}{0.4\textwidth}\includegraphics{b.pdf}\caption{Second.}\label{fig:b}\end{subfigure}
\caption{Rollout error by horizon, lower with the prior.}\label{fig:main}
\end{figure}
\begin{table}[t]\caption{Main results by domain.}\label{tab:main}
\begin{tabular}{cc} Domain & Error \\ Aspirin & 0.12 \\ \end{tabular}
\end{table}
\begin{align}
a &= b \label{eq:first} \\
c &= d \nonumber \\
e &= f \label{eq:third}
\end{align}
Rows (\ref{eq:first}) and (\ref{eq:third}) are numbered; the treewidth $\tw(G)$ is at most 5 at \SI{20}{\percent} load.
\begin{theorem}\label{thm:main}
Every stable graph helps the prior.
\end{theorem}
\begin{lemma}\label{lem:key}
The prior is convex.
\end{lemma}
By \cref{thm:main} and Lemma~\ref{lem:key}, see page~\pageref{thm:main}, the claim holds.
\iffalse
This paragraph was cut before submission.
\fi
\ifdraft
A draft note that the final version hides.
\else
The final version says this.
\fi
\begin{itemize}
\item The prior helps when the graph is stable.
\item[Caveat] It hurts when the graph changes quickly.
\end{itemize}
\begin{verbatim}
print("code is not running text.")
\end{verbatim}
\appendix
\section{Proofs}\label{app:proofs}
The bound of Section~\ref{sec:setup} holds, as Appendix~\ref{app:proofs} and \ref{sec:unknown} show.
The code is at \url{https://example.org/graph_prior} and on \href{https://example.org}{our site}.
\bibliographystyle{plainnat}
\bibliography{references}
\end{document}
This text after the document's end is never typeset.
"""
INTRO = r"""\section{Introduction}\label{sec:intro}
World models predict ``future latent states'' instead of pixels~\cite{lecun2022}. The na\"ive
approach needs $\mathcal{O}(n^2)$ memory for $n$ nodes, 100\% of the time. Its update is
\begin{equation}
z_{t+1} = f(z_t)
\end{equation}
"""
BIB = r"""@article{ha2018,
  author = {Ha, David and Schmidhuber, J{\"u}rgen},
  title = {World Models},
  year = 2018,
}
@inproceedings{bardes2022vicreg,
  title = "{VICReg}: Variance-Invariance-Covariance Regularization",
  author = "Bardes, Adrien and Ponce, Jean and LeCun, Yann",
  year = "2022"}
@book{hockney1988, author = {Roger W. Hockney and James W. Eastwood}, year = {1988}}
"""


def _paragraphs(tmp_path, paper=PAPER, intro=INTRO):
    (tmp_path / "sections").mkdir(exist_ok=True)
    (tmp_path / "sections" / "intro.tex").write_text(intro)
    (tmp_path / "references.bib").write_text(BIB)
    (tmp_path / "main.tex").write_text(paper)
    return list(Document.from_file(tmp_path / "main.tex").paragraphs)


def test_latex_is_read_by_extension():
    assert format_of("paper.tex") == format_of("paper.ltx") == "latex"


def test_the_body_reads_as_typeset_without_its_apparatus(tmp_path):
    text = "\n".join(_paragraphs(tmp_path))
    assert text.startswith("Latent world models often regularize")  # no title, author or preamble
    for gone in ("Laplacian Prior Help", "Ada Author", "Method", "Setup", "Rollout error", "Main results",
                 "First.", "Aspirin", "cut before submission", "draft note", "code is not running", "never typeset",
                 "references", "plain", "Collapse means", "comment", "newer survey", "oldemph", "\\", "{", "}",
                 "<cit.>", "$"):  # fmt: skip
        assert gone not in text, gone
    assert "The final version says this." in text


def test_parenthetical_citations_go_and_citations_a_sentence_needs_read_as_authors_and_year(tmp_path):
    text = "\n".join(_paragraphs(tmp_path))
    assert "We compare three priors in one fixed model." in text
    assert "instead of pixels. The naïve" in text
    assert "As Bardes et al. (2022) show, a covariance penalty prevents collapse. The method" in text
    assert "as detailed in Hockney and Eastwood (1988)." in text
    assert "Smith et al. agree." in text  # no "et al..", no "()"


def test_references_print_the_numbers_latex_would(tmp_path):
    text = "\n".join(_paragraphs(tmp_path))
    assert "its loss in Eq. (2)." in text  # the introduction's equation is (1)
    assert "Figure 1 and Table 1 show the results, which Figure 1 and Table 1 sum up; Figure 1b is" in text
    assert "Rows (3) and (4) are numbered" in text  # the align's second row has no number
    assert "By Theorem 1 and Lemma 2 the claim holds." in text  # a lemma shares the theorems' counter
    assert "The bound of Section 2.1 holds, as Appendix A and ?? show." in text


def test_display_math_stays_in_its_sentence_and_a_paragraph_ends_at_its_last_sentence(tmp_path):
    paragraphs = _paragraphs(tmp_path)
    assert "The loss is ℒ = ‖ z - f(z) ‖^2 + λ z^⊤ L z, where λ ≠ 0 weighs the prior" in "\n".join(paragraphs)
    assert "Rows (3) and (4) are numbered" in paragraphs[4][:40]  # after the align, which starts a paragraph
    assert paragraphs[1].endswith("100% of the time.")  # "Its update is z_t+1 = f(z_t)" ends no sentence


def test_the_document_s_commands_math_and_units_are_expanded(tmp_path):
    text = "\n".join(_paragraphs(tmp_path))
    assert "We describe GraphPrior in detail, e.g. its loss" in text
    assert "The method of this paper is simple; The prior of this paper is cheap. Note: The weight is fixed." in text
    assert "the treewidth tw(G) is at most 5 at 20 % load." in text


def test_inline_math_accents_quotes_and_links_read_as_characters(tmp_path):
    text = "\n".join(_paragraphs(tmp_path))
    assert "“future latent states”" in text and "naïve" in text and "𝒪(n^2) memory for n nodes, 100%" in text
    assert "https://example.org/graph_prior and on our site." in text


def test_list_items_and_theorems_are_paragraphs(tmp_path):
    paragraphs = _paragraphs(tmp_path)
    for paragraph in ("The prior helps when the graph is stable.", "Caveat: It hurts when the graph changes quickly.",
                      "Every stable graph helps the prior.", "The prior is convex."):  # fmt: skip
        assert paragraph in paragraphs


def test_bibtex_entries_give_authors_and_year():
    references = bib_references(BIB + "@misc{org, author = {{OpenAI} and others}, date = {2023-03-14}}")
    assert references["ha2018"].cited() == "Ha and Schmidhuber (2018)"
    assert references["bardes2022vicreg"].cited("authors") == "Bardes et al."
    assert references["org"].cited() == "OpenAI et al. (2023)"


def test_inputs_are_read_only_from_inside_the_document_s_directory(tmp_path):
    inside = tmp_path / "paper"
    (inside / "parts" / "deep").mkdir(parents=True)
    (tmp_path / "secret.tex").write_text("The secret plan is hidden here.")
    (inside / "parts" / "one.tex").write_text("An imported part is read.\n\\subimport{deep/}{two}")
    (inside / "parts" / "deep" / "two.tex").write_text("A part it imports is read too.")
    inputs = "\\input{../secret}\n\\input{/etc/hostname}\n\\include{missing}\n\\import{parts/}{one}"
    paper = f"\\begin{{document}}\nThe paper starts here.\n{inputs}\n\\end{{document}}"
    (inside / "main.tex").write_text(paper)
    document = Document.from_file(inside / "main.tex")
    assert document.paragraphs == ("The paper starts here. An imported part is read. A part it imports is read too.",)
    root = inside.resolve()
    assert document.left_out == (  # in the document's order
        f"\\input{{../secret}}: left out: not a file under {root}",
        f"\\input{{/etc/hostname}}: left out: not a file under {root}",
        f"\\include{{missing}}: left out: not a file under {root}",
    )


def test_latex_given_as_text_reads_no_inputs(tmp_path):
    (tmp_path / "intro.tex").write_text("An input file's sentence.")
    paper = "Some text here.\n\\input{intro}\nMore text here."
    document = Document.from_text(paper, "latex")
    assert document.paragraphs == ("Some text here. More text here.",)
    assert document.left_out == ("\\input{intro}: left out: the document was read from text, not from its file",)


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("See Figure~\\ref{f} on page~\\pageref{f} for the plot.", "See Figure ?? on page ?? for the plot."),
        ("The proof (see p.~\\pageref{p}) is short.", "The proof is short."),
        ("The figure, see page \\pageref{p}, shows it.", "The figure shows it."),
        ("The claim holds, see page \\pageref{p}.", "The claim holds."),
        ("The proof is on page \\pageref{p} \\cite{key}, in full.", "The proof is on page ??, in full."),
    ],
)
def test_a_page_reference_goes_with_its_aside(source, text):
    assert Document.from_text(source, "latex").paragraphs == (text,)  # no page number without typesetting


def test_a_command_that_calls_itself_expands_a_bounded_number_of_times(tmp_path):
    (tmp_path / "loop.tex").write_text("\\newcommand{\\loop}{again \\loop}\nIt goes \\loop forever.")
    (paragraph,) = Document.from_file(tmp_path / "loop.tex").paragraphs
    assert paragraph.startswith("It goes again again") and paragraph.endswith("forever.")
    assert paragraph.count("again") == MAX_EXPANSION_DEPTH


def test_latex_nested_past_the_parser_s_depth_is_one_line_naming_the_file(tmp_path):
    (tmp_path / "deep.tex").write_text("{" * 20_000 + "Deep text." + "}" * 20_000)
    with pytest.raises(InputError, match=r"^\S*deep\.tex: not readable LaTeX: ") as error:
        Document.from_file(tmp_path / "deep.tex")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("source", "paragraphs"),
    [
        # \let, and a command defined after it: natbib papers alias \cite so
        (
            "\\let\\cite=\\citep\n\\newcommand{\\sys}{SysX}\n"
            "\\begin{document}\nWe present \\sys, a system.\n\\end{document}",
            ["We present SysX, a system."],
        ),
        # \if0 hides up to its \fi; a switch set false hides inside a command's body too
        (
            "\\newif\\ifnotes\n\\notesfalse\n\\newcommand{\\note}[1]{\\ifnotes[#1]\\fi}\n\\begin{document}\n"
            "\\if0 Hidden text. \\fi Shown text.\\note{Hidden note.}\n\\end{document}",
            ["Shown text."],
        ),
        # a list run into its sentence, with enumitem's options
        (
            "Results appeared\n\\begin{itemize*}[label=,mode=unboxed]\\item at SWAT,\\item in JGAA.\\end{itemize*}",
            ["Results appeared at SWAT, in JGAA."],
        ),
        # TeX drops the space after a command's name, but a sentence means one
        (
            "\\newcommand{\\method}{MethodX}\n\\newcommand{\\etal}{\\textit{et al.}}\n"
            "Smith \\etal and \\method is good.",
            ["Smith et al. and MethodX is good."],
        ),
        # display math mid-sentence, and at the start of a paragraph
        (
            "Gravity dominates. The force is\n\\begin{equation} F = ma \\end{equation}\nwhere $m$ is the mass.\n\n"
            "\\[ x = 1 \\]\nThat ends it.",
            ["Gravity dominates. The force is F = ma where m is the mass.", "That ends it."],
        ),
        # citations by author and year: a key that names its authors, brackets that held only a citation
        (
            "\\usepackage{natbib}\n"
            "As \\citet{DraganKohler2014} show, it holds (\\cite{x}). Smith et al.~\\cite{smith2020}.",
            ["As Dragan and Kohler (2014) show, it holds. Smith et al."],
        ),
        (
            "\\usepackage{natbib}\nSee \\cite{DBLP:journals/corr/abs-1810-04805}; \\cite{he2016deep} agrees.",
            ["See [DBLP:journals/corr/abs-1810-04805]; He (2016) agrees."],
        ),
        # numbered citations (LaTeX's own style): by first citation, or by the bibliography's order
        (
            "As \\cite{b} show, it holds \\cite{a}. In \\cite{a}, \\cite{b} and \\cite{c}, it fails. "
            "Lastly, \\cite{c} is close; so.~\\cite{a} Finally, it ends.",
            ["As [1] show, it holds. In [2], [1] and [3], it fails. Lastly, [3] is close; so. Finally, it ends."],
        ),
        (
            "See \\cite{b}.\n\\begin{thebibliography}{9}\\bibitem{a} A. Author. 2020.\\bibitem{b} B. Author."
            "\\end{thebibliography}",
            ["See [2]."],
        ),
        # unbalanced braces and undefined commands read as far as they go
        ("Unbalanced {brace here. More \\undefined text.", ["Unbalanced brace here. More text."]),
    ],
    ids=[
        "let",
        "conditionals",
        "inline-list",
        "command-space",
        "display-math",
        "citations",
        "citation-keys",
        "numbered-citations",
        "bibitem-numbers",
        "unbalanced",
    ],
)
def test_forms_that_papers_use(source, paragraphs):
    assert list(Document.from_text(source, "latex").paragraphs) == paragraphs


def test_a_file_that_reads_itself_in_is_read_once(tmp_path):
    (tmp_path / "loop.tex").write_text("\\begin{document}\n\\input{loop}\nLoop text.\n\\end{document}")
    (tmp_path / "a.tex").write_text("A's text.\n\\input{b}")
    (tmp_path / "b.tex").write_text("B's text.\n\\input{a}")
    (tmp_path / "main.tex").write_text("Main text.\n\\input{a}")
    assert Document.from_file(tmp_path / "loop.tex").paragraphs == ("Loop text.",)
    document = Document.from_file(tmp_path / "main.tex")
    assert document.paragraphs == ("Main text. A's text. B's text.",)
    assert document.left_out == ("\\input{a}: left out: the file reads itself in",)


@pytest.mark.parametrize(
    ("source", "paragraphs"),
    [
        (  # theorems numbered within sections, a lemma on the theorems' counter; equations within sections
            "\\newtheorem{theorem}{Theorem}[section]\n\\newtheorem{lemma}[theorem]{Lemma}\n"
            "\\numberwithin{equation}{section}\n\\begin{document}\n\\section{A}\n\\begin{theorem}x\\end{theorem}\n"
            "\\section{B}\n\\begin{lemma}[Key]\\label{l}It holds.\\end{lemma}\n"
            "\\begin{equation}\\label{e} a = b \\end{equation}\n"
            "By Lemma~\\ref{l} and \\eqref{e}, \\Cref{fb,fa} agree.\n"
            "\\begin{figure}\\caption{x}\\label{fa}\\end{figure}\\begin{figure}\\caption{y}\\label{fb}\\end{figure}\n"
            "\\end{document}",
            ["It holds.", "By Lemma 2.1 and (2.1), Figures 1 and 2 agree."],
        ),
        (  # math as it reads, symbols and names
            "We need $2^{n-2}+1$ graphs like $K_{3,3}$ with $\\neg p$ and $\\arg\\min_x f$, at 50\\,\\euro{}; "
            "\\tablename~1 says \\enquote{no}, for Re\\-ge\\-lung.",
            [
                "We need 2^(n-2)+1 graphs like K_(3,3) with ¬ p and arg min_x f, at 50 €; Table 1 says “no”, for "
                "Regelung."
            ],  # fmt: skip
        ),
        (  # a line of tabs ends a paragraph; display math between two sentences belongs to neither
            "First paragraph.\n\t\nSecond one ends.\n\\[ r_t = 1 \\]\nThird sentence.",
            ["First paragraph.", "Second one ends. Third sentence."],
        ),
        (  # an alignat keeps the sentence that leads into it
            "Definition: we set\n\\begin{alignat}{2} x &= 1 \\end{alignat}\nwhere x is real.",
            ["Definition: we set x = 1 where x is real."],
        ),
        (  # a slide's title, colour, spacing and index commands are no text
            "\\begin{frame}{SST2 Dataset}\nExperiments are run on {\\color{brown}off-policy} data, "
            "z.\\nolinebreak[4]\\hspace{0.125em}\\nolinebreak[4]B. here.\\addcontentsline{toc}{chapter}{Conclusion}"
            "\n\\end{frame}",
            ["Experiments are run on off-policy data, z. B. here."],
        ),
        (  # \xspace before a hyphen is no space
            "\\newcommand{\\kf}{$K_5$\\xspace}\nA \\kf-minor is a \\kf minor.",
            ["A K_5-minor is a K_5 minor."],
        ),
    ],
    ids=["theorems-within-sections", "math-and-names", "paragraphs-and-display", "alignat", "slides", "xspace"],
)
def test_numbers_math_and_layout_as_typeset(source, paragraphs):
    assert list(Document.from_text(source, "latex").paragraphs) == paragraphs


def test_nothing_outside_the_document_s_directory_is_read(tmp_path):
    inside = tmp_path / "paper"
    inside.mkdir()
    (tmp_path / "secret.tex").write_text("The secret plan is hidden here.")
    (tmp_path / "secret.bib").write_text("@article{x2020, author = {Hidden, Sam}, year = 2020}")
    (inside / "link.tex").symlink_to(tmp_path / "secret.tex")
    (inside / "loop1.tex").symlink_to(inside / "loop2.tex")
    (inside / "loop2.tex").symlink_to(inside / "loop1.tex")
    (inside / "main.tex").write_text(
        "\\usepackage{natbib}\n\\begin{document}\nThe paper starts here, see \\cite{x2020}.\n\\input ../secret\n"
        "\\input{link}\n\\input{loop1}\n\\input{" + "x" * 300 + "}\n\\bibliography{../secret}\n\\end{document}"
    )
    assert Document.from_file(inside / "main.tex").paragraphs == ("The paper starts here, see [x2020].",)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({f"f{i}.tex": "".join(f"\\input{{f{i + 1}}}\n" for _ in range(40)) for i in range(6)}, "reads in more than"),
        (
            {
                "f0.tex": "".join(
                    f"\\newcommand{{\\c{a}}}{{{f'{chr(92)}c{b} ' * 10}}}\n" for a, b in zip("abcdefgh", "bcdefghi")
                )
                + "\\ca"
            },
            "its commands expand more than",
        ),  # fmt: skip
    ],
    ids=["inputs-fan-out", "expansion-bomb"],
)
def test_a_document_that_would_grow_without_bound_is_one_line(tmp_path, monkeypatch, files, message):
    monkeypatch.setattr("summarizer.readers.latex.render.MAX_EXPANSIONS", 2_000)  # the bounds, made small
    monkeypatch.setattr("summarizer.readers.latex.source.MAX_INPUTS", 100)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(InputError, match=rf"^\S*f0\.tex: {message}"):
        Document.from_file(tmp_path / "f0.tex")


def test_long_runs_of_spaces_and_code_with_open_braces_read_as_text():
    spaces = "A sentence here." + " " * 20_000 + "~" * 2_000 + "\\," * 2_000 + "Another one."
    assert Document.from_text(spaces, "latex").paragraphs == ("A sentence here. Another one.",)
    code = "Before the code.\n\\begin{lstlisting}\nwhile (1) {\n\\end{lstlisting}\nAfter the code is prose."
    assert Document.from_text(code, "latex").paragraphs == ("Before the code.", "After the code is prose.")


def test_a_command_with_more_arguments_than_tex_allows_is_not_defined():
    source = "\\newcommand{\\foo}[99]{X}\nFirst sentence here. \\foo{a}\n\nSecond paragraph here."
    assert Document.from_text(source, "latex").paragraphs == ("First sentence here.", "Second paragraph here.")


def test_keys_and_gaps_that_patterns_could_loop_on_read_at_once():
    long_key = "\\usepackage{natbib}\nIn \\cite{" + "a" * 60 + "!2020} it holds."
    assert Document.from_text(long_key, "latex").paragraphs == ("In [" + "a" * 60 + "!2020] it holds.",)
    commas = "In \\cite{a}" + "," * 40_000 + " x \\cite{b}."
    assert Document.from_text(commas, "latex").paragraphs[0].startswith("In [1],,,")
    let = "\\let\\a" + " " * 80_000 + "It reads."
    assert Document.from_text(let, "latex").paragraphs == ("It reads.",)


def test_math_text_leaves_no_marks():
    from summarizer.readers.latex import math_text

    assert math_text("x \\xspace + \\cite{a} \\footnote{y}") == "x +"
    assert math_text("\\alpha \\ne 0") == "α ≠ 0"
