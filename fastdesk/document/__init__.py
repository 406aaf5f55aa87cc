"""The document: Markdown split into blocks with exact spans and put back byte for byte, the
target assembled from per-block answers, and the language codes both sides name.

Modules:

- ``blocks``: Markdown → blocks with exact source spans, and back (byte-exact)
- ``dialects``: a site generator's Markdown dialect: the lines that are only its syntax
- ``target``: a target text with the span of each source block in it
- ``html``: Markdown → HTML: the one renderer of the rendered view and the HTML export
- ``outline``: a document's headings, from the block parse
- ``find``: find and replace in a text (the find bar's rule, without Qt)
- ``languages``: the BCP-47 codes the app offers, with English names
- ``text_ends``: how long a start and an end two texts share
- ``word_diff``: what changed between two versions of a block, word by word
- ``verbatim``: the spans that are code, link targets, URLs or identifiers (find skips them)
- ``syntax``: what a site generator reads as syntax inside a block, kept from the model
"""
