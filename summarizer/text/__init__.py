"""Text utilities both sides share: files to running text, paragraphs, sentences, words, centrality.

The flow of a document: `documents` (a file's format to running text; `pdf`, `latex`, `word`,
`notebook`, `ebook` and `mail` read those formats) -> `layout` (plain text to
paragraphs) -> `sentences` (Punkt) -> `centrality` (lexical centrality features); `words` are
the words ROUGE, trigram blocking and the oracle compare.
"""
