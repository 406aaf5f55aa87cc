"""Who answers a request: the router (measured ranking, fallback), provider health, speed
statistics, prices and what requests cost."""
