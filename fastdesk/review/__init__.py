"""The review of a translation: who wrote each block and whether it was checked, its sidecar,
crash-safe autosave, and export of the target and a bilingual page."""
