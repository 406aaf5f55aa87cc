"""The main window's frame: menus and actions, the selectors, the status bar, the first-run panel
and the crash-recovery dialog.

Modules:

- ``main_window``: the main window: the frame around one open document
- ``commands``: the table of the window's commands
- ``actions``: actions, menus and toolbar, built from the table
- ``selectors``: mode, target language and provider
- ``status_bar``: the status bar: who answered, how fast, what it cost, errors
- ``news``: what the window shows of the document's session and the engine
- ``first_run``: the first-run panel, while no provider is configured
- ``recovery``: what a crash left behind, offered back
- ``geometry``: the window's geometry as the settings keep it
- ``panels``: the docks: shown, hidden and toggled by their shortcuts
- ``pane_cycle``: F6 / Shift+F6 across the panes and open panels
- ``focus_frame``: the frame around the focused pane or panel
"""
