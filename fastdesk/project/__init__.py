"""A docs project: a folder of Markdown sources, their targets in several languages (per the
site generator's i18n layout), and what is stale in each, block by block.

Modules:

- ``layout``: where a docs project keeps its sources and each language's targets
- ``house``: a document's house: its project, glossary, house style and corrections
- ``status``: what is stale, per source file and language (``fastdesk status``, the panel)
- ``sync``: one source file in one language: its record, what is stale, the target
- ``run``: translating a project: the stale or missing blocks of every (file, language)
- ``batch_run``: a run's requests captured for a Batch API job, its answers taken in as live
- ``batch_jobs``: the project's Batch API jobs (``.fastdesk/batches.json``) and their answers
- ``batch_flow``: the jobs step by step (plan, submit, refresh), for the command and the window
- ``record``: what fastdesk last wrote to each target file
- ``links``: relative links and images that keep working from the target's folder
- ``fragments``: Hugo: link fragments rewritten to the moved anchors, in Hugo's link syntax
- ``confine``: one root every path of a run must lie in
- ``lock``: one run per project at a time
- ``categories``: Docusaurus ``_category_.json`` labels, translated into ``i18n/<lang>``
- ``theme_strings``: Docusaurus' ``code.json``, navbar and footer strings, translated in place
- ``nav``: MkDocs ``nav`` titles, translated into mkdocs-static-i18n's ``nav_translations``
- ``mkdocs_config``: an MkDocs configuration's anchor settings and navigation, as text
- ``anchors``: a page's anchors in the source and its translation (MkDocs headings and tabs,
  Hugo terms): the one model every target's links follow
"""
