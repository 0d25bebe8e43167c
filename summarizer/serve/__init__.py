"""`summarize serve`: the summarizer as an HTTP service and a web page (`pip install 'bertsum[serve]'`).

`inputs` turns a request into documents and summary options (each field checked), `runner`
summarizes the requests in hand with the model of the process (its threads, the in-flight
limit), `app` is the Starlette application (routes, JSON errors, the page in `page/`) and
`command` the `summarize serve` command that runs it on uvicorn. docs/serve.md describes the
service.
"""
