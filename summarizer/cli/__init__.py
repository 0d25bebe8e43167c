"""The `summarize` command: `command` (arguments to outputs), `arguments` (shared options, exit
statuses, signals), `files` (outputs that appear whole or not at all) and `corpus` (tables of
documents, on Ray Data with `--ray`)."""
