"""Deterministic meaning checks: numbers kept, nothing left out (the ``numbers`` and ``omission``
flags).

The structural checks (fastdesk.translate.checks) say nothing about meaning: an answer that
turns "30 days" into "3 days" or drops a sentence keeps every code span and link. These two look
at the prose alone, cost nothing and run on every answer beside them:

* ``numbers`` (fastdesk.translate.number_check, its words for numbers, scales and units in
  number_words): every number, date, time, version and unit of the source is in the answer, in
  whatever form the target language writes it, and the answer adds no figure the source has in
  no form.
* ``omission`` (fastdesk.translate.omission_check): no sentence dropped, none left in the
  source language, no part in brackets left out, no credit (an outlet, a byline:
  fastdesk.translate.credits), and the answer not far shorter than a translation into its
  language takes.

Both were measured against professional annotators (WMT's MQM human evaluation:
benchmarks/bench_meaning.py, docs/quality.md).
"""

from __future__ import annotations

from fastdesk.translate.number_check import extract, numbers_problem
from fastdesk.translate.omission_check import omission_problem, sentences

__all__ = ["extract", "numbers_problem", "omission_problem", "sentences"]
