"""Text utilities both sides share: paragraphs, sentences, words, centrality, tables.

The flow of a document: `summarizer.readers` (a file's format to running text) -> `layout`
(plain text to paragraphs) -> `sentences` (Punkt) -> `centrality` (lexical centrality
features); `words` are the words ROUGE, trigram blocking and the oracle compare; `tables` reads
the rows of JSONL, JSON, CSV and Parquet files.
"""
