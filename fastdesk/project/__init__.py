"""A docs project: a folder of Markdown sources, their targets in several languages (per the
site generator's i18n layout), and what is stale in each, block by block."""
