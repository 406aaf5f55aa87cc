"""What the app reads from and keeps on this computer: settings, API keys, file locations,
redaction of secrets, logs, model lists, local model servers and safe file I/O.

Modules:

- ``settings``: user settings: one versioned TOML file, never a secret in it
- ``keys``: API keys: the environment, else the OS keyring
- ``paths``: where fastdesk keeps its files (platformdirs, or FASTDESK_HOME)
- ``redact``: API keys kept out of every text fastdesk writes
- ``logs``: logging, every record redacted
- ``local_servers``: a model server on this computer (Ollama), for a first run without a key
- ``fileio``: reading files strictly, writing any file atomically, one line for an OS error
"""
