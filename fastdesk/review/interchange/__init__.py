"""A document's review in the formats translation tools read and write: XLIFF 1.2 and PO.

Both go through the same units (``units``): one per translatable block, its id the block id,
its source and target the block's text without the surrounding blank lines, Markdown and all,
byte for byte.

Modules:

- ``units``: blocks as translation units, and units back into the review
- ``xliff``: XLIFF 1.2, written and read with the standard library
- ``po``: PO (gettext) files through polib
"""
