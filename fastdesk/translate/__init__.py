"""Translating a document: plan what memory cannot answer, pack it into requests, stream the
answers, check them, remember them; the live translator keeps a document current while edited.

Modules:

- ``engine``: plan, pack, route and stream the translation of a document's blocks
- ``job``: what a job produces (``JobSpec``), named without importing the engine
- ``request``: one request of the engine: its messages, its streamed answer, why it failed
- ``planning``: which blocks go to a model, and in which request (a pack)
- ``slots``: request slots served by rank: the engine's limit on requests in flight
- ``parts``: the documents one run shares (a page, its containers' pieces) and their packs
- ``live``: the live translator: one document kept current while it is edited
- ``sending``: when an edit goes to the provider
- ``events``: the events the engine emits (the window and the command line read them)
- ``dialect``: a site generator's document: admonitions and tabs as their pieces
- ``admonitions``: admonition and callout types kept as they are
- ``prompts``: the messages sent to a model; the stripper for thinking aloud
- ``checks``: fidelity checks on an answer: what a translation must keep
- ``meaning_checks``: numbers kept, nothing left out (``number_check`` with
  ``number_words``, ``omission_check``)
- ``number_check``: the ``numbers`` check
- ``number_words``: numbers in words, scale words and units of measure, as values
- ``omission_check``: the ``omission`` check
- ``credits``: a text's credits (outlet, byline, picture source) an answer must keep
- ``consistency``: one source translated several ways, several sources given one
  translation, glossary drift across pages
- ``restore``: what an answer must not change put back (links, code, placeholders)
- ``language``: is an answer a translation at all: its language and length
- ``repeats``: many blocks answered with the same text
- ``quality``: the reviewer model's second opinion, and back-translation
- ``mqm``: MQM review data: errors, their validation, the score
- ``readability``: reading ease before and after simplify
- ``glossary``: terms kept as they are and terms translated one fixed way
- ``glossary_edit``: a forced translation added to a project's glossary file
- ``glossary_formats``: glossaries from translation tools: TBX, CSV, TSV
- ``term_align``: which words of a translation render a source term
- ``style``: house style: a team's instructions to the model
- ``examples``: the editor's corrections as examples for the model
- ``memory``: translation memory (SQLite)
- ``tmx``: the memory as TMX 1.4b
- ``warmup``: a tiny request so the first edit pays no cold start
- ``bench``: the benchmark runner: every (provider, model), the same document
- ``wiring``: an Engine or Router from the settings and the environment
- ``flag_words``: a flag in an editor's words: its plain name and why it matters
"""
