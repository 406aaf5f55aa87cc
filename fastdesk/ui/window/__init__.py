"""The main window's frame: menus and actions, the selectors, the status bar, the first-run panel
and the crash-recovery dialog."""
