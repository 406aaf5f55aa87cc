"""Who answers a request: the router (measured ranking, fallback), provider health, speed
statistics, prices and what requests cost.

Modules:

- ``router``: choosing a provider and model for each request, falling back when one fails
- ``choices``: what the router may choose from, from the settings
- ``flight``: one request in flight: its attempts, fallback, hedging, deadlines
- ``events``: what the router streams to the engine, and what hedging cost
- ``retry``: how long a request keeps trying, and waits between tries
- ``health``: which providers and models may be asked now, and why not
- ``stats``: measured speed of every (provider, model), kept across restarts
- ``limiter``: never over the limit: a client-side limiter per provider and model
- ``concurrency``: how many streams may be in flight to one provider and model (AIMD)
- ``shared_budget``: one budget per key, whoever spends it: shared between processes
- ``pace``: how long a document will take at the account's pace
- ``models``: which models a provider serves, with their prices (cached a day)
- ``retired``: a model the server reports as shut down or unknown, replaced
- ``pricing``: prices per provider and model → the cost of a request
- ``costs``: what requests cost: the last, since start, today, the daily budget
"""
