"""reStructuredText (`summarizer.readers.rst`): READMEs and Sphinx pages as their projects
write them, read for their running text."""

from __future__ import annotations

from test_documents import assert_one_line

from summarizer.readers import Document, format_of
from summarizer.readers.rst import fits

# A Python project's README.rst: badges, a title, a substitution, links, literals, a code block,
# a footnote and a citation, a table, a field list, a comment and a definition list.
README = """\
.. image:: https://img.shields.io/pypi/v/example.svg
   :target: https://pypi.org/project/example

=======
Example
=======

:Author: A. Maintainer
:Version: 1.2

|build| Example parses *calendar* files in **pure Python**, as described in `the RFC
<https://www.rfc-editor.org/rfc/rfc5545>`_ [1]_. It is used by the Census_ office [CIT2020]_.

.. |build| image:: https://ci.example.org/badge.svg

Installation
------------

Install it with ``pip install example``:

.. code-block:: console

   $ pip install example

::

   A literal block sentence is not read.

``example.parse(path)``

.. note:: The parser never opens a network connection.

.. This comment sentence is not read.

+---------------------------+
| A table cell sentence.    |
+---------------------------+

Terms
   A definition's sentence is read, not its term.

- A list item is read too.
- Features

.. [1] A footnote sentence is not read.
.. [CIT2020] A citation sentence is not read.
.. _Census: https://census.example.org
"""


def test_a_readme_reads_as_its_running_text():
    assert format_of("README.rst") == format_of("guide.REST") == "rst"
    assert Document.from_text(README, "rst").paragraphs == (
        "Example parses calendar files in pure Python, as described in the RFC. It is used by the Census office.",
        "Install it with pip install example:",
        "The parser never opens a network connection.",
        "A definition's sentence is read, not its term.",
        "A list item is read too.",
    )


def test_sphinx_roles_read_as_sphinx_shows_them_and_its_directives_are_left_out():
    page = """\
Use :func:`~os.path.join` to join paths, and :meth:`!Path.open` to open one.
See :ref:`the install guide <install>` and :class:`pathlib.Path` for more.

.. versionadded:: 3.1
   A version note is left out with its directive.

.. toctree::
   :maxdepth: 2

   install
"""
    assert Document.from_text(page, "rst").paragraphs == (
        "Use join to join paths, and Path.open to open one. See the install guide and pathlib.Path for more.",
    )


def test_nothing_is_read_from_other_files(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("The secret sentence must not be read.\n")
    page = f"""\
The page's own sentence is read.

.. include:: {secret}

.. raw:: html
   :file: {secret}

.. csv-table::
   :file: {secret}
"""
    assert Document.from_text(page, "rst").paragraphs == ("The page's own sentence is read.",)


def test_markup_errors_are_read_as_docutils_reads_them_without_a_report(capsys):
    page = "An *unended emphasis reads as written.\n\n.. unknown-directive::\n\nThe rest is read.\n"
    assert Document.from_text(page, "rst").paragraphs == (
        "An *unended emphasis reads as written.",
        "The rest is read.",
    )
    assert capsys.readouterr().err == ""


def test_a_binary_rst_file_is_one_line(tmp_path):
    assert_one_line(tmp_path / "README.rst", b"\x00\x01binary", "binary file, not text")


def test_long_lines_headers_math_and_menus():
    page = (
        ".. header:: Draft, do not circulate.\n\n"
        "The parser is fast. It solves :math:`\\alpha \\ne 0` in :menuselection:`Tools --> &Solve`.\n\n"
        f"::\n\n    {'x' * 12_000}\n\n"  # a line longer than docutils' own limit
        "It has no dependencies at all.\n"
    )
    assert Document.from_text(page, "rst").paragraphs == (
        "The parser is fast. It solves α ≠ 0 in Tools ‣ Solve.",
        "It has no dependencies at all.",
    )


def test_a_surrogate_is_a_replacement_character_not_a_crash():
    page = "It was written in |x| by volunteers.\n\n.. |x| unicode:: U+DFFF\n"
    assert Document.from_text(page, "rst").paragraphs == ("It was written in \ufffd by volunteers.",)


def test_a_document_docutils_would_read_slowly_is_read_as_plain_text():
    marks = "".join(f"word :a:`b{i}\n" for i in range(3_000)) + "\nThe end of the page is read.\n"
    assert not fits(marks)  # a paragraph of unclosed roles takes docutils time that grows as its square
    assert Document.from_text(marks, "rst") == Document.from_text(marks, "text")
    footnotes = "".join(f"Text {i} [#]_.\n\n.. [#] Note {i}.\n\n" for i in range(20_000))
    assert not fits(footnotes)
