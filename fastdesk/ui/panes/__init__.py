"""The editors: the Markdown source, the raw and rendered target, their highlighting and the
scrolling that keeps them side by side.

Modules:

- ``render``: what the target panes show, without Qt: segments, their diff, their HTML
- ``source_editor``: the Markdown source pane
- ``target_editor``: the raw target pane, where the reviewer corrects
- ``preview``: the rendered target pane, updated block by block
- ``incremental``: target panes that converge to the wanted segments a slice at a time
- ``decorations``: a block's expansion and context, added to its Markdown
- ``run_starts``: where each block's run starts, and its group frame (no Qt)
- ``runs``: how a block's run of paragraphs lies in the rendered document
- ``stand_ins``: a long first fill's stand-ins, rendered afterwards
- ``kept_view``: the rendered view kept where its reader is while a step edits it
- ``repaint``: a pane's repaints after its own edits, sent once
- ``extents``: where the rendered view's blocks lie in pixels
- ``queued_marks``: the "queued, about 12 s" mark on a waiting block
- ``underlines``: the reviewer model's errors underlined in a target pane
- ``highlighter``: Markdown syntax colouring
- ``sync_scroll``: side by side: scrolling and the block under the cursor
- ``read_only``: what the rendered translation says about itself
- ``links``: links clicked in a rendered pane
- ``images``: images in the rendered target, read only when sane
- ``elided``: text that fits its width, whole on hover
- ``theme``: light and dark themes
- ``common``: what the panes share: palette, font, scroll bars, text, signals, frame
- ``accessible``: the rendered translation as an accessible document of plain text
- ``contrast``: colours readable on their background (WCAG AA)
"""
