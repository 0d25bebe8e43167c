"""The `summarize` command: `command` (arguments to outputs) and `corpus` (tables of documents, on
Ray Data with `--ray`); the options it shares with the other commands are `summarizer.options`,
its exit statuses and signals `summarizer.console`, its outputs that appear whole or not at all
`summarizer.files`."""
