"""`python -m summarizer.evaluate`: see `summarizer.training.evaluate`."""

from summarizer.training.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main())
