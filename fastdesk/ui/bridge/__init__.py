"""Between the engine and the widgets: the worker thread that owns the engine, what it delivers
to the window, and the threading helpers (GC on the GUI thread, paced loop).

Modules:

- ``worker``: the one background thread that owns the engine (``EngineWorker``)
- ``translators``: the ``Translator`` the worker runs, and the app's own engine
- ``pane_translators``: second target panes' live translators, by the pane's key
- ``delivery``: what the worker sends the window (``Delivery``), put together
- ``outbox``: the events and notices the next delivery carries
- ``sent_document``: the document as last sent to the window
- ``throttle``: when the next delivery goes
- ``engine_news``: what a delivery says of the router: providers, health, when usable
- ``estimate``: how long the document will take, from the engine's plans
- ``warming``: warm-ups, and the language check loaded at start
- ``tasks``: the worker's own tasks and its shutdown steps
- ``threads``: an asyncio loop off the GUI thread, garbage collection kept on it
"""
